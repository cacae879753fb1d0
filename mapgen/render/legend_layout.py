"""Where a legend's parts go on the page (renderer-neutral): swatches or a colour bar, texts and item boxes.

Both renderers draw exactly this geometry, so legend item boxes (pixel truth for the legend) are the same
whichever renderer made the image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mapgen.caches import memo
from mapgen.legend import Legend, format_value
from mapgen.legend.grammar import resolve_style
from mapgen.render.layout import Box, page_scale
from mapgen.render.style import MapStyle
from mapgen.render.text import LATIN, TextItem, cap_height_size, font_for, text_box, text_size

#: Sizes at the base legend font (8.5 pt at 100 dpi); they scale with the font.
BASE_FONT_PX = 8.5 * 100 / 72
SWATCH_W, SWATCH_H, SWATCH_GAP = 24.0, 17.0, 6.0
ENTRY_GAP = 14.0  # between two entries on a row / two columns
MARGIN = 6.0  # kept free inside the legend box
#: Cap height of legend labels and colour-bar ticks at 800×600 (issue 14: 8.5 pt text had 9 px digits that an
#: OCR engine confused, 5 ↔ 3 / S); the layout still shrinks a legend that does not fit.
LEGEND_CAP_PX = 11.0
FONT_STEPS, MIN_FONT_SHARE = 6, 0.5  # a legend that does not fit shrinks (font and swatches) down to 50 %


@dataclass(frozen=True)
class LegendText:
    """How legend texts look (from the map style): font family, colour, upper case, rows centred or left."""

    family: str = LATIN
    color: str = "#000000"
    upper: bool = False
    align: str = "center"
    valign: str = "middle"  # a discrete legend's rows centred in the box, or at its top
    inset: float = 0.0  # pixels kept free left of left-aligned rows
    bar_width: float = 18.0  # colour bar thickness at the base legend font (px)
    bar_length: float = 0.7  # colour bar length: share of the legend box
    swatch: tuple[float, float] = (SWATCH_W, SWATCH_H)  # swatch width and height at the base legend font (px)

    @classmethod
    def of(cls, style: MapStyle, scale: float = 1.0) -> LegendText:
        """The legend text look of a map style on a page of ``scale`` (:func:`page_scale`)."""
        leg = style.legend
        return cls(style.fonts.legend, leg.text_color, leg.text_case == "upper", leg.align, leg.valign,
                   leg.inset * scale, leg.bar_width, leg.bar_length, (leg.swatch_width, leg.swatch_height))

    def shown(self, label: str) -> str:
        """The text drawn for a legend label."""
        return label.upper() if self.upper else label


PLAIN = LegendText()


@dataclass(frozen=True)
class Dims:
    """Swatch width and height, the gap between rows and between entries, for one legend font size."""

    w: float
    h: float
    gap: float
    entry_gap: float

    @classmethod
    def at(cls, font_px: float, swatch: tuple[float, float] = (SWATCH_W, SWATCH_H)) -> Dims:
        """The sizes at ``font_px`` for swatches ``swatch`` (width, height) at the base legend font."""
        u = font_px / BASE_FONT_PX
        return cls(swatch[0] * u, swatch[1] * u, SWATCH_GAP * u, ENTRY_GAP * u)


def legend_font_px(width: int, height: int, dpi: int = 100, cap_px: float = LEGEND_CAP_PX) -> float:
    """Legend font size for a page: the smallest size whose capitals (and digits) are ``cap_px`` tall at
    800×600 (LEGEND_CAP_PX: 15 px DejaVu Sans), scaled with the page (×0.6 … ×2.5) and the dpi."""
    return cap_height_size(cap_px * dpi / 100 * page_scale(width, height))


@dataclass(frozen=True)
class Swatch:
    """One discrete legend entry's rectangle (pixels) and fill."""

    x: float
    y: float
    w: float
    h: float
    color: str
    hatch: str | None


Segment = tuple[tuple[float, float], tuple[float, float]]
#: Marks of a clipped end: "≤" before the low end's label, "≥" before the high end's.
CLIP_MARKS = ("≤", "≥")
#: Length of a clipped end's triangle, as a share of the bar's thickness.
EXTENSION_SHARE = 0.9


@dataclass(frozen=True)
class ColorBar:
    """The colour bar's rectangle, its tick marks (pixel line segments; the end ticks last) and the triangles
    (three corners each) that mark clipped ends."""

    x: float
    y: float
    w: float
    h: float
    vertical: bool
    ticks: tuple[Segment, ...]
    extensions: tuple[tuple[tuple[float, float], ...], ...] = ()


@dataclass(frozen=True)
class LegendLayout:
    """Everything a renderer needs to draw a legend, plus the item boxes it reports."""

    swatches: tuple[Swatch, ...]
    colorbar: ColorBar | None
    texts: tuple[TextItem, ...]
    items: tuple[dict[str, Any], ...]


def legend_entries(legend: Legend) -> list[tuple[str, str, str | None, int | None]]:
    """(label, colour, hatch, class index) in display order, the N/A entry last (also under a colour bar)."""
    entries: list[tuple[str, str, str | None, int | None]] = [
        (c.label, c.color, c.hatch, c.index) for c in legend.display_classes()
    ]
    if legend.na_label:
        entries.append((legend.na_label, legend.na_color, None, None))
    return entries


def legend_layout(legend: Legend, box: Box, orientation: str, font_px: float, look: LegendText = PLAIN) -> LegendLayout:
    """Swatches (discrete) or a colour bar (continuous, N/A swatch beside it) laid out inside ``box``; entries
    wrap into rows (horizontal) or columns (vertical), and the font shrinks (to MIN_FONT_SHARE) before anything
    would leave ``box``."""
    if legend.kind == "continuous":
        for step in range(FONT_STEPS + 1):
            layout = _colorbar(legend, box, orientation, font_px * (1 - (1 - MIN_FONT_SHARE) * step / FONT_STEPS), look)
            if all(_within(text_box(t), box) for t in layout.texts):
                break
        return layout
    entries = legend_entries(legend)
    for step in range(FONT_STEPS + 1):
        size = font_px * (1 - (1 - MIN_FONT_SHARE) * step / FONT_STEPS)
        spots = _flow(entries, box, orientation == "vertical", size, look)
        if spots is not None:
            break
    else:
        spots = _flow(entries, box, orientation == "vertical", size, look, force=True)
    return _swatch_layout(entries, spots, size, look)


def _within(b: tuple[float, float, float, float], box: Box) -> bool:
    return box.left <= b[0] and box.top <= b[1] and b[2] <= box.left + box.width and b[3] <= box.top + box.height


@memo(4096)
def _entry_width(label: str, font_px: float, family: str = LATIN, swatch: tuple[float, float] = (SWATCH_W, SWATCH_H)
                 ) -> float:
    return Dims.at(font_px, swatch).w + 0.5 * font_px + font_for(label, font_px, family).getbbox(label, anchor="lm")[2]


def _chunks(widths: list[float], limit: float, per_line: int | None, gap: float) -> list[list[int]]:
    """Indices grouped into lines: at most ``per_line`` each, or as many as fit in ``limit`` pixels."""
    lines: list[list[int]] = [[]]
    used = 0.0
    for i, w in enumerate(widths):
        full = len(lines[-1]) == per_line if per_line else lines[-1] and used + w > limit
        if full:
            lines.append([])
            used = 0.0
        lines[-1].append(i)
        used += w + gap
    return lines


def _flow(entries, box: Box, vertical: bool, font_px: float, look: LegendText = PLAIN, force: bool = False):
    """Top-left corner of each entry, or None when they do not fit in ``box`` at this font size."""
    widths = [_entry_width(look.shown(e[0]), font_px, look.family, look.swatch) for e in entries]
    centred, middle = look.align == "center", look.valign == "middle"
    d = Dims.at(font_px, look.swatch)
    step_y = d.h + d.gap
    avail_w, avail_h = box.width - 2 * MARGIN - look.inset, box.height - 2 * MARGIN
    if vertical:
        per_col = max(1, int((avail_h + d.gap) // step_y))
        cols = _chunks(widths, 0.0, per_col, d.entry_gap)
        col_w = [max(widths[i] for i in col) for col in cols]
        total_w = sum(col_w) + d.entry_gap * (len(cols) - 1)
        if total_w > avail_w and not force:
            return None
        rows_h = min(len(entries), per_col) * step_y - d.gap
        x = box.left + MARGIN + max(0.0, min(4.0, (avail_w - total_w) / 2))
        y0 = box.top + MARGIN + max(0.0, (avail_h - rows_h) / 2) * middle
        spots = {}
        for col, cw in zip(cols, col_w, strict=True):
            for r, i in enumerate(col):
                spots[i] = (x, y0 + r * step_y)
            x += cw + d.entry_gap
        return [spots[i] for i in range(len(entries))]
    rows = _chunks(widths, avail_w, None, d.entry_gap)
    rows_h = len(rows) * step_y - d.gap
    if (rows_h > avail_h or any(sum(widths[i] for i in row) > avail_w for row in rows)) and not force:
        return None
    y = box.top + MARGIN + max(0.0, (avail_h - rows_h) / 2) * middle
    spots = {}
    for row in rows:
        row_w = sum(widths[i] for i in row) + d.entry_gap * (len(row) - 1)
        x = box.left + MARGIN + (max(0.0, (avail_w - row_w) / 2) if centred else look.inset)
        for i in row:
            spots[i] = (x, y)
            x += widths[i] + d.entry_gap
        y += step_y
    return [spots[i] for i in range(len(entries))]


def _swatch_layout(entries, spots, font_px: float, look: LegendText = PLAIN) -> LegendLayout:
    swatches, texts, items = [], [], []
    for (label, color, hatch, index), (x, y) in zip(entries, spots, strict=True):
        swatch, text, item = _entry(label, color, hatch, index, x, y, font_px, look)
        swatches.append(swatch)
        texts.append(text)
        items.append(item)
    return LegendLayout(tuple(swatches), None, tuple(texts), tuple(items))


def _entry(label: str, color: str, hatch: str | None, index: int | None, x: float, y: float, font_px: float,
           look: LegendText = PLAIN):
    """Swatch, text and item box of one legend entry with its top-left corner at (x, y)."""
    d, shown = Dims.at(font_px, look.swatch), look.shown(label)
    item = {"label": label, "class": index, "swatch": [x, y, x + d.w, y + d.h],
            "box": [x, y, x + _entry_width(shown, font_px, look.family, look.swatch), y + d.h]}
    text = TextItem(x + d.w + 0.5 * font_px, y + d.h / 2, shown, font_px, look.color, anchor="lm", family=look.family)
    return Swatch(x, y, d.w, d.h, color, hatch), text, item


def end_labels(legend: Legend) -> tuple[str, str]:
    """Labels of the bar's two ends (three significant digits, like the legend's numbers), with the clip marks
    ``≤`` / ``≥`` on a clipped end."""
    shown = [legend.vmin * legend.label_scale, legend.vmax * legend.label_scale]
    style = resolve_style("auto", shown)
    texts = [format_value(v, legend.percent, style, 2 - math.floor(math.log10(abs(v))) if v else 0) for v in shown]
    return tuple(f"{mark}{t}" if clipped else t  # type: ignore[return-value]
                 for mark, t, clipped in zip(CLIP_MARKS, texts, legend.clipped, strict=True))


@dataclass(frozen=True)
class _Bar:
    """A colour bar's rectangle while its ticks are laid out."""

    x: float
    y: float
    w: float
    h: float
    vertical: bool
    u: float  # legend scale (font size / base font size)

    def at(self, frac: float) -> tuple[float, float]:
        """The point of the bar's tick edge at relative position ``frac`` (0 = vmin)."""
        if self.vertical:
            return self.x + self.w, self.y + self.h - frac * self.h
        return self.x + frac * self.w, self.y + self.h

    def tick(self, frac: float, label: str, font_px: float, look: LegendText) -> tuple[Segment, TextItem]:
        """Tick mark and label text at ``frac``."""
        px, py = self.at(frac)
        if self.vertical:
            text = TextItem(px + 7 * self.u, py, label, font_px, look.color, anchor="lm", family=look.family)
            return ((px, py), (px + 4 * self.u, py)), text
        text = TextItem(px, py + 6 * self.u, label, font_px, look.color, anchor="mt", family=look.family)
        return ((px, py), (px, py + 4 * self.u)), text

    def extensions(self, clipped: tuple[bool, bool]) -> dict[str, list[list[float]]]:
        """Triangle corners beyond each clipped end (``low``, ``high``)."""
        out: dict[str, list[list[float]]] = {}
        x, y, w, h = self.x, self.y, self.w, self.h
        if self.vertical:
            t = EXTENSION_SHARE * w
            ends = {"low": [[x, y + h], [x + w, y + h], [x + w / 2, y + h + t]],
                    "high": [[x, y], [x + w, y], [x + w / 2, y - t]]}
        else:
            t = EXTENSION_SHARE * h
            ends = {"low": [[x, y], [x, y + h], [x - t, y + h / 2]],
                    "high": [[x + w, y], [x + w, y + h], [x + w + t, y + h / 2]]}
        for end, is_clipped in zip(("low", "high"), clipped, strict=True):
            if is_clipped:
                out[end] = ends[end]
        return out


def _bar_ticks(legend: Legend, bar: _Bar, font_px: float, look: LegendText):
    """Tick marks, texts and items of the legend's ticks, then of the bar's two ends (a tick at vmin and vmax
    unless a tick is there already; its label only where it clears the other tick labels)."""
    ticks, texts, items = [], [], []
    for tick, label in zip(legend.ticks, legend.tick_labels, strict=False):
        mark, text = bar.tick(legend.bar_position(tick), label, font_px, look)
        ticks.append(mark)
        texts.append(text)
        items.append({"label": label, "tick": tick, "xy": list(mark[0]), "text_box": list(text_box(text))})
    taken = [text_box(t) for t in texts]
    for end, value, label in zip(("min", "max"), (legend.vmin, legend.vmax), end_labels(legend), strict=True):
        frac = 0.0 if end == "min" else 1.0
        if any(abs(legend.bar_position(t) - frac) < 1e-9 for t in legend.ticks):
            continue
        mark, text = bar.tick(frac, label, font_px, look)
        ticks.append(mark)
        item: dict[str, Any] = {"label": label, "tick": value, "end": end, "xy": list(mark[0])}
        if not any(_overlaps(text_box(text), b) for b in taken):
            texts.append(text)
            item["text_box"] = list(text_box(text))
        items.append(item)
    return ticks, texts, items


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float], pad: float = 1.0) -> bool:
    return min(a[2], b[2]) + pad > max(a[0], b[0]) and min(a[3], b[3]) + pad > max(a[1], b[1])


def _bar_head(legend: Legend, bar: _Bar, orientation: str) -> dict[str, Any]:
    """The colour bar's item: its box, orientation, ends and (when not a plain linear bar) its scale facts."""
    head: dict[str, Any] = {"colorbar": [bar.x, bar.y, bar.x + bar.w, bar.y + bar.h], "orientation": orientation,
                            "vmin": legend.vmin, "vmax": legend.vmax}
    if legend.scale != "linear":
        head["scale"] = legend.scale
    if legend.clip is not None:
        head["clip_percentiles"] = list(legend.clip)
    if any(legend.clipped):
        head["clipped"] = {"low": legend.clipped[0], "high": legend.clipped[1]}
        head["extensions"] = bar.extensions(legend.clipped)
    if legend.midpoint is not None:
        head["midpoint"] = legend.midpoint
    if legend.outlined:
        head["outlined"] = True
    return head


def _colorbar(legend: Legend, box: Box, orientation: str, font_px: float, look: LegendText = PLAIN) -> LegendLayout:
    vertical = orientation == "vertical"
    d, u = Dims.at(font_px, look.swatch), font_px / BASE_FONT_PX
    na_w = (_entry_width(look.shown(legend.na_label), font_px, look.family, look.swatch) + d.entry_gap
            if legend.na_label else 0.0)
    label_w = max((text_size(t, font_px, look.family)[0] for t in (*legend.tick_labels, *end_labels(legend))),
                  default=0.0)
    low_t = EXTENSION_SHARE * look.bar_width * u if vertical and legend.clipped[0] else 0.0
    if vertical:
        na_h = d.h + 2 * d.gap + low_t if legend.na_label else 0.0
        # the clipped ends' triangles stay in the box (the low one is in na_h when an N/A key is below)
        top_t, bottom_t = EXTENSION_SHARE * look.bar_width * u * legend.clipped[1], 0.0 if legend.na_label else low_t
        reach = look.bar_length / 0.7  # the bar's longest length grows with its share of the box
        w, h = look.bar_width * u, min(box.height * look.bar_length, 320.0 * u * reach,
                                       box.height - 2 * MARGIN - na_h - font_px - top_t - bottom_t)
        y0 = box.top + (box.height - h - na_h) / 2
        if top_t or bottom_t:
            y0 = min(max(y0, box.top + MARGIN + top_t), box.top + box.height - MARGIN - bottom_t - na_h - h)
        x0 = box.left + 14 * u
        na_xy = (x0, y0 + h + 2 * d.gap + low_t)
    else:
        room = box.width - 2 * MARGIN - label_w - na_w - 2 * EXTENSION_SHARE * look.bar_width * 8 / 9 * u * any(legend.clipped)
        reach = look.bar_length / 0.7
        w, h = min(box.width * look.bar_length, 480.0 * u * reach, room), min(look.bar_width * 8 / 9 * u, box.height / 4)
        x0 = box.left + (box.width - w - na_w) / 2
        y0 = box.top + min(box.height * 0.25, max(MARGIN, box.height - MARGIN - h - 6 * u - 1.2 * font_px))
        na_xy = (x0 + w + label_w / 2 + d.entry_gap, y0)
    bar = _Bar(x0, y0, w, h, vertical, u)
    ticks, texts, tick_items = _bar_ticks(legend, bar, font_px, look)
    head = _bar_head(legend, bar, orientation)
    items: list[dict[str, Any]] = [head, *tick_items]
    swatches = []
    if legend.na_label:
        swatch, text, item = _entry(legend.na_label, legend.na_color, None, None, *na_xy, font_px, look)
        swatches, texts, items = [swatch], [*texts, text], [*items, item]
    shapes = tuple(tuple((float(x), float(y)) for x, y in pts) for pts in head.get("extensions", {}).values())
    colorbar = ColorBar(x0, y0, w, h, vertical, tuple(ticks), shapes)
    return LegendLayout(tuple(swatches), colorbar, tuple(texts), tuple(items))


def legend_bounds(layout: LegendLayout) -> tuple[float, float, float, float]:
    """Pixel box around every swatch, the colour bar and every text of a legend layout."""
    boxes = [(s.x, s.y, s.x + s.w, s.y + s.h) for s in layout.swatches] + [text_box(t) for t in layout.texts]
    if layout.colorbar is not None:
        bar = layout.colorbar
        boxes.append((bar.x, bar.y, bar.x + bar.w, bar.y + bar.h))
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
