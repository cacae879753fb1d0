"""Baselines (mapgen.eval.baselines): random valid answers and per-template priors."""

from __future__ import annotations

import json

import pytest

from mapgen.eval.baselines import (
    map_candidates,
    prior_baseline,
    random_baseline,
    run_baseline,
)
from mapgen.eval.extract import extract_answer
from mapgen.eval.score import evaluate
from mapgen.questions.record import Question, format_answer


def q(qid: str, answer_type: str, answer, template: str = "t", map_id: str = "m1", **kw) -> Question:
    return Question(
        question_id=qid,
        map_id=map_id,
        template_id=template,
        mapwise_template=None,
        question="?",
        answer=answer,
        answer_type=answer_type,
        map_type="discrete",
        country="usa",
        **kw,
    )


QUESTIONS = [
    q("b1", "binary", "Yes", "tb"),
    q("c1", "count", 2, "tc"),
    q("s1", "single", "Texas", "ts"),
    q("s2", "single", "10-20", "tl"),
    q("l1", "list", ["Ohio", "Iowa"], "tli"),
    q("r1", "ranking", [["Texas"], ["Ohio", "Iowa"]], "tr"),
    q("g1", "range", "10-20", "tg"),
    q("g2", "range", "20-30", "tg"),
]


def answers(preds: dict[str, str]) -> dict[str, object]:
    return {k: json.loads(v)["answer"] for k, v in preds.items()}


def test_format_answer():
    assert format_answer([["A"], ["B", "C"]], "ranking") == '{"answer": "A > B = C"}'
    assert format_answer(["A", "B"], "list") == '{"answer": ["A", "B"]}'
    assert format_answer(3, "count") == '{"answer": 3}'
    q = Question("q", "m", "t", None, "Rank them.", [["A"], ["B"]], "ranking", "discrete", "usa")
    assert q.answer_text() == '{"answer": "A > B"}'


def test_candidates_from_answers_and_spec():
    spec = {
        "atlas": "usa",
        "values": {"TX": 1.0, "OH": 2.0, "IA": 3.0, "UT": 4.0},
        "legend": {"classes": [{"label": "10-20"}, {"label": "20-30"}, {"label": "30-40"}]},
    }
    cands = map_candidates(QUESTIONS, lambda map_id: spec)["m1"]
    assert cands.labels == ["10-20", "20-30", "30-40"]
    assert set(cands.regions) == {"Texas", "Ohio", "Iowa", "Utah"}
    assert cands.n_regions == 4
    bare = map_candidates(QUESTIONS)["m1"]
    assert set(bare.regions) == {"Texas", "Ohio", "Iowa"} and set(bare.labels) == {"10-20", "20-30"}


def test_continuous_spec_labels_are_tick_intervals():
    spec = {"values": {}, "legend": {"classes": [], "tick_labels": ["0", "0.5", "1"]}}
    assert map_candidates([q("x", "range", "0-0.5")], lambda m: spec)["m1"].labels == ["0-0.5", "0.5-1"]


def test_random_answers_are_valid_and_seeded():
    preds = random_baseline(QUESTIONS, seed=1)
    assert preds == random_baseline(QUESTIONS, seed=1)
    assert preds["c1"] == random_baseline(list(reversed(QUESTIONS)), seed=1)["c1"]  # per question, not order
    got = answers(preds)
    assert got["b1"] in ("Yes", "No")
    assert isinstance(got["c1"], int) and 0 <= got["c1"] <= 3
    assert got["s1"] in ("Texas", "Ohio", "Iowa")
    assert got["s2"] in ("10-20", "20-30")  # a label question draws from labels
    assert set(got["l1"]) <= {"Texas", "Ohio", "Iowa"}
    assert sorted(got["r1"].split(" > ")) == ["Iowa", "Ohio", "Texas"]
    assert got["g1"] in ("10-20", "20-30")
    for question in QUESTIONS:  # every prediction parses as its type
        assert extract_answer(preds[question.question_id], question.answer_type).ok


def test_random_seeds_differ_and_are_uniform():
    many = [q(f"b{i}", "binary", "Yes") for i in range(400)]
    yes = sum(v == '{"answer": "Yes"}' for v in random_baseline(many, seed=0).values())
    assert 150 < yes < 250
    assert random_baseline(many, seed=0) != random_baseline(many, seed=1)
    report = evaluate(many, random_baseline(many, seed=0))
    assert report.summary()["score"] == pytest.approx(yes / 400)


def test_prior_uses_train_split_per_template():
    qs = [
        q("t1", "binary", "No", "A", split="train"),
        q("t2", "binary", "No", "A", split="train"),
        q("t3", "binary", "Yes", "A", split="train"),
        q("t4", "count", 5, "B", split="train"),
        q("e1", "binary", "Yes", "A", split="test"),
        q("e2", "count", 1, "B", split="test"),
        q("e3", "binary", "Yes", "C", split="test"),  # template unseen in train: type prior "No"
    ]
    got = answers(prior_baseline(qs))
    assert got["e1"] == "No" and got["e2"] == 5 and got["e3"] == "No"


def test_prior_without_train_uses_the_set_and_breaks_ties():
    qs = [q("a", "range", "10-20", "T"), q("b", "range", "20-30", "T"), q("c", "range", "20-30", "T")]
    assert set(answers(prior_baseline(qs)).values()) == {"20-30"}
    tie = [q("a", "single", "Ohio", "T"), q("b", "single", "Iowa", "T")]
    assert set(answers(prior_baseline(tie)).values()) == {"Iowa"}  # smallest JSON text wins
    lists = [q("a", "list", ["B", "A"], "L"), q("b", "list", ["A", "B"], "L"), q("c", "list", ["C"], "L")]
    assert answers(prior_baseline(lists))["c"] == ["A", "B"]  # lists count as sets


def test_prior_falls_back_to_the_set_for_types_missing_in_train():
    qs = [q("t1", "binary", "No", "A", split="train"), q("e1", "count", 4, "B"), q("e2", "count", 4, "B")]
    assert answers(prior_baseline(qs))["e1"] == 4


def test_explicit_train_and_run_baseline():
    train = [q("x", "binary", "Yes", "A")]
    assert answers(run_baseline("prior", [q("y", "binary", "No", "A")], train=train)) == {"y": "Yes"}
    assert run_baseline("random", QUESTIONS, seed=3) == random_baseline(QUESTIONS, seed=3)
    with pytest.raises(ValueError, match="unknown baseline"):
        run_baseline("oracle", QUESTIONS)
