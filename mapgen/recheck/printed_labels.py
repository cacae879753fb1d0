"""Read the two-letter labels printed on MAPWise's USA maps (OCR) and place them on shapes.

MAPWise's counterfactual maps print a two-capital label on each state; which state a label sits on is in no
metadata file. A label's position is the same on every image of one map number (the same plotly layout), so the
``orgs`` and ``jumb`` images of a map, which print each state's real postal code on its own shape, give the
reference positions, and a label read at a reference position on the ``img``/``shuff`` image of that map sits on
that state.

Rule (measured on repo-sample's 16 counterfactual PNGs): tesseract (``--psm 11``, capitals only, 3× upscale) on
four renderings (grey, inverted, dark ink, light ink), keep two-letter words read with confidence ≥ 80; a text
read at two places more than :data:`SAME_PX` apart is dropped (it is not one label). A reference code is kept when
every reference image that reads it reads it at one place; a label is placed on the state whose reference position
is within :data:`SAME_PX`, and only when no other label is placed there. At that confidence no label on repo-sample
read wrong (checked by eye on map 10436); about 35 of 51 states are read per map, the small north-eastern states
least. Needs the optional extra ``mapgen[ocr]`` (:func:`mapgen.recheck.ticks.ocr_available`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mapgen.caches import memo
from mapgen.recheck.ticks import ocr_available

SCALE = 3
MIN_CONF = 80.0
SAME_PX = 8.0
"""Two readings of one label lie within this many pixels (1000-pixel-wide images)."""
CONFIG = "--psm 11 -c tessedit_char_whitelist=ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DARK_INK, LIGHT_INK = 90, 235
"""Grey levels below which (dark labels) and above which (white labels) a pixel is label ink."""

Point = tuple[float, float]


def _renderings(path: Path) -> Iterator[Any]:
    import numpy as np
    from PIL import Image, ImageOps

    with Image.open(path) as im:
        grey = im.convert("L")
    big = grey.resize((grey.width * SCALE, grey.height * SCALE), Image.Resampling.LANCZOS)
    ink = np.asarray(big)
    yield big
    yield ImageOps.invert(big)
    yield Image.fromarray(np.where(ink < DARK_INK, 0, 255).astype(np.uint8))
    yield Image.fromarray(np.where(ink > LIGHT_INK, 0, 255).astype(np.uint8))


def _words(path: Path) -> Iterator[tuple[str, Point]]:
    import pytesseract

    for image in _renderings(path):
        d = pytesseract.image_to_data(image, output_type=pytesseract.Output.DICT, config=CONFIG)
        for text, left, top, width, height, conf in zip(d["text"], d["left"], d["top"], d["width"], d["height"],
                                                       d["conf"], strict=True):
            text = text.strip()
            if len(text) == 2 and text.isalpha() and float(conf) >= MIN_CONF:
                yield text, ((left + width / 2) / SCALE, (top + height / 2) / SCALE)


def _one_place(points: Iterable[Point]) -> Point | None:
    """The mean of readings that all lie within :data:`SAME_PX` of each other; None when they do not."""
    pts = list(points)
    if any(math.dist(a, b) > SAME_PX for a in pts for b in pts):
        return None
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


@memo(1024)
def read_labels(path: str | Path) -> dict[str, Point]:
    """Label text → its position on the image (texts read at two places are left out); empty without OCR."""
    if not ocr_available():
        return {}
    found: dict[str, list[Point]] = defaultdict(list)
    for text, point in _words(Path(path)):
        found[text].append(point)
    return {t: p for t, pts in sorted(found.items()) if (p := _one_place(pts)) is not None}


def reference_positions(images: Iterable[Path], codes: Iterable[str]) -> dict[str, Point]:
    """Code → label position from images that print every state's own code on its shape (``orgs``, ``jumb``)."""
    valid = set(codes)
    seen: dict[str, list[Point]] = defaultdict(list)
    for image in images:
        for text, point in read_labels(image).items():
            if text in valid:
                seen[text].append(point)
    return {c: p for c, pts in sorted(seen.items()) if (p := _one_place(pts)) is not None}


def labels_on_shapes(image: Path, reference: dict[str, Point]) -> dict[str, str]:
    """Code of the shape → the label ``image`` prints on it, for labels read at exactly one reference position."""
    placed: dict[str, list[str]] = defaultdict(list)
    for text, point in read_labels(image).items():
        near = [c for c, ref in reference.items() if math.dist(point, ref) <= SAME_PX]
        if len(near) == 1:
            placed[near[0]].append(text)
    return {c: texts[0] for c, texts in sorted(placed.items()) if len(texts) == 1}
