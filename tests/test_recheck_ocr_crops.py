"""OCR reads every tick label of crops of MAPWise's released colour bars (#40 item 2), single digits included.

The crops keep the lower part of a published bar (its pale end, where tesseract's own threshold falls between
the paper and the bar and reads nothing). The labels were listed by eye from the crops. "Single digits": the same
released bars with the last glyph of every label erased (``20`` → ``2``, ``6M`` → ``6``), glyphs of the bar's own
labels, so that a crop shows 0, 2, 4, 6, 8 — the labels tesseract's sparse-text mode drops.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mapgen.recheck.ticks import INK, ocr_available

REPO = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "repo-sample" / "dataset"
pytestmark = [
    pytest.mark.skipif(not REPO.is_dir(), reason="MAPWise's repository slice not available (../shared)"),
    pytest.mark.skipif(not ocr_available(), reason="OCR needs the [ocr] extra (pytesseract) and apt tesseract-ocr"),
]

#: (image, top of the crop as a share of the height) -> the tick labels the crop shows, lowest first (by eye).
CROPS: dict[tuple[str, float], tuple[str, ...]] = {
    ("china/wo_annotations/map10_5C.png", 0.45): ("0", "20", "40", "60", "80"),
    ("china/wo_annotations/map11_5C.png", 0.5): ("0", "500", "1000", "1500"),
    ("china/wo_annotations/map12_4C.png", 0.5): ("0", "200", "400", "600"),
    ("china/with_annotations/map11_5C.png", 0.5): ("0", "500", "1000", "1500"),
    ("india/wo_annotations/map100_4C.png", 0.5): ("0", "2M", "4M", "6M"),
    ("india/wo_annotations/map105_6C.png", 0.5): ("0", "10k", "20k", "30k"),
    ("india/wo_annotations/map10_8C.png", 0.5): ("0", "2k", "4k", "6k"),
    ("usa/wo_annotations/map_1034.png", 0.4): ("0.05", "0.1", "0.15", "0.2", "0.25", "0.3"),
    ("usa/with_annotations/map_1034.png", 0.45): ("0.05", "0.1", "0.15", "0.2", "0.25"),
}
#: The same with the last glyph of every label erased (single digits).
SINGLE_DIGITS: dict[tuple[str, float], tuple[str, ...]] = {
    ("china/wo_annotations/map10_5C.png", 0.0): ("0", "2", "4", "6", "8", "10", "12", "14"),
    ("china/wo_annotations/map10_5C.png", 0.45): ("0", "2", "4", "6", "8"),
    ("india/wo_annotations/map100_4C.png", 0.5): ("0", "2", "4", "6"),
    ("china/wo_annotations/map12_4C.png", 0.45): ("0", "20", "40", "60"),
}


def _crop(image: str, top: float, out: Path, erase_last: bool = False) -> Path:
    im = Image.open(REPO / image).convert("RGB")
    if erase_last:
        im = _without_last_glyph(im)
    path = out / f"{Path(image).stem}_{top}_{int(erase_last)}.png"
    im.crop((0, int(im.height * top), im.width, im.height)).save(path)
    return path


def _runs(idx: np.ndarray) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i in idx.tolist():
        if out and i == out[-1][1] + 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def _without_last_glyph(im: Image.Image) -> Image.Image:
    """The image with the last glyph of every label right of the colour bar painted over in the paper colour."""
    gray = np.array(im.convert("L"))
    arr = np.array(im)
    h, w = gray.shape
    dark = (gray[:, int(w * 0.8):] < 200).sum(axis=0)
    right = int(np.argmax(dark)) + int(w * 0.8)  # the bar's frame, then its right edge
    while right + 1 < w and (gray[:, right + 1] < 200).sum() > h * 0.3:
        right += 1
    frame = np.where(gray[:, right] < 200)[0]
    ink = gray[:, right + 2:] < INK
    ink[: frame.min() - 8] = False
    ink[frame.max() + 8:] = False
    paper = arr[frame.min(), -1].copy()
    for r0, r1 in _runs(np.where(ink.any(axis=1))[0]):
        glyphs = _runs(np.where(ink[r0:r1 + 1].any(axis=0))[0])
        if len(glyphs) >= 2:
            c0, c1 = glyphs[-1]
            arr[r0 - 1:r1 + 2, right + 1 + c0:right + 3 + c1] = paper
    return Image.fromarray(arr)


@pytest.mark.parametrize(("crop", "labels"), list(CROPS.items()), ids=[f"{i}@{t}" for i, t in CROPS])
def test_every_tick_label_of_a_crop(crop: tuple[str, float], labels: tuple[str, ...], tmp_path: Path) -> None:
    from mapgen.recheck.ticks import read_colorbar_ticks

    ticks = read_colorbar_ticks(_crop(*crop, tmp_path))
    assert ticks is not None and ticks.labels == labels


@pytest.mark.parametrize(("crop", "labels"), list(SINGLE_DIGITS.items()), ids=[f"{i}@{t}" for i, t in SINGLE_DIGITS])
def test_single_digit_labels(crop: tuple[str, float], labels: tuple[str, ...], tmp_path: Path) -> None:
    from mapgen.recheck.ticks import read_colorbar_ticks

    ticks = read_colorbar_ticks(_crop(*crop, tmp_path, erase_last=True))
    assert ticks is not None and ticks.labels == labels


def test_a_label_between_two_read_is_seen(tmp_path: Path) -> None:
    """When OCR drops every other label (0.1, 0.2 … between 0.05, 0.15 …) the rest still step evenly; the ink
    left between two labels read says the column is incomplete."""
    from mapgen.recheck.ticks import WHITELIST, _column, _missed, _ocr_words

    gray = Image.open(REPO / "usa" / "wo_annotations" / "map_1034.png").convert("L")
    left = int(gray.width * 0.8)
    col = _column(_ocr_words(gray.crop((left, 0, gray.width, gray.height)), left,
                              f"--psm 11 -c tessedit_char_whitelist={WHITELIST}"))
    assert [w.text for w in col][::-1] == ["0.05", "0.1", "0.15", "0.2", "0.25", "0.3", "0.35", "0.4", "0.45"]
    assert not _missed(gray, col)
    assert _missed(gray, col[::2])
