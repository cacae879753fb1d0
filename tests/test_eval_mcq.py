"""Multiple-choice form (mapgen.eval.mcq) on a real build: options, letters, scoring, eval --format mcq."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.benchmark import load_benchmark
from mapgen.cli import main
from mapgen.eval.baselines import facts_lookup
from mapgen.eval.mcq import LETTERS, MCQ_TYPES, choices_for, make_choice, mcq_question, normalise_choice
from mapgen.evaluation import prediction_source, run_eval
from mapgen.geo.atlas import load_atlas


@pytest.fixture(scope="module")
def bench(eval_bench: Path):
    return load_benchmark(eval_bench)


@pytest.fixture(scope="module")
def choices(bench):
    return choices_for(bench.questions, facts_lookup(bench.spec))


def test_options_hold_the_gold_once_and_distractors_from_the_same_map(bench, choices):
    facts = facts_lookup(bench.spec)
    assert {q.answer_type for q in bench.questions if q.question_id in choices} == set(MCQ_TYPES)
    for q in bench.questions:
        if q.question_id not in choices:
            assert q.answer_type not in MCQ_TYPES
            continue
        c = choices[q.question_id]
        assert len(set(c.options)) == len(c.options) and c.options.count(str(q.answer)) == 1
        assert c.options[LETTERS.index(c.answer)] == str(q.answer)
        f = facts(q.map_id)
        if q.answer_type == "binary":
            assert sorted(c.options) == ["No", "Yes"]
        elif q.answer_type == "count":
            assert len(c.options) == 4 and all(0 <= int(o) <= len(f.names) for o in c.options)
        elif q.answer_type == "range" and q.template_id != "legend_overall_range":
            assert set(c.options) <= set(f.labels)
        elif q.answer_type == "single" and str(q.answer) in f.names.values():
            assert set(c.options) <= set(f.names.values()) and len(c.options) == 4


def test_region_distractors_prefer_the_gold_regions_neighbours(bench, choices):
    facts = facts_lookup(bench.spec)
    checked = 0
    for q in bench.questions:
        if q.answer_type != "single" or q.counterfactual_set or q.question_id not in choices:
            continue
        names = facts(q.map_id).names
        code = next((c for c, n in names.items() if n == q.answer), None)
        if code is None:
            continue
        near = {names[c] for c in load_atlas(q.country).neighbors(code) if c in names}
        wrong = set(choices[q.question_id].options) - {q.answer}
        assert len(wrong & near) == min(3, len(near)), q.question_id
        checked += 1
    assert checked


def test_choices_are_seeded_and_gold_letters_spread(bench, choices):
    again = choices_for(bench.questions, facts_lookup(bench.spec))
    assert again == choices
    assert choices_for(bench.questions, facts_lookup(bench.spec), seed=1) != choices
    four = [c.answer for c in choices.values() if len(c.options) == 4]
    assert {LETTERS.index(a) for a in four} == {0, 1, 2, 3}
    counts = [c for qid, c in choices.items() if bench.by_id[qid].answer_type == "count"]
    ranks = {sorted(map(int, c.options)).index(int(c.options[LETTERS.index(c.answer)])) for c in counts}
    assert len(ranks) >= 3  # the gold's place among sorted counts does not give it away


def test_letters_option_text_and_wrong_letters_score_as_expected(bench, choices):
    from mapgen.eval.score import score

    q = next(q for q in bench.questions if q.answer_type == "single" and q.question_id in choices)
    c = choices[q.question_id]
    twin = mcq_question(q, c)
    assert "Options:\nA. " in twin.question and twin.answer == c.answer
    wrong = next(letter for letter in c.lettered() if letter != c.answer)
    gold_text = c.options[LETTERS.index(c.answer)]
    for text, want in ((c.answer, 1.0), (f"({c.answer})", 1.0), (f"{c.answer}. {gold_text}", 1.0),
                       (json.dumps({"answer": c.answer}), 1.0), (gold_text, 1.0), (wrong, 0.0),
                       (json.dumps({"answer": wrong}), 0.0), ("I cannot tell.", 0.0)):
        assert score(twin, normalise_choice(text, c)).main == want, text


def test_eval_mcq_perfect_random_and_cli(eval_bench: Path, bench, choices, tmp_path: Path):
    perfect = {qid: json.dumps({"answer": c.answer}) for qid, c in choices.items()}
    report = run_eval(eval_bench, prediction_source(perfect), form="mcq")
    assert len(report.frame) == len(choices) and report.summary()["score"] == 1.0
    assert set(report.frame["answer_type"]) == set(MCQ_TYPES)
    for metric in ("binary_exact", "single_recall", "count_exact", "range_score", "range_exact"):
        assert report.frame[metric].dropna().eq(1.0).all() and report.frame[metric].notna().any(), metric
    out = tmp_path / "mcq"
    result = CliRunner().invoke(main, ["eval", str(eval_bench), "--baseline", "random", "--format", "mcq",
                                       "-o", str(out), "--no-plots"])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    chance = sum(1 / len(c.options) for c in choices.values()) / len(choices)
    assert summary["chance_score"] == pytest.approx(chance, abs=1e-6)
    assert abs(summary["score"] - chance) < 0.12
    assert summary["tables"]["overall"]["all"]["List Recall"] is None  # lists have no MCQ form


def test_questions_without_an_mcq_form_are_refused(bench):
    q = next(q for q in bench.questions if q.answer_type == "list")
    with pytest.raises(ValueError, match="no multiple-choice form"):
        make_choice(q, facts_lookup(bench.spec)(q.map_id))
