"""Per-region attributes in the style of VRSBench's per-object JSON, computed from a rendered Scene.

Rules (one rule each, tested):

- *Category* of a region = its legend class (discrete maps; N/A regions form the ``"N/A"`` category). On
  continuous maps every region with data is in one category (``index`` None), so nothing is unique there.
- Boxes come from the render's pixel facts: ``bbox`` = ``[x1, y1, x2, y2]`` inclusive pixel indices of the
  region-id mask; ``bbox_norm`` = box *edges* divided by the image size (``x1/W, y1/H, (x2+1)/W, (y2+1)/H``),
  so 0 is the top/left edge and 1 the bottom/right edge, as in VRSBench; ``obb`` = the 4 corners of the minimum
  rotated rectangle (pixels), ``obb_norm`` the same divided by ``W``/``H``.
- ``position``: the cell of a 3×3 grid of the *whole image* holding the bbox centre (thirds of width/height;
  a centre exactly on a line goes to the lower/right cell). Cells: ``top-left``, ``top-centre``, ``top-right``,
  ``middle-left``, ``centre``, ``middle-right``, ``bottom-left``, ``bottom-centre``, ``bottom-right``.
- ``rel_position``: the extremes a region holds within its category by bbox centre (smallest y = ``top-most``,
  largest y = ``bottom-most``, smallest x = ``left-most``, largest x = ``right-most``); ties hold it together.
- ``size``: mask area against the map's regions: below the 33.3rd percentile of ``area_px`` → ``small``,
  above the 66.7th → ``large``, else ``medium`` (numpy linear percentiles, :data:`SIZE_PERCENTILES`).
- ``rel_size``: ``largest`` / ``smallest`` by ``area_px`` within its category, ``only`` for a lone member,
  else None.
- ``coastal``: member of a named group of kind ``coast`` or ``sea`` (curated lists, ARCHITECTURE.md §3).
- Colour: the fill hex plus a colour word (:func:`colour_name`: hue family, light/dark by HLS lightness, grey
  when saturation is low).
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mapgen.legend import relative_luminance, to_hex_color
from mapgen.scene import RegionFacts, Scene

SIZE_PERCENTILES: tuple[float, float] = (100 / 3, 200 / 3)
COAST_KINDS = frozenset({"coast", "sea"})
CELLS: tuple[tuple[str, ...], ...] = (
    ("top-left", "top-centre", "top-right"),
    ("middle-left", "centre", "middle-right"),
    ("bottom-left", "bottom-centre", "bottom-right"),
)
NA_CATEGORY = "na"
#: Hue families by upper bound of the hue angle (degrees).
_HUES: tuple[tuple[float, str], ...] = (
    (15, "red"), (40, "orange"), (65, "yellow"), (160, "green"), (195, "teal"), (255, "blue"),
    (290, "purple"), (335, "pink"), (360, "red"),
)


# ------------------------------------------------------------------------------------------ small rules


def image_size(scene: Scene) -> tuple[int, int]:
    """``(width, height)`` of the rendered image (the spec's style holds what the render JSON records)."""
    return scene.width, scene.height


def bbox_centre(bbox: Sequence[float]) -> tuple[float, float]:
    """Centre of an inclusive pixel box."""
    x1, y1, x2, y2 = bbox
    return (x1 + x2 + 1) / 2, (y1 + y2 + 1) / 2


def grid_cell(x: float, y: float, width: int, height: int) -> str:
    """3×3 image cell of a point (thirds of the image; a point on a line goes to the lower/right cell)."""
    col = min(2, max(0, int(3 * x // width)))
    row = min(2, max(0, int(3 * y // height)))
    return CELLS[row][col]


def normalise_box(bbox: Sequence[float], width: int, height: int) -> list[float]:
    """Inclusive pixel box → edges on a 0–1 scale of the image."""
    x1, y1, x2, y2 = bbox
    return [round(x1 / width, 4), round(y1 / height, 4), round((x2 + 1) / width, 4), round((y2 + 1) / height, 4)]


def box_to_100(bbox: Sequence[float], width: int, height: int) -> list[int]:
    """Inclusive pixel box → integers on the 0–100 scale of the prompt convention (percent of width/height)."""
    return [min(100, max(0, round(100 * v))) for v in normalise_box(bbox, width, height)]


def box_from_100(box: Sequence[float], width: int, height: int) -> list[float]:
    """A 0–100 box → pixel edges ``[x1, y1, x2, y2]`` (what :mod:`mapgen.eval` scores in)."""
    x1, y1, x2, y2 = box
    return [x1 * width / 100, y1 * height / 100, x2 * width / 100, y2 * height / 100]


def colour_name(color: str) -> str:
    """A colour word for a fill: ``"light blue"``, ``"dark red"``, ``"grey"``."""
    h = to_hex_color(color)
    r, g, b = (int(h[i : i + 2], 16) / 255 for i in (1, 3, 5))
    hue, light, sat = colorsys.rgb_to_hls(r, g, b)
    if sat < 0.15 or light > 0.95 or light < 0.06:
        base = "white" if light > 0.9 else "black" if light < 0.12 else "grey"
        return base if base != "grey" else _shade(light) + "grey"
    family = next(name for bound, name in _HUES if hue * 360 <= bound)
    return _shade(light) + family


def _shade(light: float) -> str:
    return "light " if light >= 0.7 else "dark " if light < 0.35 else ""


def hue_family(color: str) -> str:
    """The colour word without its light/dark prefix."""
    return colour_name(color).split(" ")[-1]


def is_coastal(scene: Scene, code: str) -> bool:
    """True when the region is in a named coast/sea group."""
    groups = scene.groups
    return any(groups[g].kind in COAST_KINDS for g in scene.regions[code].groups if g in groups)


def category_of(region: RegionFacts) -> int | str | None:
    """Category key: the class index, :data:`NA_CATEGORY` for N/A, None on continuous maps."""
    if region.missing:
        return NA_CATEGORY
    return region.class_index


def darkness_ranks(scene: Scene) -> dict[int, int]:
    """Class index → darkness rank (0 = darkest) by relative luminance of the class colours."""
    classes = scene.legend.classes
    order = sorted(range(len(classes)), key=lambda i: (relative_luminance(classes[i].color), i))
    return {i: rank for rank, i in enumerate(order)}


# ------------------------------------------------------------------------------------------ attributes


def require_pixels(scene: Scene) -> dict[str, dict[str, Any]]:
    """Each region's pixel facts; raise when the scene has none (render it first)."""
    pixels = {c: r.pixels for c, r in scene.regions.items() if r.pixels is not None}
    if len(pixels) < len(scene.regions):
        raise ValueError(
            f"Scene {scene.map_id!r} has no pixel facts: render the map (mapgen.render.render) and describe "
            "its result's scene, or pass the render JSON to `mapgen describe`."
        )
    return pixels


def size_thresholds(areas: Sequence[float]) -> tuple[float, float]:
    """Area (px) thresholds between small/medium and medium/large."""
    lo, hi = np.percentile(np.asarray(areas, dtype=float), SIZE_PERCENTILES)
    return float(lo), float(hi)


def size_class(area: float, thresholds: tuple[float, float]) -> str:
    lo, hi = thresholds
    return "small" if area < lo else "large" if area > hi else "medium"


def categories(scene: Scene) -> dict[Any, list[str]]:
    """Category key → member codes (map order)."""
    out: dict[Any, list[str]] = {}
    for code, r in scene.regions.items():
        out.setdefault(category_of(r), []).append(code)
    return out


def _rel_position(code: str, members: list[str], centres: dict[str, tuple[float, float]]) -> list[str]:
    xs = {c: centres[c][0] for c in members}
    ys = {c: centres[c][1] for c in members}
    held = []
    for word, values, pick in (
        ("top-most", ys, min), ("bottom-most", ys, max), ("left-most", xs, min), ("right-most", xs, max),
    ):
        if values[code] == pick(values.values()):
            held.append(word)
    return held


def _rel_size(code: str, members: list[str], areas: dict[str, int]) -> str | None:
    if len(members) == 1:
        return "only"
    values = [areas[c] for c in members]
    if areas[code] == max(values):
        return "largest"
    if areas[code] == min(values):
        return "smallest"
    return None


def region_attributes(scene: Scene) -> list[dict[str, Any]]:
    """One VRSBench-style attribute record per region (map order); needs a rendered scene."""
    pixels = require_pixels(scene)
    width, height = image_size(scene)
    areas = {c: int(pixels[c]["area_px"]) for c in scene.regions}
    centres = {c: bbox_centre(pixels[c]["bbox"]) for c in scene.regions}
    thresholds = size_thresholds(list(areas.values()))
    cats = categories(scene)
    total_area = sum(areas.values()) or 1
    ranks = darkness_ranks(scene) if scene.map_type == "discrete" else {}
    out = []
    for code, r in scene.regions.items():
        members = cats[category_of(r)]
        bbox = [int(v) for v in pixels[code]["bbox"]]
        obb = [[float(x), float(y)] for x, y in pixels[code]["obb"]]
        category = category_of(r)
        out.append(
            {
                "code": code,
                "name": r.name,
                "label": r.label,
                "value": None if r.missing else r.value,
                "class": {
                    "index": r.class_index,
                    "label": r.class_label or None,
                    "darkness_rank": ranks.get(r.class_index) if r.class_index is not None else None,
                },
                "category": category,
                "color": {"hex": to_hex_color(r.color), "name": colour_name(r.color)},
                "hatch": r.hatch,
                "bbox": bbox,
                "bbox_norm": normalise_box(bbox, width, height),
                "obb": obb,
                "obb_norm": [[round(x / width, 4), round(y / height, 4)] for x, y in obb],
                "centre": [round(v, 2) for v in centres[code]],
                "area_px": areas[code],
                "area_share": round(areas[code] / total_area, 5),
                "position": grid_cell(*centres[code], width, height),
                "rel_position": _rel_position(code, members, centres) if category is not None else [],
                "size": size_class(areas[code], thresholds),
                "rel_size": _rel_size(code, members, areas) if category is not None else None,
                "is_unique": category is not None and len(members) == 1,
                "neighbors": sorted(r.neighbors),
                "coastal": is_coastal(scene, code),
                "groups": sorted(r.groups),
                "legible": bool(r.legible),
            }
        )
    return out


def size_rule(scene: Scene) -> dict[str, Any]:
    """The thresholds used for ``size`` on this map (for the annotation file)."""
    pixels = require_pixels(scene)
    lo, hi = size_thresholds([pixels[c]["area_px"] for c in scene.regions])
    return {"percentiles": list(SIZE_PERCENTILES), "small_below_px": lo, "large_above_px": hi}


def finite(value: float | None) -> bool:
    return value is not None and not math.isnan(value)
