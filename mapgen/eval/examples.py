"""Worked examples for the ``fewshot_image`` prompt: a fixed example map shipped with mapgen, read, never made.

The example map shows Gridland, an imaginary 3×3 country (so never a benchmark's country), in the variant of
the question asked (discrete, continuous or hatched). ``scripts/make_prompt_examples.py`` made it once with the
real pipeline (render + question engine, so every answer is computed, never typed) into
``templates/prompts/examples/``: ``<variant>.png`` and ``<variant>.json`` (the country and the questions with
their answers). The example question is one of the same template as the real question when the example map
has one, else one of the same answer type.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mapgen.caches import memo
from mapgen.questions.record import Question, format_answer
from mapgen.resources import template_path

VARIANTS: tuple[str, ...] = ("discrete", "continuous", "hatched")


@dataclass(frozen=True)
class Example:
    """One worked example: the image, the question and its computed answer as a model should write it."""

    image: Path
    question: Question
    answer_text: str
    country: str
    country_name: str

    @property
    def text(self) -> str:
        """The example question text."""
        return self.question.question


def examples_dir() -> Path:
    """The shipped ``templates/prompts/examples/`` folder."""
    return Path(str(template_path("prompts", "examples")))


def variant_of(question: Question) -> str:
    """``hatched`` for a hatched discrete map, else the map type."""
    return "hatched" if question.hatched and question.map_type == "discrete" else question.map_type


@memo(len(VARIANTS))
def load_examples(variant: str) -> tuple[dict[str, str], tuple[Question, ...]]:
    """The example map of ``variant``: ``{country, country_name}`` and its questions."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown map variant {variant!r}; known: {', '.join(VARIANTS)}")
    doc = json.loads((examples_dir() / f"{variant}.json").read_text(encoding="utf-8"))
    country = {"country": str(doc["country"]), "country_name": str(doc["country_name"])}
    return country, tuple(Question.from_dict(q) for q in doc["questions"])


def _informative(question: Question) -> bool:
    """An answer worth showing: not an empty list, not zero, not a one-item ranking."""
    answer = question.answer
    if question.answer_type == "ranking":
        return isinstance(answer, list) and len(answer) > 1
    return answer not in ([], None, 0, "")


def pick_question(questions: Iterable[Question], target: Question) -> Question:
    """The example question for ``target``, by preference: same template, same answer type (not relative to a
    region first), anything; informative answers (:func:`_informative`) before the others at each step."""
    qs = list(questions)
    if not qs:
        raise ValueError("the example map has no questions")
    rules = (
        lambda q: q.template_id == target.template_id,
        lambda q: q.answer_type == target.answer_type and not q.relative_region,
        lambda q: q.answer_type == target.answer_type,
    )
    for rule in rules:
        found = [q for q in qs if rule(q)]
        if found:
            return next((q for q in found if _informative(q)), found[0])
    return qs[0]


def example_for(target: Question) -> Example:
    """The worked example for ``target``: the shipped map of its variant and the best-matching question."""
    variant = variant_of(target)
    country, questions = load_examples(variant)
    question = pick_question(questions, target)
    return Example(
        image=examples_dir() / f"{variant}.png",
        question=question,
        answer_text=format_answer(question.answer, question.answer_type),
        country=country["country"],
        country_name=country["country_name"],
    )
