"""What MAPWise writes where a legend range or a number goes, on the release text (#40 item 2): ranges over
several classes and open ranges on discrete maps, closed ranges off a colour bar's ticks, numbers in lakh and
crore."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from mapgen.recheck.importer import ImportedSet
from mapgen.recheck.parse import indian_numbers
from mapgen.recheck.verdicts import Verdict

RELEASE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "release-text" / "dataset"
needs_release = pytest.mark.skipif(not RELEASE.is_dir(), reason="shared MAPWise release text not available")


@pytest.mark.parametrize(("text", "plain"), [
    ("0.5 lakh crore", "500000000000"), ("10 lakh crore", "10000000000000"), ("3 lakhs", "300000"),
    ("1,200 crore", "12000000000"), ("20 Cr", "200000000"), ("20000", "20000"),
])
def test_indian_numbering_spelled_in_digits(text: str, plain: str) -> None:
    assert indian_numbers(text) == (plain, text != plain)


@cache
def _imported(country: str) -> ImportedSet:
    from mapgen.recheck.importer import read_sample

    return read_sample(RELEASE / country, read_ticks=False)


def _verdicts(country: str, *rows: int) -> list[Verdict]:
    """The verdicts on some rows of the release's question table (their texts are asserted by the callers)."""
    from mapgen.recheck.verdicts import recheck

    data = _imported(country)
    return recheck(replace(data, questions=[next(q for q in data.questions if q.row == r) for r in rows]))


@needs_release
def test_class_span_inner_and_outer() -> None:
    from mapgen.recheck.spans import class_span

    spec = _imported("india").specs["62_5D"]  # 3.59 - 4.75 … 6.65 - 7.0, 7.0 - 7.85, 7.85 - 8.8
    whole = class_span("7.0 - 8.8", spec)
    assert whole is not None and whole.clean and whole.outer == (4, 5)
    cut = class_span("> 7.5", spec)
    assert cut is not None and (cut.inner, cut.outer) == ((5, 5), (4, 5)) and not cut.clean
    assert class_span("< 2", spec) is None
    assert class_span("the highest range", spec) is None


@needs_release
def test_a_range_over_two_classes_is_read_as_their_union() -> None:
    (v,) = _verdicts("india", 384)
    assert v.question == "Which states in the east coast belong to range 7.0 - 8.8?"
    assert (v.verdict, v.our_answer) == ("agree", "Odisha, Tamil Nadu")
    assert any("7.0 - 7.85 + 7.85 - 8.8 taken together" in n for n in v.notes)


@needs_release
def test_an_open_range_cutting_a_class_cannot_be_judged() -> None:
    (v,) = _verdicts("usa", 1010)
    assert v.question == "Which pair of states belonging to the range >200k are the closest to each other?"
    assert (v.verdict, v.bucket) == ("ambiguous", "number_inside_class")
    assert "cuts the class 48,500-278,400" in v.reason


@needs_release
def test_a_closed_range_off_the_ticks_becomes_one_tick_interval() -> None:
    (v,) = _verdicts("india", 563)
    assert v.question == "Which states in the east coast belong to range 3M and 5M?"
    assert v.verdict != "unparsed"
    assert any("read as the tick interval 3,000,000 - 5,000,000" in n for n in v.notes)


@needs_release
def test_lakh_crore_on_a_map_counting_lakh() -> None:
    """India 85_0C (GSDP, ₹ lakh; bar 10M-40M): 0.5 lakh crore rupees = 5M lakh; 10 lakh crore = 100M lakh lies
    beyond the bar's ticks."""
    half, ten = _verdicts("india", 496, 494)
    assert "0.5 lakh crore" in half.question and "10 lakh crore" in ten.question
    assert half.params["N"] == 5_000_000 and half.verdict != "unparsed"
    assert ten.params["N"] == 100_000_000 and (ten.verdict, ten.bucket) == ("ambiguous", "beyond_ticks")
