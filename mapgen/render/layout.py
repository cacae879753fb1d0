"""Page layout of a map image: where the title, the map and the legend go, and the data → pixel transform.

Every renderer draws into the same :class:`Layout`, so masks and pixel facts computed from it hold for all.
Pixel coordinates have their origin at the top-left corner of the image, x to the right, y down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mapgen.render.style import MapStyle, load_style
from mapgen.spec import Style

PAD_PX = 8
#: A page whose size nobody states is this wide; its height comes from the map's shape (:func:`shape_size`).
BASE_WIDTH_PX = 800
SIZE_STEP_PX = 100  # the shape's page heights go in steps of this …
HEIGHT_SHARES = (0.75, 1.25)  # … from 3/4 of the width (800×600) to 5/4 of it (800×1000)


@dataclass(frozen=True)
class Box:
    """A pixel rectangle (left, top, width, height)."""

    left: float
    top: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height

    def figure_fraction(self, width: int, height: int) -> tuple[float, float, float, float]:
        """matplotlib ``[left, bottom, width, height]`` in figure fractions."""
        return (self.left / width, 1 - self.bottom / height, self.width / width, self.height / height)


@dataclass(frozen=True)
class Layout:
    """Boxes of one page and the affine data → pixel transform of the map box."""

    width: int
    height: int
    map_box: Box
    legend_box: Box
    title_box: Box | None
    scale: float  # pixels per data unit
    x0: float  # data x at the map box's left edge
    y1: float  # data y at the map box's top edge

    @property
    def xlim(self) -> tuple[float, float]:
        return (self.x0, self.x0 + self.map_box.width / self.scale)

    @property
    def ylim(self) -> tuple[float, float]:
        return (self.y1 - self.map_box.height / self.scale, self.y1)

    def to_pixels(self, xy: np.ndarray) -> np.ndarray:
        """Data coordinates (n×2) → pixel coordinates (n×2, origin top-left)."""
        xy = np.asarray(xy, dtype=float)
        px = self.map_box.left + (xy[:, 0] - self.x0) * self.scale
        py = self.map_box.top + (self.y1 - xy[:, 1]) * self.scale
        return np.column_stack([px, py])


def page_scale(width: int, height: int) -> float:
    """How much text and legend marks grow with the page: 1 at 800×600, between 0.6 and 2.5."""
    return min(2.5, max(0.6, min(width / 800, height / 600)))


#: Region labels never get a cap height under this (px), however small the page: 6 px is half the 12 px of
#: 800×600 — the size of a 400×300 page, where the legibility audit asks for 12 px × 400 / 800.
MIN_LABEL_CAP_PX = 6.0


def label_cap_px(width: int, height: int, cap_px: float, how: str = "page") -> float:
    """Cap height of region labels on a page (``cap_px`` at 800×600): scaled with the map, i.e. the smaller of
    the page's width / 800 and height / 600 (at most 2.5×; ``how="width"``: at least with its width), and never
    under :data:`MIN_LABEL_CAP_PX`. Unlike :func:`page_scale` it does not stop at 0.6: on a 400×300 page the map
    is drawn at half its 800×600 size and so are its labels."""
    scale = min(2.5, width / 800, height / 600)
    if how == "width":
        scale = max(scale, min(2.5, width / 800))
    return max(MIN_LABEL_CAP_PX, cap_px * scale)


def compute_layout(bounds: tuple[float, float, float, float], style: Style, look: MapStyle | None = None) -> Layout:
    """Fit data ``bounds`` (minx, miny, maxx, maxy) into the page left after title and legend (sizes and the
    map area's margin from the map style ``look``, the default style when None)."""
    look = look or load_style()
    w, h = style.width, style.height
    top = look.title.band * h if style.show_title else 0.0
    title_box = Box(0, 0, w, top) if style.show_title else None
    body = Box(0, top, w, h - top)
    map_box, legend_box = _split_body(body, style, look)
    map_box = _with_margin(map_box, look.map_area.margin, page_scale(w, h))
    inner = Box(map_box.left + PAD_PX, map_box.top + PAD_PX, map_box.width - 2 * PAD_PX, map_box.height - 2 * PAD_PX)
    minx, miny, maxx, maxy = bounds
    scale = min(inner.width / (maxx - minx), inner.height / (maxy - miny))
    # centre the data in the map box
    x0 = minx - (map_box.width / scale - (maxx - minx)) / 2
    y1 = maxy + (map_box.height / scale - (maxy - miny)) / 2
    return Layout(w, h, map_box, legend_box, title_box, scale, x0, y1)


def shape_size(bounds: tuple[float, float, float, float], look: MapStyle | None = None,
               width: int = BASE_WIDTH_PX) -> tuple[int, int]:
    """The page a map of ``bounds`` (its projected minx, miny, maxx, maxy) gets by its shape: ``width`` wide and
    the lowest height, in steps of :data:`SIZE_STEP_PX` within :data:`HEIGHT_SHARES` of the width, at which the
    map fills the whole width of its map box (title band, legend strip and map-area margin as the style ``look``
    lays them out, its legend where the style puts it, else on the right). A map wider than the box at the
    lowest height keeps that height; one that is still too tall at the highest gets the highest."""
    look = look or load_style()
    position = look.legend.position or "right"
    low, high = (round(share * width) for share in HEIGHT_SHARES)
    heights = list(range(low, high + 1, SIZE_STEP_PX))
    minx, miny, maxx, maxy = bounds
    for height in heights:
        lay = compute_layout(bounds, Style(width=width, height=height, legend_position=position), look)
        across = (lay.map_box.width - 2 * PAD_PX) / (maxx - minx)  # pixels per data unit at the full width
        if (maxy - miny) * across <= lay.map_box.height - 2 * PAD_PX:
            return width, height
    return width, heights[-1]


def default_page_size(atlas: Any, look: MapStyle | None = None) -> tuple[int, int]:
    """The page size of a map of ``atlas`` nobody stated a size for (the one rule, build and CLI alike:
    :mod:`mapgen.mapmaking`): the style's size for the country (its ``sizes``) when it has one, else
    :func:`shape_size` of the atlas's projected bounds (``atlas.bounds``: a built-in atlas's are read without
    loading its geometry)."""
    look = look or load_style()
    if atlas.name in look.sizes:
        width, height = look.sizes[atlas.name]
        return int(width), int(height)
    return shape_size(atlas.bounds, look)


def _with_margin(b: Box, margin: tuple[float, float, float, float], scale: float) -> Box:
    """``b`` less a margin (left, top, right, bottom; pixels at 800×600, scaled with the page)."""
    if not any(margin):
        return b
    left, top, right, bottom = (m * scale for m in margin)
    return Box(b.left + left, b.top + top, b.width - left - right, b.height - top - bottom)


def _split_body(body: Box, style: Style, look: MapStyle) -> tuple[Box, Box]:
    pos = style.legend_position
    side, band = look.legend.side_share, look.legend.band_share
    if pos == "right":
        lw = side * body.width
        return Box(body.left, body.top, body.width - lw, body.height), Box(body.right - lw, body.top, lw, body.height)
    if pos == "left":
        lw = side * body.width
        return Box(body.left + lw, body.top, body.width - lw, body.height), Box(body.left, body.top, lw, body.height)
    if pos == "bottom":
        lh = band * body.height
        return Box(body.left, body.top, body.width, body.height - lh), Box(body.left, body.bottom - lh, body.width, lh)
    if pos == "top":
        lh = band * body.height
        return Box(body.left, body.top + lh, body.width, body.height - lh), Box(body.left, body.top, body.width, lh)
    # bottom-left / bottom-right: a side strip with the legend in its lower part (never over the map)
    lw, lh = side * body.width, 0.45 * body.height
    if pos == "bottom-left":
        return Box(body.left + lw, body.top, body.width - lw, body.height), Box(body.left, body.bottom - lh, lw, lh)
    return Box(body.left, body.top, body.width - lw, body.height), Box(body.right - lw, body.bottom - lh, lw, lh)
