"""What MAPWise wrote beyond its templates' words (#40 item 2): two opposite comparisons at once ("less greater
than"), "farthest" for most different, and groups the atlases lack ("states sharing international border")."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

RELEASE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "release-text" / "dataset"
pytestmark = pytest.mark.skipif(not RELEASE.is_dir(), reason="shared MAPWise release text not available")


@cache
def india():
    from mapgen.recheck.importer import read_sample

    return read_sample(RELEASE / "india", read_ticks=False)


def _recheck(pattern: str) -> list:
    from mapgen.recheck.verdicts import recheck

    data = india()
    rows = [q for q in data.questions if re.search(pattern, q.question, re.IGNORECASE)]
    assert rows, pattern
    return recheck(replace(data, questions=rows))


def test_two_opposite_comparisons_are_judged_under_both_readings() -> None:
    verdicts = _recheck(r"less greater than")
    assert all(v.verdict != "unparsed" for v in verdicts)
    split = [v for v in verdicts if v.bucket == "contradictory_wording"]
    assert split and all("'less than' gives" in v.reason and "'greater than' gives" in v.reason for v in split)
    # a verdict outside the bucket is one both readings agree on (or one neither can judge)
    assert all(v.verdict == "ambiguous" or any("both readings" in n for n in v.notes) for v in verdicts
               if v.bucket != "contradictory_wording")


def test_states_sharing_an_international_border_are_a_curated_group() -> None:
    verdicts = _recheck(r"international (?:land )?border")
    assert [v.question for v in verdicts if v.verdict == "unparsed"] == []
    assert all("International land border states" in v.params.values() for v in verdicts)


def test_farthest_is_most_different() -> None:
    from mapgen.recheck.slots import CHOICES

    assert "farthest" in CHOICES["most different"] and "furthest" in CHOICES["most different"]
