"""Per-(atlas, layout) drawing state shared by every map drawn that way: paths, mask, label plan, pixel facts.

Computing this once and changing only colours per map is what makes rendering fast (ARCHITECTURE.md §4).

Label plan (one rule): a region's label sits at the pole of inaccessibility of its largest part when a two-letter
label box fits there; otherwise it becomes a callout beside the region (right of it when the region lies in the
eastern half of the map, left otherwise) joined by a leader line — past the outermost land in its row when that
is within :data:`MAX_COAST_JUMP_PX` (small coastal regions get their labels off the coast), else right beside
the region — moved down until it overlaps no other label.
Regions smaller than one pixel get no label. Sample points avoid every label box and leader line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from matplotlib.path import Path
from shapely.geometry import LineString, Point, box

from mapgen.geo.atlas import Atlas
from mapgen.render.layout import Layout, compute_layout, page_scale
from mapgen.render.pixels import (
    RegionPixels,
    largest_part,
    pixel_geometry,
    pole,
    rasterize_mask,
    region_pixels,
)
from mapgen.render.text import font_for
from mapgen.spec import Style

LABEL_FONT_PT = 7.5
CALLOUT_GAP_PX = 12.0
MAX_COAST_JUMP_PX = 60.0  # a callout moves out past other land (to the coast) only when that is this close
RESERVED_TEXT = "WW"  # the widest two-letter label: the box every planned label reserves
LABEL_MARGIN_PX = 2.0
OUTLINE_SIMPLIFY_PX = 1.0  # the outline is a stroke over the fills: detail finer than a pixel does not show


@dataclass(frozen=True)
class LabelPlace:
    """Where a region's label goes: ``inside`` at ``xy`` or ``callout`` at ``xy`` with a leader ``line``."""

    kind: str
    xy: tuple[float, float]
    line: tuple[tuple[float, float], ...] = ()


@dataclass
class AtlasCanvas:
    """Geometry of one atlas in one layout: matplotlib paths (pixel space), mask, label plan and pixel facts."""

    atlas: Atlas
    layout: Layout
    geoms: dict[str, Any]
    paths: dict[str, Path]
    mask: np.ndarray
    places: dict[str, LabelPlace]
    pixels: dict[str, RegionPixels]
    label_px: float
    outline: Path | None = None  # the outer edge of all regions (one compound path)
    outline_geom: Any = None  # the same outline as a shapely geometry

    @property
    def codes(self) -> tuple[str, ...]:
        return self.atlas.codes

    def codes_by_class(self, spec: Any) -> list[tuple[int, list[str]]]:
        """Region codes grouped by the legend class ``spec`` gives them, lowest class first; N/A regions under
        index -1 (first). Hatched maps draw one collection or trace per group."""
        groups: dict[int, list[str]] = {}
        for code in self.codes:
            idx = spec.legend.class_of(spec.values.get(code, float("nan")))
            groups.setdefault(-1 if idx is None else idx, []).append(code)
        return sorted(groups.items())

    def text_box(self, text: str, xy: tuple[float, float]) -> tuple[float, float, float, float]:
        """Pixel box of ``text`` centred (PIL anchor ``mm``) at ``xy``, one pixel of padding."""
        left, top, right, bottom = font_for(text, self.label_px).getbbox(text, anchor="mm")
        return (xy[0] + left - 1, xy[1] + top - 1, xy[0] + right + 1, xy[1] + bottom + 1)

    def name_fits(self, code: str, text: str) -> bool:
        """Whether a longer label (a full name) fits inside the region without covering its sample point."""
        place = self.places.get(code)
        if place is None or place.kind != "inside":
            return False
        label = box(*self.text_box(text, place.xy))
        part = largest_part(self.geoms[code])
        sample = Point(self.pixels[code].sample)
        return part.contains(label) and label.distance(sample) > LABEL_MARGIN_PX


def label_box_color(place: LabelPlace, hatched: bool, background: str) -> str | None:
    """Fill of the box behind a label, if any: the page background behind callouts (they may sit on other
    regions) and white behind inside labels on hatched maps (hatch lines would cross the text)."""
    if place.kind == "callout":
        return background
    return "#ffffff" if hatched else None


def build_canvas(atlas: Atlas, style: Style) -> AtlasCanvas:
    """Compute the layout, pixel-space paths, mask, label plan and pixel facts of ``atlas`` for a page."""
    layout = compute_layout(tuple(atlas.gdf.total_bounds), style)
    geoms = {c: shapely.orient_polygons(g) for c, g in pixel_geometry(atlas, layout).items()}
    mask = rasterize_mask(atlas.codes, geoms, layout.width, layout.height)
    label_px = LABEL_FONT_PT * style.dpi / 72.0 * page_scale(style.width, style.height)
    poles = {c: pole(largest_part(g)) for c, g in geoms.items()}
    canvas = AtlasCanvas(atlas, layout, geoms, {}, mask, {}, {}, label_px)
    canvas.places = plan_labels(canvas, poles, np.bincount(mask.ravel(), minlength=len(atlas.codes) + 1))
    obstacles = shapely.union_all(
        [box(*canvas.text_box(RESERVED_TEXT, p.xy)).buffer(LABEL_MARGIN_PX) for p in canvas.places.values()]
        + [LineString(p.line).buffer(1.5) for p in canvas.places.values() if len(p.line) > 1]
    )
    canvas.pixels = region_pixels(atlas.codes, geoms, mask, poles, obstacles)
    canvas.paths = {c: geometry_path(g) for c, g in geoms.items()}
    canvas.outline_geom = shapely.union_all(list(geoms.values()), grid_size=0.01).buffer(0).simplify(OUTLINE_SIMPLIFY_PX)
    canvas.outline = geometry_path(canvas.outline_geom)
    return canvas


def plan_labels(canvas: AtlasCanvas, poles: dict, areas: np.ndarray) -> dict[str, LabelPlace]:
    """Inside labels first, then callouts that avoid every other label (see the module rule)."""
    places: dict[str, LabelPlace] = {}
    taken: list[tuple[float, float, float, float]] = []
    pending = []
    for i, code in enumerate(canvas.codes):
        xy, _ = poles[code]
        label = box(*canvas.text_box(RESERVED_TEXT, xy))
        if largest_part(canvas.geoms[code]).contains(label):
            places[code] = LabelPlace("inside", xy)
            taken.append(canvas.text_box(RESERVED_TEXT, xy))
        elif areas[i + 1] >= 1:
            pending.append(code)
    east = float(np.mean([poles[c][0][0] for c in canvas.codes]))
    for code in sorted(pending, key=lambda c: poles[c][0][1]):
        places[code] = _callout(canvas, code, poles[code][0], poles[code][0][0] >= east, taken)
    return places


def _callout(canvas: AtlasCanvas, code: str, anchor, right: bool, taken: list) -> LabelPlace:
    bx1, by1, bx2, by2 = canvas.text_box(RESERVED_TEXT, (0.0, 0.0))
    w, map_box = bx2 - bx1, canvas.layout.map_box
    rx1, _, rx2, _ = canvas.geoms[code].bounds
    own = rx2 if right else rx1
    y = anchor[1]
    for _ in range(200):
        edge = _land_edge(canvas, y + by1 - 2, y + by2 + 2, right, anchor[0])
        edge = edge if abs(edge - own) <= MAX_COAST_JUMP_PX else own  # interior regions: label beside them
        x = edge + CALLOUT_GAP_PX + w / 2 if right else edge - CALLOUT_GAP_PX - w / 2
        x = min(max(x, map_box.left + w / 2 + 1), map_box.right - w / 2 - 1)
        mine = (x + bx1, y + by1, x + bx2, y + by2)
        clash = [t for t in taken if not (mine[2] < t[0] or t[2] < mine[0] or mine[3] < t[1] or t[3] < mine[1])]
        if not clash:
            break
        y = max(t[3] for t in clash) - by1 + 1
    taken.append((x + bx1, y + by1, x + bx2, y + by2))
    end = (x + bx1 - 1, y) if right else (x + bx2 + 1, y)
    line = LineString([end, anchor])
    outside = line.difference(canvas.geoms[code])
    return LabelPlace("callout", (x, y), _segment_from(outside, end))


def _land_edge(canvas: AtlasCanvas, top: float, bottom: float, right: bool, start: float) -> float:
    """The outermost land in a horizontal band beyond ``start`` (so callouts sit off the coast, not on
    neighbours): the largest x of any region in the band when ``right``, else the smallest."""
    band = box(start if right else canvas.layout.map_box.left, top, canvas.layout.map_box.right if right else start,
               bottom)
    hits = [g.intersection(band) for g in canvas.geoms.values() if g.intersects(band)]
    hits = [h for h in hits if not h.is_empty]
    if not hits:
        return start
    return max(h.bounds[2] for h in hits) if right else min(h.bounds[0] for h in hits)


def _segment_from(geom, start: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """The piece of a (multi)line that starts at ``start`` (the leader line up to the region's edge)."""
    if geom.is_empty:
        return ()
    parts = list(getattr(geom, "geoms", [geom]))
    part = min(parts, key=lambda g: Point(start).distance(g))
    return tuple((float(x), float(y)) for x, y in part.coords)


def geometry_path(geom) -> Path:
    """A compound matplotlib Path (holes included) for a (multi)polygon in pixel coordinates."""
    verts, codes = [], []
    for part in getattr(geom, "geoms", [geom]):
        for ring in (part.exterior, *part.interiors):
            xy = np.asarray(ring.coords)
            verts.append(xy)
            ring_codes = np.full(len(xy), Path.LINETO, dtype=Path.code_type)
            ring_codes[0], ring_codes[-1] = Path.MOVETO, Path.CLOSEPOLY
            codes.append(ring_codes)
    return Path(np.concatenate(verts), np.concatenate(codes))
