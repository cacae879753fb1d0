"""Helpers shared by test modules (import as ``from helpers import ...``)."""

from __future__ import annotations

from typing import Any

from mapgen.questions.record import Question


def make_question(question_id: str = "Q1", answer_type: str = "binary", answer: Any = "Yes", **kw: Any) -> Question:
    """A :class:`Question` for metric and extraction unit tests (tests that read a benchmark build one)."""
    base: dict[str, Any] = dict(
        question_id=question_id,
        map_id="m1",
        template_id="t",
        mapwise_template=None,
        question="?",
        answer=answer,
        answer_type=answer_type,
        map_type="discrete",
        country="usa",
    )
    return Question(**(base | kw))
