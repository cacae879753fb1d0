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

SWATCH_W, SWATCH_H, SWATCH_GAP = 24.0, 17.0, 6.0
ENTRY_GAP = 14.0  # between two entries on a row / two columns
MARGIN = 6.0  # kept free inside the legend box
FONT_STEPS, MIN_FONT_SHARE = 4, 0.7  # a legend that does not fit shrinks its font in steps down to 70 %


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
    """(label, colour, hatch, class index) in display order, the N/A entry last (also under a colour bar)."""
    entries = [(c.label, c.color, c.hatch, c.index) for c in legend.display_classes()]
    if legend.na_label:
        entries.append((legend.na_label, legend.na_color, None, None))
    return entries


def legend_layout(legend: Legend, box: Box, orientation: str, font_px: float) -> LegendLayout:
    """Swatches (discrete) or a colour bar (continuous, N/A swatch beside it) laid out inside ``box``; entries
    wrap into rows (horizontal) or columns (vertical), and the font shrinks (to MIN_FONT_SHARE) before anything
    would leave ``box``."""
    if legend.kind == "continuous":
        return _colorbar(legend, box, orientation, font_px)
    entries = legend_entries(legend)
    for step in range(FONT_STEPS + 1):
        size = font_px * (1 - (1 - MIN_FONT_SHARE) * step / FONT_STEPS)
        spots = _flow(entries, box, orientation == "vertical", size)
        if spots is not None:
            break
    else:
        spots = _flow(entries, box, orientation == "vertical", size, force=True)
    return _swatch_layout(entries, spots, size)


def _entry_width(label: str, font_px: float) -> float:
    return SWATCH_W + 6 + text_size(label, font_px)[0]


def _chunks(widths: list[float], limit: float, per_line: int | None) -> list[list[int]]:
    """Indices grouped into lines: at most ``per_line`` each, or as many as fit in ``limit`` pixels."""
    lines: list[list[int]] = [[]]
    used = 0.0
    for i, w in enumerate(widths):
        full = len(lines[-1]) == per_line if per_line else lines[-1] and used + w > limit
        if full:
            lines.append([])
            used = 0.0
        lines[-1].append(i)
        used += w + ENTRY_GAP
    return lines


def _flow(entries, box: Box, vertical: bool, font_px: float, force: bool = False):
    """Top-left corner of each entry, or None when they do not fit in ``box`` at this font size."""
    widths = [_entry_width(e[0], font_px) for e in entries]
    step_y = SWATCH_H + SWATCH_GAP
    avail_w, avail_h = box.width - 2 * MARGIN, box.height - 2 * MARGIN
    if vertical:
        per_col = max(1, int((avail_h + SWATCH_GAP) // step_y))
        cols = _chunks(widths, 0.0, per_col)
        col_w = [max(widths[i] for i in col) for col in cols]
        total_w = sum(col_w) + ENTRY_GAP * (len(cols) - 1)
        if total_w > avail_w and not force:
            return None
        rows_h = min(len(entries), per_col) * step_y - SWATCH_GAP
        x = box.left + MARGIN + max(0.0, min(4.0, (avail_w - total_w) / 2))
        y0 = box.top + MARGIN + max(0.0, (avail_h - rows_h) / 2)
        spots = {}
        for col, cw in zip(cols, col_w, strict=True):
            for r, i in enumerate(col):
                spots[i] = (x, y0 + r * step_y)
            x += cw + ENTRY_GAP
        return [spots[i] for i in range(len(entries))]
    rows = _chunks(widths, avail_w, None)
    rows_h = len(rows) * step_y - SWATCH_GAP
    if (rows_h > avail_h or any(sum(widths[i] for i in row) > avail_w for row in rows)) and not force:
        return None
    y = box.top + MARGIN + max(0.0, (avail_h - rows_h) / 2)
    spots = {}
    for row in rows:
        row_w = sum(widths[i] for i in row) + ENTRY_GAP * (len(row) - 1)
        x = box.left + MARGIN + max(0.0, (avail_w - row_w) / 2)
        for i in row:
            spots[i] = (x, y)
            x += widths[i] + ENTRY_GAP
        y += step_y
    return [spots[i] for i in range(len(entries))]


def _swatch_layout(entries, spots, font_px: float) -> LegendLayout:
    swatches, texts, items = [], [], []
    for (label, color, hatch, index), (x, y) in zip(entries, spots, strict=True):
        swatches.append(Swatch(x, y, SWATCH_W, SWATCH_H, color, hatch))
        texts.append(TextItem(x + SWATCH_W + 6, y + SWATCH_H / 2, label, font_px, anchor="lm"))
        items.append({"label": label, "class": index, "swatch": [x, y, x + SWATCH_W, y + SWATCH_H],
                      "box": [x, y, x + _entry_width(label, font_px), y + SWATCH_H]})
    return LegendLayout(tuple(swatches), None, tuple(texts), tuple(items))


def _na_entry(legend: Legend, x: float, y: float, font_px: float) -> tuple[Swatch, TextItem, dict[str, Any]]:
    """The N/A swatch of a colour bar with its top-left corner at (x, y)."""
    label = legend.na_label or "N/A"
    item = {"label": label, "class": None, "swatch": [x, y, x + SWATCH_W, y + SWATCH_H],
            "box": [x, y, x + _entry_width(label, font_px), y + SWATCH_H]}
    return (Swatch(x, y, SWATCH_W, SWATCH_H, legend.na_color, None),
            TextItem(x + SWATCH_W + 6, y + SWATCH_H / 2, label, font_px, anchor="lm"), item)


def _colorbar(legend: Legend, box: Box, orientation: str, font_px: float) -> LegendLayout:
    vertical = orientation == "vertical"
    na_w = _entry_width(legend.na_label, font_px) + ENTRY_GAP if legend.na_label else 0.0
    label_w = max((text_size(t, font_px)[0] for t in legend.tick_labels), default=0.0)
    if vertical:
        na_h = SWATCH_H + 2 * SWATCH_GAP if legend.na_label else 0.0
        w, h = 18.0, min(box.height * 0.7, 320.0, box.height - 2 * MARGIN - na_h - font_px)
        x0, y0 = box.left + 14, box.top + (box.height - h - na_h) / 2
        na_xy = (x0, y0 + h + 2 * SWATCH_GAP)
    else:
        room = box.width - 2 * MARGIN - label_w - na_w
        w, h = min(box.width * 0.7, 480.0, room), 16.0
        x0 = box.left + (box.width - w - na_w) / 2
        y0 = box.top + min(box.height * 0.25, max(MARGIN, box.height - MARGIN - h - 6 - 1.2 * font_px))
        na_xy = (x0 + w + label_w / 2 + ENTRY_GAP, y0)
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
    swatches = []
    if legend.na_label:
        swatch, text, item = _na_entry(legend, *na_xy, font_px)
        swatches, texts, items = [swatch], [*texts, text], [*items, item]
    bar = ColorBar(x0, y0, w, h, vertical, tuple(ticks))
    return LegendLayout(tuple(swatches), bar, tuple(texts), tuple(items))
