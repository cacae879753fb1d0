"""Scoring the VQA task in a run: the questions of the run's split and form, their report frame, the random and
analytic-chance reference frames, and the image-blind baselines' answers (:mod:`mapgen.eval.baselines`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mapgen.benchmark import DEFAULT_STYLE
from mapgen.tasks.base import EvalScope, TaskScores, Texts

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark
    from mapgen.questions.record import Question

MCQ_FORM = "mcq"
FORMS = ("open", MCQ_FORM)


def select_questions(bench: Benchmark, split: str | None = None, limit: int | None = None) -> list[Question]:
    """The questions to evaluate (one split, the first ``limit``)."""
    questions = [q for q in bench.questions if split is None or q.split == split]
    return questions[:limit] if limit is not None else questions


def form_questions(scope: EvalScope) -> list[Question]:
    """The questions a run scores: those of its split (the first ``limit``), and in ``mcq`` form only those with
    a multiple-choice twin."""
    from mapgen.eval.mcq import MCQ_TYPES

    if scope.form not in FORMS:
        raise ValueError(f"unknown form {scope.form!r}; known: {', '.join(FORMS)}")
    questions = select_questions(scope.bench, scope.split, scope.limit)
    return [q for q in questions if q.answer_type in MCQ_TYPES] if scope.form == MCQ_FORM else questions


def mcq_run(bench: Benchmark, questions: Sequence[Question], seed: int) -> list[Question]:
    """The questions a multiple-choice run asks: the MCQ twins of the single, range, count and binary ones."""
    from mapgen.eval.baselines import facts_lookup
    from mapgen.eval.mcq import choices_for, mcq_question

    choices = choices_for(questions, facts_lookup(bench.spec), seed=seed)
    return [mcq_question(q, choices[q.question_id]) for q in questions if q.question_id in choices]


def asked_questions(scope: EvalScope) -> list[Question]:
    """What a model is asked: the run's questions, or their MCQ twins in ``mcq`` form."""
    questions = form_questions(scope)
    return mcq_run(scope.bench, questions, scope.seed) if scope.form == MCQ_FORM else questions


def chance_references(
    bench: Benchmark, questions: Sequence[Question], frame: Any, seed: int = 0, form: str | None = None
) -> dict[str, Any]:
    """Report frames of the same questions scored by the random baseline (``random``: empirical) and by its exact
    expectation (``chance``: analytic; 1 / options in MCQ form); empty when a question's map JSON is missing."""
    from mapgen.eval.baselines import facts_lookup, random_baseline
    from mapgen.eval.chance import chance_frame, chance_scores
    from mapgen.eval.mcq import choices_for, random_letters, score_mcq
    from mapgen.eval.metrics import METRICS_BY_TYPE
    from mapgen.eval.score import evaluate

    every_metric = tuple(m for names in METRICS_BY_TYPE.values() for m in names)
    try:
        if form == MCQ_FORM:
            facts = facts_lookup(bench.spec)
            choices = choices_for(questions, facts, seed=seed)
            chances = {qid: dict.fromkeys(every_metric, 1 / len(c.options)) for qid, c in choices.items()}
            letters: dict[str, str | None] = dict(random_letters(questions, facts, seed=seed))
            random_frame = score_mcq(questions, letters, facts, seed=seed).frame
        else:
            chances = chance_scores(questions, bench.spec)
            random_frame = evaluate(questions, random_baseline(questions, bench.spec, seed=seed)).frame
    except ValueError:
        return {}
    return {"random": random_frame, "chance": chance_frame(frame, chances)}


def score_questions(scope: EvalScope, texts: Texts, other_ids: Collection[str]) -> TaskScores:
    """The run's question frame (replies under ``other_ids``, other tasks' records, are not counted as unknown
    question ids) with its random and chance references."""
    from mapgen.eval.baselines import facts_lookup
    from mapgen.eval.mcq import score_mcq
    from mapgen.eval.score import evaluate

    if scope.stream and scope.form == FORMS[0]:  # the open form streams (an unknown form is refused below)
        from mapgen.eval.stream import stream_scores

        streamed, refs = stream_scores(scope, texts, other_ids)
        return TaskScores(frame=streamed.frame, references=refs, unmatched_predictions=streamed.unmatched_predictions,
                          spool=streamed.spool)
    questions = form_questions(scope)
    own: dict[str, str | None] = {k: v for k, v in texts.items() if k not in other_ids}
    if scope.form == MCQ_FORM:
        base = score_mcq(questions, own, facts_lookup(scope.bench.spec), seed=scope.seed)
    else:
        base = evaluate(questions, own)
    references = chance_references(scope.bench, questions, base.frame, scope.seed, scope.form)
    styles = scope.bench.map_styles
    if styles:  # builds that draw map styles: the report breaks scores down by style
        for frame in (base.frame, *references.values()):
            frame["style"] = [styles.get(m, DEFAULT_STYLE) for m in frame["map_id"]]
    return TaskScores(frame=base.frame, references=references, unmatched_predictions=base.unmatched_predictions)


def baseline_answers(scope: EvalScope, name: str) -> Mapping[str, str | None]:
    """A baseline's answers to the run's questions (the train split as its prior; letters in ``mcq`` form)."""
    from mapgen.eval.baselines import TRAIN_SPLIT, facts_lookup, run_baseline
    from mapgen.eval.mcq import random_letters

    if name == "random" and scope.stream and scope.form == FORMS[0]:
        from mapgen.eval.stream import random_answers

        return random_answers(scope)
    bench, questions = scope.bench, form_questions(scope)
    if name == "random" and scope.form == MCQ_FORM:
        return random_letters(questions, facts_lookup(bench.spec), seed=scope.seed)
    train = [q for q in bench.questions if q.split == TRAIN_SPLIT]
    return dict(run_baseline(name, questions, seed=scope.seed, map_of=bench.spec, train=train)) if questions else {}
