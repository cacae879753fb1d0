"""Metrics: a registry of per-question scores plus ranking and grounding functions on plain values.

Registered metrics (``get_metric(name)(prediction, question) -> float`` in ``[0, 1]``), lmms-eval style: each
declares how per-question scores aggregate (``aggregation``: ``"mean"`` or a custom reducer) and its direction
(``higher_is_better``); reports aggregate through :func:`aggregate`. They take the extracted prediction (see :mod:`mapgen.eval.answers`; a raw string is also accepted and parsed) and a
:class:`~mapgen.questions.record.Question`. Names are compared after :func:`~mapgen.eval.normalize.normalize_answer_name` and through an
:class:`AliasMap` built from ``question.accepted_answers``, so a code and a full name both match.

Definitions (MAPWise §3.3 and Appendix C, ARCHITECTURE.md §6):

- ``binary_exact``, ``count_exact``: exact match (yes/no words normalised; counts compared as numbers).
- ``single_recall``: 1 if the prediction equals the answer or any of its aliases (or any answer when the
  answer is a list of acceptable answers); numeric labels also match by value (``800B`` = ``800 billion``).
- ``range_exact``: 1 if both bounds equal those of the answer label or of ``question.bounds`` (relative
  tolerance :data:`RANGE_REL_TOL`; open ends must both be open). ``range_score``: ``range_exact``, else 0.5 on a
  continuous map when the ranges overlap (:func:`ranges_overlap`), else 0. Discrete maps get no partial credit.
- ``list_precision``/``list_recall``/``list_f1``: over sets of canonical names. Empty gold and empty prediction
  → 1 for all three (a model that says "none" when there is none is right); empty prediction with non-empty
  gold → 0; non-empty prediction with empty gold → 0 for all three (naming any region when there is none is
  wrong, never free recall).
- Rankings are tie groups, best first; rank *k* is the *k*-th group (dense ranks, as the paper writes
  ``Rank 1: [...]``, ``Rank 2: [...]``). Per gold rank *k*, with ``G`` the gold group and ``P`` the predicted
  group at the same index (empty when the prediction has fewer groups):

  * ``ranking_rwp`` (Rank-wise Precision, Algorithm 1): ``|G ∩ P| / |P|`` (0 when ``P`` is empty), averaged over
    gold ranks. Order inside a group does not matter; predicted groups past the last gold rank are ignored;
    extra items lower the precision of the rank they sit in; a missing item costs only through the rank whose
    predicted group is then wrong or empty.
  * ``ranking_mrr``: ``1 / position`` of the first item of ``P`` (in the order the model listed it) that is in
    ``G``, 0 if none; averaged over gold ranks.
  * ``ranking_map``: the mean over ``i = 1..|P|`` of precision@i of ``P`` against ``G``, averaged over gold ranks.
    This is the variant that reproduces the paper's worked example (``[WA, OR]`` vs gold ``[WA]`` → 0.75,
    ``[OR, WA]`` → 0.25); it is not TREC average precision.
  * ``ranking_spearman``/``ranking_kendall``: correlation between gold and predicted rank positions over the
    gold items (ties keep shared ranks; scipy's average ranks and tau-b). Gold items missing from the
    prediction are placed together after the last predicted group; predicted items not in the gold are
    dropped. Identical rankings → 1; a constant side otherwise → 0. The registered metrics rescale the
    coefficient to ``(rho + 1) / 2``; :func:`spearman` and :func:`kendall` return the raw value in ``[-1, 1]``.

Functions on plain values take the truth first: :func:`rank_wise_precision` ``(truth, pred)`` (and
:func:`mean_reciprocal_rank`, :func:`mean_average_precision`, :func:`spearman`, :func:`kendall`) on rankings as
lists of tie groups (``[["CA"], ["WA", "OR"]]``, best first); :func:`range_score` ``(truth, pred,
continuous=False)`` on range labels as printed (``"1k-2k"``, ``">0.55"``); :func:`list_precision_recall`
``(truth, pred) -> (precision, recall)`` on lists of names. The registered ``range_score`` metric is
:func:`range_metric`. For speed, :func:`gold_of` compiles a question's answer once (alias map, canonical items,
ranges) and :func:`all_metrics` computes every metric of an answer type in one pass.

Grounding (VRSBench): :func:`iou` of ``(x1, y1, x2, y2)`` boxes and :func:`accuracy_at` (share of IoU
``>= threshold``, a missing box counting as a miss), :func:`grounding_summary` for Acc@0.5/Acc@0.7 split by
unique/non-unique referent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from mapgen.caches import ObjectCache
from mapgen.eval.answers import (
    has_separator,
    parse_binary,
    parse_count,
    parse_list,
    parse_ranking,
    split_items,
)
from mapgen.eval.normalize import (
    AliasMap,
    normalize_answer_name,
    normalize_yes_no,
    ranges_equal,
    ranges_overlap,
)
from mapgen.legend.grammar import Range, find_range, parse_number
from mapgen.questions.record import Question

MetricFn = Callable[[Any, Question], float]
Reducer = Callable[[Iterable[float]], float]
Groups = list[list[str]]
Ranking = Sequence[Sequence[str]]


def mean(values: Iterable[float]) -> float:
    """Mean of the scores that are present (NaN = the question has no such metric); NaN when none are."""
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=float)
    return float(series.mean())


AGGREGATIONS: dict[str, Reducer] = {"mean": mean}
"""Reducers a metric may name as its ``aggregation``."""


@dataclass(frozen=True)
class Metric:
    """A registered metric: per-question score function, how scores aggregate and which way is better."""

    name: str
    fn: MetricFn
    aggregation: Reducer = mean
    higher_is_better: bool = True


_METRICS: dict[str, Metric] = {}

METRICS_BY_TYPE: dict[str, tuple[str, ...]] = {
    "binary": ("binary_exact",),
    "count": ("count_exact",),
    "single": ("single_recall",),
    "range": ("range_score", "range_exact"),
    "list": ("list_f1", "list_precision", "list_recall"),
    "ranking": ("ranking_rwp", "ranking_mrr", "ranking_map", "ranking_spearman", "ranking_kendall"),
}
"""Metrics computed per answer type; the first one is the main score."""

MAIN_METRIC: dict[str, str] = {t: names[0] for t, names in METRICS_BY_TYPE.items()}


def register_metric(
    name: str, aggregation: str | Reducer = "mean", higher_is_better: bool = True
) -> Callable[[MetricFn], MetricFn]:
    """Decorator registering ``fn(prediction, question) -> float`` under ``name``.

    ``aggregation``: a name in :data:`AGGREGATIONS` or a reducer ``f(scores) -> float`` over the per-question
    scores (NaN marks a question without this metric).
    """
    reducer = AGGREGATIONS[aggregation] if isinstance(aggregation, str) else aggregation

    def wrap(fn: MetricFn) -> MetricFn:
        _METRICS[name] = Metric(name, fn, reducer, higher_is_better)
        return fn

    return wrap


def metric_info(name: str) -> Metric:
    """The registration of metric ``name`` (``KeyError`` listing the known names otherwise)."""
    try:
        return _METRICS[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known: {sorted(_METRICS)}") from None


def get_metric(name: str) -> MetricFn:
    """The score function of the metric registered as ``name``."""
    return metric_info(name).fn


def aggregate(name: str, scores: Iterable[float]) -> float:
    """Per-question ``scores`` of metric ``name`` reduced by its declared aggregation."""
    return metric_info(name).aggregation(scores)


def list_metrics() -> list[str]:
    """Names of all registered metrics."""
    return sorted(_METRICS)


# ---------------------------------------------------------------------------------------------- gold answers


def _flatten(answer: Any) -> list[str]:
    if answer is None:
        return []
    if isinstance(answer, str):
        return [answer]
    if isinstance(answer, (list, tuple)):
        if all(type(a) is str for a in answer):
            return list(answer)
        return [s for a in answer for s in _flatten(a)]
    return [str(answer)]


def alias_map(question: Question) -> AliasMap:
    """Alias map from ``question.accepted_answers`` plus every item of its answer."""
    return gold_of(question).amap


def vocabulary(question: Question) -> list[str]:
    """Every spelling of every answer item (to keep names containing ``and`` whole when splitting)."""
    return list(_vocabulary(question))


def _vocabulary(question: Question) -> tuple[str, ...]:
    names = _flatten(question.answer)
    for key, alts in (question.accepted_answers or {}).items():
        names.append(key)
        names.extend(alts or ())
    return tuple(dict.fromkeys(names))


def _canonical_groups(groups: Ranking, amap: AliasMap) -> Groups:
    out: Groups = []
    for group in groups:
        keys: list[str] = []
        for item in group:
            key = amap.canonical(item)
            if key and key not in keys:
                keys.append(key)
        out.append(keys)
    return out


def _as_group_list(value: Any) -> Groups:
    return [[str(i) for i in g] if isinstance(g, (list, tuple, set)) else [str(g)] for g in value]


@dataclass(slots=True)
class Gold:
    """A question's answer compiled once for scoring (only the fields its answer type needs are filled).

    ``vocabulary`` keeps only the accepted names that contain list separators (the ones answer reading must not
    split); ``items`` and ``groups`` hold canonical keys of the alias map.
    """

    answer_type: str
    amap: AliasMap = field(default_factory=AliasMap)
    vocabulary: tuple[str, ...] = ()
    items: frozenset[str] = frozenset()
    numbers: tuple[float, ...] = ()
    groups: Groups = field(default_factory=list)
    ranges: tuple[Range, ...] = ()
    yes_no: str | None = None
    count: float | None = None
    continuous: bool = False


def gold_ranges(question: Question) -> list[Range]:
    """Accepted ranges: the parsed answer label and ``question.bounds`` (when given)."""
    out: list[Range] = []
    label = find_range(question.answer)
    if label is not None:
        out.append(label)
    if question.bounds is not None and len(question.bounds) == 2:
        lo, hi = question.bounds
        if lo is not None or hi is not None:
            out.append((None if lo is None else float(lo), None if hi is None else float(hi)))
    return out


def _gold_count(answer: Any) -> float | None:
    if isinstance(answer, bool) or answer is None:
        return None
    try:
        return float(answer)
    except (TypeError, ValueError):
        return None


def compile_gold(question: Question) -> Gold:
    """Everything the metrics of the question's answer type need, computed once."""
    kind = question.answer_type
    if kind == "binary":
        return Gold(kind, yes_no=normalize_yes_no(question.answer))
    if kind == "count":
        return Gold(kind, count=_gold_count(question.answer))
    if kind == "range":
        return Gold(kind, ranges=tuple(gold_ranges(question)), continuous=question.map_type == "continuous")
    items = _flatten(question.answer)
    amap = AliasMap.from_aliases(question.accepted_answers, items)
    numbers = tuple(n for n in map(parse_number, items) if n is not None) if kind == "single" else ()
    groups = (
        _canonical_groups(_as_group_list(question.answer), amap)
        if kind == "ranking" and isinstance(question.answer, (list, tuple))
        else []
    )
    return Gold(
        kind,
        amap=amap,
        vocabulary=tuple(n for n in _vocabulary(question) if has_separator(n)),
        items=frozenset(amap.canonical_set(items)),
        numbers=numbers,
        groups=groups,
    )


_GOLD_CACHE: ObjectCache[Gold] = ObjectCache("eval.metrics.gold", maxsize=200_000)


def gold_of(question: Question) -> Gold:
    """The compiled gold of ``question``, cached per Question object (do not mutate a scored question)."""
    return _GOLD_CACHE.get_or_make(question, lambda: compile_gold(question))


# ---------------------------------------------------------------------------------------------- coercion


def _as_groups(value: Any, vocab: Iterable[str] = ()) -> Groups:
    """Tie groups from groups, a flat list (one item per rank) or ranking text."""
    if value is None:
        return []
    if isinstance(value, str):
        parsed = parse_ranking(value, vocab)
        return parsed.value if parsed.ok else []
    return _as_group_list(value)


def _as_items(value: Any, vocab: Sequence[str]) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        parsed = parse_list(value, vocab)
        return parsed.value if parsed.ok else split_items(value, vocab)
    return _flatten(value)


def _as_range(prediction: Any) -> Range | None:
    if prediction is None:
        return None
    if (
        isinstance(prediction, tuple)
        and len(prediction) == 2
        and all(v is None or isinstance(v, (int, float)) for v in prediction)
    ):
        return prediction
    return find_range(prediction)


# ---------------------------------------------------------------------------------------------- exact


def _binary(prediction: Any, gold: Gold) -> float:
    if prediction == gold.yes_no and prediction is not None:
        return 1.0
    pred = normalize_yes_no(prediction) if prediction is not None else None
    if pred is None and isinstance(prediction, str):
        pred = parse_binary(prediction).value
    return float(pred is not None and pred == gold.yes_no)


def _count(prediction: Any, gold: Gold) -> float:
    if isinstance(prediction, str):
        prediction = parse_count(prediction).value
    if prediction is None or isinstance(prediction, bool) or gold.count is None:
        return 0.0
    try:
        return float(math.isclose(float(prediction), gold.count))
    except (TypeError, ValueError):
        return 0.0


def _single(prediction: Any, gold: Gold) -> float:
    if prediction is None:
        return 0.0
    pred = prediction if isinstance(prediction, str) else ", ".join(_flatten(prediction))
    if gold.amap.canonical(pred) in gold.items:
        return 1.0
    if not gold.numbers:
        return 0.0
    value = parse_number(pred)
    return float(
        value is not None and any(math.isclose(value, g, rel_tol=1e-6, abs_tol=1e-12) for g in gold.numbers)
    )


@register_metric("binary_exact")
def binary_exact(prediction: Any, question: Question) -> float:
    """1 if the yes/no prediction equals the answer."""
    return _binary(prediction, gold_of(question))


@register_metric("count_exact")
def count_exact(prediction: Any, question: Question) -> float:
    """1 if the predicted count equals the answer."""
    return _count(prediction, gold_of(question))


@register_metric("single_recall")
def single_recall(prediction: Any, question: Question) -> float:
    """1 if the prediction matches the answer or any accepted alias (codes and full names)."""
    return _single(prediction, gold_of(question))


# ---------------------------------------------------------------------------------------------- range


def _range_credit(pred: Range | None, truths: Sequence[Range], continuous: bool) -> float:
    if pred is None or not truths:
        return 0.0
    if any(ranges_equal(pred, t) for t in truths):
        return 1.0
    return 0.5 if continuous and any(ranges_overlap(pred, t) for t in truths) else 0.0


def range_score(truth: Any, pred: Any, continuous: bool = False) -> float:
    """1 for the same range, 0.5 for an overlapping range when ``continuous``, else 0.

    ``truth`` and ``pred`` are range labels as printed (``"1k-2k"``, ``">0.55"``, ``"1 to 2 million"``) or
    ``(lower, upper)`` pairs; an unreadable prediction scores 0, an unreadable truth is a ``ValueError``.
    """
    gold = _as_range(truth)
    if gold is None:
        raise ValueError(f"truth {truth!r} is not a range")
    return _range_credit(_as_range(pred), (gold,), continuous)


@register_metric("range_exact")
def range_exact(prediction: Any, question: Question) -> float:
    """1 if both bounds match the answer label or the true bounds."""
    return float(_range_credit(_as_range(prediction), gold_of(question).ranges, False) == 1.0)


@register_metric("range_score")
def range_metric(prediction: Any, question: Question) -> float:
    """Registered ``range_score``: :func:`range_score` against the answer label or the true bounds."""
    gold = gold_of(question)
    return _range_credit(_as_range(prediction), gold.ranges, gold.continuous)


# ---------------------------------------------------------------------------------------------- lists


def set_precision_recall(truth: Iterable[str], pred: Iterable[str]) -> tuple[float, float]:
    """Precision and recall of two sets (empty-set conventions in the module docstring)."""
    g, p = set(truth), set(pred)
    if not p and not g:
        return 1.0, 1.0
    if not p or not g:
        return 0.0, 0.0
    hit = len(p & g)
    return hit / len(p), hit / len(g)


def list_precision_recall(
    truth: Iterable[str], pred: Iterable[str], aliases: Mapping[str, Iterable[str]] | None = None
) -> tuple[float, float]:
    """``(precision, recall)`` of predicted names against the true names.

    Names are compared after :func:`~mapgen.eval.normalize.normalize_answer_name` (and through ``aliases``,
    ``{name: [code, ...]}``, when given); duplicates count once.
    """
    truth = list(truth)
    amap = AliasMap.from_aliases(aliases, truth) if aliases else None
    key = amap.canonical if amap else normalize_answer_name
    return set_precision_recall({key(t) for t in truth} - {""}, {key(p) for p in pred} - {""})


def f1(precision: float, recall: float) -> float:
    """Harmonic mean (0 when both are 0)."""
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def _list_pr(prediction: Any, gold: Gold) -> tuple[float, float]:
    pred = gold.amap.canonical_set(_as_items(prediction, gold.vocabulary))
    return set_precision_recall(gold.items, pred)


@register_metric("list_precision")
def list_precision(prediction: Any, question: Question) -> float:
    """Share of predicted items that are in the answer."""
    return 0.0 if prediction is None else _list_pr(prediction, gold_of(question))[0]


@register_metric("list_recall")
def list_recall(prediction: Any, question: Question) -> float:
    """Share of answer items that were predicted."""
    return 0.0 if prediction is None else _list_pr(prediction, gold_of(question))[1]


@register_metric("list_f1")
def list_f1(prediction: Any, question: Question) -> float:
    """F1 of list precision and recall."""
    return 0.0 if prediction is None else f1(*_list_pr(prediction, gold_of(question)))


# ---------------------------------------------------------------------------------------------- rankings


def _group_at(groups: Ranking, k: int) -> Sequence[str]:
    return groups[k] if k < len(groups) else ()


def rank_wise_precision(truth: Ranking, pred: Ranking) -> float:
    """MAPWise Rank-wise Precision: mean over true ranks of the precision of the predicted group there.

    Rankings are lists of tie groups, best first (``[["CA"], ["WA", "OR"]]``).
    """
    if not truth:
        return float(not pred)
    total = 0.0
    for k, gold_group in enumerate(truth):
        p = set(_group_at(pred, k))
        if p:
            total += len(p.intersection(gold_group)) / len(p)
    return total / len(truth)


def mean_reciprocal_rank(truth: Ranking, pred: Ranking) -> float:
    """Mean over true ranks of 1/position of the first correct item in the predicted group there."""
    if not truth:
        return float(not pred)
    total = 0.0
    for k, gold_group in enumerate(truth):
        g = set(gold_group)
        for i, item in enumerate(_group_at(pred, k), start=1):
            if item in g:
                total += 1.0 / i
                break
    return total / len(truth)


def _mean_precision_at_i(group: Sequence[str], gold_group: set[str]) -> float:
    if not group:
        return 0.0
    hits, total = 0, 0.0
    for i, item in enumerate(group, start=1):
        hits += item in gold_group
        total += hits / i
    return total / len(group)


def mean_average_precision(truth: Ranking, pred: Ranking) -> float:
    """Mean over true ranks of the mean precision@i of the predicted group there (paper's MAP)."""
    if not truth:
        return float(not pred)
    scores = [_mean_precision_at_i(_group_at(pred, k), set(g)) for k, g in enumerate(truth)]
    return sum(scores) / len(scores)


def rank_positions(truth: Ranking, pred: Ranking) -> tuple[list[int], list[int]]:
    """True and predicted rank indices for every true item (missing items after the last predicted group)."""
    gold_rank = {item: k for k, group in enumerate(truth) for item in group}
    pred_rank: dict[str, int] = {}
    for k, group in enumerate(pred):
        for item in group:
            pred_rank.setdefault(item, k)
    missing = len(pred)
    return list(gold_rank.values()), [pred_rank.get(i, missing) for i in gold_rank]


def _average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks with ties sharing their average rank (scipy's ``rankdata(method="average")``)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho of two samples (average ranks for ties); NaN when a side is constant."""
    rx, ry = _average_ranks(x), _average_ranks(y)
    n = len(rx)
    mx, my = sum(rx) / n, sum(ry) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else math.nan


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b of two samples (scipy's default); NaN when a side is constant."""
    n = len(x)
    concordant = discordant = tie_x = tie_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tie_x += 1
            elif dy == 0:
                tie_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denom = math.sqrt((concordant + discordant + tie_x) * (concordant + discordant + tie_y))
    return (concordant - discordant) / denom if denom else math.nan


def _correlation(truth: Ranking, pred: Ranking, fn: Callable[[list[int], list[int]], float]) -> float:
    g, p = rank_positions(truth, pred)
    if not g or all(k == len(pred) for k in p):
        return 0.0
    if g == p or (len(set(g)) == 1 and len(set(p)) == 1):
        return 1.0
    if len(g) < 2 or len(set(g)) == 1 or len(set(p)) == 1:
        return 0.0
    value = fn(g, p)
    return 0.0 if math.isnan(value) else value


def spearman(truth: Ranking, pred: Ranking) -> float:
    """Spearman's rho over true items, in [-1, 1] (ties: average ranks)."""
    return _correlation(truth, pred, spearman_rho)


def kendall(truth: Ranking, pred: Ranking) -> float:
    """Kendall's tau-b over true items, in [-1, 1]."""
    return _correlation(truth, pred, kendall_tau_b)


def _pred_groups(prediction: Any, gold: Gold) -> Groups:
    return _canonical_groups(_as_groups(prediction, gold.vocabulary), gold.amap)


def _ranking_metric(fn: Callable[[Ranking, Ranking], float], rescale: bool = False) -> MetricFn:
    def metric(prediction: Any, question: Question) -> float:
        if prediction is None:
            return 0.0
        gold = gold_of(question)
        value = fn(gold.groups, _pred_groups(prediction, gold))
        return (value + 1) / 2 if rescale else value

    metric.__doc__ = f"Registered ranking metric on :func:`{fn.__name__}`" + (
        " rescaled to [0, 1]." if rescale else "."
    )
    return metric


ranking_rwp = register_metric("ranking_rwp")(_ranking_metric(rank_wise_precision))
ranking_mrr = register_metric("ranking_mrr")(_ranking_metric(mean_reciprocal_rank))
ranking_map = register_metric("ranking_map")(_ranking_metric(mean_average_precision))
ranking_spearman = register_metric("ranking_spearman")(_ranking_metric(spearman, rescale=True))
ranking_kendall = register_metric("ranking_kendall")(_ranking_metric(kendall, rescale=True))


# ---------------------------------------------------------------------------------------------- all at once


def _ranking_all(prediction: Any, gold: Gold) -> dict[str, float]:
    truth, pred = gold.groups, _pred_groups(prediction, gold)
    return {
        "ranking_rwp": rank_wise_precision(truth, pred),
        "ranking_mrr": mean_reciprocal_rank(truth, pred),
        "ranking_map": mean_average_precision(truth, pred),
        "ranking_spearman": (spearman(truth, pred) + 1) / 2,
        "ranking_kendall": (kendall(truth, pred) + 1) / 2,
    }


def _list_all(prediction: Any, gold: Gold) -> dict[str, float]:
    p, r = _list_pr(prediction, gold)
    return {"list_f1": f1(p, r), "list_precision": p, "list_recall": r}


def _range_all(prediction: Any, gold: Gold) -> dict[str, float]:
    value = _range_credit(_as_range(prediction), gold.ranges, gold.continuous)
    exact = value if value == 1.0 else _range_credit(_as_range(prediction), gold.ranges, False)
    return {"range_score": value, "range_exact": exact}


_ALL: dict[str, Callable[[Any, Gold], dict[str, float]]] = {
    "binary": lambda p, g: {"binary_exact": _binary(p, g)},
    "count": lambda p, g: {"count_exact": _count(p, g)},
    "single": lambda p, g: {"single_recall": _single(p, g)},
    "range": _range_all,
    "list": _list_all,
    "ranking": _ranking_all,
}


def all_metrics(prediction: Any, question: Question, gold: Gold | None = None) -> dict[str, float]:
    """Every metric of the question's answer type (:data:`METRICS_BY_TYPE`) in one pass; 0 for ``None``."""
    names = METRICS_BY_TYPE[question.answer_type]
    if prediction is None:
        return dict.fromkeys(names, 0.0)
    values = _ALL[question.answer_type](prediction, gold or gold_of(question))
    if len(values) != len(names) or any(name not in values for name in names):
        for name in names:  # metrics a user put into METRICS_BY_TYPE
            if name not in values:
                values[name] = get_metric(name)(prediction, question)
        values = {name: values[name] for name in names}
    return values


# ---------------------------------------------------------------------------------------------- grounding

Box = Sequence[float]


def iou(box_a: Box, box_b: Box, pixel_inclusive: bool = False) -> float:
    """Intersection over union of two ``(x1, y1, x2, y2)`` boxes.

    ``pixel_inclusive=True`` counts integer pixel boxes inclusively (+1 on each side), as VRSBench's script does.
    A degenerate box or an empty union gives 0.
    """
    pad = 1.0 if pixel_inclusive else 0.0
    ax1, ay1, ax2, ay2 = (float(v) for v in box_a)
    bx1, by1, bx2, by2 = (float(v) for v in box_b)
    area_a = max(0.0, ax2 - ax1 + pad) * max(0.0, ay2 - ay1 + pad)
    area_b = max(0.0, bx2 - bx1 + pad) * max(0.0, by2 - by1 + pad)
    inter = max(0.0, min(ax2, bx2) - max(ax1, bx1) + pad) * max(0.0, min(ay2, by2) - max(ay1, by1) + pad)
    union = area_a + area_b - inter
    return inter / union if union > 0 and area_a > 0 and area_b > 0 else 0.0


def accuracy_at(ious: Iterable[float | None], threshold: float = 0.5) -> float:
    """Share of IoUs ``>= threshold`` (``None`` = no parsable box = miss); NaN for no items."""
    values = list(ious)
    if not values:
        return math.nan
    return sum(v is not None and v >= threshold for v in values) / len(values)


def grounding_summary(
    ious: Sequence[float | None],
    unique: Sequence[bool] | None = None,
    thresholds: Sequence[float] = (0.5, 0.7),
) -> dict[str, float]:
    """``acc@τ`` and ``mean_iou`` overall, plus ``unique/…`` and ``non_unique/…`` when ``unique`` is given."""
    splits: dict[str, list[float | None]] = {"": list(ious)}
    if unique is not None:
        splits["unique/"] = [v for v, u in zip(ious, unique, strict=True) if u]
        splits["non_unique/"] = [v for v, u in zip(ious, unique, strict=True) if not u]
    out: dict[str, float] = {}
    for prefix, values in splits.items():
        for t in thresholds:
            out[f"{prefix}acc@{t}"] = accuracy_at(values, t)
        out[f"{prefix}mean_iou"] = (sum(v or 0.0 for v in values) / len(values)) if values else math.nan
        out[f"{prefix}n"] = float(len(values))
    return out
