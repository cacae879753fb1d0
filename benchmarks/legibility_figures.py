"""Legibility figures of a built benchmark (issue: legible by construction), from the files the build wrote.

    python benchmarks/legibility_figures.py BENCH_DIR

Prints, over every rendered map's JSON: legible regions whose fill is within CIEDE2000 5 of the background
(colour maps; hatched maps are read by pattern and counted apart), maps with no-data regions but no N/A legend
entry, and legend items or title-free text boxes outside the canvas.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mapgen.legend import Legend, delta_e
from mapgen.spec import background_color


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


if __name__ == "__main__":
    print(json.dumps(figures(Path(sys.argv[1])), indent=1))
