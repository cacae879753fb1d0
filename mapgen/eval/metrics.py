"""Metrics: a registry of per-question scores plus ranking and grounding functions on plain values.

Registered metrics (``get_metric(name)(prediction, question) -> float`` in ``[0, 1]``) take the extracted
prediction (see :mod:`mapgen.eval.extract`; a raw string is also accepted and parsed) and a
:class:`~mapgen.questions.record.Question`. Names are compared after :func:`normalize_name` and through an
:class:`AliasMap` built from ``question.accepted_answers``, so a code and a full name both match.

Definitions (MAPWise §3.3 and Appendix C, DESIGN.md §6):

- ``binary_exact``, ``count_exact``: exact match (yes/no words normalised; counts compared as numbers).
- ``single_recall``: 1 if the prediction equals the answer or any of its aliases (or any answer when the
  answer is a list of acceptable answers); numeric labels also match by value (``800B`` = ``800 billion``).
- ``range_exact``: 1 if both bounds equal those of the answer label or of ``question.bounds`` (relative
  tolerance :data:`RANGE_REL_TOL`; open ends must both be open). ``range_score``: ``range_exact``, else 0.5 on a
  continuous map when the ranges overlap (:func:`ranges_overlap`), else 0. Discrete maps get no partial credit.
- ``list_precision``/``list_recall``/``list_f1``: over sets of canonical names. Empty gold and empty prediction
  → 1 for all three; empty prediction with non-empty gold → 0; non-empty prediction with empty gold →
  precision 0, recall 1, F1 0.
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

Grounding (VRSBench): :func:`iou` of ``(x1, y1, x2, y2)`` boxes and :func:`accuracy_at` (share of IoU
``>= threshold``, a missing box counting as a miss), :func:`grounding_summary` for Acc@0.5/Acc@0.7 split by
unique/non-unique referent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from scipy import stats

from mapgen.eval.extract import parse_binary, parse_count, parse_list, parse_ranking, split_items
from mapgen.eval.normalize import (
    AliasMap,
    Range,
    normalize_yes_no,
    parse_number,
    parse_range,
    ranges_equal,
    ranges_overlap,
)
from mapgen.questions.record import Question

MetricFn = Callable[[Any, Question], float]
Groups = list[list[str]]

_METRICS: dict[str, MetricFn] = {}

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


def register_metric(name: str) -> Callable[[MetricFn], MetricFn]:
    """Decorator registering ``fn(prediction, question) -> float`` under ``name``."""

    def wrap(fn: MetricFn) -> MetricFn:
        _METRICS[name] = fn
        return fn

    return wrap


def get_metric(name: str) -> MetricFn:
    """The metric registered as ``name`` (``KeyError`` listing the known names otherwise)."""
    try:
        return _METRICS[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known: {sorted(_METRICS)}") from None


def list_metrics() -> list[str]:
    """Names of all registered metrics."""
    return sorted(_METRICS)


# ---------------------------------------------------------------------------------------------- helpers


def _flatten(answer: Any) -> list[str]:
    if answer is None:
        return []
    if isinstance(answer, (list, tuple)):
        return [s for a in answer for s in _flatten(a)]
    return [str(answer)]


def alias_map(question: Question) -> AliasMap:
    """Alias map from ``question.accepted_answers`` plus every item of its answer."""
    return AliasMap.from_aliases(question.accepted_answers, _flatten(question.answer))


def vocabulary(question: Question) -> list[str]:
    """Every spelling of every answer item (to keep names containing ``and`` whole when splitting)."""
    names = _flatten(question.answer)
    for key, alts in (question.accepted_answers or {}).items():
        names.append(key)
        names.extend(alts or ())
    return names


def _as_groups(value: Any, question: Question | None = None) -> Groups:
    """Tie groups from groups, a flat list (one item per rank) or ranking text."""
    if value is None:
        return []
    if isinstance(value, str):
        parsed = parse_ranking(value, vocabulary(question) if question else ())
        return parsed.value if parsed.ok else []
    return [[str(i) for i in g] if isinstance(g, (list, tuple, set)) else [str(g)] for g in value]


def _as_items(value: Any, question: Question) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        parsed = parse_list(value, vocabulary(question))
        return parsed.value if parsed.ok else split_items(value, vocabulary(question))
    return _flatten(value)


def _canonical_groups(groups: Groups, amap: AliasMap) -> Groups:
    out: Groups = []
    for group in groups:
        keys: list[str] = []
        for item in group:
            key = amap.canonical(item)
            if key and key not in keys:
                keys.append(key)
        out.append(keys)
    return out


# ---------------------------------------------------------------------------------------------- exact


@register_metric("binary_exact")
def binary_exact(prediction: Any, question: Question) -> float:
    """1 if the yes/no prediction equals the answer."""
    pred = normalize_yes_no(prediction) if prediction is not None else None
    if pred is None and isinstance(prediction, str):
        pred = parse_binary(prediction).value
    gold = normalize_yes_no(question.answer)
    return float(pred is not None and pred == gold)


@register_metric("count_exact")
def count_exact(prediction: Any, question: Question) -> float:
    """1 if the predicted count equals the answer."""
    if isinstance(prediction, str):
        prediction = parse_count(prediction).value
    if prediction is None or isinstance(prediction, bool):
        return 0.0
    try:
        return float(math.isclose(float(prediction), float(question.answer)))
    except (TypeError, ValueError):
        return 0.0


@register_metric("single_recall")
def single_recall(prediction: Any, question: Question) -> float:
    """1 if the prediction matches the answer or any accepted alias (codes and full names)."""
    if prediction is None:
        return 0.0
    pred = ", ".join(_flatten(prediction))
    amap = alias_map(question)
    gold = _flatten(question.answer)
    if amap.canonical(pred) in amap.canonical_set(gold):
        return 1.0
    value = parse_number(pred)
    return float(value is not None and any(_same_number(value, g) for g in gold))


def _same_number(value: float, label: str) -> bool:
    gold = parse_number(label)
    return gold is not None and math.isclose(value, gold, rel_tol=1e-6, abs_tol=1e-12)


# ---------------------------------------------------------------------------------------------- range


def gold_ranges(question: Question) -> list[Range]:
    """Accepted ranges: the parsed answer label and ``question.bounds`` (when given)."""
    out: list[Range] = []
    label = parse_range(question.answer)
    if label is not None:
        out.append(label)
    if question.bounds is not None and len(question.bounds) == 2:
        lo, hi = question.bounds
        if lo is not None or hi is not None:
            out.append((None if lo is None else float(lo), None if hi is None else float(hi)))
    return out


def _as_range(prediction: Any) -> Range | None:
    if prediction is None:
        return None
    if isinstance(prediction, tuple) and len(prediction) == 2:
        return prediction
    return parse_range(prediction)


@register_metric("range_exact")
def range_exact(prediction: Any, question: Question) -> float:
    """1 if both bounds match the answer label or the true bounds."""
    pred = _as_range(prediction)
    return float(pred is not None and any(ranges_equal(pred, g) for g in gold_ranges(question)))


@register_metric("range_score")
def range_score(prediction: Any, question: Question) -> float:
    """1 for an exact range, 0.5 for an overlapping range on a continuous map, else 0."""
    if range_exact(prediction, question):
        return 1.0
    pred = _as_range(prediction)
    if pred is None or question.map_type != "continuous":
        return 0.0
    return 0.5 if any(ranges_overlap(pred, g) for g in gold_ranges(question)) else 0.0


# ---------------------------------------------------------------------------------------------- lists


def set_precision_recall(pred: Iterable[str], gold: Iterable[str]) -> tuple[float, float]:
    """Precision and recall of two sets (empty-set conventions in the module docstring)."""
    p, g = set(pred), set(gold)
    if not p and not g:
        return 1.0, 1.0
    if not p:
        return 0.0, 0.0
    if not g:
        return 0.0, 1.0
    hit = len(p & g)
    return hit / len(p), hit / len(g)


def f1(precision: float, recall: float) -> float:
    """Harmonic mean (0 when both are 0)."""
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def _list_pr(prediction: Any, question: Question) -> tuple[float, float]:
    amap = alias_map(question)
    pred = amap.canonical_set(_as_items(prediction, question))
    gold = amap.canonical_set(_flatten(question.answer))
    return set_precision_recall(pred, gold)


@register_metric("list_precision")
def list_precision(prediction: Any, question: Question) -> float:
    """Share of predicted items that are in the answer."""
    return 0.0 if prediction is None else _list_pr(prediction, question)[0]


@register_metric("list_recall")
def list_recall(prediction: Any, question: Question) -> float:
    """Share of answer items that were predicted."""
    return 0.0 if prediction is None else _list_pr(prediction, question)[1]


@register_metric("list_f1")
def list_f1(prediction: Any, question: Question) -> float:
    """F1 of list precision and recall."""
    return 0.0 if prediction is None else f1(*_list_pr(prediction, question))


# ---------------------------------------------------------------------------------------------- rankings


def _group_at(groups: Sequence[Sequence[str]], k: int) -> list[str]:
    return list(groups[k]) if k < len(groups) else []


def rank_wise_precision(pred: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> float:
    """MAPWise Rank-wise Precision: mean over gold ranks of the precision of the predicted group there."""
    if not gold:
        return float(not pred)
    scores = []
    for k, gold_group in enumerate(gold):
        p = set(_group_at(pred, k))
        scores.append(len(p & set(gold_group)) / len(p) if p else 0.0)
    return sum(scores) / len(scores)


def mean_reciprocal_rank(pred: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> float:
    """Mean over gold ranks of 1/position of the first correct item in the predicted group there."""
    if not gold:
        return float(not pred)
    scores = []
    for k, gold_group in enumerate(gold):
        g = set(gold_group)
        hits = [i for i, item in enumerate(_group_at(pred, k), start=1) if item in g]
        scores.append(1.0 / hits[0] if hits else 0.0)
    return sum(scores) / len(scores)


def _mean_precision_at_i(group: Sequence[str], gold_group: set[str]) -> float:
    if not group:
        return 0.0
    hits, total = 0, 0.0
    for i, item in enumerate(group, start=1):
        hits += item in gold_group
        total += hits / i
    return total / len(group)


def mean_average_precision(pred: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> float:
    """Mean over gold ranks of the mean precision@i of the predicted group there (paper's MAP)."""
    if not gold:
        return float(not pred)
    scores = [_mean_precision_at_i(_group_at(pred, k), set(g)) for k, g in enumerate(gold)]
    return sum(scores) / len(scores)


def rank_positions(
    pred: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]
) -> tuple[list[int], list[int]]:
    """Gold and predicted rank indices for every gold item (missing items after the last predicted group)."""
    gold_rank = {item: k for k, group in enumerate(gold) for item in group}
    pred_rank: dict[str, int] = {}
    for k, group in enumerate(pred):
        for item in group:
            pred_rank.setdefault(item, k)
    missing = len(pred)
    items = list(gold_rank)
    return [gold_rank[i] for i in items], [pred_rank.get(i, missing) for i in items]


def _correlation(pred: Sequence[Sequence[str]], gold: Sequence[Sequence[str]], fn: Callable) -> float:
    g, p = rank_positions(pred, gold)
    if not g or all(k == len(pred) for k in p):
        return 0.0
    if g == p or (len(set(g)) == 1 and len(set(p)) == 1):
        return 1.0
    if len(g) < 2 or len(set(g)) == 1 or len(set(p)) == 1:
        return 0.0
    value = float(fn(g, p)[0])
    return 0.0 if math.isnan(value) else value


def spearman(pred: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> float:
    """Spearman's rho over gold items, in [-1, 1] (ties: average ranks)."""
    return _correlation(pred, gold, stats.spearmanr)


def kendall(pred: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> float:
    """Kendall's tau-b over gold items, in [-1, 1]."""
    return _correlation(pred, gold, stats.kendalltau)


def _ranking_inputs(prediction: Any, question: Question) -> tuple[Groups, Groups]:
    amap = alias_map(question)
    pred = _canonical_groups(_as_groups(prediction, question), amap)
    gold = _canonical_groups(_as_groups(question.answer), amap)
    return pred, gold


@register_metric("ranking_rwp")
def ranking_rwp(prediction: Any, question: Question) -> float:
    """Rank-wise Precision."""
    return 0.0 if prediction is None else rank_wise_precision(*_ranking_inputs(prediction, question))


@register_metric("ranking_mrr")
def ranking_mrr(prediction: Any, question: Question) -> float:
    """Per-rank mean reciprocal rank."""
    return 0.0 if prediction is None else mean_reciprocal_rank(*_ranking_inputs(prediction, question))


@register_metric("ranking_map")
def ranking_map(prediction: Any, question: Question) -> float:
    """Per-rank mean precision (paper's MAP)."""
    return 0.0 if prediction is None else mean_average_precision(*_ranking_inputs(prediction, question))


@register_metric("ranking_spearman")
def ranking_spearman(prediction: Any, question: Question) -> float:
    """Spearman's rho rescaled to [0, 1]."""
    return 0.0 if prediction is None else (spearman(*_ranking_inputs(prediction, question)) + 1) / 2


@register_metric("ranking_kendall")
def ranking_kendall(prediction: Any, question: Question) -> float:
    """Kendall's tau-b rescaled to [0, 1]."""
    return 0.0 if prediction is None else (kendall(*_ranking_inputs(prediction, question)) + 1) / 2


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
