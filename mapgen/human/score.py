"""Scoring several annotators of a kit the way MAPWise scored its human baseline (Section 6, Tables 9 and 10).

Each annotator's answers (a predictions JSONL, e.g. the annotation page's export) are scored with the benchmark's
own metrics (:func:`mapgen.eval.score.evaluate`, what ``mapgen eval --predictions`` runs). Their answers are then
compared as **canonical answers** (:func:`answer_key`): yes/no, the number, the region name through the
question's alias map (so "TX" and "Texas" agree), a list as a set, a ranking as its tie groups, a range as its
bounds; a missing or unreadable answer is the category ``(none)``.

**Majority rule.** The majority answer of a question is the canonical answer given by more than half of the
annotators (2 of 3). **Ties** (no answer reaches a strict majority, e.g. three different answers) have **no
majority answer**: the question counts as without majority agreement (Table 10) and scores 0 for the human
baseline (Table 9) — so the result never depends on the order of the annotators or on their ids. A majority
answer's score is the score of the answers that form it (equal canonical answers score alike).

Agreement: the share of questions with a majority answer per answer type (Table 10) and Fleiss' kappa over the
canonical answers with a bootstrap interval (:mod:`mapgen.human.agreement`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from mapgen.eval.metrics import gold_of
from mapgen.eval.normalize import normalize_yes_no
from mapgen.eval.score import counterfactual_group, evaluate
from mapgen.evaluation import load_predictions
from mapgen.files import iter_json_lines
from mapgen.human.agreement import fleiss_kappa, kappa_interval
from mapgen.legend.grammar import find_range
from mapgen.questions.record import Question

NONE = "(none)"
"""The canonical answer of a missing or unreadable answer."""
MAJORITY_ID = "human-majority"
"""The annotator id of the majority answers' predictions file."""


class AnnotatorError(ValueError):
    """Annotator files that cannot be scored together (the message names the file and the fix)."""


@dataclass
class Annotator:
    """One annotator's answers: ``texts`` by question id (the prediction text as given)."""

    id: str
    path: Path
    texts: dict[str, str | None]


def _file_ids(path: Path) -> set[str]:
    return {str(r["annotator"]) for _, r, error in iter_json_lines(path)
            if error is None and isinstance(r, dict) and r.get("annotator") not in (None, "")}


def read_annotator(path: str | Path) -> Annotator:
    """An annotator file: a predictions JSONL whose lines may carry ``annotator`` (one id per file; the file's
    stem when none does). Refuses a file that gives an id twice or holds several annotators."""
    path = Path(path)
    preds = load_predictions(path)
    if preds.duplicates:
        raise AnnotatorError(f"{path} answers {preds.duplicates[0]!r} more than once; keep one answer per question")
    if preds.invalid:
        raise AnnotatorError(f"{preds.invalid[0]}; fix or remove that line")
    ids = _file_ids(path) if path.suffix != ".json" else set()
    if len(ids) > 1:
        raise AnnotatorError(f"{path} holds the answers of several annotators ({', '.join(sorted(ids))}); give "
                             "one file per annotator")
    return Annotator(ids.pop() if ids else path.stem, path, dict(preds.texts.items()))  # a kit's answers: small


def check_annotators(annotators: Sequence[Annotator], gold: Sequence[Question]) -> None:
    """Refuse fewer than 2 annotators, one id twice, and answers to questions the kit does not hold."""
    if len(annotators) < 2:
        raise AnnotatorError("give at least 2 annotator files (--answers a.jsonl b.jsonl c.jsonl): agreement "
                             "and a majority need several people")
    twice = [i for i, c in Counter(a.id for a in annotators).items() if c > 1]
    if twice:
        files = ", ".join(str(a.path) for a in annotators if a.id == twice[0])
        raise AnnotatorError(f"annotator id {twice[0]!r} is given by several files ({files}); each file is one "
                             "person — give each its own id")
    known = {q.question_id for q in gold}
    for a in annotators:
        foreign = sorted(set(a.texts) - known)
        if foreign:
            raise AnnotatorError(f"{a.path} answers {len(foreign)} questions this kit does not hold (e.g. "
                                 f"{foreign[0]!r}): answers of another kit? Score them against the kit they came from")


def _canonical_items(q: Question, items: Any) -> list[str]:
    amap = gold_of(q).amap
    return [amap.canonical(str(i)) or str(i).casefold().strip() for i in items]


def answer_key(q: Question, value: Any) -> str:
    """The canonical answer of an extracted ``value`` for ``q`` (:data:`NONE` for ``None``)."""
    if value is None:
        return NONE
    kind = q.answer_type
    if kind == "binary":
        return str(normalize_yes_no(value) or NONE)
    if kind == "count":
        return format(float(value), ".12g")
    if kind == "range":
        bounds = find_range(value)
        return json.dumps(list(bounds)) if bounds is not None else " ".join(str(value).casefold().split())
    if kind == "list":
        return json.dumps(sorted(set(_canonical_items(q, value))))
    if kind == "ranking":
        return json.dumps([sorted(set(_canonical_items(q, g))) for g in value])
    return _canonical_items(q, [value])[0]


def majority(keys: Sequence[str], annotators: int) -> str | None:
    """The answer more than half of ``annotators`` gave (never :data:`NONE`); ``None`` on a tie or no majority."""
    counts = Counter(k for k in keys if k != NONE)
    top = max(counts.values(), default=0)
    winners = [k for k, c in counts.items() if c == top]
    return winners[0] if len(winners) == 1 and top * 2 > annotators else None


@dataclass
class HumanResult:
    """Scores of every annotator and of the majority, per question (``items``), with agreement."""

    annotators: list[str]
    per_annotator: pd.DataFrame
    """One row per (annotator, question): ``annotator``, the report frame's columns, ``key``."""
    items: pd.DataFrame
    """One row per question: attributes, ``votes`` (annotator → canonical answer), ``majority``, ``agreement``,
    ``main`` (the majority's score, 0 without majority), ``prediction`` (a text that gives the majority)."""
    kappa: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Fleiss' kappa with its interval: ``all`` and per answer type."""


def _annotator_frame(annotator: Annotator, gold: Sequence[Question]) -> pd.DataFrame:
    frame = evaluate(gold, annotator.texts).frame
    frame.insert(0, "annotator", annotator.id)
    frame["key"] = [answer_key(q, value) for q, value in zip(gold, frame["extracted"], strict=True)]
    frame["text"] = [annotator.texts.get(q.question_id) for q in gold]
    return frame


def _item(q: Question, rows: pd.DataFrame, annotators: int) -> dict[str, Any]:
    """One question's votes, majority answer and its score."""
    votes = dict(zip(rows["annotator"], rows["key"], strict=True))
    winner = majority(list(votes.values()), annotators)
    givers = rows[rows["key"] == winner].sort_values("annotator") if winner is not None else rows.iloc[:0]
    return {"question_id": q.question_id, "map_id": q.map_id, "template_id": q.template_id,
            "mapwise_template": q.mapwise_template, "answer_type": q.answer_type, "map_type": q.map_type,
            "country": q.country, "hatched": q.hatched, "annotated": q.annotated,
            "counterfactual": counterfactual_group(q), "question": q.question, "answer": q.answer,
            "votes": votes, "majority": winner, "agreement": winner is not None,
            "main": float(givers["main"].iloc[0]) if len(givers) else 0.0,
            "prediction": givers["text"].iloc[0] if len(givers) else None}


def _kappas(items: pd.DataFrame, seed: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    groups = {"all": items, **{str(t): g for t, g in items.groupby("answer_type", sort=True)}}
    for name, group in groups.items():
        ratings = [[votes[a] for a in sorted(votes)] for votes in group["votes"]]
        out[name] = {"kappa": fleiss_kappa(ratings), "ci95": kappa_interval(ratings, seed, name), "n": len(ratings)}
    return out


def score_annotators(gold: Sequence[Question], annotators: Sequence[Annotator], seed: int = 0) -> HumanResult:
    """Score each annotator, form the majority per question and measure agreement (see the module doc)."""
    check_annotators(annotators, gold)
    ordered = sorted(annotators, key=lambda a: a.id)  # the result never depends on the order given
    per = pd.concat([_annotator_frame(a, gold) for a in ordered], ignore_index=True)
    by_question = dict(iter(per.groupby("question_id", sort=False)))
    items = pd.DataFrame([_item(q, by_question[q.question_id], len(ordered)) for q in gold])
    return HumanResult([a.id for a in ordered], per, items, _kappas(items, seed))
