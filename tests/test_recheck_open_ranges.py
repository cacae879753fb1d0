"""Open ranges and thresholds where a legend range goes (#40 item 2): "above 20000", "> 1M", "30 and below" read
as one tick interval of the colour bar re-ticked at the threshold."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from mapgen.recheck.verdicts import open_range_ticks

RELEASE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "release-text" / "dataset"


def test_above_a_threshold_runs_to_a_tick_beyond_the_data() -> None:
    ticks, (lo, hi) = open_range_ticks("above 20000", [0, 20000, 40000, 60000], 0, 65681, 10000)
    assert (lo, hi) == (20000, 80000) and ticks == [0, 20000, 80000]


def test_below_a_threshold_off_the_grid_starts_below_the_data() -> None:
    ticks, (lo, hi) = open_range_ticks("30 and below", [30, 40, 50, 60, 70], 25.55, 78.85, 10)
    assert (lo, hi) == (20, 30) and ticks == [20, 30, 40, 50, 60, 70]


@pytest.mark.parametrize("text", ["20000 - 40000", "above 90000", "below -5", "the highest range", ""])
def test_no_open_range_or_a_threshold_off_the_data_is_left_alone(text: str) -> None:
    assert open_range_ticks(text, [0, 20000, 40000, 60000], 0, 65681, 10000) is None


@pytest.mark.skipif(not RELEASE.is_dir(), reason="shared MAPWise release text not available")
@pytest.mark.parametrize("country", ["usa", "india"])
def test_every_extreme_in_an_open_range_of_the_release_is_read(country: str) -> None:
    """MAPWise's template 36 ("the easternmost state with value above 20000") on continuous maps: read, and the
    open range noted."""
    from mapgen.recheck.importer import read_sample
    from mapgen.recheck.verdicts import recheck

    data = read_sample(RELEASE / country, read_ticks=False)
    rows = [q for q in data.questions if q.template_no == 36 and data.specs[q.map_ref].legend.kind == "continuous"
            and re.search(r"\b(?:above|below|higher than|greater than|less than)\b|[<>]", q.question)]
    verdicts = recheck(replace(data, questions=rows))
    assert [v.question for v in verdicts if v.verdict == "unparsed"] == []
    opened = [v for v in verdicts if any(n.startswith("open range") for n in v.notes)]
    assert opened and all(v.template_id == "direction_extreme_in_range" for v in opened)
