"""Legibility checks of one rendered map, read from its render record (the map JSON): issue 14's rules.

Each check that fails is a named flag (:data:`CHECKS`). *Region* checks name the regions (or legend entries, and
through them their regions) a person cannot read; the build passes :func:`vet` to the renderer, which marks those
regions illegible (``legible: false`` with their ``audit_flags``) before the map JSON is written, so no question
hinges on them (ARCHITECTURE.md §4). *Map* checks (title, label size) are reported only: they do not make one
region unreadable.

- ``fill like background``: a legible region's fill within CIEDE2000 :data:`BACKGROUND_DE` of the background
  (colour maps; hatched maps are read by their pattern), unless the legend is ``outlined``: the renderer then
  edges every page-like region and swatch with the map's outline (:func:`mapgen.legend.page_like`);
- ``no N/A key``: a region without data but no N/A entry in the legend (the N/A regions fail);
- ``legend outside canvas``: a legend item (swatch, label, colour bar, tick label) leaves the image (the regions
  of that class fail; a colour bar or a tick label: every region with data);
- ``class colours too close``: two class colours (or a class and the N/A fill) closer than the palette rule of
  :mod:`mapgen.legend.colors` (``MIN_DELTA_E``, adjacent classes ``MIN_ADJACENT_DELTA_E``);
- ``labels overlap``: two region label boxes intersect (both regions fail);
- ``leader crosses label``: a callout's leader line crosses another label's box (both regions fail);
- ``legend labels overlap`` (two legend labels or colour-bar tick labels intersect), ``title outside canvas`` /
  ``title truncated`` (ends in an ellipsis) and ``label too small`` (a region label's text is shorter than
  :data:`MIN_LABEL_PX` at 800 px width, scaled with the width) — map flags.

Figures kept per map for the report's worst-cases page (:func:`MapChecks.metrics`): the smallest fill/background
and class/class ΔE, the number of callouts, the smallest label height.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from shapely.geometry import LineString, box

from mapgen.legend import Legend, delta_e, page_like
from mapgen.legend.colors import MIN_ADJACENT_DELTA_E, MIN_DELTA_E
from mapgen.spec import background_color

#: A legible region's fill must differ from the background by at least this CIEDE2000 (issue 14, Done when).
BACKGROUND_DE = 5.0
#: Region label text height (the label box less its 1 px padding) at 800 px image width; scales with the width.
MIN_LABEL_PX = 12.0
LABEL_BOX_PAD_PX = 1.0
#: Slack for boxes on the canvas edge (anti-aliased coordinates).
EDGE_TOL_PX = 0.5

REGION_CHECKS = ("fill like background", "no N/A key", "legend outside canvas", "class colours too close",
                 "labels overlap", "leader crosses label")
MAP_CHECKS = ("legend labels overlap", "title outside canvas", "title truncated", "label too small")
CHECKS = REGION_CHECKS + MAP_CHECKS


@dataclass
class MapChecks:
    """Failed checks of one map: map flags, failing regions with their flags, figures and details."""

    flags: list[str] = field(default_factory=list)
    regions: dict[str, list[str]] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def fail(self, flag: str, codes: Iterable[str] = (), detail: Any = None) -> None:
        """Record a failed check (and the regions it makes unreadable)."""
        if flag not in self.flags:
            self.flags.append(flag)
        for code in codes:
            self.regions.setdefault(code, [])
            if flag not in self.regions[code]:
                self.regions[code].append(flag)
        if detail is not None:
            self.details.setdefault(flag, []).append(detail)

    def to_dict(self) -> dict[str, Any]:
        order = {name: i for i, name in enumerate(CHECKS)}
        return {"flags": sorted(self.flags, key=order.__getitem__),
                "failed_regions": {c: sorted(f, key=order.__getitem__) for c, f in sorted(self.regions.items())},
                "metrics": self.metrics, "details": self.details}


@dataclass(frozen=True)
class MapFacts:
    """What the checks read from a render record."""

    legend: Legend
    background: str
    values: dict[str, float | None]
    drawn_legible: dict[str, bool]
    width: int
    height: int
    record: Mapping[str, Any]

    def missing(self, code: str) -> bool:
        v = self.values.get(code)
        return v is None or (isinstance(v, float) and math.isnan(v))

    def codes_of_class(self, index: int | None) -> list[str]:
        return [c for c in self.values if (None if self.missing(c) else self.legend.class_of(self.values[c])) == index]


def map_facts(record: Mapping[str, Any]) -> MapFacts:
    """The legend, background, values and the renderer's own legibility (before any audit flag) of a record."""
    spec = record["spec"]
    regions = record["regions"]
    values = {c: spec["values"].get(c) for c in regions}
    drawn = {c: bool(r.get("legible", True)) or bool(r.get("audit_flags")) for c, r in regions.items()}
    return MapFacts(Legend.from_dict(spec["legend"]), background_color(spec["style"]["background"]), values,
                    drawn, int(record["render"]["width"]), int(record["render"]["height"]), record)


def check_record(record: Mapping[str, Any]) -> MapChecks:
    """Every check of :data:`CHECKS` on one render record."""
    facts, out = map_facts(record), MapChecks()
    check_fills(facts, out)
    check_na_key(facts, out)
    check_legend_inside(facts, out)
    check_legend_texts(facts, out)
    check_class_colours(facts, out)
    check_labels(facts, out)
    check_title(facts, out)
    return out


def vet(record: Mapping[str, Any]) -> dict[str, list[str]]:
    """The regions a person cannot read on this map, with the failed checks (the renderer's ``vet`` hook)."""
    return check_record(record).regions


# ------------------------------------------------------------------------------------------------ colours


def check_fills(facts: MapFacts, out: MapChecks) -> None:
    """Legible regions whose fill is within BACKGROUND_DE of the background (colour maps only)."""
    if facts.legend.hatched:
        out.metrics["min_background_de"] = None
        return
    worst: tuple[float, str | None] = (math.inf, None)
    for code, legible in facts.drawn_legible.items():
        if not legible:
            continue
        fill = facts.legend.color_of(facts.values.get(code))
        if facts.legend.outlined and page_like(fill, facts.background):
            continue  # drawn outlined: it reads as a region, not as paper
        de = delta_e(fill, facts.background)
        worst = min(worst, (de, code))
        if de < BACKGROUND_DE:
            out.fail("fill like background", [code], {"region": code, "delta_e": round(de, 2)})
    out.metrics["min_background_de"] = None if worst[1] is None else round(worst[0], 2)
    out.metrics["min_background_region"] = worst[1]


def check_na_key(facts: MapFacts, out: MapChecks) -> None:
    """Regions without data need an N/A entry in the legend."""
    missing = [c for c in facts.values if facts.missing(c)]
    has_key = any("class" in item and item["class"] is None for item in facts.record.get("legend_items", []))
    if missing and not has_key:
        out.fail("no N/A key", missing, {"regions": missing})


def check_class_colours(facts: MapFacts, out: MapChecks) -> None:
    """Class colours (and the N/A fill when used) pairwise at least MIN_DELTA_E apart (adjacent classes
    MIN_ADJACENT_DELTA_E); hatched and continuous legends are read by pattern / along the bar."""
    legend = facts.legend
    if legend.kind != "discrete" or legend.hatched:
        out.metrics["min_class_de"] = None
        return
    named: list[tuple[int | None, str]] = [(c.index, c.color) for c in legend.classes]
    if any(facts.missing(c) for c in facts.values):
        named.append((None, legend.na_color))
    best: tuple[float, list[Any]] = (math.inf, [])
    for (ia, ca), (ib, cb) in combinations(named, 2):
        de = delta_e(ca, cb)
        best = min(best, (de, [ia, ib]), key=lambda t: t[0])
        adjacent = ia is not None and ib is not None and abs(ia - ib) == 1
        if de < (MIN_ADJACENT_DELTA_E if adjacent else MIN_DELTA_E):
            codes = facts.codes_of_class(ia) + facts.codes_of_class(ib)
            out.fail("class colours too close", codes, {"classes": [ia, ib], "delta_e": round(de, 2)})
    out.metrics["min_class_de"] = None if not best[1] else round(best[0], 2)
    out.metrics["closest_classes"] = best[1]


# ------------------------------------------------------------------------------------------------ layout


def overlap(a: Iterable[float], b: Iterable[float]) -> bool:
    """Whether two pixel boxes (x1, y1, x2, y2) share some area (touching edges do not count)."""
    ax1, ay1, ax2, ay2 = a
    bx1, by1, bx2, by2 = b
    return min(ax2, bx2) > max(ax1, bx1) and min(ay2, by2) > max(ay1, by1)


def outside(b: Iterable[float], width: int, height: int) -> bool:
    """Whether a pixel box leaves the ``width`` × ``height`` canvas."""
    x1, y1, x2, y2 = b
    return x1 < -EDGE_TOL_PX or y1 < -EDGE_TOL_PX or x2 > width + EDGE_TOL_PX or y2 > height + EDGE_TOL_PX


def check_legend_inside(facts: MapFacts, out: MapChecks) -> None:
    """Every legend item (swatch and label, colour bar, tick label) inside the canvas."""
    valued = [c for c in facts.values if not facts.missing(c)]
    for item in facts.record.get("legend_items", []):
        b = item.get("box") or item.get("colorbar") or item.get("text_box")
        if b is None or not outside(b, facts.width, facts.height):
            continue
        codes = facts.codes_of_class(item["class"]) if "class" in item else valued
        out.fail("legend outside canvas", codes, {"label": item.get("label", "colour bar"), "box": b})


def legend_text_boxes(items: Iterable[Mapping[str, Any]]) -> list[tuple[str, list[float]]]:
    """(label, pixel box of its text) of every legend entry and colour-bar tick label."""
    out = []
    for item in items:
        if "text_box" in item:
            out.append((item["label"], item["text_box"]))
        elif "swatch" in item and "box" in item:
            out.append((item["label"], [item["swatch"][2], *item["box"][1:]]))
    return out


def check_legend_texts(facts: MapFacts, out: MapChecks) -> None:
    """Legend labels (entries, colour-bar ticks) pairwise disjoint."""
    texts = legend_text_boxes(facts.record.get("legend_items", []))
    for (la, a), (lb, b) in combinations(texts, 2):
        if overlap(a, b):
            out.fail("legend labels overlap", detail={"labels": [la, lb]})


def check_title(facts: MapFacts, out: MapChecks) -> None:
    """Title lines inside the canvas and not cut with an ellipsis."""
    for line in facts.record.get("title", []):
        if outside(line["box"], facts.width, facts.height):
            out.fail("title outside canvas", detail={"text": line["text"], "box": line["box"]})
        if line["text"].endswith("…"):
            out.fail("title truncated", detail={"text": line["text"]})


def label_height(label: Mapping[str, Any]) -> float:
    """Height in pixels of a label's text (its recorded box less the padding)."""
    return label["box"][3] - label["box"][1] - 2 * LABEL_BOX_PAD_PX


def check_labels(facts: MapFacts, out: MapChecks) -> None:
    """Label boxes pairwise disjoint, leader lines clear of other labels, label text tall enough."""
    labels = facts.record.get("labels") or {}
    out.metrics["callouts"] = sum(label.get("kind") == "callout" for label in labels.values())
    out.metrics["labels"] = len(labels)
    if not labels:
        out.metrics["min_label_px"] = None
        return
    for a, b in combinations(sorted(labels), 2):
        if overlap(labels[a]["box"], labels[b]["box"]):
            out.fail("labels overlap", [a, b], {"labels": [a, b]})
    boxes = {c: box(*label["box"]) for c, label in labels.items()}
    for code, label in sorted(labels.items()):
        if len(label.get("line") or ()) < 2:
            continue
        line = LineString(label["line"])
        for other, b in sorted(boxes.items()):
            if other != code and line.intersects(b):
                out.fail("leader crosses label", [code, other], {"leader": code, "label": other})
    low = min(labels, key=lambda c: label_height(labels[c]))
    height = round(label_height(labels[low]), 1)  # boxes sit at fractional positions: 13.9999 is 14 px
    out.metrics["min_label_px"] = height
    out.metrics["min_label_region"] = low
    if height < MIN_LABEL_PX * facts.width / 800:
        out.fail("label too small", detail={"region": low, "px": round(height, 1)})
