"""Multiple-choice form of single, range, count and binary questions.

Each question gets ``k`` options (default 4; binary questions and two-way choices such as "discrete or
continuous" get their 2): the gold answer plus distractors drawn, seeded per question, from the same map —

- ``single`` (a region): the gold region's neighbours on the atlas first, then other regions of the map;
  fixed two-way choices (``legend_kind``, ``legend_spacing``, "closer to A or B"): the other choice;
- ``range``: the map's other legend classes (tick intervals on continuous maps; other legend spans for the
  "overall range" question);
- ``count``: nearby counts (gold ± 1, ± 2, …, never below 0 or above the number of regions);
- ``binary``: Yes and No.

Options are shuffled (seeded by question id) and lettered A, B, C, …; the answer is the gold option's letter.
:func:`mcq_question` turns a question into its MCQ twin (options listed in the text, ``answer_type`` single,
the letter as answer and the option text as its accepted alias), so answer reading and scoring are the ordinary
single-answer ones; :func:`normalise_choice` reads ``"B"``, ``"(B)"``, ``"B. Texas"`` or ``{"answer": "B"}``.
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mapgen.eval.answers import answer_span
from mapgen.eval.baselines import MapFacts, answer_function, answer_space
from mapgen.questions.record import Question

MCQ_TYPES: tuple[str, ...] = ("single", "range", "count", "binary")
LETTERS = "ABCDEFGHIJ"
_CHOICE = re.compile(r'^\s*(?:\{\s*"answer"\s*:\s*")?\(?\s*([A-J])\s*(?:[).:\]]|"\s*\}|$|\s)', re.IGNORECASE)


@dataclass(frozen=True)
class Choice:
    """The options of one multiple-choice question and the gold option's letter."""

    options: tuple[str, ...]
    answer: str

    def lettered(self) -> dict[str, str]:
        return dict(zip(LETTERS, self.options))


def _rng(seed: int, question_id: str) -> random.Random:
    return random.Random(seed * 7_919 + zlib.crc32(("mcq:" + question_id).encode("utf-8")))


def _gold_text(q: Question) -> str:
    return str(q.answer)


def _nearby_counts(gold: int, n_regions: int, k: int, rng: random.Random) -> list[str]:
    """``k - 1`` counts drawn from the ``2(k - 1)`` nearest valid ones, so the gold's rank among the options
    varies (a fixed pattern such as gold-2..gold+1 would give the answer away)."""
    near = sorted((c for c in range(0, max(n_regions, gold) + 1) if c != gold), key=lambda c: (abs(c - gold), c))
    pool = near[: 2 * (k - 1)]
    return [str(c) for c in rng.sample(pool, min(k - 1, len(pool)))]


def _neighbour_names(q: Question, facts: MapFacts) -> list[str]:
    code = next((c for c, name in facts.names.items() if name == _gold_text(q)), None)
    if code is None or not q.country:
        return []
    from mapgen.geo.atlas import builtin_atlas

    atlas = builtin_atlas(str(q.country))
    if atlas is None:  # a user atlas: no neighbour preference
        return []
    try:
        near = atlas.neighbors(code)
    except Exception:  # a code the atlas does not know: no neighbour preference
        return []
    return [facts.names[c] for c in sorted(near) if c in facts.names]


def distractor_pool(q: Question, facts: MapFacts, rng: random.Random, k: int = 4) -> list[str]:
    """Candidate wrong options, best first (neighbours / nearby counts first, the rest shuffled)."""
    gold = _gold_text(q)
    if q.answer_type == "count":
        return _nearby_counts(int(q.answer), len(facts.names), k, rng)
    items = [str(i) for i in answer_space(q, facts).items if str(i) != gold]
    rng.shuffle(items)
    if q.answer_type == "single" and answer_function(q) not in ("closer_number",):
        near = [n for n in _neighbour_names(q, facts) if n != gold]
        rng.shuffle(near)
        items = near + [i for i in items if i not in near]
    return items


def make_choice(q: Question, facts: MapFacts, k: int = 4, seed: int = 0) -> Choice:
    """The ``k`` options (fewer when the answer space is smaller) of ``q`` and the gold letter."""
    if q.answer_type not in MCQ_TYPES:
        raise ValueError(f"{q.question_id}: {q.answer_type} questions have no multiple-choice form")
    rng = _rng(seed, q.question_id)
    gold = _gold_text(q)
    pool = ["No" if gold == "Yes" else "Yes"] if q.answer_type == "binary" else distractor_pool(q, facts, rng, k)
    wrong = list(dict.fromkeys(pool))[: max(1, k - 1)]
    options = [gold, *wrong]
    rng.shuffle(options)
    return Choice(tuple(options), LETTERS[options.index(gold)])


OPTIONS_HEADER = "\nOptions:\n"
"""What separates a multiple-choice text's question from its lettered options."""


def mcq_text(question: str, choice: Choice) -> str:
    """The question with its lettered options and the instruction to answer with a letter."""
    lines = [f"{letter}. {option}" for letter, option in choice.lettered().items()]
    return f"{question}{OPTIONS_HEADER}" + "\n".join(lines) + "\nAnswer with the option's letter."


def mcq_stem(text: str) -> str:
    """The question of a multiple-choice text without its options (VLMEvalKit's ``question`` column: its MCQ
    datasets list the A, B, C, D columns themselves)."""
    return text.split(OPTIONS_HEADER, 1)[0]


def mcq_question(q: Question, choice: Choice) -> Question:
    """The MCQ twin of ``q``: options in the text, the letter as a single answer, the option text its alias."""
    gold_option = choice.options[LETTERS.index(choice.answer)]
    return dataclasses.replace(
        q, question=mcq_text(q.question, choice), answer=choice.answer, answer_type="single",
        accepted_answers={choice.answer: [gold_option]}, bounds=None,
        tags=[*q.tags, f"mcq:{q.answer_type}"],
    )


def normalise_choice(text: str | None, choice: Choice) -> str | None:
    """A prediction as ``{"answer": "<letter>"}`` when it names an option by letter or by its exact text."""
    if text is None:
        return None
    span = answer_span(text)
    m = _CHOICE.match(span.strip())
    letter = m.group(1).upper() if m else None
    if letter is None:
        stripped = span.strip().strip('."*').lower()
        letter = next((ltr for ltr, o in choice.lettered().items() if o.lower() == stripped), None)
    if letter is None or letter not in choice.lettered():
        return text
    return '{"answer": "' + letter + '"}'


def original_type(q: Question) -> str:
    """The answer type an MCQ twin was made from (its ``mcq:<type>`` tag)."""
    return next((t.split(":", 1)[1] for t in q.tags if t.startswith("mcq:")), q.answer_type)


def choices_for(questions: Sequence[Question], facts_of: Any, k: int = 4, seed: int = 0) -> dict[str, Choice]:
    """``{question_id: Choice}`` for every question of an MCQ type."""
    return {q.question_id: make_choice(q, facts_of(q.map_id), k, seed) for q in questions if q.answer_type in MCQ_TYPES}


def score_mcq(questions: Sequence[Question], texts: Mapping[str, str | None], facts_of: Any, k: int = 4,
              seed: int = 0) -> Any:
    """Score letter answers to the MCQ twins of ``questions`` (other answer types are left out); the report
    frame keeps each question's own answer type, its main metric column holding the MCQ score."""
    from mapgen.eval.metrics import METRICS_BY_TYPE
    from mapgen.eval.score import evaluate

    choices = choices_for(questions, facts_of, k, seed)
    twins = [mcq_question(q, choices[q.question_id]) for q in questions if q.question_id in choices]
    preds = {qid: normalise_choice(t, choices[qid]) if qid in choices else t for qid, t in texts.items()}
    report = evaluate(twins, preds)
    frame = report.frame
    types = [original_type(q) for q in twins]
    frame["answer_type"] = types
    for name in METRICS_BY_TYPE["single"]:
        frame[name] = [v if t == "single" else math.nan for v, t in zip(frame[name], types)]
    for answer_type in set(types) - {"single"}:
        mask = frame["answer_type"] == answer_type
        for name in METRICS_BY_TYPE[answer_type]:
            frame.loc[mask, name] = frame.loc[mask, "main"]
    return report


def random_letters(questions: Sequence[Question], facts_of: Any, k: int = 4, seed: int = 0) -> dict[str, str]:
    """The random baseline in MCQ form: a uniform letter among each question's options."""
    choices = choices_for(questions, facts_of, k, seed)
    return {qid: '{"answer": "' + _rng(seed + 1, qid).choice(LETTERS[: len(c.options)]) + '"}'
            for qid, c in choices.items()}
