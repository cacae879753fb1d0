"""The Question record: what the question engine produces and what export and eval read.

Answer encoding per ``answer_type`` (JSON-serialisable):

- ``binary``: ``"Yes"`` or ``"No"``.
- ``count``: an ``int``.
- ``single``: one canonical string (a region's full name, or a legend label / colour word);
  ``accepted_answers`` maps it to every other accepted spelling (region code, aliases).
- ``list``: a list of canonical strings (order irrelevant); ``accepted_answers`` maps each item to its alternatives.
- ``range``: a string as printed on the legend (``"1k-2k"``, ``">0.55"``); ``bounds`` holds ``[lower, upper]``
  (``None`` for an open end).
- ``ranking``: a list of tie groups, best first, e.g. ``[["Texas"], ["Ohio", "Iowa"]]``; ``accepted_answers`` as
  for lists.

JSON keys required by the question-engine issue: ``question_id, map_id, template_id, mapwise_template, question,
answer, accepted_answers, answer_type, map_type, relative_region, program``; the rest are mapgen's additions.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Literal

AnswerType = Literal["binary", "single", "count", "list", "range", "ranking"]
ANSWER_TYPES: tuple[str, ...] = ("binary", "single", "count", "list", "range", "ranking")


@dataclass
class Question:
    """One instantiated question with its computed answer."""

    question_id: str
    map_id: str
    template_id: str
    mapwise_template: int | None
    question: str
    answer: Any
    answer_type: AnswerType
    map_type: Literal["discrete", "continuous"]
    country: str
    accepted_answers: dict[str, list[str]] = field(default_factory=dict)
    bounds: list[float | None] | None = None
    relative_region: bool = False
    hatched: bool = False
    annotated: bool = True
    counterfactual: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    program: list[dict[str, Any]] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    text_variant: int | None = None  # index of the template's text variant it is worded with (None: unknown)
    difficulty: dict[str, Any] | None = None  # what answering takes (see mapgen.questions.engine.difficulty)
    split: str | None = None
    variant: str | None = None  # build: annotated / unannotated / hatched / a counterfactual kind
    counterfactual_set: str | None = None  # build: original / imaginary / shuffled / jumbled (None outside the set)
    image: str | None = None  # build: image path relative to the benchmark folder

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (what ``dataclasses.asdict`` gives, without its per-value deep copies)."""
        return {name: _plain(getattr(self, name)) for name in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Question:
        """Inverse of :meth:`to_dict` (unknown keys are ignored)."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def answer_text(self) -> str:
        """The answer as a model is asked to write it (:func:`format_answer`)."""
        return format_answer(self.answer, self.answer_type)

    @property
    def difficulty_bucket(self) -> str:
        """``easy`` / ``medium`` / ``hard`` from :attr:`difficulty` (``unknown`` without it); see
        :func:`difficulty_bucket`."""
        return difficulty_bucket(self.difficulty)


_ATOMS = (str, int, float, bool, type(None))


def _plain(value: Any) -> Any:
    """A copy of ``value`` as ``dataclasses.asdict`` copies a field (containers rebuilt, atoms shared)."""
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return copy.deepcopy(value)


#: Bucket thresholds: a question is *hard* when it reads many regions, compares values closer than
#: ``HARD_GAP`` reading tolerances, or has an illegible region among or next to what it names; *easy* when it
#: reads at most two regions in at most two program steps, with no close values and nothing illegible nearby.
HARD_REGIONS, HARD_GAP, EASY_REGIONS, EASY_STEPS = 6, 2.0, 2, 2


def difficulty_bucket(features: dict[str, Any] | None) -> str:
    """The difficulty bucket of a question's difficulty features (written definition above)."""
    if not features:
        return "unknown"
    gap = features.get("min_gap_tolerances")
    close = gap is not None and gap < HARD_GAP
    regions = int(features.get("regions_read") or 0)
    if regions >= HARD_REGIONS or close or features.get("illegible_nearby"):
        return "hard"
    if regions <= EASY_REGIONS and int(features.get("program_steps") or 0) <= EASY_STEPS:
        return "easy"
    return "medium"


def format_answer(answer: Any, answer_type: str) -> str:
    """The ``{"answer": ...}`` text for an answer value (rankings as ``A > B = C``), as the prompts ask for."""
    if answer_type == "ranking" and isinstance(answer, (list, tuple)):
        groups = [g if isinstance(g, (list, tuple)) else [g] for g in answer]
        answer = " > ".join(" = ".join(str(i) for i in g) for g in groups)
    return json.dumps({"answer": answer}, ensure_ascii=False)
