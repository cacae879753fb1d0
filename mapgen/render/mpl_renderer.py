"""The matplotlib renderer (default): no browser, deterministic, fast.

One figure per (atlas, page layout) is kept and reused; each map only sets colours and hatches, adds its legend
shapes, rasterises with Agg (from the figure's second map on, the regions and outline are composited with Agg's
arithmetic instead, :mod:`mapgen.render.composite`: same bytes), then PIL draws the text (labels, legend labels, ticks, title) in the same DejaVu Sans
font and encodes the PNG (:mod:`mapgen.render.png`: unfiltered rows, three times faster than Pillow's encoder). Everything is in pixel coordinates (origin top-left), the space of the mask and the
pixel facts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PatchCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import Circle, Polygon, Rectangle
from PIL import Image, ImageDraw

from mapgen.caches import ObjectCache
from mapgen.legend import Legend, page_like
from mapgen.render.canvas import OUTLINE_WIDTH_PT, AtlasCanvas
from mapgen.render.composite import Compositor, Layer, composite, draw_with_regions, rgb_of
from mapgen.render.labels import (
    CASING_COLOR,
    DOT_RIM_PX,
    LEADER_WIDTH_PX,
    drawn_labels,
    label_texts,
)
from mapgen.render.legend_layout import LegendLayout, LegendText, legend_bounds, legend_font_px, legend_layout
from mapgen.render.placement import CASING_WIDTH_PX
from mapgen.render.png import encode_png
from mapgen.render.style import DEFAULT_HATCHES, MapStyle, outline_color, style_of
from mapgen.render.text import TextItem, draw_texts, title_items
from mapgen.render.vector import save_vector, text_artists
from mapgen.spec import MapSpec, background_color

BORDER_COLOR = "#ffffff"
HATCH_BORDER_COLOR = "#000000"
#: Region borders on hatched maps: heavier than the hatch lines (matplotlib's hatch.linewidth, 1 pt).
HATCH_BORDER_WIDTH = 1.4
#: The outline around all regions: dark on light paper, white on dark paper, so a light class reads as land.
OUTLINE_WIDTH = OUTLINE_WIDTH_PT


LEGEND_FONT_PT = 8.5
#: Pattern density per MAPWise hatch symbol in the default style (denser patterns are easier to tell apart).
HATCH_DENSITY = DEFAULT_HATCHES


def hatch_pattern(symbol: str | None, table: dict[str, str] = HATCH_DENSITY) -> str | None:
    """matplotlib hatch string for a MAPWise hatch symbol (in a style's hatch ``table``)."""
    return table.get(symbol, symbol) if symbol else None


class MatplotlibFigure:
    """A reusable figure for one :class:`AtlasCanvas`, drawing colour maps in ``style`` and hatched maps in its
    hatched look (:meth:`MapStyle.for_hatched`); ``self.style`` is the look of the map being drawn."""

    def __init__(self, canvas: AtlasCanvas, dpi: int, style: MapStyle) -> None:
        self.canvas, self.dpi, self.style = canvas, dpi, style
        self.looks = {False: style, True: style.for_hatched()}
        lay = canvas.layout
        borders = style.borders
        self.fig = Figure(figsize=(lay.width / dpi, lay.height / dpi), dpi=dpi)
        self.agg = FigureCanvasAgg(self.fig)
        self.ax = self.fig.add_axes((0, 0, 1, 1))
        self.ax.set_xlim(0, lay.width)
        self.ax.set_ylim(lay.height, 0)
        self.ax.set_axis_off()
        self.regions = PathCollection(
            [canvas.paths[c] for c in canvas.codes], linewidths=borders.width, edgecolors=borders.color, zorder=1
        )
        self.ax.add_collection(self.regions)
        if canvas.outline is None:
            raise ValueError("a canvas without its outline: make it with build_canvas")
        self.outline = PathCollection([canvas.outline], facecolors="none", linewidths=borders.outline_width,
                                      zorder=2)
        self.ax.add_collection(self.outline)
        self.area = self._map_area()
        self.leaders = self._leader_artists()
        self.outline_color = "#000000"  # set per map
        self.drawn = 0  # PNG maps drawn: the second one on builds the compositor (a one-map process never pays)
        self.compositor: Compositor | None = None
        self.plain_pages: dict[int, bool] = {}  # page colours Agg draws as a plain fill (composite.draw_with_regions)

    def _map_area(self) -> Rectangle | None:
        """The filled, framed map panel of a style that has one, on colour or hatched maps (its fill, frame and
        whether it shows are set per map: :meth:`_show_map_area`)."""
        if not any(look.map_area.fill or look.map_area.frame_color for look in self.looks.values()):
            return None
        mb = self.canvas.layout.map_box
        rect = Rectangle((mb.left, mb.top), mb.width, mb.height, zorder=0)
        self.ax.add_artist(rect)
        return rect

    def _show_map_area(self, bg: str) -> None:
        """The map panel as the look of this map draws it (filled with the background ``bg``), or hidden."""
        if self.area is None:
            return
        area = self.style.map_area
        self.area.set_visible(bool(area.fill or area.frame_color))
        self.area.set_fill(area.fill)
        self.area.set_facecolor(bg)
        self.area.set_edgecolor(area.frame_color or "none")
        self.area.set_linewidth(area.frame_width)

    def _leader_artists(self) -> tuple[LineCollection, LineCollection, PatchCollection]:
        """Leader line casing, line and end dots, made once (dots are fixed per canvas; lines are set per map)."""
        scale, pt = self.canvas.scale, 72.0 / self.dpi
        dotted = [(p.dot, p.dot_radius) for p in self.canvas.places.values() if p.dot is not None]
        casing = LineCollection([], colors=CASING_COLOR, linewidths=CASING_WIDTH_PX * scale * pt, zorder=3,
                                capstyle="round")
        color = self.style.labels.leader_color
        leader = LineCollection([], colors=color, linewidths=LEADER_WIDTH_PX * scale * pt, zorder=3.1)
        dots = PatchCollection([Circle(dot, radius) for dot, radius in dotted], facecolors=color,
                               edgecolors=CASING_COLOR, linewidths=DOT_RIM_PX * scale * pt, zorder=3.2)
        for artist in (casing, leader, dots):
            artist.set_visible(False)
            self.ax.add_collection(artist)
        return casing, leader, dots

    def px(self, points: float) -> float:
        """Font points → pixels."""
        return points * self.dpi / 72.0

    def draw(self, spec: MapSpec, faces: list[str], texts: dict[str, str], fmt: str = "png") -> tuple[bytes, list, dict]:
        """Draw one map; return PNG (or ``fmt``: SVG, PDF) bytes, legend item boxes and label boxes."""
        style, legend = spec.style, spec.legend
        self.style = look = self.looks[legend.hatched]
        bg = background_color(style.background)
        self.fig.set_facecolor(background_color(look.page.color) if look.page.color else bg)
        self._show_map_area(bg)
        self.outline_color = look.borders.hatch_color if legend.hatched else outline_color(bg, look)
        self.outline.set_edgecolor(self.outline_color)
        self.outline.set_linewidth(look.borders.outline_width)
        temp: list[Any] = []
        items: list[TextItem] = []
        self.regions.set_visible(not legend.hatched)
        if legend.hatched and fmt != "png":
            temp += self._hatched_regions(spec)
        elif not legend.hatched:
            self.regions.set_facecolor(faces)
            temp += self._page_like_outlines(legend, faces, bg)
        labels: dict[str, dict[str, Any]] = {}
        for artist in self.leaders:
            artist.set_visible(False)
        if style.annotated:
            self._labels(texts, faces, legend.hatched, items, labels)
        title_box = self.canvas.layout.title_box
        if style.show_title and title_box is not None and spec.title:
            items.extend(title_items(spec.title, title_box, look))
        shapes, legend_items = legend_artists(self, legend, style.legend_orientation, items, bg)
        temp += shapes
        if fmt != "png":
            return self._vector(items, temp, fmt), legend_items, labels
        temp += self._rasterize(spec, faces)
        image = Image.frombuffer("RGBA", self.agg.get_width_height(), self.agg.buffer_rgba()).convert("RGB")
        for artist in temp:
            artist.remove()
        draw_texts(ImageDraw.Draw(image), items, image)
        return encode_png(image, style.png_compress_level), legend_items, labels

    def _rasterize(self, spec: MapSpec, faces: list[str]) -> list[Any]:
        """Draw the page into the Agg buffer, the regions composited (:mod:`mapgen.render.composite`) when the
        figure has drawn a map before, else by Agg; returns the per-map artists added here."""
        self.drawn += 1
        draw_regions = self._compositing(spec, faces) if self.drawn > 1 else None
        if draw_regions is not None and draw_with_regions(self.agg, self.ax, [self.regions, self.outline], draw_regions,
                                                          self.plain_pages):
            return []
        temp = self._hatched_regions(spec) if spec.legend.hatched else []
        self.regions.set_visible(not spec.legend.hatched)
        self.agg.draw()
        return temp

    def _compositing(self, spec: MapSpec, faces: list[str]) -> Callable[[np.ndarray], None] | None:
        """What draws this map's regions into the page's pixels, byte for byte as Agg would; None when a colour
        is not opaque (Agg draws that map). Coverage is taken here, before the page is drawn (it uses the
        page's buffer)."""
        if self.compositor is None:
            paths = [self.canvas.paths[c] for c in self.canvas.codes]
            self.compositor = Compositor(self.fig, self.ax, paths, self.outline.get_paths()[0])
        comp, borders, hatched = self.compositor, self.style.borders, spec.legend.hatched
        edge = rgb_of(borders.hatch_color if hatched else borders.color)
        line = rgb_of(self.outline_color)
        if edge is None or line is None:
            return None
        if not hatched:
            rgbs = [r for r in (rgb_of(f) for f in faces) if r is not None]
            if len(rgbs) != len(faces):
                return None
            colors, plan = np.vstack([*rgbs, edge, line]), comp.plan(borders.width, borders.outline_width)
            return lambda pixels: plan.draw(pixels, colors)
        layers = self._layers(spec)
        if layers is None:
            return None
        outline = comp.outline(borders.outline_width), line
        return lambda pixels: composite(pixels, layers, edge, outline)

    def _layers(self, spec: MapSpec) -> list[Layer] | None:
        """A hatched map's regions in drawing order (class by class, as :meth:`_hatched_regions` adds them)
        with their face colours and hatch pages; None when a colour is not opaque."""
        comp, legend, borders = self.compositor, spec.legend, self.style.borders
        if comp is None:
            return None
        index = {c: i for i, c in enumerate(self.canvas.codes)}
        layers = []
        for idx, codes in self.canvas.codes_by_class(spec):
            cls = legend.classes[idx] if idx >= 0 else None
            rgb = rgb_of(cls.color if cls else legend.na_color)
            if rgb is None:
                return None
            pattern = hatch_pattern(cls.hatch, self.style.hatches) if cls else None
            for code in codes:
                i, width = index[code], borders.hatch_width
                # an unhatched class of one region is a one-path collection, which matplotlib draws differently
                covers = comp.alone(i, width) if not pattern and len(codes) == 1 else (comp.faces(width)[i],
                                                                                      comp.strokes(width)[i])
                step = comp.pattern(i, pattern, borders.hatch_color, width) if pattern else None
                layers.append(Layer(*covers, rgb, step))
        return layers

    def _vector(self, items: list[TextItem], temp: list[Any], fmt: str) -> bytes:
        """The drawn page as vector bytes, texts as matplotlib artists; every per-map artist is removed after."""
        temp = temp + text_artists(self.ax, items, self.dpi, as_text=fmt == "svg")
        data = save_vector(self.fig, fmt, self.fig.get_facecolor())
        for artist in temp:
            artist.remove()
        return data

    def _page_like_outlines(self, legend: Legend, faces: list[str], bg: str) -> list[Any]:
        """On an ``outlined`` legend, the regions whose fill is close to the page, edged with the map's outline."""
        if not legend.outlined:
            return []
        paths = [self.canvas.paths[c] for c, face in zip(self.canvas.codes, faces, strict=True) if page_like(face, bg)]
        if not paths:
            return []
        borders = self.style.borders
        coll = PathCollection(paths, facecolors="none", edgecolors=outline_color(bg, self.style),
                              linewidths=borders.outline_width, zorder=1.5)
        self.ax.add_collection(coll)
        return [coll]

    def _hatched_regions(self, spec: MapSpec) -> list[Any]:
        legend, canvas, borders = spec.legend, self.canvas, self.style.borders
        artists = []
        for idx, codes in canvas.codes_by_class(spec):
            cls = legend.classes[idx] if idx >= 0 else None
            coll = PathCollection(
                [canvas.paths[c] for c in codes],
                facecolors=cls.color if cls else legend.na_color,
                edgecolors=borders.hatch_color,
                linewidths=borders.hatch_width,
                hatch=hatch_pattern(cls.hatch, self.style.hatches) if cls else None,
                zorder=1,
            )
            self.ax.add_collection(coll)
            artists.append(coll)
        return artists

    def _labels(self, texts, faces, hatched: bool, items: list[TextItem], out: dict) -> None:
        """Label texts go to ``items`` (drawn by PIL), records to ``out``; leader lines and dots are shown."""
        canvas = self.canvas
        look = self.style.labels
        drawn = drawn_labels(canvas, texts, dict(zip(canvas.codes, faces)), hatched, look.callout_frame, look.halo)
        items.extend(item for d in drawn for item in d.items)
        out.update({d.code: d.record() for d in drawn})
        lines = [d.line for d in drawn if d.line is not None]
        if lines:
            casing, leader, dots = self.leaders
            casing.set_segments(lines)
            leader.set_segments(lines)
            leader.set_color(look.leader_color)
            dots.set_facecolor(look.leader_color)
            for artist in self.leaders:
                artist.set_visible(True)


# --- legends -------------------------------------------------------------------------------------------------


def legend_artists(fig: MatplotlibFigure, legend: Legend, orientation: str, items: list[TextItem],
                   background: str = "#ffffff"):
    """Draw the legend geometry of :func:`legend_layout` (in the figure's style: swatch edges, tick colour, an
    optional box behind it; on an ``outlined`` legend, swatches close to the ``background`` edged like their
    regions); texts go to ``items``. Returns shapes and item boxes."""
    lay, look = fig.canvas.layout, fig.style
    font_px = legend_font_px(lay.width, lay.height, fig.dpi, look.legend.cap_px)
    layout = legend_layout(legend, lay.legend_box, orientation, font_px, LegendText.of(look, fig.canvas.scale))
    shapes: list[Any] = _legend_box(fig, layout)
    edge = look.legend.swatch_edge
    for sw in layout.swatches:
        outline = legend.outlined and page_like(sw.color, background)
        rect = Rectangle((sw.x, sw.y), sw.w, sw.h, facecolor=sw.color,
                         edgecolor=outline_color(background, look) if outline else edge,
                         linewidth=look.borders.outline_width if outline else 0.6,
                         hatch=hatch_pattern(sw.hatch, look.hatches), zorder=5)
        fig.ax.add_artist(rect)
        shapes.append(rect)
    if layout.colorbar is not None:
        shapes += _colorbar_artists(fig, legend, layout, background)
    items.extend(layout.texts)
    return shapes, list(layout.items)


def _colorbar_artists(fig: MatplotlibFigure, legend: Legend, layout: LegendLayout,
                      background: str = "#ffffff") -> list[Any]:
    """The bar's gradient, frame (the map's outline on an ``outlined`` legend), ticks and clipped-end triangles."""
    bar, look = layout.colorbar, fig.style.legend
    if bar is None:
        return []
    rgb = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in legend.colors], dtype=np.uint8)
    image = rgb[::-1][:, None, :] if bar.vertical else rgb[None, :, :]  # vmax at the top / right
    shapes: list[Any] = [fig.ax.imshow(image, extent=(bar.x, bar.x + bar.w, bar.y + bar.h, bar.y), aspect="auto",
                                       interpolation="bilinear", zorder=5)]
    edge, width = look.swatch_edge, 0.6
    if legend.outlined:
        edge, width = outline_color(background, fig.style), fig.style.borders.outline_width
    for corners in bar.extensions:
        low = corners[0] == (bar.x, bar.y + bar.h) if bar.vertical else corners[0] == (bar.x, bar.y)
        tip = Polygon(corners, closed=True, facecolor=legend.colors[0 if low else -1], edgecolor=edge,
                      linewidth=width, zorder=5)
        fig.ax.add_artist(tip)
        shapes.append(tip)
    frame = Rectangle((bar.x, bar.y), bar.w, bar.h, fill=False, edgecolor=edge, linewidth=width, zorder=6)
    fig.ax.add_artist(frame)
    tick_lines = LineCollection(list(bar.ticks), colors=look.tick_color, linewidths=0.8, zorder=6)
    fig.ax.add_collection(tick_lines)
    return [*shapes, frame, tick_lines]


def _legend_box(fig: MatplotlibFigure, layout: LegendLayout) -> list[Any]:
    """The box behind the legend of a style that has one: around every part of the legend, padded."""
    look = fig.style.legend
    if not (look.box_fill or look.box_frame):
        return []
    x1, y1, x2, y2 = legend_bounds(layout)
    pad = look.box_pad * fig.canvas.scale
    rect = Rectangle((x1 - pad, y1 - pad), x2 - x1 + 2 * pad, y2 - y1 + 2 * pad, facecolor=look.box_fill or "none",
                     edgecolor=look.box_frame or "none", linewidth=look.box_width, zorder=4)
    fig.ax.add_artist(rect)
    return [rect]


class MatplotlibRenderer:
    """Keeps one :class:`MatplotlibFigure` per canvas and draws maps into it."""

    name = "matplotlib"

    def __init__(self) -> None:
        self._figures: ObjectCache[MatplotlibFigure] = ObjectCache("render.mpl_renderer.figures", maxsize=32)

    def draw(self, spec: MapSpec, canvas: AtlasCanvas, fmt: str = "png") -> tuple[bytes, list[dict[str, Any]], dict[str, Any]]:
        """PNG (or ``fmt``: ``svg``, ``pdf``) bytes of a map, its legend item boxes and its label records."""
        figure = self._figures.get_or_make(
            canvas, lambda: MatplotlibFigure(canvas, spec.style.dpi, style_of(spec.style, spec.atlas)), key=spec.style.dpi)
        faces = [spec.legend.color_of(spec.values.get(c, float("nan"))) for c in canvas.codes]
        return figure.draw(spec, faces, label_texts(spec, canvas), fmt)
