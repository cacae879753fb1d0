"""Legibility figures of a built benchmark (issue: legible by construction), from the files the build wrote.

    python benchmarks/legibility_figures.py BENCH_DIR

Prints, over every rendered map's JSON: legible regions whose fill is within CIEDE2000 5 of the background
(colour maps; hatched maps are read by pattern and counted apart), maps with no-data regions but no N/A legend
entry, and legend items or title-free text boxes outside the canvas.

Then the region labels of annotated maps (:func:`label_figures`): pairs of overlapping label boxes, leader lines
crossing another label's box, regions each leader line crosses (on the mask), the smallest label glyph height
on 800-px-wide maps (rows of near-black pixels in the label box, measured on the PNG for labels drawn black on a
box: callouts, and inside labels of hatched maps), regions left without a label, and illegible regions. A render
JSON without leader-line coordinates (older builds) gets them from the canvas of the mapgen on the path, so run
this with the mapgen that made the build.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from shapely.geometry import LineString, box

from mapgen.legend import Legend, delta_e
from mapgen.spec import MapSpec, background_color


def figures(bench: Path) -> dict[str, int]:
    out = {"maps": 0, "near_background": 0, "near_background_hatched": 0, "no_na_key": 0, "items_outside": 0}
    for path in sorted((bench / "maps").glob("*.json")):
        rec = json.loads(path.read_text())
        if "spec" not in rec:
            continue
        spec, legend = rec["spec"], Legend.from_dict(rec["spec"]["legend"])
        bg = background_color(spec["style"]["background"])
        out["maps"] += 1
        key = "near_background_hatched" if legend.hatched else "near_background"
        missing = False
        for code, region in rec["regions"].items():
            value = spec["values"].get(code)
            missing |= value is None
            if region.get("legible") and delta_e(legend.color_of(value), bg) < 5:
                out[key] += 1
        if missing and not any(i.get("class", 0) is None for i in rec["legend_items"]):
            out["no_na_key"] += 1
        w, h = rec["render"]["width"], rec["render"]["height"]
        for item in rec["legend_items"]:
            x1, y1, x2, y2 = item.get("box") or item.get("colorbar") or (*item["xy"], *item["xy"])
            out["items_outside"] += not (x1 >= 0 and y1 >= 0 and x2 <= w and y2 <= h)
    return out


def label_figures(bench: Path) -> dict[str, float]:
    """Label figures over the annotated maps of a build (see the module docstring)."""
    out = {"annotated_maps": 0, "labels": 0, "callouts": 0, "overlapping_label_pairs": 0,
           "lines_crossing_a_label": 0, "unlabelled_regions": 0,
           "illegible_regions_annotated": 0}
    crossed: list[int] = []
    heights: list[int] = []
    for path in sorted((bench / "maps").glob("*.json")):
        if path.name.endswith(".mask.json"):
            continue
        rec = json.loads(path.read_text())
        if "spec" not in rec or not rec["spec"]["style"].get("annotated"):
            continue
        labels, regions = rec["labels"], rec["regions"]
        out["annotated_maps"] += 1
        out["labels"] += len(labels)
        out["unlabelled_regions"] += sum(c not in labels and r["area_px"] >= 1 for c, r in regions.items())
        out["illegible_regions_annotated"] += sum(not r["legible"] for r in regions.values())
        boxes = {c: box(*lab["box"]) for c, lab in labels.items()}
        out["overlapping_label_pairs"] += sum(a.intersection(b).area > 0 for a, b in itertools.combinations(boxes.values(), 2))
        lines = _leader_lines(rec)
        out["callouts"] += len(lines)
        mask = np.asarray(Image.open(path.with_suffix(".mask.png")))
        for code, line in lines.items():
            geom = LineString(line)
            out["lines_crossing_a_label"] += any(geom.intersects(b) for c, b in boxes.items() if c != code)
            crossed.append(_regions_crossed(mask, line, rec["render"]["mask_ids"][code]))
        if rec["render"]["width"] == 800:
            heights += _glyph_heights(path, rec)
    out["regions_crossed_per_line_mean"] = round(float(np.mean(crossed)), 3) if crossed else 0.0
    out["regions_crossed_per_line_max"] = int(max(crossed, default=0))
    out["label_height_px_800_min"] = int(min(heights, default=0))
    out["label_height_px_800_median"] = float(np.median(heights)) if heights else 0.0
    return out


def _leader_lines(rec: dict) -> dict[str, list]:
    """Leader line of every callout: from the render JSON, else from the canvas that drew it."""
    labels = rec["labels"]
    if all("line" in lab for lab in labels.values() if lab["kind"] == "callout"):
        return {c: lab["line"] for c, lab in labels.items() if lab["kind"] == "callout"}
    from mapgen.render.api import get_canvas

    spec = MapSpec.from_dict(rec["spec"])
    places = get_canvas(spec.load_atlas(), spec.style).places
    return {c: [list(p) for p in places[c].line] for c, lab in labels.items()
            if lab["kind"] == "callout" and len(places[c].line) > 1}


def _regions_crossed(mask: np.ndarray, line: list, own: int) -> int:
    """Regions other than ``own`` under a polyline, sampled every half pixel on the mask."""
    ids: set[int] = set()
    h, w = mask.shape
    for (x1, y1), (x2, y2) in itertools.pairwise(line):
        n = max(2, int(2 * np.hypot(x2 - x1, y2 - y1)) + 1)
        xs, ys = np.linspace(x1, x2, n).astype(int), np.linspace(y1, y2, n).astype(int)
        ids |= set(mask[np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)].tolist())
    return len(ids - {0, own})


def _glyph_heights(path: Path, rec: dict) -> list[int]:
    """Glyph heights (rows of near-black pixels) of the labels drawn black on a box."""
    hatched = any(c.get("hatch") for c in rec["spec"]["legend"].get("classes", ()))
    image = np.asarray(Image.open(path.with_suffix(".png")).convert("RGB"))
    heights = []
    for lab in rec["labels"].values():
        if lab["kind"] == "callout" or hatched:
            x1, y1, x2, y2 = (int(round(v)) for v in lab["box"])
            rows = np.nonzero((image[y1 : y2 + 1, x1 : x2 + 1].max(axis=2) < 100).any(axis=1))[0]
            if len(rows):
                heights.append(int(rows.max() - rows.min() + 1))
    return heights


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    print(json.dumps(figures(folder) | label_figures(folder), indent=1))
