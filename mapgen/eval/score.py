"""Scoring model answers against Question records, and per-group reports (the MAPWise tables).

``score(question, prediction)`` extracts the answer from the free text, runs every metric of the answer type
(:data:`~mapgen.eval.metrics.METRICS_BY_TYPE`) and keeps the first as the main score. ``evaluate`` scores many
questions; a question without a prediction scores 0 and is counted as ``missing``; an answer that could not be
parsed scores 0 and is counted as ``unparsed`` (``parse_ok`` False, not missing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from mapgen.eval.extract import extract_answer
from mapgen.eval.metrics import MAIN_METRIC, METRICS_BY_TYPE, get_metric, vocabulary
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
    """A :class:`Question` from a Question or its dict form."""
    return question if isinstance(question, Question) else Question.from_dict(dict(question))


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
    extracted = extract_answer(prediction, q.answer_type, vocabulary(q))
    value = extracted.value if extracted.ok else None
    values = {name: float(get_metric(name)(value, q)) for name in names}
    main = values[MAIN_METRIC[q.answer_type]]
    return Score(q.question_id, q.answer_type, value, extracted.ok, values, main, extracted.reason)


def _row(q: Question, s: Score) -> dict[str, Any]:
    row: dict[str, Any] = {c: getattr(q, c) for c in _ID_COLUMNS}
    row.update({c: getattr(q, c) for c in GROUP_COLUMNS})
    row["counterfactual"] = q.counterfactual or "none"
    row.update(
        answer=q.answer,
        extracted=s.extracted,
        parse_ok=s.parse_ok,
        unparsed=not s.parse_ok and not s.missing,
        missing=s.missing,
        reason=s.reason,
        main=s.main,
    )
    row.update(s.metrics)
    return row


@dataclass
class Report:
    """Per-question scores (``frame``) with group breakdowns."""

    frame: pd.DataFrame
    unmatched_predictions: list[str] = field(default_factory=list)

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
        """Mean main score, count, unparsed and missing counts per group (plus the mean of ``metrics``).

        A metric mean is taken over the questions that have that metric (NaN elsewhere).
        """
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
            out[name] = grouped[name].mean()
        return out.reset_index()

    def table(self, index: str | Sequence[str] = "map_type", columns: str = "answer_type") -> pd.DataFrame:
        """Wide table of mean main scores (MAPWise layout: rows map variants, columns answer types)."""
        keys = [index] if isinstance(index, str) else list(index)
        return self.frame.pivot_table(index=keys, columns=columns, values="main", aggfunc="mean")


def evaluate(
    questions: Iterable[Question | Mapping[str, Any]], predictions: Mapping[str, str | None]
) -> Report:
    """Score every question against ``predictions[question_id]`` (absent → missing, scored 0)."""
    rows = []
    seen: set[str] = set()
    for item in questions:
        q = as_question(item)
        seen.add(q.question_id)
        rows.append(_row(q, score(q, predictions.get(q.question_id))))
    metric_cols = [m for names in METRICS_BY_TYPE.values() for m in names]
    columns = [*_ID_COLUMNS, *GROUP_COLUMNS, *_RESULT_COLUMNS, *metric_cols]
    frame = pd.DataFrame(rows, columns=columns)
    unmatched = sorted(str(k) for k in predictions if k not in seen)
    return Report(frame=frame, unmatched_predictions=unmatched)
