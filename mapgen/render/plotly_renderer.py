"""The plotly renderer: the MAPWise look (plotly + kaleido + headless Chromium), same page as matplotlib.

Approach. One cartesian plot whose axes span exactly the page in pixels (``xaxis.range=[0, width]``,
``yaxis.range=[height, 0]``, no margins, ``layout.width/height`` = page size), so data coordinates ARE the pixel
coordinates of the :class:`~mapgen.render.canvas.AtlasCanvas`: placement is exact by construction and the canvas's
region-id mask and pixel facts hold unchanged. Regions are drawn from the canvas's pixel-space geometry:

- colour maps: one layout shape per region (``type="path"``, an SVG path, even-odd fill so holes stay open,
  white border): plotly handles path shapes about twice as fast as scatter traces with the same vertices;
- hatched maps: one ``go.Scatter(fill="toself", fillpattern=...)`` per legend class (shapes cannot carry
  patterns; rings re-oriented so the nonzero rule keeps holes open), black borders.

Outlines are simplified by :data:`SIMPLIFY_PX` (a quarter pixel: invisible, about half the vertices). A
``go.Choropleth`` in a linear projection was the alternative; it was not chosen because a geo subplot adds its
own frame and fitting (pixel placement then rests on plotly.js internals), fetches topojson, and choropleths
cannot fill with patterns.

Content matches the matplotlib renderer: same colours, legend geometry (swatches or colour bar in the layout's
legend box, labels from the :class:`~mapgen.legend.Legend`; the colour bar is an exact-size gradient image),
title (same truncation), region labels from ``canvas.places`` with leader lines and the texts of
:func:`~mapgen.render.mpl_renderer.label_texts`; legend item and label boxes are the same numbers. Text is set
in DejaVu Sans (Debian ``fonts-dejavu-core``) at the pixel sizes the label plan measured with PIL: plotly's
default stack (``"Open Sans", verdana, arial``) resolves differently per machine, which would break both
reproducibility and the planned label boxes.

Hatched maps: plotly's pattern shapes are ``- | / \\ x + .``; the hatch order ``- + x \\ * o O |`` is drawn as
``- + x \\``, fine dots, coarse heavy dots, coarse thick horizontal bands and ``|`` (:data:`PLOTLY_HATCH`: shape,
size, solidity). ``/`` is never used: beside ``\\`` a mirrored diagonal is hard to tell apart. Black pattern on the
class's grey face; tests/test_hatch_patterns.py measures that the eight are pairwise distinguishable.

Speed: one long-lived Chromium (kaleido 1.x) per process, driven from a private event-loop thread, MathJax off,
topojson pointed at a local folder of empty topologies (never a download; only geo traces would ask). kaleido
reloads its page after every image; this renderer reloads only every :data:`RELOAD_EVERY` images
(``Plotly.toImage`` draws into a temporary div that it purges, so nothing carries over). A crashed browser is
replaced once per draw. Chromium's PNG is decoded and re-encoded with PIL (RGB, no metadata, the spec's
compression level), so the same spec gives byte-identical files.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import contextlib
import io
import os
import shutil
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from PIL import Image

from mapgen.files import write_text_atomic
from mapgen.legend import Legend
from mapgen.render.canvas import AtlasCanvas
from mapgen.render.labels import CASING_COLOR, DOT_RIM_PX, LEADER_COLOR, LEADER_WIDTH_PX, drawn_labels
from mapgen.render.layout import Box
from mapgen.render.legend_layout import PLAIN, LegendText, legend_font_px, legend_layout
from mapgen.render.mpl_renderer import (
    HATCH_BORDER_COLOR,
    HATCH_BORDER_WIDTH,
    label_texts,
    outline_color,
)
from mapgen.render.placement import CASING_WIDTH_PX
from mapgen.render.style import MapStyle, style_of
from mapgen.render.text import TextItem, css_font, css_weight, title_items
from mapgen.spec import MapSpec, background_color

FONT_FAMILY = "DejaVu Sans"
BORDER_PX = 0.7  # matplotlib's 0.5 pt at 100 dpi
#: Hatch symbol → plotly ``fillpattern`` (shape, size in px, solidity): seven shapes, dots twice (fine and coarse),
#: horizontal lines twice (thin and thick bands); no ``/`` beside ``\\``.
PLOTLY_HATCH: dict[str, tuple[str, int, float]] = {
    "-": ("-", 7, 0.25), "+": ("+", 7, 0.25), "x": ("x", 7, 0.25), "\\": ("\\", 7, 0.25),
    "*": (".", 5, 0.3), "o": (".", 12, 0.4), "O": ("-", 14, 0.4), "|": ("|", 7, 0.25),
}
RELOAD_EVERY = 200
HALO_OFFSETS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))  # one-pixel text halo
SIMPLIFY_PX = 0.25  # outline simplification: invisible at this size, halves the vertices plotly handles
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
TOPOJSON_NAMES = tuple(
    f"{scope}_{res}"
    for scope in ("world", "usa", "europe", "asia", "africa", "north-america", "south-america")
    for res in ("110m", "50m")
)
EMPTY_TOPOLOGY = '{"type":"Topology","objects":{},"arcs":[]}'
INSTALL_HINT = (
    "The plotly renderer needs Chromium: install it with `apt-get install chromium` (Debian/Ubuntu) or point "
    "BROWSER_PATH at a Chrome/Chromium executable; or use the matplotlib renderer (`--renderer matplotlib`)."
)


class ChromiumNotFoundError(FileNotFoundError):
    """No usable Chromium/Chrome executable for kaleido (a FileNotFoundError: the CLI prints it as one line)."""


# --- figure ------------------------------------------------------------------------------------------------


def build_figure(spec: MapSpec, canvas: AtlasCanvas) -> tuple[dict[str, Any], list[dict], dict[str, Any]]:
    """The plotly figure (as a dict) of one map, its legend item boxes and its label boxes (pixels)."""
    style, legend, lay, look = spec.style, spec.legend, canvas.layout, style_of(spec.style)
    bg = background_color(style.background)
    paper = background_color(look.page.color) if look.page.color else bg
    hatched = legend.hatched
    traces = _hatched_traces(spec, canvas) if hatched else []
    shapes = _map_area(look, lay.map_box, bg) + ([] if hatched else _region_shapes(spec, canvas, look))
    annotations: list[dict[str, Any]] = []
    labels: dict[str, dict[str, Any]] = {}
    if style.annotated:
        traces += _label_traces(spec, canvas, labels)
    if style.show_title and lay.title_box is not None and spec.title:
        annotations.extend(_annotation(t) for t in title_items(spec.title, lay.title_box, look))
    font_px = legend_font_px(lay.width, lay.height, style.dpi, look.legend.cap_px)
    legend_traces, images, legend_items = _legend(legend, lay.legend_box, style.legend_orientation, font_px,
                                                  annotations, LegendText.of(look, canvas.scale))
    shapes += _legend_box(look, legend_items, canvas.scale)
    traces += legend_traces
    axis = {"visible": False, "showgrid": False, "zeroline": False, "fixedrange": True}
    layout = {
        "width": lay.width,
        "height": lay.height,
        "autosize": False,
        "margin": {"l": 0, "r": 0, "t": 0, "b": 0, "pad": 0},
        "paper_bgcolor": paper,
        "plot_bgcolor": paper,
        "showlegend": False,
        "xaxis": axis | {"range": [0, lay.width]},
        "yaxis": axis | {"range": [lay.height, 0]},
        "font": {"family": FONT_FAMILY, "color": "#000000"},
        "annotations": annotations,
        "images": images,
        "shapes": shapes,
    }
    return {"data": traces, "layout": layout}, legend_items, labels


@dataclass
class CanvasShapes:
    """Plotly-ready region outlines of one canvas, simplified by :data:`SIMPLIFY_PX` (computed once)."""

    paths: dict[str, str]  # SVG path per region (shapes)
    rings: dict[str, tuple[list, list]]  # None-separated ring coordinates per region (scatter traces)
    outline: str = ""  # SVG path of the outer edge of all regions


_SHAPES: dict[int, tuple[AtlasCanvas, CanvasShapes]] = {}


def canvas_shapes(canvas: AtlasCanvas) -> CanvasShapes:
    """The cached :class:`CanvasShapes` of a canvas."""
    hit = _SHAPES.get(id(canvas))
    if hit is None or hit[0] is not canvas:
        rings = {c: _rings(shapely.orient_polygons(g.simplify(SIMPLIFY_PX))) for c, g in canvas.geoms.items()}
        outline = _svg_path(*_rings(shapely.orient_polygons(canvas.outline_geom.simplify(SIMPLIFY_PX))))
        hit = (canvas, CanvasShapes({c: _svg_path(*xy) for c, xy in rings.items()}, rings, outline))
        _SHAPES[id(canvas)] = hit
    return hit[1]


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


def _map_area(look: MapStyle, box: Box, bg: str) -> list[dict[str, Any]]:
    """The filled, framed map panel of a style that has one."""
    area = look.map_area
    if not (area.fill or area.frame_color):
        return []
    line = {"color": area.frame_color or "rgba(0,0,0,0)", "width": area.frame_width * 4 / 3}
    return [{"type": "rect", "x0": box.left, "x1": box.right, "y0": box.top, "y1": box.bottom, "xref": "x",
             "yref": "y", "layer": "below", "fillcolor": bg if area.fill else "rgba(0,0,0,0)", "line": line}]


def _legend_box(look: MapStyle, items: list[dict[str, Any]], scale: float) -> list[dict[str, Any]]:
    """The box behind the legend of a style that has one (around the legend's item boxes, padded)."""
    leg = look.legend
    if not (leg.box_fill or leg.box_frame):
        return []
    boxes: list[Any] = [b for i in items if (b := i.get("box") or i.get("colorbar") or i.get("text_box"))]
    pad = leg.box_pad * scale
    x1, y1 = min(b[0] for b in boxes) - pad, min(b[1] for b in boxes) - pad
    x2, y2 = max(b[2] for b in boxes) + pad, max(b[3] for b in boxes) + pad
    line = {"color": leg.box_frame or "rgba(0,0,0,0)", "width": leg.box_width * 4 / 3}
    return [{"type": "rect", "x0": x1, "x1": x2, "y0": y1, "y1": y2, "xref": "x", "yref": "y", "layer": "below",
             "fillcolor": leg.box_fill or "rgba(0,0,0,0)", "line": line}]


def _region_shapes(spec: MapSpec, canvas: AtlasCanvas, look: MapStyle) -> list[dict[str, Any]]:
    """One filled SVG-path shape per region (colour maps): the fastest way plotly draws many vertices."""
    paths, legend = canvas_shapes(canvas).paths, spec.legend
    line = {"color": look.borders.color, "width": look.borders.width * BORDER_PX / 0.5}
    shapes = [
        {"type": "path", "path": paths[c], "xref": "x", "yref": "y", "layer": "below", "fillrule": "evenodd",
         "fillcolor": legend.color_of(spec.values.get(c, float("nan"))), "line": line}
        for c in canvas.codes
    ]
    edge = {"color": outline_color(background_color(spec.style.background), look),
            "width": look.borders.outline_width * 4 / 3}
    return [*shapes, {"type": "path", "path": canvas_shapes(canvas).outline, "xref": "x", "yref": "y",
                      "layer": "below", "fillcolor": "rgba(0,0,0,0)", "line": edge}]


def _hatched_traces(spec: MapSpec, canvas: AtlasCanvas) -> list[dict[str, Any]]:
    """One filled path trace per legend class with its plotly pattern (shapes cannot carry patterns)."""
    legend, rings = spec.legend, canvas_shapes(canvas).rings
    traces = []
    for idx, codes in canvas.codes_by_class(spec):
        cls = legend.classes[idx] if idx >= 0 else None
        xs = [v for c in codes for v in rings[c][0]]
        ys = [v for c in codes for v in rings[c][1]]
        trace = _path_trace(xs, ys, cls.color if cls else spec.legend.na_color, HATCH_BORDER_COLOR,
                            HATCH_BORDER_WIDTH * 4 / 3)
        if cls and cls.hatch:
            trace["fillpattern"] = hatch_fillpattern(cls.hatch, cls.color)
        traces.append(trace)
    return traces


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


def hatch_fillpattern(hatch: str, face: str) -> dict[str, Any]:
    """plotly ``fillpattern`` of a hatch symbol: black ink on the class's face colour."""
    shape, size, solidity = PLOTLY_HATCH.get(hatch, (hatch, 7, 0.25))
    return {"shape": shape, "fgcolor": "#000000", "bgcolor": face, "size": size, "solidity": solidity,
            "fillmode": "replace"}


def _label_traces(spec: MapSpec, canvas: AtlasCanvas, out: dict[str, Any]) -> list[dict[str, Any]]:
    """Leader lines (white casing, dark core), end dots, label boxes and texts as :mod:`mapgen.render.labels`
    draws them; fills ``out`` with the label records."""
    legend = spec.legend
    faces = {c: legend.color_of(spec.values.get(c, float("nan"))) for c in canvas.codes}
    frame = style_of(spec.style).labels.callout_frame
    drawn = drawn_labels(canvas, label_texts(spec, canvas), faces, legend.hatched, frame)
    out.update({d.code: d.record() for d in drawn})
    callouts = [d for d in drawn if d.line is not None]
    traces = _leader_traces(callouts, canvas.scale) if callouts else []
    boxes: dict[tuple[str, str | None], tuple[list, list]] = {}
    for d in drawn:
        if d.item.background:
            x1, y1, x2, y2 = d.box
            bx, by = boxes.setdefault((d.item.background, d.item.frame), ([], []))
            bx += [x1 - 1, x2 + 1, x2 + 1, x1 - 1, x1 - 1, None]
            by += [y1 - 1, y1 - 1, y2 + 1, y2 + 1, y1 - 1, None]
    for (box_fill, box_frame), (bx, by) in sorted(boxes.items(), key=str):
        traces.append(_path_trace(bx, by, box_fill, box_frame or "rgba(0,0,0,0)", 1 if box_frame else 0))
    groups: dict[tuple[str, str | None, tuple[str, int]], list] = {}
    for item in (i for d in drawn for i in d.items):  # a full name on two lines is two items
        groups.setdefault((item.color, item.halo, css_font(item.text, item.size_px)), []).append(item)
    for (color, halo, face), items in sorted(groups.items(), key=str):
        trace = _text_trace([i.x for i in items], [i.y for i in items], [i.text for i in items], color, face)
        if halo:
            trace["textfont"]["shadow"] = ", ".join(f"{dx}px {dy}px 0 {halo}" for dx, dy in HALO_OFFSETS)
        traces.append(trace)
    return traces


def _leader_traces(callouts: list, scale: float) -> list[dict[str, Any]]:
    xs = [v for d in callouts for v in (d.line[0][0], d.line[1][0], None)]
    ys = [v for d in callouts for v in (d.line[0][1], d.line[1][1], None)]
    line = {"type": "scatter", "x": xs, "y": ys, "mode": "lines", "hoverinfo": "skip"}
    dots = {"type": "scatter", "x": [d.dot[0] for d in callouts], "y": [d.dot[1] for d in callouts],
            "mode": "markers", "hoverinfo": "skip",
            "marker": {"size": [2 * d.dot_radius + DOT_RIM_PX * scale for d in callouts], "color": LEADER_COLOR,
                       "line": {"color": CASING_COLOR, "width": DOT_RIM_PX * scale}}}
    return [line | {"line": {"color": CASING_COLOR, "width": CASING_WIDTH_PX * scale, "simplify": False}},
            line | {"line": {"color": LEADER_COLOR, "width": LEADER_WIDTH_PX * scale, "simplify": False}}, dots]


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


# --- legends -------------------------------------------------------------------------------------------------


def _legend(legend: Legend, box: Box, orientation: str, font_px: float, annotations: list,
            look: LegendText = PLAIN):
    """Traces, images and item boxes drawing :func:`legend_layout` (the matplotlib renderer's geometry; the
    style's legend texts, but not yet its swatch edge, tick colour or box)."""
    layout = legend_layout(legend, box, orientation, font_px, look)
    traces, images = [], []
    for sw in layout.swatches:
        xs, ys = [sw.x, sw.x + sw.w, sw.x + sw.w, sw.x, sw.x], [sw.y, sw.y, sw.y + sw.h, sw.y + sw.h, sw.y]
        trace = _path_trace(xs, ys, sw.color, "#555555", 0.8)
        if sw.hatch:
            trace["fillpattern"] = hatch_fillpattern(sw.hatch, sw.color)
        traces.append(trace)
    bar = layout.colorbar
    if bar is not None:
        images.append({"source": _gradient_uri(legend.colors, round(bar.w), round(bar.h), bar.vertical),
                       "xref": "x", "yref": "y", "x": bar.x, "y": bar.y, "sizex": bar.w, "sizey": bar.h,
                       "xanchor": "left", "yanchor": "top", "sizing": "stretch", "layer": "above"})
        xs, ys = [bar.x, bar.x + bar.w, bar.x + bar.w, bar.x, bar.x], [bar.y, bar.y, bar.y + bar.h, bar.y + bar.h, bar.y]
        frame = _path_trace(xs, ys, "rgba(0,0,0,0)", "#555555", 0.8)
        frame["fill"] = "none"
        tick_x = [v for (a, b) in bar.ticks for v in (a[0], b[0], None)]
        tick_y = [v for (a, b) in bar.ticks for v in (a[1], b[1], None)]
        traces += [frame, {"type": "scatter", "x": tick_x, "y": tick_y, "mode": "lines", "hoverinfo": "skip",
                           "line": {"color": "#333333", "width": 1.1}}]
    annotations.extend(_annotation(item) for item in layout.texts)
    return traces, images, list(layout.items)


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


# --- browser -------------------------------------------------------------------------------------------------


def find_browser() -> str:
    """Path of the Chromium/Chrome executable kaleido will use (``BROWSER_PATH`` first), or a clear error."""
    env = os.environ.get("BROWSER_PATH")
    if env:
        if Path(env).is_file() and os.access(env, os.X_OK):
            return env
        raise ChromiumNotFoundError(f"BROWSER_PATH={env!r} is not an executable file. {INSTALL_HINT}")
    for name in BROWSER_NAMES:
        path = shutil.which(name)
        if path:
            return path
    raise ChromiumNotFoundError(f"No Chromium/Chrome found on PATH. {INSTALL_HINT}")


def topojson_dir() -> Path:
    """A local folder of empty topologies, so plotly.js never fetches topojson from a CDN (ARCHITECTURE.md §4)."""
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mapgen" / "topojson"
    root.mkdir(parents=True, exist_ok=True)
    for name in TOPOJSON_NAMES:
        path = root / f"{name}.json"
        if not path.exists():
            write_text_atomic(path, EMPTY_TOPOLOGY)
    return root


class BrowserSession:
    """One long-lived headless Chromium (kaleido) driven from a private event-loop thread."""

    def __init__(self, timeout: float = 90.0, reload_every: int = RELOAD_EVERY) -> None:
        self.browser = find_browser()
        self.topojson = topojson_dir().as_uri() + "/"
        self.timeout, self.reload_every = timeout, reload_every
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="mapgen-kaleido", daemon=True)
        self.thread.start()
        self.kaleido: Any = None
        try:
            self.kaleido = self._call(self._open())
        except BaseException:
            self._stop_loop()
            raise
        atexit.register(self.close)

    async def _open(self):
        from kaleido import Kaleido

        class _Kaleido(Kaleido):
            """Reloads a tab only every ``reload_every`` images instead of after each one."""

            renders = 0

            async def _return_kaleido_tab(inner, tab) -> None:  # noqa: N805
                inner.renders += 1
                if inner.renders % self.reload_every == 0:
                    await tab.reload()
                await inner.tabs_ready.put(tab)

        try:
            k = _Kaleido(n=1, timeout=self.timeout, mathjax=False, path=self.browser)
            await k.open()
        except Exception as exc:  # choreographer raises its own types for a missing/broken browser
            raise ChromiumNotFoundError(f"Could not start {self.browser}: {exc}. {INSTALL_HINT}") from exc
        return k

    def _call(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def png(self, figure: dict[str, Any], width: int, height: int) -> bytes:
        """PNG bytes of a figure at exactly ``width``×``height`` pixels."""
        opts = {"format": "png", "width": width, "height": height, "scale": 1}
        return self._call(self.kaleido.calc_fig(figure, opts=opts, topojson=self.topojson))

    def close(self) -> None:
        """Close the browser and stop the loop thread (idempotent)."""
        if self.kaleido is None or os.getpid() != self.pid:
            return
        try:
            self._call(self.kaleido.close())
        finally:
            self.kaleido = None
            self._stop_loop()

    def _stop_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


def reencode_png(raw: bytes, compress_level: int) -> bytes:
    """Decode Chromium's PNG and re-encode the RGB pixels without metadata (byte-stable output)."""
    with Image.open(io.BytesIO(raw)) as img:
        rgb = img.convert("RGB")
    buf = io.BytesIO()
    rgb.save(buf, format="PNG", compress_level=compress_level, compress_type=zlib.Z_RLE)
    return buf.getvalue()


class PlotlyRenderer:
    """Draws maps with plotly through one long-lived Chromium (started on first use)."""

    name = "plotly"

    def __init__(self) -> None:
        self._session: BrowserSession | None = None

    def session(self) -> BrowserSession:
        """The browser session of this process (a new one after a fork)."""
        if self._session is None or self._session.pid != os.getpid():
            self._session = BrowserSession()
        return self._session

    def figure(self, spec: MapSpec, canvas: AtlasCanvas) -> tuple[dict[str, Any], list[dict], dict[str, Any]]:
        """The plotly figure dict of a map (for inspection or ``plotly.io.write_image``)."""
        return build_figure(spec, canvas)

    def draw(self, spec: MapSpec, canvas: AtlasCanvas) -> tuple[bytes, list[dict[str, Any]], dict[str, Any]]:
        figure, legend_items, labels = build_figure(spec, canvas)
        lay = canvas.layout
        try:
            raw = self.session().png(figure, lay.width, lay.height)
        except ChromiumNotFoundError:
            raise
        except Exception:  # a crashed or wedged browser: start a fresh one and retry once
            self.close()
            raw = self.session().png(figure, lay.width, lay.height)
        return reencode_png(raw, spec.style.png_compress_level), legend_items, labels

    def close(self) -> None:
        """Close this process's browser (a later draw starts a new one)."""
        session, self._session = self._session, None
        if session is not None:
            with contextlib.suppress(Exception):  # closing a dead browser may fail; it is gone either way
                session.close()

