"""Colour-bar ticks read off MAPWise's published PNGs (OCR), and the recheck judging ranges on them.

Expected ticks were read by eye from the images in ``repo-sample`` (the bar of India 110_5C shows 0, 20k … 120k;
USA 1034 shows 0.05 … 0.45 with no 0 tick).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from mapgen.recheck.ticks import ocr_available

REPO = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "repo-sample" / "dataset"
pytestmark = [
    pytest.mark.skipif(not REPO.is_dir(), reason="MAPWise's repository slice not available"),
    pytest.mark.skipif(not ocr_available(), reason="OCR needs the [ocr] extra (pytesseract) and apt tesseract-ocr"),
]


@pytest.mark.parametrize(("image", "labels"), [
    ("india/with_annotations/map110_5C.png", ("0", "20k", "40k", "60k", "80k", "100k", "120k")),
    ("usa/with_annotations/map_1034.png", ("0.05", "0.1", "0.15", "0.2", "0.25", "0.3", "0.35", "0.4", "0.45")),
    ("china/with_annotations/map12_2C.png", ("0", "500", "1000", "1500")),
])
def test_ticks_as_printed(image: str, labels: tuple[str, ...]) -> None:
    from mapgen.legend.grammar import parse_number
    from mapgen.recheck.ticks import read_colorbar_ticks

    ticks = read_colorbar_ticks(REPO / image)
    assert ticks is not None and ticks.labels == labels
    assert ticks.values == tuple(parse_number(t) for t in labels)


def test_discrete_map_has_no_colour_bar() -> None:
    from mapgen.recheck.ticks import read_colorbar_ticks

    assert read_colorbar_ticks(REPO / "india" / "with_annotations" / "map108_0D.png") is None


def test_overall_range_judged_on_the_published_bar() -> None:
    """India 10_8C: the bar reads 0 … 14k, so MAPWise's "0 - 14k" agrees (mapgen's own ticks start at 2,000).
    India 110_5C: the bar reads 0 … 120k; MAPWise's "0 - 12k" is a slip, a disagreement the ticks do not cause."""
    from mapgen.recheck.importer import read_sample
    from mapgen.recheck.verdicts import recheck

    data = read_sample(REPO / "india")
    assert data.specs["10_8C"].extra["published_ticks"]["labels"][0] == "0"
    rows = {(q.map_ref, q.template_no): q for q in data.questions if q.map_ref in ("10_8C", "110_5C")}
    wanted = [rows[("10_8C", 3)], rows[("110_5C", 3)]]
    v1, v2 = recheck(replace(data, questions=wanted))
    assert (v1.ground_truth, v1.verdict, v1.our_answer) == ("0 - 14k", "agree", "0-14k")
    assert (v2.ground_truth, v2.verdict, v2.our_answer) == ("0 - 12k", "disagree", "0-120k")
    assert "read from the published image" in " ".join(v2.notes)
