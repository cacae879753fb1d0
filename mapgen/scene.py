"""Scene: the computed facts about one map — the only thing question programs and captions read.

Built from a :class:`MapSpec` (values, legend, counterfactual names) and its :class:`Atlas` (borders, groups,
positions). Pure and cheap: per-atlas facts are cached, so a Scene costs a few dictionary look-ups per region.
Pixel facts (bbox, area in px, legibility) are merged in after rendering with :meth:`Scene.with_pixels`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mapgen.geo.atlas import Atlas
from mapgen.geo.names import UnknownRegionError, build_index, closest, normalize_name
from mapgen.legend import Legend
from mapgen.spec import MapSpec, load_spec

#: Counterfactual kinds that rename regions (their maps accept only the map's own names and labels).
RENAMING_KINDS = frozenset({"imaginary", "shuffled"})

#: Relative tolerance under which class widths count as equal ("evenly spaced" legend).
EVEN_TOLERANCE = 0.05


@dataclass(frozen=True)
class RegionFacts:
    """Facts about one region of one map."""

    code: str
    name: str  # display name (counterfactual names included)
    label: str  # text drawn on annotated maps (code, or imaginary code)
    value: float  # NaN = N/A
    class_index: int | None  # discrete maps: legend class (0 = lowest); None for N/A and continuous maps
    class_label: str  # legend label of the class ("N/A" for missing; "" on continuous maps)
    color: str
    hatch: str | None
    neighbors: frozenset[str]
    groups: frozenset[str]
    lon: float
    lat: float
    area_km2: float
    legible: bool = True
    pixels: dict[str, Any] | None = None

    @property
    def missing(self) -> bool:
        return math.isnan(self.value)


@dataclass(frozen=True)
class LegendFacts:
    """Facts about the legend that questions ask (number of classes, ranges, spacing, darkness)."""

    kind: str
    num_classes: int
    labels: tuple[str, ...]  # by class index (lowest first); tick labels on continuous maps
    ranges: tuple[tuple[float, float], ...]  # class bounds by index; tick intervals on continuous maps
    widths: tuple[float, ...]
    gaps: tuple[float, ...]  # lower[i+1] - upper[i]
    evenly_spaced: bool
    darkness_increases_with_value: bool
    percent: bool
    order: str
    vmin: float
    vmax: float
    has_na: bool


@dataclass(frozen=True)
class Scene:
    """Every computed fact about one map."""

    map_id: str
    country: str
    title: str
    map_type: str  # discrete | continuous
    hatched: bool
    annotated: bool
    counterfactual: str | None
    legend: Legend
    legend_facts: LegendFacts
    regions: dict[str, RegionFacts]
    atlas: Atlas = field(repr=False, compare=False)
    spec: MapSpec = field(repr=False, compare=False)

    # --- regions -------------------------------------------------------------------------------------
    @property
    def renamed(self) -> bool:
        """True on counterfactual maps whose regions carry invented or swapped names."""
        return self.counterfactual in RENAMING_KINDS

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self.regions)

    def region(self, name: str) -> RegionFacts:
        """Facts of a region given by code or display name."""
        return self.regions[self.resolve(name)]

    def resolve(self, name: str) -> str:
        """Code for a display name or code; on counterfactual maps the map's own names win."""
        index = _scene_index(self)
        code = index.get(normalize_name(name))
        if code is not None:
            return code
        if not self.renamed:
            return self.atlas.resolve(name)
        spellings = [r.name for r in self.regions.values()] + list(self.regions)
        raise UnknownRegionError(str(name), closest(name, spellings), f"map {self.map_id}")

    def name_of(self, code: str) -> str:
        return self.regions[code].name

    def spellings(self, code: str) -> list[str]:
        """Accepted spellings of a region on this map (counterfactual maps accept only their own name/label)."""
        facts = self.regions[code]
        if self.renamed:
            return list(dict.fromkeys([facts.name, facts.label]))
        return list(dict.fromkeys([facts.name, *self.atlas.spellings(code), facts.label]))

    def valued(self, codes: Any = None) -> list[str]:
        """Codes with a value (not N/A), optionally restricted to ``codes``."""
        pool = self.codes if codes is None else codes
        return [c for c in pool if not self.regions[c].missing]

    def legible(self, codes: Any = None) -> list[str]:
        """Codes a reader can read off the image."""
        pool = self.codes if codes is None else codes
        return [c for c in pool if self.regions[c].legible]

    def group(self, name: str) -> frozenset[str]:
        """Members of a named group on this map's atlas."""
        return self.atlas.group(name) & frozenset(self.regions)

    def extreme(self, codes: Any, direction: str) -> str:
        return self.atlas.extreme(codes, direction)

    # --- pixels --------------------------------------------------------------------------------------
    def with_pixels(self, pixels: dict[str, dict[str, Any]], legible: dict[str, bool]) -> Scene:
        """A copy with per-region pixel facts and legibility from a render."""
        regions = {
            c: replace(r, pixels=pixels.get(c), legible=legible.get(c, r.legible)) for c, r in self.regions.items()
        }
        return replace(self, regions=regions)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for ``mapgen scene --json`` and for render JSON files)."""
        lf = self.legend_facts
        return {
            "map_id": self.map_id,
            "country": self.country,
            "title": self.title,
            "map_type": self.map_type,
            "hatched": self.hatched,
            "annotated": self.annotated,
            "counterfactual": self.counterfactual,
            "legend": {
                "kind": lf.kind,
                "num_classes": lf.num_classes,
                "labels": list(lf.labels),
                "ranges": [list(r) for r in lf.ranges],
                "evenly_spaced": lf.evenly_spaced,
                "darkness_increases_with_value": lf.darkness_increases_with_value,
                "percent": lf.percent,
                "order": lf.order,
                "vmin": lf.vmin,
                "vmax": lf.vmax,
                "has_na": lf.has_na,
            },
            "regions": [
                {
                    "code": r.code,
                    "name": r.name,
                    "label": r.label,
                    "value": None if r.missing else r.value,
                    "class": r.class_index,
                    "class_label": r.class_label,
                    "color": r.color,
                    "hatch": r.hatch,
                    "neighbors": sorted(r.neighbors),
                    "groups": sorted(r.groups),
                    "position": {"lon": r.lon, "lat": r.lat},
                    "area_km2": r.area_km2,
                    "legible": r.legible,
                    "pixels": r.pixels,
                }
                for r in self.regions.values()
            ],
        }


def _scene_index(scene: Scene) -> dict[str, str]:
    """Normalised spelling → code; renamed maps index only their own names and labels."""
    if scene.renamed:
        return build_index({c: (r.name, r.label) for c, r in scene.regions.items()})
    return build_index({c: (c, r.name, r.label) for c, r in scene.regions.items()})


def legend_facts(legend: Legend, has_na: bool) -> LegendFacts:
    """Number of classes, ranges, widths, gaps, spacing and darkness direction of a legend."""
    if legend.kind == "discrete":
        ranges = tuple((c.lower, c.upper) for c in legend.classes)
        labels = tuple(c.label for c in legend.classes)
    else:
        ticks = legend.ticks
        ranges = tuple(zip(ticks[:-1], ticks[1:]))
        labels = tuple(legend.tick_labels)
    widths = tuple(hi - lo for lo, hi in ranges)
    gaps = tuple(ranges[i + 1][0] - ranges[i][1] for i in range(len(ranges) - 1))
    even = bool(widths) and max(widths) - min(widths) <= EVEN_TOLERANCE * max(abs(w) for w in widths)
    return LegendFacts(
        kind=legend.kind,
        num_classes=legend.k,
        labels=labels,
        ranges=ranges,
        widths=widths,
        gaps=gaps,
        evenly_spaced=even,
        darkness_increases_with_value=legend.darkness_increases_with_value,
        percent=legend.percent,
        order=legend.order,
        vmin=legend.vmin,
        vmax=legend.vmax,
        has_na=has_na,
    )


def build_scene(spec: MapSpec, atlas: Atlas | None = None) -> Scene:
    """Compute the Scene of a MapSpec."""
    atlas = atlas or spec.load_atlas()
    legend = spec.legend
    cf = spec.counterfactual or {}
    names, labels = cf.get("names", {}), cf.get("labels", {})
    per_atlas = atlas.membership
    discrete = legend.kind == "discrete"
    regions = {}
    for code in atlas.codes:
        value = float(spec.values.get(code, math.nan))
        idx = legend.class_of(value) if discrete else None
        cls = legend.classes[idx] if idx is not None else None
        neighbors, groups = per_atlas[code]
        pos = atlas.positions[code]
        regions[code] = RegionFacts(
            code=code,
            name=names.get(code) or atlas.names[code],
            label=labels.get(code) or code,
            value=value,
            class_index=idx,
            class_label=cls.label if cls else (legend.na_label or "N/A") if math.isnan(value) else "",
            color=legend.color_of(value),
            hatch=cls.hatch if cls else None,
            neighbors=neighbors,
            groups=groups,
            lon=pos.lon,
            lat=pos.lat,
            area_km2=pos.area_km2,
            legible=True,
        )
    has_na = any(r.missing for r in regions.values())
    return Scene(
        map_id=spec.map_id,
        country=atlas.name,
        title=spec.title,
        map_type=legend.kind,
        hatched=legend.hatched,
        annotated=spec.style.annotated,
        counterfactual=cf.get("kind"),
        legend=legend,
        legend_facts=legend_facts(legend, has_na),
        regions=regions,
        atlas=atlas,
        spec=spec,
    )


def with_render_record(scene: Scene, record: dict[str, Any]) -> Scene:
    """The scene with the pixel facts and legibility a render wrote (``record["regions"]``: code → facts)."""
    regions = record["regions"]
    return scene.with_pixels(dict(regions), {c: bool(r.get("legible", True)) for c, r in regions.items()})


def load_scene(path: str | Path) -> Scene:
    """The Scene of a map file: a MapSpec, MAPWise metadata, a render JSON (pixel facts and legibility merged in)
    or a scene JSON from ``mapgen scene --json`` (its legibility flags applied)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    scene = build_scene(load_spec(path))
    regions = data.get("regions") if isinstance(data, dict) else None
    if isinstance(regions, dict) and "render" in data:
        width, height = data["render"]["width"], data["render"]["height"]
        style = scene.spec.style
        if (style.width, style.height) != (width, height):
            raise ValueError(f"{path}: render size {width}x{height} differs from the spec's "
                             f"{style.width}x{style.height}.")
        return with_render_record(scene, data)
    if isinstance(regions, list):
        flags = {r["code"]: bool(r["legible"]) for r in regions if isinstance(r, dict) and "legible" in r}
        flags = {c: v for c, v in flags.items() if c in scene.regions}
        return scene.with_pixels({}, flags) if flags else scene
    return scene
