"""Baselines (mapgen.eval.baselines) and the analytic chance level (mapgen.eval.chance) on a real build."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections import defaultdict
from pathlib import Path

import pytest

from mapgen.benchmark import load_benchmark
from mapgen.eval.baselines import (
    FIXED_CHOICES,
    answer_function,
    answer_space,
    facts_lookup,
    map_facts,
    prior_baseline,
    random_baseline,
    run_baseline,
)
from mapgen.eval.chance import chance_scores
from mapgen.eval.metrics import MAIN_METRIC
from mapgen.eval.report import BREAKDOWNS
from mapgen.eval.score import evaluate
from mapgen.evaluation import Baseline, run_eval
from mapgen.questions.record import format_answer


@pytest.fixture(scope="module")
def bench(eval_bench: Path):
    return load_benchmark(eval_bench)


def answers(preds: dict[str, str]) -> dict[str, object]:
    return {k: json.loads(v)["answer"] for k, v in preds.items()}


def shuffled_gold(questions, seed: int = 0):
    """The questions with gold answers (answer, accepted answers, bounds) shuffled among questions of a type."""
    rng = random.Random(seed)
    by_type = defaultdict(list)
    for i, q in enumerate(questions):
        by_type[q.answer_type].append(i)
    out = list(questions)
    for idx in by_type.values():
        donors = idx[:]
        rng.shuffle(donors)
        for i, j in zip(idx, donors):
            d = questions[j]
            out[i] = dataclasses.replace(
                questions[i], answer=d.answer, accepted_answers=d.accepted_answers, bounds=d.bounds
            )
    return out


def test_map_facts_read_the_nested_spec_of_a_real_map(bench):
    q = next(q for q in bench.questions if q.counterfactual_set == "imaginary")
    data = bench.map_json(q.map_id)
    facts = map_facts(data)
    cf_names = data["spec"]["counterfactual"]["names"]
    assert facts.names == {c: cf_names[c] for c in data["spec"]["values"]}  # imaginary names, every region
    plain = next(q for q in bench.questions if q.counterfactual_set is None and q.country == "usa")
    names = map_facts(bench.map_json(plain.map_id)).names
    assert len(names) == 51 and names["TX"] == "Texas"
    discrete = next(q for q in bench.questions if q.map_type == "discrete" and q.counterfactual_set is None)
    legend = bench.map_json(discrete.map_id)["spec"]["legend"]
    assert map_facts(bench.map_json(discrete.map_id)).labels == tuple(c["label"] for c in legend["classes"])
    with pytest.raises(ValueError, match="spec"):
        map_facts(data["spec"])  # the flat shape is not a map file


def test_answer_spaces_never_contain_only_the_gold(bench):
    facts = facts_lookup(bench.spec)
    for q in bench.questions:
        space = answer_space(q, facts(q.map_id))
        if q.answer_type in ("single", "range", "count", "binary"):
            assert len(space.items) >= 2, q.question_id
        if q.answer_type == "single" and answer_function(q) not in FIXED_CHOICES and answer_function(q) != "closer_number":
            assert len(space.items) == len(facts(q.map_id).names)


def test_random_predictions_do_not_move_when_gold_answers_are_shuffled(bench):
    qs = bench.questions
    before = random_baseline(qs, bench.spec, seed=5)
    after = random_baseline(shuffled_gold(qs), bench.spec, seed=5)
    assert before == after
    assert random_baseline(list(reversed(qs)), bench.spec, seed=5) == before  # per question, not order
    assert random_baseline(qs, bench.spec, seed=6) != before


def test_random_baseline_matches_analytic_chance(bench):
    """Per answer type, the random baseline's mean (10 seeds) lies within 3 standard errors of the exact chance."""
    qs = bench.questions
    chances = chance_scores(qs, bench.spec)
    rows = defaultdict(list)
    for seed in range(10):
        frame = evaluate(qs, random_baseline(qs, bench.spec, seed=seed)).frame
        for answer_type, main in zip(frame["answer_type"], frame["main"]):
            rows[answer_type].append(main)
    for answer_type, scores in rows.items():
        expected = [chances[q.question_id][MAIN_METRIC[answer_type]] for q in qs if q.answer_type == answer_type]
        chance = sum(expected) / len(expected)
        mean = sum(scores) / len(scores)
        sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (len(scores) - 1))
        assert abs(mean - chance) <= 3 * sd / math.sqrt(len(scores)) + 1e-9, (answer_type, mean, chance)


def test_chance_of_simple_spaces_is_exact(bench):
    chances = chance_scores(bench.questions, bench.spec)
    facts = facts_lookup(bench.spec)
    for q in bench.questions:
        got = chances[q.question_id][MAIN_METRIC[q.answer_type]]
        if q.answer_type == "binary":
            assert got == 0.5
        if q.answer_type == "count":
            assert got == pytest.approx(1 / (len(facts(q.map_id).names) + 1))
        if q.answer_type == "ranking" and len(q.answer) == 3 == sum(map(len, q.answer)):
            assert chances[q.question_id]["ranking_rwp"] == pytest.approx(1 / 3)  # each rank right w.p. 1/3


def test_empty_gold_list_chance_follows_the_empty_answer_rule(bench):
    q = next(q for q in bench.questions if q.answer_type == "list" and q.answer)
    n = len(map_facts(bench.map_json(q.map_id)).names)
    empty = dataclasses.replace(q, answer=[], accepted_answers={})
    assert chance_scores([empty], bench.spec)[q.question_id]["list_f1"] == pytest.approx(1 / (n + 1))


def test_prior_learns_from_the_train_split_only(bench):
    train = [q for q in bench.questions if q.split == "train"]
    test = [q for q in bench.questions if q.split == "test"]
    preds = prior_baseline(test, train)
    assert prior_baseline(shuffled_gold(test), train) == preds  # test answers are never read
    tid = next(q.template_id for q in train if q.answer_type == "binary")
    same = [q for q in test if q.template_id == tid]
    for word in ("Yes", "No"):  # the prediction follows the train answers of the template
        forced = [dataclasses.replace(q, answer=word) if q.template_id == tid else q for q in train]
        assert set(answers(prior_baseline(same, forced)).values()) <= {word}
    with pytest.raises(ValueError, match="train split"):
        prior_baseline(test, [])


def test_prior_answers_are_the_most_frequent_train_answer_per_template(bench):
    train = [q for q in bench.questions if q.split == "train"]
    got = answers(prior_baseline(bench.questions, train))
    for q in bench.questions:
        seen = [format_answer(t.answer, t.answer_type) for t in train if t.template_id == q.template_id]
        if seen and q.answer_type in ("binary", "count", "single", "range"):
            top = max(seen.count(s) for s in seen)
            assert format_answer(got[q.question_id], q.answer_type) in {s for s in seen if seen.count(s) == top}


def test_run_eval_prior_scores_the_held_out_split(eval_bench: Path, tmp_path: Path):
    report = run_eval(eval_bench, Baseline("prior"), out_dir=tmp_path / "prior", plots=False)
    assert set(report.frame["split"]) == {"test"}
    assert json.loads((tmp_path / "prior" / "summary.json").read_text())["split"] == "test"


def test_every_report_table_has_the_random_and_chance_rows(eval_bench: Path, tmp_path: Path):
    run_eval(eval_bench, Baseline("random"), out_dir=tmp_path / "r", plots=False)
    tables = (tmp_path / "r" / "tables.md").read_text()
    sections = [s for s in tables.split("\n## ")[1:] if s.startswith(("Overall", "By "))]
    assert len(sections) == 1 + len(BREAKDOWNS)  # overall and every breakdown
    for section in sections:
        assert "· random (empirical) |" in section and "· chance (analytic) |" in section, section[:40]
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["random_score"] == pytest.approx(summary["score"], abs=1e-6)  # the source is the random run


def test_unknown_baseline_and_missing_maps_are_clear_errors(bench):
    with pytest.raises(ValueError, match="known: random, prior"):
        run_baseline("oracle", bench.questions)
    with pytest.raises(ValueError, match="no map JSON"):
        random_baseline(bench.questions, lambda map_id: None)
