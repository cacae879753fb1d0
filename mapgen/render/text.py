"""Text drawn with PIL on top of the rasterised map (much faster than matplotlib text, same DejaVu Sans font)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import matplotlib
from PIL import ImageDraw, ImageFont

FONT_FILE = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"


@dataclass(frozen=True)
class TextItem:
    """One piece of text: anchor point in pixels, PIL anchor (``mm`` centre, ``lm`` left-middle, ``mt`` …)."""

    x: float
    y: float
    text: str
    size_px: float
    color: str = "#000000"
    anchor: str = "mm"
    background: str | None = None


@cache
def font(size_px: float) -> ImageFont.FreeTypeFont:
    """DejaVu Sans at a pixel size (cached)."""
    return ImageFont.truetype(str(FONT_FILE), size=max(1, round(size_px)))


def text_size(text: str, size_px: float) -> tuple[float, float]:
    """Width and height in pixels of ``text`` (ink box)."""
    left, top, right, bottom = font(size_px).getbbox(text)
    return float(right - left), float(bottom - top)


def text_box(item: TextItem) -> tuple[float, float, float, float]:
    """Pixel box (x1, y1, x2, y2) the text covers."""
    left, top, right, bottom = font(item.size_px).getbbox(item.text, anchor=item.anchor)
    return (item.x + left, item.y + top, item.x + right, item.y + bottom)


def draw_texts(draw: ImageDraw.ImageDraw, items: list[TextItem]) -> None:
    """Draw every text item (with an optional padded background box)."""
    for item in items:
        if item.background:
            x1, y1, x2, y2 = text_box(item)
            draw.rectangle((x1 - 1, y1 - 1, x2 + 1, y2 + 1), fill=item.background)
        draw.text((item.x, item.y), item.text, font=font(item.size_px), fill=item.color, anchor=item.anchor)


def title_item(title: str, box) -> TextItem:
    """The title centred in its box, sized to the band and shortened with an ellipsis to fit its width."""
    size = max(11.0, min(20.0, box.height * 0.45))
    text = title
    while len(text) > 8 and text_size(text, size)[0] > box.width - 20:
        text = text.rstrip("…")[:-1].rstrip() + "…"
    return TextItem(box.left + box.width / 2, box.top + box.height / 2, text, size)
