"""Scoring model answers against Question records, and per-group reports (the MAPWise tables).

``score(question, prediction)`` extracts the answer from the free text, runs every metric of the answer type
(:data:`~mapgen.eval.metrics.METRICS_BY_TYPE`) and keeps the first as the main score. ``evaluate`` scores many
questions; a question without a prediction scores 0 and is counted as ``missing``; an answer that could not be
parsed scores 0 and is counted as ``unparsed`` (``parse_ok`` False, not missing).

The ``counterfactual`` column of the report holds the question's counterfactual *set* (MAPWise's rows):
``original`` (the unchanged control map of the counterfactual study), ``imaginary``, ``shuffled``, ``jumbled``,
or ``none`` for the ordinary maps. It is read from the record's ``counterfactual_set`` (written by
:func:`mapgen.build.build`) and falls back to ``counterfactual``.

Speed: the gold answer is compiled once per question (:func:`~mapgen.eval.metrics.gold_of`), every metric of
an answer type comes from one pass (:func:`~mapgen.eval.metrics.all_metrics`) and the report frame is built
column-wise once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mapgen.collector import collector_paused
from mapgen.eval.answers import extract_answer
from mapgen.eval.metrics import (
    MAIN_METRIC,
    METRICS_BY_TYPE,
    Reducer,
    all_metrics,
    gold_of,
    list_metrics,
    mean,
    metric_info,
)
from mapgen.questions.record import Question

GROUP_COLUMNS: tuple[str, ...] = (
    "answer_type",
    "map_type",
    "hatched",
    "annotated",
    "country",
    "relative_region",
    "counterfactual",
)
"""Question attributes copied into the report frame for :meth:`Report.breakdown`."""

_ID_COLUMNS: tuple[str, ...] = ("question_id", "map_id", "template_id", "mapwise_template", "split")
_RESULT_COLUMNS: tuple[str, ...] = (
    "answer",
    "extracted",
    "parse_ok",
    "unparsed",
    "missing",
    "reason",
    "main",
)


@dataclass
class Score:
    """Score of one prediction."""

    question_id: str
    answer_type: str
    extracted: Any
    parse_ok: bool
    metrics: dict[str, float]
    main: float
    reason: str = ""
    missing: bool = False


def as_question(question: Question | Mapping[str, Any]) -> Question:
    """A :class:`Question` from a Question or its dict form (benchmark extras such as ``counterfactual_set`` kept)."""
    return question if isinstance(question, Question) else Question.from_dict(dict(question))


def counterfactual_group(question: Question) -> str:
    """The counterfactual set of ``question``: original / imaginary / shuffled / jumbled, else ``none``."""
    return getattr(question, "counterfactual_set", None) or question.counterfactual or "none"


def _metric_names(answer_type: str) -> tuple[str, ...]:
    if answer_type not in METRICS_BY_TYPE:
        raise ValueError(f"unknown answer type {answer_type!r}; known: {sorted(METRICS_BY_TYPE)}")
    return METRICS_BY_TYPE[answer_type]


def score(question: Question | Mapping[str, Any], prediction: str | None) -> Score:
    """Extract the answer from ``prediction`` and score it (``None`` = missing prediction)."""
    q = as_question(question)
    names = _metric_names(q.answer_type)
    if prediction is None:
        zeros = {name: 0.0 for name in names}
        return Score(q.question_id, q.answer_type, None, False, zeros, 0.0, "missing prediction", True)
    gold = gold_of(q)
    extracted = extract_answer(prediction, q.answer_type, gold.vocabulary)
    value = extracted.value if extracted.ok else None
    values = all_metrics(value, q, gold) if value is not None else dict.fromkeys(names, 0.0)
    main = values[MAIN_METRIC[q.answer_type]]
    return Score(q.question_id, q.answer_type, value, extracted.ok, values, main, extracted.reason)


def _objects(values: list[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _frame(questions: Sequence[Question], scores: Sequence[Score]) -> pd.DataFrame:
    """The report frame, built column by column from arrays (one row per question)."""
    data: dict[str, Any] = {c: [getattr(q, c) for q in questions] for c in (*_ID_COLUMNS, *GROUP_COLUMNS)}
    data["counterfactual"] = [counterfactual_group(q) for q in questions]
    data["difficulty"] = [q.difficulty_bucket for q in questions]
    data["answer"] = _objects([q.answer for q in questions])
    data["extracted"] = _objects([s.extracted for s in scores])
    parse_ok = np.fromiter((s.parse_ok for s in scores), dtype=bool, count=len(scores))
    missing = np.fromiter((s.missing for s in scores), dtype=bool, count=len(scores))
    data["parse_ok"] = parse_ok
    data["unparsed"] = ~parse_ok & ~missing
    data["missing"] = missing
    data["reason"] = [s.reason for s in scores]
    data["main"] = np.fromiter((s.main for s in scores), dtype=float, count=len(scores))
    columns: dict[str, list[float]] = {
        name: [math.nan] * len(scores) for names in METRICS_BY_TYPE.values() for name in names
    }
    for i, s in enumerate(scores):
        for name, value in s.metrics.items():
            if name in columns:
                columns[name][i] = value
    data.update({name: np.array(values, dtype=float) for name, values in columns.items()})
    return pd.DataFrame(data)


def _reducer(column: str) -> Reducer:
    """The declared aggregation of a registered metric; the mean for any other score column."""
    return metric_info(column).aggregation if column in list_metrics() else mean


@dataclass
class Report:
    """Per-question scores (``frame``) with group breakdowns."""

    frame: pd.DataFrame
    unmatched_predictions: Sequence[str] = field(default_factory=list)
    spool: Any = field(default=None, repr=False)
    """The whole per-question rows when ``frame`` holds only the report's columns (a
    :class:`~mapgen.eval.stream.ScoreSpool`: ``scores.csv`` is written from it); ``None``: ``frame`` is whole."""

    def summary(self) -> dict[str, float]:
        """Overall mean main score and the counts of questions, unparsed, missing and unmatched answers."""
        f = self.frame
        return {
            "n": int(len(f)),
            "score": float(f["main"].mean()) if len(f) else float("nan"),
            "unparsed": int(f["unparsed"].sum()) if len(f) else 0,
            "missing": int(f["missing"].sum()) if len(f) else 0,
            "unmatched_predictions": len(self.unmatched_predictions),
        }

    def breakdown(self, by: str | Sequence[str], metrics: Sequence[str] = ()) -> pd.DataFrame:
        """Mean main score, count, unparsed and missing counts per group, plus each of ``metrics`` aggregated as
        the metric declares (other columns: mean) over the questions that have it (NaN elsewhere)."""
        keys = [by] if isinstance(by, str) else list(by)
        unknown = [k for k in [*keys, *metrics] if k not in self.frame.columns]
        if unknown:
            raise KeyError(f"unknown columns {unknown}")
        grouped = self.frame.groupby(keys, dropna=False, sort=True)
        out = grouped.agg(
            score=("main", "mean"),
            n=("main", "size"),
            unparsed=("unparsed", "sum"),
            missing=("missing", "sum"),
        )
        for name in metrics:
            reducer = _reducer(name)
            out[name] = grouped[name].mean() if reducer is mean else grouped[name].agg(reducer)
        return out.reset_index()

    def table(self, index: str | Sequence[str] = "map_type", columns: str = "answer_type") -> pd.DataFrame:
        """Wide table of mean main scores (MAPWise layout: rows map variants, columns answer types)."""
        keys = [index] if isinstance(index, str) else list(index)
        return self.frame.pivot_table(index=keys, columns=columns, values="main", aggfunc="mean")


def evaluate(
    questions: Iterable[Question | Mapping[str, Any]], predictions: Mapping[str, str | None]
) -> Report:
    """Score every question against ``predictions[question_id]`` (absent → missing, scored 0)."""
    qs = [as_question(item) for item in questions]
    with collector_paused():  # scoring allocates many small acyclic objects; generational GC passes cost ~40 %
        scores = [score(q, predictions.get(q.question_id)) for q in qs]
    seen = {q.question_id for q in qs}
    unmatched = sorted(str(k) for k in predictions if k not in seen)
    return Report(frame=_frame(qs, scores), unmatched_predictions=unmatched)
