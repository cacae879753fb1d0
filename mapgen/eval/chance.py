"""The analytic chance level: each question's exact expected score under the random baseline.

The random baseline (:mod:`mapgen.eval.baselines`) draws uniformly from a question's answer space; its
expected score is computed here without sampling:

- choice spaces (binary, single, count, range): the mean score of every choice, each scored as the baseline
  would write it (``{"answer": ...}`` through answer reading and the metrics);
- rankings: the mean over every permutation of the named items (MAPWise's rankings name 2-3 items);
- lists (size ``k`` uniform in ``0..N``, then a uniform ``k``-subset of the ``N`` regions, ``g`` gold items of
  which ``h`` are on the map): given ``k ≥ 1`` the expected hits are ``k·h/N``, so precision is ``h/N``,
  recall ``k·h/(N·g)`` and F1 (``2·hits/(k+g)``) ``2·k·h/(N·(k+g))``; ``k = 0`` scores 1 on an empty gold
  list and 0 otherwise (the empty-answer rule of :func:`~mapgen.eval.metrics.set_precision_recall`).

:func:`chance_frame` gives a report frame whose metric columns hold these expectations, so report tables show
the chance level with the same grouping and aggregation as the model's scores.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import pandas as pd

from mapgen.eval.baselines import AnswerSpace, MapLookup, answer_space, facts_lookup
from mapgen.eval.metrics import MAIN_METRIC, METRICS_BY_TYPE, gold_of
from mapgen.eval.score import score
from mapgen.questions.record import Question, format_answer


def _mean_scores(q: Question, answers: Sequence[object]) -> dict[str, float]:
    names = METRICS_BY_TYPE[q.answer_type]
    if not answers:
        return dict.fromkeys(names, 0.0)
    totals = dict.fromkeys(names, 0.0)
    for answer in answers:
        for name, value in score(q, format_answer(answer, q.answer_type)).metrics.items():
            totals[name] += value
    return {name: total / len(answers) for name, total in totals.items()}


def _list_expectation(q: Question, space: AnswerSpace) -> dict[str, float]:
    gold = gold_of(q)
    n, g = len(space.items), len(gold.items)
    h = sum(gold.amap.canonical(item) in gold.items for item in space.items)
    empty = 1.0 if g == 0 else 0.0  # k = 0
    precision = [empty] + [h / n if g else 0.0] * n
    recall = [empty] + [k * h / (n * g) if g else 0.0 for k in range(1, n + 1)]
    f1 = [empty] + [2 * k * h / (n * (k + g)) if g else 0.0 for k in range(1, n + 1)]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    return {"list_precision": mean(precision), "list_recall": mean(recall), "list_f1": mean(f1)}


def expected_scores(q: Question, space: AnswerSpace) -> dict[str, float]:
    """Every metric of ``q``'s answer type, in expectation over the random baseline's draw from ``space``."""
    if space.kind == "subset":
        return _list_expectation(q, space)
    if space.kind == "permutation":
        perms = [[[i] for i in p] for p in itertools.permutations(space.items)]
        return _mean_scores(q, perms)
    return _mean_scores(q, list(space.items))


def chance_scores(questions: Sequence[Question], map_of: MapLookup) -> dict[str, dict[str, float]]:
    """``{question_id: {metric: expected score}}`` for every question."""
    facts = facts_lookup(map_of)
    return {q.question_id: expected_scores(q, answer_space(q, facts(q.map_id))) for q in questions}


def chance_frame(frame: pd.DataFrame, chances: Mapping[str, Mapping[str, float]]) -> pd.DataFrame:
    """``frame`` (a report frame) with every metric column and ``main`` replaced by the expected scores."""
    out = frame.copy()
    ids = list(out["question_id"])
    for names in METRICS_BY_TYPE.values():
        for name in names:
            if name in out:
                out[name] = [chances.get(i, {}).get(name, float("nan")) for i in ids]
    out["main"] = [chances.get(i, {}).get(MAIN_METRIC[t], 0.0) for i, t in zip(ids, out["answer_type"])]
    out["parse_ok"] = True
    out["unparsed"] = False
    out["missing"] = False
    return out
