"""Difficulty buckets: a written definition on the question record, and a report breakdown on a real build."""

from __future__ import annotations

import pytest

from mapgen.benchmark import load_benchmark
from mapgen.eval.score import evaluate
from mapgen.questions.record import difficulty_bucket


@pytest.mark.parametrize(("features", "bucket"), [
    (None, "unknown"),
    ({"regions_read": 1, "program_steps": 1, "min_gap_tolerances": None, "illegible_nearby": False}, "easy"),
    ({"regions_read": 2, "program_steps": 2, "min_gap_tolerances": 7.5, "illegible_nearby": False}, "easy"),
    ({"regions_read": 2, "program_steps": 3, "min_gap_tolerances": None, "illegible_nearby": False}, "medium"),
    ({"regions_read": 5, "program_steps": 1, "min_gap_tolerances": 2.0, "illegible_nearby": False}, "medium"),
    ({"regions_read": 6, "program_steps": 1, "min_gap_tolerances": None, "illegible_nearby": False}, "hard"),
    ({"regions_read": 2, "program_steps": 1, "min_gap_tolerances": 1.9, "illegible_nearby": False}, "hard"),
    ({"regions_read": 1, "program_steps": 1, "min_gap_tolerances": None, "illegible_nearby": True}, "hard"),
])
def test_hand_checked_buckets(features, bucket) -> None:
    assert difficulty_bucket(features) == bucket


def test_report_breaks_scores_down_by_each_questions_bucket(eval_bench) -> None:
    bench = load_benchmark(eval_bench)
    assert all(q.difficulty for q in bench.questions)  # the build records the features on every question
    report = evaluate(bench.questions, {q.question_id: q.answer_text() for q in bench.questions})
    frame = report.frame.set_index("question_id")
    assert {q.question_id: q.difficulty_bucket for q in bench.questions} == frame["difficulty"].to_dict()
    by_bucket = report.breakdown("difficulty")
    assert set(by_bucket["difficulty"]) <= {"easy", "medium", "hard"} and (by_bucket["score"] == 1.0).all()
    assert by_bucket["n"].sum() == len(bench.questions)
