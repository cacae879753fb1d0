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
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from PIL import Image, ImageDraw

from mapgen.legend import Legend, relative_luminance
from mapgen.render.canvas import AtlasCanvas
from mapgen.render.layout import Box
from mapgen.render.text import TextItem, draw_texts, text_size
from mapgen.spec import MapSpec, background_color

BORDER_COLOR = "#ffffff"
HATCH_BORDER_COLOR = "#000000"
NA_HATCH_FACE = "#ffffff"
LEGEND_FONT_PT = 8.5
#: Pattern density per MAPWise hatch symbol (denser patterns are easier to tell apart at 800×600).
HATCH_DENSITY = {"-": "---", "+": "++", "x": "xx", "\\": "\\\\\\", "*": "**", "o": "oo", "O": "O"}


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

    def px(self, points: float) -> float:
        """Font points → pixels."""
        return points * self.dpi / 72.0

    def draw(self, spec: MapSpec, faces: list[str], texts: dict[str, str]) -> tuple[bytes, list, dict]:
        """Draw one map; return PNG bytes, legend item boxes and label boxes."""
        style, legend = spec.style, spec.legend
        bg = background_color(style.background)
        self.fig.set_facecolor(bg)
        temp: list[Any] = []
        items: list[TextItem] = []
        self.regions.set_visible(not legend.hatched)
        if legend.hatched:
            temp += self._hatched_regions(spec)
        else:
            self.regions.set_facecolors(faces)
        labels: dict[str, dict[str, Any]] = {}
        if style.annotated:
            temp += self._labels(texts, faces, legend.hatched, items, labels)
        title_box = self.canvas.layout.title_box
        if style.show_title and title_box is not None and spec.title:
            items.append(self._title(spec.title, title_box))
        shapes, legend_items = legend_artists(self, legend, style.legend_orientation, items)
        temp += shapes
        self.agg.draw()
        image = Image.frombuffer("RGBA", self.agg.get_width_height(), self.agg.buffer_rgba()).convert("RGB")
        for artist in temp:
            artist.remove()
        draw_texts(ImageDraw.Draw(image), items)
        buf = io.BytesIO()
        image.save(buf, format="PNG", compress_level=style.png_compress_level, compress_type=zlib.Z_RLE)
        return buf.getvalue(), legend_items, labels

    def _hatched_regions(self, spec: MapSpec) -> list[Any]:
        legend, canvas = spec.legend, self.canvas
        groups: dict[int, list[str]] = {}
        for code in canvas.codes:
            idx = legend.class_of(spec.values.get(code, float("nan")))
            groups.setdefault(-1 if idx is None else idx, []).append(code)
        artists = []
        for idx, codes in sorted(groups.items()):
            cls = legend.classes[idx] if idx >= 0 else None
            coll = PathCollection(
                [canvas.paths[c] for c in codes],
                facecolors=cls.color if cls else NA_HATCH_FACE,
                edgecolors=HATCH_BORDER_COLOR,
                linewidths=0.5,
                hatch=hatch_pattern(cls.hatch) if cls else None,
                zorder=1,
            )
            self.ax.add_collection(coll)
            artists.append(coll)
        return artists

    def _labels(self, texts, faces, hatched: bool, items: list[TextItem], out: dict) -> list[Any]:
        canvas = self.canvas
        lines = []
        for code, face in zip(canvas.codes, faces):
            place = canvas.places.get(code)
            if place is None:
                continue
            dark = relative_luminance(face) < 0.3 and not hatched and place.kind == "inside"
            item = TextItem(place.xy[0], place.xy[1], texts[code], canvas.label_px, "#ffffff" if dark else "#000000",
                            "mm", "#ffffff" if hatched and place.kind == "inside" else None)
            items.append(item)
            if len(place.line) > 1:
                lines.append(place.line)
            out[code] = {"text": item.text, "kind": place.kind, "box": list(canvas.text_box(item.text, place.xy))}
        if not lines:
            return []
        coll = LineCollection(lines, colors="#444444", linewidths=0.6, zorder=3)
        self.ax.add_collection(coll)
        return [coll]

    def _title(self, title: str, box: Box) -> TextItem:
        size = max(11.0, min(20.0, box.height * 0.45))
        text = title
        while len(text) > 8 and text_size(text, size)[0] > box.width - 20:
            text = text[: -2].rstrip() + "…" if text.endswith("…") else text[:-1] + "…"
            text = text.replace("……", "…")
        return TextItem(box.left + box.width / 2, box.top + box.height / 2, text, size)


# --- legends -------------------------------------------------------------------------------------------------


def legend_artists(fig: MatplotlibFigure, legend: Legend, orientation: str, items: list[TextItem]):
    """Legend shapes (matplotlib) and texts (appended to ``items``); returns shapes and item boxes."""
    box = fig.canvas.layout.legend_box
    if legend.kind == "continuous":
        return _colorbar(fig, legend, box, orientation, items)
    return _swatches(fig, legend, box, orientation, items)


def _legend_entries(legend: Legend) -> list[tuple[str, str, str | None, int | None]]:
    entries = [(c.label, c.color, c.hatch, c.index) for c in legend.display_classes()]
    if legend.na_label:
        entries.append((legend.na_label, NA_HATCH_FACE if legend.hatched else legend.na_color, None, None))
    return entries


def _swatches(fig: MatplotlibFigure, legend: Legend, box: Box, orientation: str, items: list[TextItem]):
    entries = _legend_entries(legend)
    font_px = fig.px(LEGEND_FONT_PT)
    sw, sh, gap = 24.0, 17.0, 6.0
    widths = [sw + 6 + text_size(e[0], font_px)[0] + 16 for e in entries]
    if orientation == "vertical":
        x, y = box.left + 12, box.top + max(8.0, (box.height - len(entries) * (sh + gap)) / 2)
    else:
        x, y = box.left + max(8.0, (box.width - sum(widths)) / 2), box.top + (box.height - sh) / 2
    shapes, out = [], []
    for (label, color, hatch, index), width in zip(entries, widths):
        rect = Rectangle((x, y), sw, sh, facecolor=color, edgecolor="#555555", linewidth=0.6,
                         hatch=hatch_pattern(hatch), zorder=5)
        fig.ax.add_artist(rect)
        shapes.append(rect)
        items.append(TextItem(x + sw + 6, y + sh / 2, label, font_px, anchor="lm"))
        out.append({"label": label, "class": index, "swatch": [x, y, x + sw, y + sh],
                    "box": [x, y, x + width - 16, y + sh]})
        if orientation == "vertical":
            y += sh + gap
        else:
            x += width
    return shapes, out


def _colorbar(fig: MatplotlibFigure, legend: Legend, box: Box, orientation: str, items: list[TextItem]):
    rgb = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in legend.colors], dtype=np.uint8)
    font_px = fig.px(LEGEND_FONT_PT)
    span = legend.vmax - legend.vmin
    if orientation == "vertical":
        bw, bh = 18.0, min(box.height * 0.7, 320.0)
        x0, y0 = box.left + 14, box.top + (box.height - bh) / 2
        image = rgb[::-1][:, None, :]  # top = vmax
    else:
        bw, bh = min(box.width * 0.7, 480.0), 16.0
        x0, y0 = box.left + (box.width - bw) / 2, box.top + box.height * 0.25
        image = rgb[None, :, :]
    shapes = [fig.ax.imshow(image, extent=(x0, x0 + bw, y0 + bh, y0), aspect="auto", interpolation="bilinear",
                            zorder=5)]
    frame = Rectangle((x0, y0), bw, bh, fill=False, edgecolor="#555555", linewidth=0.6, zorder=6)
    fig.ax.add_artist(frame)
    shapes.append(frame)
    out: list[dict[str, Any]] = [{"colorbar": [x0, y0, x0 + bw, y0 + bh], "orientation": orientation,
                                  "vmin": legend.vmin, "vmax": legend.vmax}]
    ticks = []
    for tick, label in zip(legend.ticks, legend.tick_labels):
        frac = (tick - legend.vmin) / span if span else 0.0
        if orientation == "vertical":
            ty = y0 + bh - frac * bh
            ticks.append([(x0 + bw, ty), (x0 + bw + 4, ty)])
            items.append(TextItem(x0 + bw + 7, ty, label, font_px, anchor="lm"))
            out.append({"label": label, "tick": tick, "xy": [x0 + bw, ty]})
        else:
            tx = x0 + frac * bw
            ticks.append([(tx, y0 + bh), (tx, y0 + bh + 4)])
            items.append(TextItem(tx, y0 + bh + 6, label, font_px, anchor="mt"))
            out.append({"label": label, "tick": tick, "xy": [tx, y0 + bh]})
    tick_lines = LineCollection(ticks, colors="#333333", linewidths=0.8, zorder=6)
    fig.ax.add_collection(tick_lines)
    shapes.append(tick_lines)
    return shapes, out


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
    """Text drawn on each region: its code (counterfactual code when set), or its full name where it fits."""
    cf = spec.counterfactual or {}
    codes = {c: (cf.get("labels") or {}).get(c) or c for c in canvas.codes}
    if spec.style.label_mode != "names":
        return codes
    names = cf.get("names") or canvas.atlas.names
    return {c: names[c] if canvas.name_fits(c, names[c]) else codes[c] for c in canvas.codes}
