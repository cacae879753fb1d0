"""The matplotlib renderer (default): no browser, deterministic, fast.

One figure per (atlas, page layout) is kept and reused; each map only sets colours and hatches, adds its legend
shapes, rasterises with Agg, then PIL draws the text (labels, legend labels, ticks, title) in the same DejaVu Sans
font and encodes the PNG (zlib RLE strategy: fastest for flat-colour maps at a similar size). Everything is in pixel coordinates (origin top-left), the space of the mask and the
pixel facts.
"""

from __future__ import annotations

import io
import zlib
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PatchCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import Circle, Rectangle
from PIL import Image, ImageDraw

from mapgen.geo.languages import names_for
from mapgen.legend import Legend, relative_luminance
from mapgen.render.canvas import OUTLINE_WIDTH_PT, AtlasCanvas
from mapgen.render.labels import (
    CASING_COLOR,
    DOT_RIM_PX,
    LEADER_COLOR,
    LEADER_WIDTH_PX,
    drawn_labels,
)
from mapgen.render.legend_layout import legend_font_px, legend_layout
from mapgen.render.placement import CASING_WIDTH_PX
from mapgen.render.text import TextItem, draw_texts, title_items
from mapgen.spec import MapSpec, background_color

BORDER_COLOR = "#ffffff"
HATCH_BORDER_COLOR = "#000000"
#: Region borders on hatched maps: heavier than the hatch lines (matplotlib's hatch.linewidth, 1 pt).
HATCH_BORDER_WIDTH = 1.4
#: The outline around all regions: dark on light paper, white on dark paper, so a light class reads as land.
OUTLINE_WIDTH = OUTLINE_WIDTH_PT


def outline_color(background: str) -> str:
    """Colour of the outer outline of the map on ``background``."""
    return "#ffffff" if relative_luminance(background) < 0.3 else "#4d4d4d"
LEGEND_FONT_PT = 8.5
#: Pattern density per MAPWise hatch symbol (denser patterns are easier to tell apart at 800×600).
HATCH_DENSITY = {"-": "---", "+": "++", "x": "xx", "\\": "\\\\\\", "*": "**", "o": "oo", "O": "O", "|": "|||"}


def hatch_pattern(symbol: str | None) -> str | None:
    """matplotlib hatch string for a MAPWise hatch symbol."""
    return HATCH_DENSITY.get(symbol, symbol) if symbol else None


class MatplotlibFigure:
    """A reusable figure for one :class:`AtlasCanvas`."""

    def __init__(self, canvas: AtlasCanvas, dpi: int) -> None:
        self.canvas, self.dpi = canvas, dpi
        lay = canvas.layout
        self.fig = Figure(figsize=(lay.width / dpi, lay.height / dpi), dpi=dpi)
        self.agg = FigureCanvasAgg(self.fig)
        self.ax = self.fig.add_axes((0, 0, 1, 1))
        self.ax.set_xlim(0, lay.width)
        self.ax.set_ylim(lay.height, 0)
        self.ax.set_axis_off()
        self.regions = PathCollection(
            [canvas.paths[c] for c in canvas.codes], linewidths=0.5, edgecolors=BORDER_COLOR, zorder=1
        )
        self.ax.add_collection(self.regions)
        if canvas.outline is None:
            raise ValueError("a canvas without its outline: make it with build_canvas")
        self.outline = PathCollection([canvas.outline], facecolors="none", linewidths=OUTLINE_WIDTH, zorder=2)
        self.ax.add_collection(self.outline)
        self.leaders = self._leader_artists()

    def _leader_artists(self) -> tuple[LineCollection, LineCollection, PatchCollection]:
        """Leader line casing, line and end dots, made once (dots are fixed per canvas; lines are set per map)."""
        scale, pt = self.canvas.scale, 72.0 / self.dpi
        dotted = [(p.dot, p.dot_radius) for p in self.canvas.places.values() if p.dot is not None]
        casing = LineCollection([], colors=CASING_COLOR, linewidths=CASING_WIDTH_PX * scale * pt, zorder=3,
                                capstyle="round")
        leader = LineCollection([], colors=LEADER_COLOR, linewidths=LEADER_WIDTH_PX * scale * pt, zorder=3.1)
        dots = PatchCollection([Circle(dot, radius) for dot, radius in dotted], facecolors=LEADER_COLOR,
                               edgecolors=CASING_COLOR, linewidths=DOT_RIM_PX * scale * pt, zorder=3.2)
        for artist in (casing, leader, dots):
            artist.set_visible(False)
            self.ax.add_collection(artist)
        return casing, leader, dots

    def px(self, points: float) -> float:
        """Font points → pixels."""
        return points * self.dpi / 72.0

    def draw(self, spec: MapSpec, faces: list[str], texts: dict[str, str]) -> tuple[bytes, list, dict]:
        """Draw one map; return PNG bytes, legend item boxes and label boxes."""
        style, legend = spec.style, spec.legend
        bg = background_color(style.background)
        self.fig.set_facecolor(bg)
        self.outline.set_edgecolor(HATCH_BORDER_COLOR if legend.hatched else outline_color(bg))
        temp: list[Any] = []
        items: list[TextItem] = []
        self.regions.set_visible(not legend.hatched)
        if legend.hatched:
            temp += self._hatched_regions(spec)
        else:
            self.regions.set_facecolor(faces)
        labels: dict[str, dict[str, Any]] = {}
        for artist in self.leaders:
            artist.set_visible(False)
        if style.annotated:
            self._labels(texts, faces, legend.hatched, items, labels)
        title_box = self.canvas.layout.title_box
        if style.show_title and title_box is not None and spec.title:
            items.extend(title_items(spec.title, title_box))
        shapes, legend_items = legend_artists(self, legend, style.legend_orientation, items)
        temp += shapes
        self.agg.draw()
        image = Image.frombuffer("RGBA", self.agg.get_width_height(), self.agg.buffer_rgba()).convert("RGB")
        for artist in temp:
            artist.remove()
        draw_texts(ImageDraw.Draw(image), items, image)
        buf = io.BytesIO()
        image.save(buf, format="PNG", compress_level=style.png_compress_level, compress_type=zlib.Z_RLE)
        return buf.getvalue(), legend_items, labels

    def _hatched_regions(self, spec: MapSpec) -> list[Any]:
        legend, canvas = spec.legend, self.canvas
        artists = []
        for idx, codes in canvas.codes_by_class(spec):
            cls = legend.classes[idx] if idx >= 0 else None
            coll = PathCollection(
                [canvas.paths[c] for c in codes],
                facecolors=cls.color if cls else legend.na_color,
                edgecolors=HATCH_BORDER_COLOR,
                linewidths=HATCH_BORDER_WIDTH,
                hatch=hatch_pattern(cls.hatch) if cls else None,
                zorder=1,
            )
            self.ax.add_collection(coll)
            artists.append(coll)
        return artists

    def _labels(self, texts, faces, hatched: bool, items: list[TextItem], out: dict) -> None:
        """Label texts go to ``items`` (drawn by PIL), records to ``out``; leader lines and dots are shown."""
        canvas = self.canvas
        drawn = drawn_labels(canvas, texts, dict(zip(canvas.codes, faces)), hatched)
        items.extend(d.item for d in drawn)
        out.update({d.code: d.record() for d in drawn})
        lines = [d.line for d in drawn if d.line is not None]
        if lines:
            casing, leader, dots = self.leaders
            casing.set_segments(lines)
            leader.set_segments(lines)
            for artist in self.leaders:
                artist.set_visible(True)


# --- legends -------------------------------------------------------------------------------------------------


def legend_artists(fig: MatplotlibFigure, legend: Legend, orientation: str, items: list[TextItem]):
    """Draw the legend geometry of :func:`legend_layout`; texts go to ``items``. Returns shapes and item boxes."""
    lay = fig.canvas.layout
    layout = legend_layout(legend, lay.legend_box, orientation, legend_font_px(lay.width, lay.height, fig.dpi))
    shapes: list[Any] = []
    for sw in layout.swatches:
        rect = Rectangle((sw.x, sw.y), sw.w, sw.h, facecolor=sw.color, edgecolor="#555555", linewidth=0.6,
                         hatch=hatch_pattern(sw.hatch), zorder=5)
        fig.ax.add_artist(rect)
        shapes.append(rect)
    bar = layout.colorbar
    if bar is not None:
        rgb = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in legend.colors], dtype=np.uint8)
        image = rgb[::-1][:, None, :] if bar.vertical else rgb[None, :, :]  # vmax at the top / right
        shapes.append(fig.ax.imshow(image, extent=(bar.x, bar.x + bar.w, bar.y + bar.h, bar.y), aspect="auto",
                                    interpolation="bilinear", zorder=5))
        frame = Rectangle((bar.x, bar.y), bar.w, bar.h, fill=False, edgecolor="#555555", linewidth=0.6, zorder=6)
        fig.ax.add_artist(frame)
        tick_lines = LineCollection(list(bar.ticks), colors="#333333", linewidths=0.8, zorder=6)
        fig.ax.add_collection(tick_lines)
        shapes += [frame, tick_lines]
    items.extend(layout.texts)
    return shapes, list(layout.items)


class MatplotlibRenderer:
    """Keeps one :class:`MatplotlibFigure` per canvas and draws maps into it."""

    name = "matplotlib"

    def __init__(self) -> None:
        self._figures: dict[tuple[int, int], MatplotlibFigure] = {}

    def draw(self, spec: MapSpec, canvas: AtlasCanvas) -> tuple[bytes, list[dict[str, Any]], dict[str, Any]]:
        key = (id(canvas), spec.style.dpi)
        if key not in self._figures:
            self._figures[key] = MatplotlibFigure(canvas, spec.style.dpi)
        faces = [spec.legend.color_of(spec.values.get(c, float("nan"))) for c in canvas.codes]
        return self._figures[key].draw(spec, faces, label_texts(spec, canvas))


def label_texts(spec: MapSpec, canvas: AtlasCanvas) -> dict[str, str]:
    """Text drawn on each region: its code (counterfactual code when set), or its full name where it fits — in the
    spec's language (``style.language``), where a name that does not fit falls back to the language's short
    label (Chinese 简称) when that fits inside, else the code."""
    cf = spec.counterfactual or {}
    codes = {c: (cf.get("labels") or {}).get(c) or c for c in canvas.codes}
    if spec.style.label_mode != "names":
        return codes
    native = None if cf.get("names") else names_for(spec.style.language, canvas.atlas.name)
    if native is None:
        names = cf.get("names") or canvas.atlas.names
        return {c: names[c] if canvas.name_fits(c, names[c]) else codes[c] for c in canvas.codes}
    return {c: _local_label(canvas, c, native.name(c), native.label(c), codes[c]) for c in canvas.codes}


def _local_label(canvas: AtlasCanvas, code: str, name: str, short: str | None, fallback: str) -> str:
    """The first of a region's name and its short label that fits: inside the region, or for a callout in the
    box every label plans for (:meth:`AtlasCanvas.callout_fits`: Chinese short names; the plan of a Chinese
    names page reserves room for them); else its code."""
    place = canvas.places.get(code)
    if place is not None and place.kind == "callout":
        return next((t for t in (name, short) if t and canvas.callout_fits(t)), fallback)
    if canvas.name_fits(code, name):
        return name
    if short and canvas.name_fits(code, short):
        return short
    return fallback
