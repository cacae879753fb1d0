"""Ambiguous verdicts carry a named reason (#40 item 3): every one maps to a bucket of AMBIGUOUS_BUCKETS (no
"other"), on MAPWise's repository sample and on the release text; a near tie is one under the legend's printed
precision; MAPWise's "verified answer" column is counted as a second gold."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from mapgen.recheck.reasons import AMBIGUOUS_BUCKETS, label_precision

SHARED = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise"
SAMPLE = SHARED / "repo-sample" / "dataset"
RELEASE = SHARED / "release-text" / "dataset"
needs_sample = pytest.mark.skipif(not SAMPLE.is_dir(), reason="shared MAPWise repository sample not available")
needs_release = pytest.mark.skipif(not RELEASE.is_dir(), reason="shared MAPWise release text not available")
KINDS = ["usa", "india", "china", "counter_factuals/img", "counter_factuals/jumb", "counter_factuals/orgs",
         "counter_factuals/shuff"]


@cache
def sample_verdicts(kind: str) -> list:
    from mapgen.recheck.importer import read_sample
    from mapgen.recheck.verdicts import recheck

    return recheck(read_sample(SAMPLE / kind, read_ticks=False))


@pytest.mark.parametrize(("label", "precision"), [("700", 100), ("1,000", 1000), ("0.20", 0.01), ("0.0", None),
                                                  ("20M", 1e7), ("2.5k", 100), ("25%", 1), ("", None)])
def test_label_precision_is_the_finest_printed_digit(label: str, precision: float | None) -> None:
    got = label_precision(label)
    assert got == pytest.approx(precision) if precision is not None else got is None


def _assert_named(verdicts: list) -> None:
    from mapgen.recheck.verdicts import summary_json

    ambiguous = [v for v in verdicts if v.verdict == "ambiguous"]
    unnamed = [(v.map_ref, v.question, v.reason) for v in ambiguous if v.bucket not in AMBIGUOUS_BUCKETS]
    assert not unnamed, unnamed[:5]
    assert all(v.bucket is None for v in verdicts if v.verdict != "ambiguous")
    summary = summary_json(verdicts)
    assert sum(summary["ambiguous_by_reason"].values()) == summary["ambiguous"] == len(ambiguous)
    assert set(summary["ambiguous_by_reason"]) <= set(AMBIGUOUS_BUCKETS)


@needs_sample
@pytest.mark.parametrize("kind", KINDS)
def test_every_ambiguous_verdict_of_the_sample_has_a_named_reason(kind: str) -> None:
    _assert_named(sample_verdicts(kind))


@needs_release
@pytest.mark.parametrize("country", ["usa", "india"])
def test_every_ambiguous_verdict_of_the_release_text_has_a_named_reason(country: str) -> None:
    """Every third map of the release text (a deterministic slice: the whole release takes a minute)."""
    from mapgen.recheck.importer import read_sample
    from mapgen.recheck.verdicts import recheck

    data = read_sample(RELEASE / country, read_ticks=False)
    maps = sorted(data.specs)[::3]
    verdicts = recheck(replace(data, questions=[q for q in data.questions if q.map_ref in maps]))
    assert len(verdicts) > 200
    _assert_named(verdicts)


@needs_sample
@pytest.mark.parametrize("kind", ["usa", "india", "china"])
def test_a_near_tie_is_one_at_the_legends_printed_precision(kind: str) -> None:
    """A near tie stays undecided when re-asked at the legend's precision; a question judged there answers as the
    exact values do (and, its bar's ticks being mapgen's, it is no disagreement)."""
    from mapgen.mapwise.aliases import load_aliases
    from mapgen.questions import Unaskable, ask
    from mapgen.recheck.groups import with_groups, with_mapwise_groups
    from mapgen.recheck.importer import read_sample
    from mapgen.recheck.parse import Parsed
    from mapgen.recheck.reasons import at_precision, legend_precision
    from mapgen.recheck.verdicts import read_question
    from mapgen.scene import build_scene

    data = read_sample(SAMPLE / kind, read_ticks=False)
    rows = {(q.map_ref, q.row): q for q in data.questions}
    checked = 0
    for v in sample_verdicts(kind):
        judged = any("printed precision" in n for n in v.notes)
        if v.bucket != "near_tie" and not judged or any("implies" in n or "hatched" in n for n in v.notes):
            continue  # (a question re-asked on an implied tick grid or the hatched map: another scene)
        raw = rows[(v.map_ref, v.row)]
        scene = with_mapwise_groups(build_scene(data.specs[v.map_ref]))
        parsed = read_question(raw, scene, load_aliases())
        assert isinstance(parsed, Parsed)
        scene = with_groups(scene, parsed.groups.values())
        precision = legend_precision(scene)
        if v.bucket == "near_tie" and precision is not None and not judged:
            with pytest.raises(Unaskable):
                at_precision(parsed.template, scene, parsed.params, precision)
        if judged:
            assert precision is not None
            exact = ask(parsed.template, scene, parsed.params, reader=True)
            assert at_precision(parsed.template, scene, parsed.params, precision).answer == exact.answer
            assert v.verdict != "disagree"
        checked += 1
    assert checked


@needs_sample
def test_the_verified_answer_column_is_a_second_gold() -> None:
    from mapgen.recheck.verdicts import summary_json

    verdicts = sample_verdicts("usa")
    gold = summary_json(verdicts)["second_gold"]
    with_verified = [v for v in verdicts if v.verified and v.verified.strip()]
    assert gold["questions"] == len(with_verified) > 0
    assert gold["judged"] == sum(gold["vs_ground_truth"].values()) == sum(gold["vs_verified"].values())
    assert sum(gold["ground_truth/verified"].values()) == gold["judged"]
    assert gold["vs_verified"]["agree"] == sum(1 for v in with_verified if v.verified_verdict == "agree"
                                               and v.verdict in ("agree", "disagree"))
