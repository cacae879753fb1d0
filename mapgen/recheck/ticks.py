"""Read the tick labels of a published colour bar from its PNG (OCR), so continuous-map ranges are judged on the
ticks the reader saw, not on mapgen's re-render.

Needs the optional extra ``mapgen[ocr]`` (PyPI ``pytesseract``) and the ``tesseract`` program (apt
``tesseract-ocr``); :func:`ocr_available` says whether both are there, and without them nothing is read (the
recheck then falls back to the nice tick grids a range implies).

Rule (MAPWise's plotly bars: one column of labels right of a vertical bar, equal steps): OCR the right fifth of
the image (3× upscaled, digits and unit letters only), keep the numeric words in the most populated column,
require at least 3 labels whose values fall by one constant step as the labels go down at one constant pixel
step; then look for the labels OCR missed at each end (typically a lone ``0``): the box one pixel step further is
read on its own and kept only when it reads exactly the expected value. Anything else gives None.
"""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mapgen.caches import memo
from mapgen.legend.grammar import parse_number

WHITELIST = "0123456789.,-%kKMB"
SCALE = 3
MIN_LABELS = 3
MIN_CONF = 60.0
COLUMN_PX = 8
STEP_PX_TOL = 3.0
INK = 170
"""Grey level below which a pixel is label ink (labels are near-black; paper and the bar's frame are lighter)."""


@dataclass(frozen=True)
class PublishedTicks:
    """Tick labels as printed on a published colour bar (top to bottom reversed: lowest first)."""

    labels: tuple[str, ...]
    values: tuple[float, ...]  # display units, as printed ("120k" -> 120000)
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"labels": list(self.labels), "values": list(self.values), "source": self.source}


@dataclass(frozen=True)
class _Word:
    text: str
    value: float
    x: int
    y: float  # vertical centre, image pixels
    height: float


def ocr_available() -> bool:
    """True when pytesseract is installed and the tesseract program is on PATH."""
    try:
        import pytesseract  # noqa: F401
    except ImportError:
        return False
    return shutil.which("tesseract") is not None


def _number(text: str) -> float | None:
    t = text.strip().replace(",", "")
    if not t or not any(ch.isdigit() for ch in t):
        return None
    value = parse_number(t)
    return None if value is None or not math.isfinite(value) else float(value)


def _ocr_words(image: Any, left: int, config: str) -> list[_Word]:
    import pytesseract
    from PIL import Image

    big = image.resize((image.width * SCALE, image.height * SCALE), Image.Resampling.LANCZOS)
    return _words(pytesseract.image_to_data(big, output_type=pytesseract.Output.DICT, config=config), left)


def _ink_words(image: Any, left: int, config: str) -> list[_Word]:
    """The words OCR reads on the labels' dark ink alone (for a crop whose paper and pale bar leave tesseract's own
    threshold between the two: a bar cut below its dark end)."""
    import pytesseract
    from PIL import Image

    ink = image.point(lambda v: 0 if v < INK else 255)
    big = ink.resize((image.width * SCALE, image.height * SCALE), Image.Resampling.LANCZOS)
    return _words(pytesseract.image_to_data(big, output_type=pytesseract.Output.DICT, config=config), left)


def _words(data: dict[str, list[Any]], left: int) -> list[_Word]:
    """The numeric words of a tesseract ``image_to_data`` result read with confidence, in image pixels."""
    words = []
    for i, text in enumerate(data["text"]):
        value = _number(text)
        if value is None or float(data["conf"][i]) < MIN_CONF:
            continue
        words.append(_Word(text.strip(), value, left + data["left"][i] // SCALE,
                           (data["top"][i] + data["height"][i] / 2) / SCALE, data["height"][i] / SCALE))
    return words


def _merged(words: list[_Word], more: list[_Word]) -> list[_Word]:
    """``words`` and the words of another pass that stand where none of them does."""
    return words + [w for w in more if not any(abs(w.y - o.y) <= STEP_PX_TOL and abs(w.x - o.x) <= COLUMN_PX
                                                  for o in words)]


def _missed(gray: Any, col: list[_Word]) -> bool:
    """Whether label ink stands halfway between two labels read (a label OCR dropped: single digits between
    decimals, "1" between "0.5" and "1.5")."""
    for a, b in zip(col, col[1:]):
        mid, half = (a.y + b.y) / 2, a.height / 2
        if b.y - a.y < 3 * a.height:
            continue  # labels too close for one to hide between them
        box = gray.crop((a.x, int(mid - half), a.x + int(3 * a.height), int(mid + half) + 1))
        if box.getextrema()[0] < INK:
            return True
    return False


def _column(words: list[_Word]) -> list[_Word]:
    """The words of the most populated label column, top to bottom."""
    best: list[_Word] = []
    for w in words:
        col = [o for o in words if abs(o.x - w.x) <= COLUMN_PX]
        if len(col) > len(best):
            best = col
    return sorted(best, key=lambda w: w.y)


def _even(col: list[_Word]) -> tuple[float, float] | None:
    """(value step, pixel step) when the labels fall by one step per equal pixel step, else None."""
    if len(col) < 2:
        return None
    dv = [a.value - b.value for a, b in zip(col, col[1:])]
    dy = [b.y - a.y for a, b in zip(col, col[1:])]
    step, px = dv[0], sum(dy) / len(dy)
    if step <= 0 or any(not math.isclose(d, step, rel_tol=1e-6) for d in dv):
        return None
    if any(abs(d - px) > STEP_PX_TOL for d in dy):
        return None
    return step, px


def _read_at(gray: Any, word: _Word, y: float, expected: float) -> str | None:
    """The label OCR reads in the box at height ``y`` in ``word``'s column, if it is exactly ``expected``."""
    import pytesseract
    from PIL import Image, ImageOps

    h = word.height * 1.6
    top, bottom = max(0, int(y - h)), min(gray.height, int(y + h))
    if bottom - top < 4:
        return None
    for dx in (-2, -4, 0):  # a few left edges: the box should not cut the label or hold the bar
        crop = gray.crop((max(0, word.x + dx), top, min(gray.width, word.x + 60), bottom))
        crop = crop.point(lambda v: 0 if v < INK else 255)  # dark label ink only: no paper tint, no bar frame
        crop = ImageOps.expand(crop, border=12, fill=255)  # tesseract reads a lone glyph better with margins
        big = crop.resize((crop.width * SCALE, crop.height * SCALE), Image.Resampling.LANCZOS)
        for psm in (7, 10):
            text = pytesseract.image_to_string(big, config=f"--psm {psm} -c tessedit_char_whitelist={WHITELIST}")
            value = _number(text)
            if value is not None and math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12):
                return text.strip()
    return None


def _extend(gray: Any, col: list[_Word], step: float, px: float) -> list[_Word]:
    """``col`` with the end labels OCR missed (each read on its own and checked against the step)."""
    out = list(col)
    for direction in (1, -1):  # down (lower values), then up
        while True:
            end = out[-1] if direction == 1 else out[0]
            y = end.y + direction * px
            expected = end.value - direction * step
            if not 0 <= y < gray.height:
                break
            text = _read_at(gray, end, y, expected)
            if text is None:
                break
            new = _Word(text, expected, end.x, y, end.height)
            out = out + [new] if direction == 1 else [new, *out]
    return out


#: OCR passes, in turn until the labels read form one evenly stepped column with no label left between two:
#: the grey image in sparse-text mode; the labels' ink alone (a crop with no dark bar end leaves tesseract's own
#: threshold between paper and bar); the ink as one block of text (single digits, which sparse mode drops).
PASSES: tuple[tuple[Any, int], ...] = ((_ocr_words, 11), (_ink_words, 11), (_ink_words, 6))


@memo(1024)
def read_colorbar_ticks(path: str | Path) -> PublishedTicks | None:
    """The tick labels of the colour bar in the PNG at ``path`` (lowest first), or None (no OCR, no readable
    evenly stepped column of at least :data:`MIN_LABELS` labels)."""
    if not ocr_available() or not Path(path).is_file():
        return None
    from PIL import Image

    gray = Image.open(path).convert("L")
    left = int(gray.width * 0.8)
    config = f"--psm 11 -c tessedit_char_whitelist={WHITELIST}"
    strip = gray.crop((left, 0, gray.width, gray.height))
    words: list[_Word] = []
    for read, psm in PASSES:
        words = _merged(words, read(strip, left, config.replace("--psm 11", f"--psm {psm}")))
        col = _column(words)
        even = _even(col)
        if even is not None and not _missed(gray, col):
            break
    else:
        return None
    col = _extend(gray, col, *even)
    if len(col) < MIN_LABELS:
        return None
    col = col[::-1]
    return PublishedTicks(tuple(w.text for w in col), tuple(w.value for w in col), str(path))
