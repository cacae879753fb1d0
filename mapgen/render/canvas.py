"""Per-(atlas, layout) drawing state shared by every map drawn that way: paths, mask, label plan, pixel facts.

Computing this once and changing only colours per map is what makes rendering fast (ARCHITECTURE.md §4).

Region labels are set at :data:`LABEL_CAP_PX` cap height (the glyph box of an upper-case code) at 800×600, scaled
with the page; where they go is the placement problem of :mod:`mapgen.render.placement`. Sample points avoid
every label box, leader line and end dot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import Point

from mapgen.geo.atlas import BUILTIN, Atlas
from mapgen.geo.languages import DEFAULT_LANGUAGE, names_for
from mapgen.render.layout import Layout, compute_layout, label_cap_px, page_scale
from mapgen.render.pixels import (
    RegionPixels,
    largest_part,
    pixel_geometry,
    pole,
    rasterize_mask,
    region_pixels,
)
from mapgen.render.placement import ROOM_PX, BoxShape, LabelPlace, Problem, label_obstacles, name_spot, plan
from mapgen.render.style import style_of
from mapgen.render.text import (
    LATIN,
    NameLayout,
    cap_height_size,
    font,
    font_for,
    glyph_box,
    name_layouts,
    script_of,
)
from mapgen.spec import Style

if TYPE_CHECKING:
    from matplotlib.path import Path

__all__ = ["LABEL_CAP_PX", "AtlasCanvas", "LabelPlace", "build_canvas", "geometry_path", "label_box_color"]

#: Cap height (px) of region labels on an 800×600 page: the glyph box of an upper-case code such as ``CA``.
LABEL_CAP_PX = 12.0
RESERVED_TEXT = "WW"  # the widest two-letter label: every planned label reserves at least its box
LABEL_MARGIN_PX = 2.0
OUTLINE_SIMPLIFY_PX = 0.5  # the outline is a stroke over the fills: detail finer than half a pixel does not show
OUTLINE_WIDTH_PT = 0.9  # the default style's outline stroke width (sample points keep clear of the style's)


@dataclass(frozen=True)
class NameFit:
    """Where and how a region's full name is set inside it: the text layout and the block's centre."""

    layout: NameLayout
    xy: tuple[float, float]


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
    scale: float = 1.0  # page scale (1 at 800×600): label sizes, gaps and line widths grow with it
    unplaced: tuple[str, ...] = ()  # regions that need a label but found no clean spot (illegible when annotated)
    outline: Path | None = None  # the outer edge of all regions (one compound path)
    outline_geom: Any = None  # the same outline as a shapely geometry
    ink: BoxShape | None = None  # the glyph box every label plans for (:func:`ink_shape`)
    shapes: dict[str, BoxShape] = field(default_factory=dict)  # the boxes labels reserve, per kind
    fits: dict[tuple[str, str], NameFit | None] = field(default_factory=dict)  # (region, name) → its fit
    label_family: str = LATIN  # the Latin font family of region labels (the style's fonts.labels)
    stroke: Any = None  # the outline stroke's footprint, which sample points keep clear of
    _bare_pixels: dict[str, RegionPixels] | None = None
    _label_geoms: dict[str, list] | None = None

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
        left, top, right, bottom = glyph_box(text, self.label_px, self.label_family, "mm")
        return (xy[0] + left - 1, xy[1] + top - 1, xy[0] + right + 1, xy[1] + bottom + 1)

    def name_fits(self, code: str, text: str) -> bool:
        """Whether a longer label (a full name) fits inside the region (:meth:`name_fit`)."""
        return self.name_fit(code, text) is not None

    def name_fit(self, code: str, text: str) -> NameFit | None:
        """How a full name is set inside its region, cached: the first of :func:`name_layouts` (the codes' size
        on one line, two lines, smaller type) whose box finds a spot inside the region's largest part — the code's
        spot, the pole or the nearest grid point — clear of its sample circle (up to ``ROOM_PX`` wide) and of
        every other label, leader line and dot; None for a region labelled by a callout or without such a spot."""
        key = (code, text)
        if key not in self.fits:
            self.fits[key] = self._fit(code, text)
        return self.fits[key]

    def fitted(self, code: str, text: str) -> NameFit | None:
        """The fit :meth:`name_fit` found for ``text`` on ``code`` if that text was asked about (a full name
        the label texts chose), else None (codes are drawn where the plan put them)."""
        return self.fits.get((code, text))

    def _fit(self, code: str, text: str) -> NameFit | None:
        place = self.places.get(code)
        if place is None or place.kind != "inside":
            return None
        px = self.pixels[code]
        keep = Point(px.sample).buffer(max(LABEL_MARGIN_PX, min(px.sample_radius, ROOM_PX)))
        others = [g for c, geoms in self.label_geoms().items() if c != code for g in geoms]
        tree = shapely.STRtree(others) if others else None
        part = largest_part(self.geoms[code])
        for layout in name_layouts(text, self.label_px, self.label_family):
            xy = name_spot(part, layout.ink, [place.xy, px.pole], keep, tree)
            if xy is not None:
                return NameFit(layout, xy)
        return None

    def bare_pixels(self) -> dict[str, RegionPixels]:
        """Pixel facts of a map drawn without labels: sample points clear of the outline stroke only (made on
        first use; the plan's labels would take room a hatched map without them needs for its pattern)."""
        if self._bare_pixels is None:
            poles = {c: (p.pole, p.pole_radius) for c, p in self.pixels.items()}
            self._bare_pixels = region_pixels(self.codes, self.geoms, self.mask, poles, self.stroke)
        return self._bare_pixels

    def label_geoms(self) -> dict[str, list]:
        """What each planned label occupies for another label's box (made on first use)."""
        if self._label_geoms is None:
            self._label_geoms = label_obstacles(self.places, self.shapes, self.scale)
        return self._label_geoms

    def callout_fits(self, text: str) -> bool:
        """Whether ``text`` in another script fits the glyph box every label plans for (a callout's box holds
        it as it holds a code); Latin text never counts (callouts of Latin names stay codes)."""
        if self.ink is None or script_of(text) == "latin":
            return False
        left, top, right, bottom = glyph_box(text, self.label_px, self.label_family, "mm")
        ink = self.ink
        return ink.left <= left and ink.top <= top and right <= ink.right and bottom <= ink.bottom


def label_box_color(place: LabelPlace, hatched: bool) -> str | None:
    """Fill of the box behind a label, if any: white behind callouts (never the page colour, which would read as
    a hole in the map) and behind inside labels on hatched maps (hatch lines would cross the text)."""
    return "#ffffff" if place.kind == "callout" or hatched else None


def build_canvas(atlas: Atlas, style: Style) -> AtlasCanvas:
    """Compute the layout, pixel-space paths, mask, label plan and pixel facts of ``atlas`` for a page (a page
    drawing names in another language plans its label boxes for that language's short labels too)."""
    look = style_of(style, atlas.name)
    x1, y1, x2, y2 = (float(v) for v in atlas.gdf.total_bounds)
    layout = compute_layout((x1, y1, x2, y2), style, look)
    geoms = {c: shapely.orient_polygons(g) for c, g in pixel_geometry(atlas, layout).items()}
    mask = rasterize_mask(atlas.codes, geoms, layout.width, layout.height)
    scale = page_scale(style.width, style.height)
    label_px = cap_height_size(label_cap_px(style.width, style.height, look.labels.cap_px, look.labels.scale))
    poles = {c: pole(largest_part(g)) for c, g in geoms.items()}
    canvas = AtlasCanvas(atlas, layout, geoms, {}, mask, {}, {}, label_px, scale)
    mb = layout.map_box
    canvas.label_family = look.fonts.labels
    problem = Problem(atlas.codes, geoms, mask, (mb.left, mb.top, mb.right, mb.bottom),
                      ink_shape(canvas, callout_texts(atlas, style)), scale, poles)
    canvas.ink, canvas.shapes = problem.ink, problem.shapes
    canvas.places, canvas.unplaced, obstacles = plan(problem)
    canvas.outline_geom = shapely.union_all(list(geoms.values()), grid_size=0.01).buffer(0).simplify(OUTLINE_SIMPLIFY_PX)
    # the dark outline stroke: half its width, the simplification and a pixel of antialiasing
    stroke = canvas.outline_geom.boundary.buffer(look.borders.outline_width * style.dpi / 144 + OUTLINE_SIMPLIFY_PX + 0.5)
    canvas.stroke = stroke
    canvas.pixels = region_pixels(atlas.codes, geoms, mask, poles, shapely.union_all([obstacles.union(), stroke]))
    canvas.paths = {c: geometry_path(g) for c, g in geoms.items()}
    canvas.outline = geometry_path(canvas.outline_geom)
    return canvas


def ink_shape(canvas: AtlasCanvas, extra: tuple[str, ...] = ()) -> BoxShape:
    """The glyph box every label plans for: that of the widest of ``WW`` and the atlas's codes, grown to hold
    each of the ``extra`` texts (short labels in another script: a CJK glyph is taller than a code)."""
    latin = font(canvas.label_px, family=canvas.label_family)
    widest = max([RESERVED_TEXT, *canvas.codes], key=latin.getlength)
    left, top, right, bottom = latin.getbbox(widest, anchor="mm")
    for text in extra:
        x1, y1, x2, y2 = font_for(text, canvas.label_px, canvas.label_family).getbbox(text, anchor="mm")
        left, top, right, bottom = min(left, x1), min(top, y1), max(right, x2), max(bottom, y2)
    return BoxShape(left, top, right, bottom)


def callout_texts(atlas: Atlas, style: Style) -> tuple[str, ...]:
    """The short labels (Chinese 简称) a page drawing names in another language may put in a callout box; none
    for codes, English, or a language without short labels."""
    if style.label_mode != "names" or style.language == DEFAULT_LANGUAGE or atlas.name not in BUILTIN:
        return ()
    native = names_for(style.language, atlas.name)
    if native is None:  # not reached: English returned above
        return ()
    return tuple(sorted({t for t in (native.label(c) for c in atlas.codes) if t}))


def geometry_path(geom) -> Path:
    """A compound matplotlib Path (holes included) for a (multi)polygon in pixel coordinates."""
    from matplotlib.path import Path

    verts, codes = [], []
    for part in getattr(geom, "geoms", [geom]):
        for ring in (part.exterior, *part.interiors):
            xy = np.asarray(ring.coords)
            verts.append(xy)
            ring_codes = np.full(len(xy), Path.LINETO, dtype=Path.code_type)
            ring_codes[0], ring_codes[-1] = Path.MOVETO, Path.CLOSEPOLY
            codes.append(ring_codes)
    return Path(np.concatenate(verts), np.concatenate(codes))
