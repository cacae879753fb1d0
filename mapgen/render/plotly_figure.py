"""The plotly figure of one map (a figure dict for plotly.js): the page, the regions, the legend and the labels.

Approach. One cartesian plot whose axes span exactly the page in pixels (``xaxis.range=[0, width]``,
``yaxis.range=[height, 0]``, no margins, ``layout.width/height`` = page size), so data coordinates ARE the pixel
coordinates of the :class:`~mapgen.render.canvas.AtlasCanvas`: placement is exact by construction and the canvas's
region-id mask and pixel facts hold unchanged. Regions are drawn from the canvas's pixel-space geometry:

- colour maps: one layout shape per region (``type="path"``, an SVG path, even-odd fill so holes stay open):
  plotly handles path shapes about twice as fast as scatter traces with the same vertices;
- hatched maps: one ``go.Scatter(fill="toself", fillpattern=...)`` per legend class (shapes cannot carry
  patterns; rings re-oriented so the nonzero rule keeps holes open), then the outline as a line trace.

Outlines are simplified by :data:`SIMPLIFY_PX` (a quarter pixel: invisible, about half the vertices). A
``go.Choropleth`` in a linear projection was the alternative; it was not chosen because a geo subplot adds its
own frame and fitting (pixel placement then rests on plotly.js internals), fetches topojson (the HTML output
could not open offline), and choropleths cannot fill with patterns.

What a map looks like is its style (:mod:`mapgen.render.style`); a spec in the default style is drawn in
plotly's own look (``templates/styles/renderers/plotly.yaml``: the framed geo area, the title top-left in
#2a3f5f, Noto Sans, #444 region lines, the tall thick colour bar). Every style field is applied: page, map panel
and frame, fonts, title, legend texts, swatch edges, tick colour and box, region, outline and hatched-map
borders, label frames and leader colour, and the hatch table (:func:`plotly_hatch`). Legend and label geometry
come from :func:`~mapgen.render.legend_layout.legend_layout` and :func:`~mapgen.render.labels.drawn_labels`, the
numbers both renderers report; text is set in the font families and pixel sizes PIL measured
(:func:`~mapgen.render.text.css_font`).

Hatched maps: plotly's pattern shapes are ``- | / \\ x + .``; the hatch order ``- + x \\ * o O |`` is drawn as
``- + x \\``, fine dots, coarse heavy dots, coarse thick horizontal bands and ``|`` (:data:`PLOTLY_HATCH`: shape,
size, solidity). ``/`` is never used: beside ``\\`` a mirrored diagonal is hard to tell apart. Black pattern on the
class's grey face; tests/test_hatch_patterns.py measures that the eight are pairwise distinguishable.
"""

from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from PIL import Image

from mapgen.caches import ObjectCache
from mapgen.legend import Legend, page_like
from mapgen.render.canvas import AtlasCanvas
from mapgen.render.labels import CASING_COLOR, DOT_RIM_PX, LEADER_WIDTH_PX, drawn_labels, label_texts
from mapgen.render.layout import Box
from mapgen.render.legend_layout import (
    ColorBar,
    LegendLayout,
    LegendText,
    legend_bounds,
    legend_font_px,
    legend_layout,
)
from mapgen.render.placement import CASING_WIDTH_PX
from mapgen.render.style import DEFAULT_HATCHES, MapStyle, StyleError, outline_color, style_of
from mapgen.render.text import TextItem, css_font, css_weight, title_items
from mapgen.spec import MapSpec, background_color

FONT_FAMILY = "DejaVu Sans"
PT_PX = 4 / 3  # matplotlib points → plotly pixels, as the renderer has always drawn them
BORDER_PX = 0.7  # matplotlib's 0.5 pt at 100 dpi
SWATCH_EDGE_PX = 0.8  # the legend's swatch and colour-bar frames (matplotlib: 0.6 pt)
TICK_PX = 1.1  # colour-bar tick marks (matplotlib: 0.8 pt)
#: Hatch symbol → plotly ``fillpattern`` (shape, size in px, solidity): seven shapes, dots twice (fine and coarse),
#: horizontal lines twice (thin and thick bands); no ``/`` beside ``\\``.
PLOTLY_HATCH: dict[str, tuple[str, int, float]] = {
    "-": ("-", 7, 0.25), "+": ("+", 7, 0.25), "x": ("x", 7, 0.25), "\\": ("\\", 7, 0.25),
    "*": (".", 5, 0.3), "o": (".", 12, 0.4), "O": ("-", 14, 0.4), "|": ("|", 7, 0.25),
}
#: matplotlib hatch characters → the plotly pattern shape that draws them (a style's own hatch table).
HATCH_SHAPES = {"-": "-", "|": "|", "/": "/", "\\": "\\", "x": "x", "X": "x", "+": "+", ".": ".", "o": ".",
                "O": ".", "*": "."}
HALO_OFFSETS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))  # one-pixel text halo
SIMPLIFY_PX = 0.25  # outline simplification: invisible at this size, halves the vertices plotly handles
CLEAR = "rgba(0,0,0,0)"


def build_figure(spec: MapSpec, canvas: AtlasCanvas, interactive: bool = False
                 ) -> tuple[dict[str, Any], list[dict], dict[str, Any]]:
    """The plotly figure (as a dict) of one map, its legend item boxes and its label boxes (pixels);
    ``interactive`` adds a hover trace naming each region and its value (the HTML output)."""
    style, legend, lay = spec.style, spec.legend, canvas.layout
    look = style_of(spec.style, spec.atlas, legend.hatched)
    bg = background_color(style.background)
    paper = background_color(look.page.color) if look.page.color else bg
    shapes = _map_area(look, lay.map_box, bg)
    traces = _hatched_traces(spec, canvas, look) if legend.hatched else []
    if not legend.hatched:
        shapes += _region_shapes(spec, canvas, look)
    annotations: list[dict[str, Any]] = []
    labels: dict[str, dict[str, Any]] = {}
    if style.annotated:
        traces += _label_traces(spec, canvas, look, labels)
    if style.show_title and lay.title_box is not None and spec.title:
        annotations.extend(_annotation(t) for t in title_items(spec.title, lay.title_box, look))
    font_px = legend_font_px(lay.width, lay.height, style.dpi, look.legend.cap_px)
    layout = legend_layout(legend, lay.legend_box, style.legend_orientation, font_px, LegendText.of(look, canvas.scale))
    shapes += _legend_box(look, layout, canvas.scale)
    legend_traces, images = _legend(legend, layout, look, bg)
    annotations.extend(_annotation(item) for item in layout.texts)
    traces += legend_traces
    if interactive:
        traces.append(_hover_trace(spec, canvas))
    for i, trace in enumerate(traces):  # fixed trace ids (plotly.js draws random ones into SVG classes)
        trace["uid"] = f"m{i}"
    return {"data": traces, "layout": _page(lay.width, lay.height, paper, annotations, images, shapes)}, \
        list(layout.items), labels


def _page(width: int, height: int, paper: str, annotations: list, images: list, shapes: list) -> dict[str, Any]:
    """The figure layout: axes spanning the page in pixels, no margins, nothing to zoom."""
    axis = {"visible": False, "showgrid": False, "zeroline": False, "fixedrange": True}
    return {
        "width": width,
        "height": height,
        "autosize": False,
        "margin": {"l": 0, "r": 0, "t": 0, "b": 0, "pad": 0},
        "paper_bgcolor": paper,
        "plot_bgcolor": paper,
        "showlegend": False,
        "hovermode": "closest",
        "xaxis": axis | {"range": [0, width]},
        "yaxis": axis | {"range": [height, 0]},
        "font": {"family": FONT_FAMILY, "color": "#000000"},
        "annotations": annotations,
        "images": images,
        "shapes": shapes,
    }


@dataclass
class CanvasShapes:
    """Plotly-ready region outlines of one canvas, simplified by :data:`SIMPLIFY_PX` (computed once)."""

    paths: dict[str, str]  # SVG path per region (shapes)
    rings: dict[str, tuple[list, list]]  # None-separated ring coordinates per region (scatter traces)
    outline: str = ""  # SVG path of the outer edge of all regions
    outline_rings: tuple[list, list] = ([], [])  # the same edge as ring coordinates (hatched maps' line trace)


_SHAPES: ObjectCache[CanvasShapes] = ObjectCache("render.plotly_figure.shapes", maxsize=32)


def canvas_shapes(canvas: AtlasCanvas) -> CanvasShapes:
    """The cached :class:`CanvasShapes` of a canvas."""
    return _SHAPES.get_or_make(canvas, lambda: _shapes(canvas))


def _shapes(canvas: AtlasCanvas) -> CanvasShapes:
    rings = {c: _rings(shapely.orient_polygons(g.simplify(SIMPLIFY_PX))) for c, g in canvas.geoms.items()}
    edge = _rings(shapely.orient_polygons(canvas.outline_geom.simplify(SIMPLIFY_PX)))
    return CanvasShapes({c: _svg_path(*xy) for c, xy in rings.items()}, rings, _svg_path(*edge), edge)


def _rings(geom) -> tuple[list, list]:
    xs: list = []
    ys: list = []
    for part in getattr(geom, "geoms", [geom]):
        for ring in (part.exterior, *part.interiors):
            xy = np.round(np.asarray(ring.coords), 1)
            xs += [*xy[:, 0].tolist(), None]
            ys += [*xy[:, 1].tolist(), None]
    return xs, ys


def _svg_path(xs: list, ys: list) -> str:
    out, start = [], True
    for x, y in zip(xs, ys):
        if x is None:
            out.append("Z")
            start = True
            continue
        out.append(f"{'M' if start else 'L'}{x:g},{y:g}")
        start = False
    return "".join(out)


def _rect(x1: float, y1: float, x2: float, y2: float, fill: str, line: str | None, width: float) -> dict[str, Any]:
    """A rectangle shape below the traces (pixels)."""
    return {"type": "rect", "x0": x1, "x1": x2, "y0": y1, "y1": y2, "xref": "x", "yref": "y", "layer": "below",
            "fillcolor": fill, "line": {"color": line or CLEAR, "width": width if line else 0}}


def _map_area(look: MapStyle, box: Box, bg: str) -> list[dict[str, Any]]:
    """The filled, framed map panel of a style that has one (plotly's look: the geo area's frame)."""
    area = look.map_area
    if not (area.fill or area.frame_color):
        return []
    return [_rect(box.left, box.top, box.right, box.bottom, bg if area.fill else CLEAR, area.frame_color,
                  area.frame_width * PT_PX)]


def _legend_box(look: MapStyle, layout: LegendLayout, scale: float) -> list[dict[str, Any]]:
    """The box behind the legend of a style that has one: around every part of the legend, padded (as the
    matplotlib renderer draws it)."""
    leg = look.legend
    if not (leg.box_fill or leg.box_frame):
        return []
    x1, y1, x2, y2 = legend_bounds(layout)
    pad = leg.box_pad * scale
    return [_rect(x1 - pad, y1 - pad, x2 + pad, y2 + pad, leg.box_fill or CLEAR, leg.box_frame,
                  leg.box_width * PT_PX)]


def _region_shapes(spec: MapSpec, canvas: AtlasCanvas, look: MapStyle) -> list[dict[str, Any]]:
    """One filled SVG-path shape per region (colour maps): the fastest way plotly draws many vertices."""
    paths, legend = canvas_shapes(canvas).paths, spec.legend
    line = {"color": look.borders.color, "width": look.borders.width * BORDER_PX / 0.5}
    faces = [legend.color_of(spec.values.get(c, float("nan"))) for c in canvas.codes]
    shapes = [
        {"type": "path", "path": paths[c], "xref": "x", "yref": "y", "layer": "below", "fillrule": "evenodd",
         "fillcolor": face, "line": line}
        for c, face in zip(canvas.codes, faces, strict=True)
    ]
    bg = background_color(spec.style.background)
    edge = {"color": outline_color(bg, look), "width": look.borders.outline_width * PT_PX}
    if legend.outlined:  # the regions whose fill is close to the page, edged with the map's outline
        shapes += [_edge_shape(paths[c], edge) for c, face in zip(canvas.codes, faces, strict=True)
                   if page_like(face, bg)]
    return [*shapes, _edge_shape(canvas_shapes(canvas).outline, edge)]


def _edge_shape(path: str, line: dict[str, Any]) -> dict[str, Any]:
    """An unfilled SVG-path shape below the traces: an outline."""
    return {"type": "path", "path": path, "xref": "x", "yref": "y", "layer": "below", "fillcolor": CLEAR,
            "line": line}


def _hatched_traces(spec: MapSpec, canvas: AtlasCanvas, look: MapStyle) -> list[dict[str, Any]]:
    """One filled path trace per legend class with its plotly pattern (shapes cannot carry patterns), region
    borders in the style's hatched-map colour and width, then the outline in that colour."""
    legend, shapes, borders = spec.legend, canvas_shapes(canvas), look.borders
    traces = []
    for idx, codes in canvas.codes_by_class(spec):
        cls = legend.classes[idx] if idx >= 0 else None
        xs = [v for c in codes for v in shapes.rings[c][0]]
        ys = [v for c in codes for v in shapes.rings[c][1]]
        trace = _path_trace(xs, ys, cls.color if cls else legend.na_color, borders.hatch_color,
                            borders.hatch_width * PT_PX)
        if cls and cls.hatch:
            trace["fillpattern"] = hatch_fillpattern(cls.hatch, cls.color, look.hatches)
        traces.append(trace)
    outline = _path_trace(*shapes.outline_rings, CLEAR, borders.hatch_color, borders.outline_width * PT_PX)
    return [*traces, outline | {"fill": "none"}]


def _path_trace(xs: list, ys: list, fill: str, line: str, width: float) -> dict[str, Any]:
    return {
        "type": "scatter",
        "x": xs,
        "y": ys,
        "mode": "lines",
        "fill": "toself",
        "fillcolor": fill,
        "line": {"color": line, "width": width, "simplify": False},
        "hoverinfo": "skip",
        "connectgaps": False,
    }


def plotly_hatch(symbol: str, table: dict[str, str] | None = None) -> tuple[str, int, float]:
    """plotly pattern (shape, size, solidity) of a hatch symbol in a style's hatch ``table`` (matplotlib hatch
    strings): the default table gives :data:`PLOTLY_HATCH`; another string is drawn with the plotly shape of its
    character, denser as the character repeats. A string plotly has no shape for is refused, naming the field."""
    base = PLOTLY_HATCH.get(symbol, (symbol, 7, 0.25))
    drawn, default = (table or DEFAULT_HATCHES).get(symbol, symbol), DEFAULT_HATCHES.get(symbol, symbol)
    if drawn == default:
        return base
    char = drawn[:1]
    if not drawn or set(drawn) != {char} or char not in HATCH_SHAPES:
        raise StyleError(f"hatches[{symbol!r}] = {drawn!r}: the plotly renderer draws a hatch as one of "
                         f"{' '.join(sorted(HATCH_SHAPES))} repeated (more repeats: denser); use one character.")
    if char == default[:1]:  # the same pattern, denser or sparser
        return base[0], max(3, round(base[1] * len(default) / len(drawn))), base[2]
    return HATCH_SHAPES[char], max(3, round(14 / len(drawn))), 0.3 if HATCH_SHAPES[char] == "." else 0.25


def hatch_fillpattern(hatch: str, face: str, table: dict[str, str] | None = None) -> dict[str, Any]:
    """plotly ``fillpattern`` of a hatch symbol (in a style's hatch ``table``): black ink on the class's face."""
    shape, size, solidity = plotly_hatch(hatch, table)
    return {"shape": shape, "fgcolor": "#000000", "bgcolor": face, "size": size, "solidity": solidity,
            "fillmode": "replace"}


def _label_traces(spec: MapSpec, canvas: AtlasCanvas, look: MapStyle, out: dict[str, Any]) -> list[dict[str, Any]]:
    """Leader lines (white casing, the style's leader colour), end dots, label boxes and texts as
    :mod:`mapgen.render.labels` draws them; fills ``out`` with the label records."""
    legend = spec.legend
    faces = {c: legend.color_of(spec.values.get(c, float("nan"))) for c in canvas.codes}
    drawn = drawn_labels(canvas, label_texts(spec, canvas), faces, legend.hatched, look.labels.callout_frame,
                         look.labels.halo)
    out.update({d.code: d.record() for d in drawn})
    callouts = [d for d in drawn if d.line is not None]
    traces = _leader_traces(callouts, canvas.scale, look.labels.leader_color) if callouts else []
    boxes: dict[tuple[str, str | None], tuple[list, list]] = {}
    for d in drawn:
        if d.item.background:
            x1, y1, x2, y2 = d.box
            bx, by = boxes.setdefault((d.item.background, d.item.frame), ([], []))
            bx += [x1 - 1, x2 + 1, x2 + 1, x1 - 1, x1 - 1, None]
            by += [y1 - 1, y1 - 1, y2 + 1, y2 + 1, y1 - 1, None]
    for (box_fill, box_frame), (bx, by) in sorted(boxes.items(), key=str):
        traces.append(_path_trace(bx, by, box_fill, box_frame or CLEAR, 1 if box_frame else 0))
    groups: dict[tuple[str, str | None, tuple[str, int]], list] = {}
    for item in (i for d in drawn for i in d.items):  # a full name on two lines is two items
        groups.setdefault((item.color, item.halo, css_font(item.text, item.size_px, item.family)), []).append(item)
    for (color, halo, face), items in sorted(groups.items(), key=str):
        trace = _text_trace([i.x for i in items], [i.y for i in items], [i.text for i in items], color, face)
        if halo:
            trace["textfont"]["shadow"] = ", ".join(f"{dx}px {dy}px 0 {halo}" for dx, dy in HALO_OFFSETS)
        traces.append(trace)
    return traces


def _leader_traces(callouts: list, scale: float, color: str) -> list[dict[str, Any]]:
    xs = [v for d in callouts for v in (d.line[0][0], d.line[1][0], None)]
    ys = [v for d in callouts for v in (d.line[0][1], d.line[1][1], None)]
    line = {"type": "scatter", "x": xs, "y": ys, "mode": "lines", "hoverinfo": "skip"}
    dots = {"type": "scatter", "x": [d.dot[0] for d in callouts], "y": [d.dot[1] for d in callouts],
            "mode": "markers", "hoverinfo": "skip",
            "marker": {"size": [2 * d.dot_radius + DOT_RIM_PX * scale for d in callouts], "color": color,
                       "line": {"color": CASING_COLOR, "width": DOT_RIM_PX * scale}}}
    return [line | {"line": {"color": CASING_COLOR, "width": CASING_WIDTH_PX * scale, "simplify": False}},
            line | {"line": {"color": color, "width": LEADER_WIDTH_PX * scale, "simplify": False}}, dots]


def _text_trace(xs, ys, texts, colors, face: tuple[str, int], position: str = "middle center") -> dict[str, Any]:
    """A text trace in one face (family, pixel size: :func:`~mapgen.render.text.css_font`)."""
    return {"type": "scatter", "x": xs, "y": ys, "mode": "text", "text": texts, "textposition": position,
            "textfont": {"family": face[0], "size": face[1], "color": colors},
            "hoverinfo": "skip", "cliponaxis": False}


def _annotation(item: TextItem) -> dict[str, Any]:
    """A plotly annotation placed like a PIL text item (anchor ``mm``, ``lm`` or ``mt``)."""
    xanchor = {"l": "left", "m": "center", "r": "right"}[item.anchor[0]]
    family, size = css_font(item.text, item.size_px, item.family)
    yanchor = {"m": "middle", "t": "top", "b": "bottom"}.get(item.anchor[1], "middle")
    font = {"family": family, "size": size, "color": item.color}
    if css_weight(item.family) == "bold":
        font["weight"] = "bold"
    return {"x": item.x, "y": item.y, "xref": "x", "yref": "y", "text": _escape(item.text), "showarrow": False,
            "xanchor": xanchor, "yanchor": yanchor, "borderpad": 0, "font": font}


def _escape(text: str) -> str:
    """Plotly annotation text is HTML-ish: escape the few characters it interprets."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _hover_trace(spec: MapSpec, canvas: AtlasCanvas) -> dict[str, Any]:
    """Invisible markers on each region's sample point whose hover text names the region and its value."""
    names, legend = canvas.atlas.names, spec.legend
    texts = []
    for code in canvas.codes:
        value = spec.values.get(code, float("nan"))
        if value is None or math.isnan(value):
            shown = legend.na_label or "N/A"
        else:
            shown = legend.label_of(value) if legend.kind == "discrete" else f"{value:,.4g}"
        texts.append(f"{_escape(names.get(code, code))} ({code}): {_escape(shown)}")
    xs, ys = zip(*(canvas.pixels[c].sample for c in canvas.codes))
    return {"type": "scatter", "x": list(xs), "y": list(ys), "mode": "markers", "text": texts,
            "hovertemplate": "%{text}<extra></extra>", "marker": {"size": 12, "opacity": 0}, "name": "regions"}


# --- legends -------------------------------------------------------------------------------------------------


def _legend(legend: Legend, layout: LegendLayout, look: MapStyle, background: str = "#ffffff"
            ) -> tuple[list[dict[str, Any]], list[dict]]:
    """Traces and images drawing a :func:`legend_layout` (the geometry both renderers report) in the style's
    swatch edge, hatch table and tick colour; on an ``outlined`` legend, swatches close to the ``background``
    and the colour bar's frame are edged with the map's outline, as the regions are."""
    leg = look.legend
    outline = outline_color(background, look), look.borders.outline_width * PT_PX
    traces = []
    for sw in layout.swatches:
        xs, ys = [sw.x, sw.x + sw.w, sw.x + sw.w, sw.x, sw.x], [sw.y, sw.y, sw.y + sw.h, sw.y + sw.h, sw.y]
        edge = outline if legend.outlined and page_like(sw.color, background) else (leg.swatch_edge, SWATCH_EDGE_PX)
        trace = _path_trace(xs, ys, sw.color, *edge)
        if sw.hatch:
            trace["fillpattern"] = hatch_fillpattern(sw.hatch, sw.color, look.hatches)
        traces.append(trace)
    bar = layout.colorbar
    if bar is None:
        return traces, []
    image = {"source": _gradient_uri(legend.colors, round(bar.w), round(bar.h), bar.vertical),
             "xref": "x", "yref": "y", "x": bar.x, "y": bar.y, "sizex": bar.w, "sizey": bar.h,
             "xanchor": "left", "yanchor": "top", "sizing": "stretch", "layer": "above"}
    edge = outline if legend.outlined else (leg.swatch_edge, SWATCH_EDGE_PX)
    xs, ys = [bar.x, bar.x + bar.w, bar.x + bar.w, bar.x, bar.x], [bar.y, bar.y, bar.y + bar.h, bar.y + bar.h, bar.y]
    frame = _path_trace(xs, ys, CLEAR, *edge) | {"fill": "none"}
    tick_x = [v for (a, b) in bar.ticks for v in (a[0], b[0], None)]
    tick_y = [v for (a, b) in bar.ticks for v in (a[1], b[1], None)]
    ticks = {"type": "scatter", "x": tick_x, "y": tick_y, "mode": "lines", "hoverinfo": "skip",
             "line": {"color": leg.tick_color, "width": TICK_PX}}
    return [*traces, *_extension_traces(legend, bar, edge), frame, ticks], [image]


def _extension_traces(legend: Legend, bar: ColorBar, edge: tuple[str, float]) -> list[dict[str, Any]]:
    """The triangles beyond the bar's clipped ends (:attr:`ColorBar.extensions`), filled with the end's colour
    and edged like the bar's frame."""
    traces = []
    for corners in bar.extensions:
        low = corners[0] == ((bar.x, bar.y + bar.h) if bar.vertical else (bar.x, bar.y))
        xs, ys = [x for x, _ in (*corners, corners[0])], [y for _, y in (*corners, corners[0])]
        traces.append(_path_trace(xs, ys, legend.colors[0 if low else -1], *edge))
    return traces


def _gradient_uri(colors: tuple[str, ...], width: int, height: int, vertical: bool) -> str:
    """PNG data URI of the colour scale, linearly interpolated, vmax at the top (vertical) or right."""
    rgb = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in colors], dtype=float)
    n = max(1, height if vertical else width)
    pos = (np.arange(n) + 0.5) / n * (len(rgb) - 1)
    ramp = np.stack([np.interp(pos, np.arange(len(rgb)), rgb[:, k]) for k in range(3)], axis=1)
    ramp = np.round(ramp).astype(np.uint8)
    pixels = ramp[::-1][:, None, :].repeat(max(1, width), 1) if vertical else ramp[None].repeat(max(1, height), 0)
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels), "RGB").save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
