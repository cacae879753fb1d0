"""Where a legend's parts go on the page (renderer-neutral): swatches or a colour bar, texts and item boxes.

Both renderers draw exactly this geometry, so legend item boxes (pixel truth for the legend) are the same
whichever renderer made the image.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mapgen.legend import Legend
from mapgen.render.layout import Box
from mapgen.render.text import TextItem, text_size

NA_HATCH_FACE = "#ffffff"
SWATCH_W, SWATCH_H, SWATCH_GAP = 24.0, 17.0, 6.0


@dataclass(frozen=True)
class Swatch:
    """One discrete legend entry's rectangle (pixels) and fill."""

    x: float
    y: float
    w: float
    h: float
    color: str
    hatch: str | None


@dataclass(frozen=True)
class ColorBar:
    """The colour bar's rectangle and its tick marks (pixel line segments)."""

    x: float
    y: float
    w: float
    h: float
    vertical: bool
    ticks: tuple[tuple[tuple[float, float], tuple[float, float]], ...]


@dataclass(frozen=True)
class LegendLayout:
    """Everything a renderer needs to draw a legend, plus the item boxes it reports."""

    swatches: tuple[Swatch, ...]
    colorbar: ColorBar | None
    texts: tuple[TextItem, ...]
    items: tuple[dict[str, Any], ...]


def legend_entries(legend: Legend) -> list[tuple[str, str, str | None, int | None]]:
    """(label, colour, hatch, class index) in display order, the N/A entry last."""
    entries = [(c.label, c.color, c.hatch, c.index) for c in legend.display_classes()]
    if legend.na_label:
        entries.append((legend.na_label, NA_HATCH_FACE if legend.hatched else legend.na_color, None, None))
    return entries


def legend_layout(legend: Legend, box: Box, orientation: str, font_px: float) -> LegendLayout:
    """Swatches (discrete) or a colour bar (continuous) laid out inside ``box``."""
    if legend.kind == "continuous":
        return _colorbar(legend, box, orientation, font_px)
    return _swatches(legend, box, orientation, font_px)


def _swatches(legend: Legend, box: Box, orientation: str, font_px: float) -> LegendLayout:
    entries = legend_entries(legend)
    widths = [SWATCH_W + 6 + text_size(e[0], font_px)[0] + 16 for e in entries]
    if orientation == "vertical":
        x = box.left + 12
        y = box.top + max(8.0, (box.height - len(entries) * (SWATCH_H + SWATCH_GAP)) / 2)
    else:
        x, y = box.left + max(8.0, (box.width - sum(widths)) / 2), box.top + (box.height - SWATCH_H) / 2
    swatches, texts, items = [], [], []
    for (label, color, hatch, index), width in zip(entries, widths):
        swatches.append(Swatch(x, y, SWATCH_W, SWATCH_H, color, hatch))
        texts.append(TextItem(x + SWATCH_W + 6, y + SWATCH_H / 2, label, font_px, anchor="lm"))
        items.append({"label": label, "class": index, "swatch": [x, y, x + SWATCH_W, y + SWATCH_H],
                      "box": [x, y, x + width - 16, y + SWATCH_H]})
        if orientation == "vertical":
            y += SWATCH_H + SWATCH_GAP
        else:
            x += width
    return LegendLayout(tuple(swatches), None, tuple(texts), tuple(items))


def _colorbar(legend: Legend, box: Box, orientation: str, font_px: float) -> LegendLayout:
    vertical = orientation == "vertical"
    if vertical:
        w, h = 18.0, min(box.height * 0.7, 320.0)
        x0, y0 = box.left + 14, box.top + (box.height - h) / 2
    else:
        w, h = min(box.width * 0.7, 480.0), 16.0
        x0, y0 = box.left + (box.width - w) / 2, box.top + box.height * 0.25
    span = legend.vmax - legend.vmin
    items: list[dict[str, Any]] = [{"colorbar": [x0, y0, x0 + w, y0 + h], "orientation": orientation,
                                    "vmin": legend.vmin, "vmax": legend.vmax}]
    ticks, texts = [], []
    for tick, label in zip(legend.ticks, legend.tick_labels):
        frac = (tick - legend.vmin) / span if span else 0.0
        if vertical:
            ty = y0 + h - frac * h
            ticks.append(((x0 + w, ty), (x0 + w + 4, ty)))
            texts.append(TextItem(x0 + w + 7, ty, label, font_px, anchor="lm"))
            items.append({"label": label, "tick": tick, "xy": [x0 + w, ty]})
        else:
            tx = x0 + frac * w
            ticks.append(((tx, y0 + h), (tx, y0 + h + 4)))
            texts.append(TextItem(tx, y0 + h + 6, label, font_px, anchor="mt"))
            items.append({"label": label, "tick": tick, "xy": [tx, y0 + h]})
    bar = ColorBar(x0, y0, w, h, vertical, tuple(ticks))
    return LegendLayout((), bar, tuple(texts), tuple(items))
