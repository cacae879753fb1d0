"""Comparing values: two regions, a region and a number, means of two sets, outliers, closest values."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable

from mapgen.questions.functions.common import all_valued, known, valued
from mapgen.questions.functions.registry import register
from mapgen.questions.reading import INVALID, Invalid, Reading, _Invalid, sign

#: Outliers: discrete — at least 2 classes outside the others' class range (0 = not an outlier, 1 = INVALID);
#: continuous — outside the others' range by >= 4τ and by at least the others' spread (inside = not).
OUTLIER_CLASSES, OUTLIER_TOL_FACTOR = 2, 4.0
#: Mean comparison on discrete maps uses mean class index: higher/lower if |Δ| >= 0.5 class, similar if <= 0.25.
MEAN_CLASS_DIFF, MEAN_CLASS_SIMILAR = 0.5, 0.25
#: Tukey's fences (the declared ``outlier`` reading "1.5 IQR"): outside Q1 - k IQR or Q3 + k IQR.
TUKEY_K = 1.5
#: Declared readings these functions consult (``templates/readings.yaml``): the names of the alternatives.
IQR, MIDPOINTS, ONE_REGION = "1.5 IQR", "class midpoints", "one region"


@register("Region Comparison Region", "Bool")
def compare(ctx: Reading, a: str, cmp: str, b: str) -> bool | _Invalid:
    """Whether ``a`` is higher/lower/similar compared with ``b``."""
    r = ctx.relation(a, cmp, b)
    return INVALID if r is None else r


@register("Region LegendClass", "Bool")
def is_in_range(ctx: Reading, region: str, idx: int) -> bool:
    """Whether a region's value lies in a legend range (No for a missing value)."""
    return ctx.in_range(region, idx)



def _mean_relation(ctx: Reading, d: float, cmp: str, mids: float | None = None) -> bool | None:
    """higher / lower / similar on a difference of means (mean class index on discrete maps, or ``mids``: the
    difference of mean class midpoints in mean class widths, the declared reading "class midpoints")."""
    if ctx.discrete and mids is not None:
        d = mids
    if ctx.discrete:
        if cmp == "similar":
            return True if abs(d) <= MEAN_CLASS_SIMILAR else False if abs(d) >= MEAN_CLASS_DIFF else None
        want = sign(cmp)
        return True if want * d >= MEAN_CLASS_DIFF else False if want * d <= 0 else None
    if cmp == "similar":
        return ctx.similar_levels(d, 0.0)
    o = ctx.order_levels(d, 0.0)  # each mean moves by at most r: the difference by 2r
    return None if not o else o == sign(cmp)


@register("Regions Comparison Regions", "Bool")
def means_relation(ctx: Reading, a: Iterable[str], cmp: str, b: Iterable[str]) -> bool:
    """Whether the mean level of ``a`` is higher / lower / similar compared with that of ``b`` (mean class
    index on discrete maps: higher/lower by >= 0.5 class, similar within 0.25; continuous: as two values)."""
    pa, pb = all_valued(ctx, a), all_valued(ctx, b)
    if len(pa) < 2 or len(pb) < 2 or set(pa) == set(pb):
        raise Invalid
    level = known(ctx)
    # math.fsum: exact, so the mean does not depend on the order a set's members come in (hash seeds differ
    # between a build's worker processes: Dask's are started afresh)
    d = math.fsum(level[c] for c in pa) / len(pa) - math.fsum(level[c] for c in pb) / len(pb)
    mids = _midpoint_difference(ctx, pa, pb) if ctx.discrete and ctx.meaning("mean") == MIDPOINTS else None
    verdict = _mean_relation(ctx, d, cmp, mids)
    if verdict is None:
        raise Invalid
    return verdict


def _midpoint_difference(ctx: Reading, a: list[str], b: list[str]) -> float:
    """Mean class midpoint of ``a`` minus that of ``b``, in mean class widths (Invalid when a class is open)."""
    level = known(ctx)
    bounds = [ctx.range_bounds(int(level[c])) for c in (*a, *b)]
    if any(not (abs(lo) < float("inf") and abs(hi) < float("inf")) for lo, hi in bounds):
        raise Invalid
    widths = [hi - lo for lo, hi in (ctx.range_bounds(i) for i in range(ctx.range_count))]
    width = sum(widths) / len(widths)
    if width <= 0:
        raise Invalid
    mids = [(lo + hi) / 2 for lo, hi in bounds]
    return (math.fsum(mids[: len(a)]) / len(a) - math.fsum(mids[len(a):]) / len(b)) / width


def _tukey_outlier(ctx: Reading, x: float, others: list[float]) -> bool:
    """Whether ``x`` lies outside Tukey's fences of ``others`` and ``x`` (class indices on a discrete map, read
    exactly; on a continuous map every end may move by the reading tolerance: Invalid when that could tell)."""
    q1, _, q3 = statistics.quantiles([*others, x], n=4, method="inclusive")
    iqr = q3 - q1
    d = max(q1 - TUKEY_K * iqr - x, x - q3 - TUKEY_K * iqr)
    if ctx.discrete or ctx.exact:
        return d > 0
    slack = (2 + 2 * TUKEY_K) * ctx.tolerance  # x and each quartile move by <= r, the IQR by <= 2r
    if d > slack:
        return True
    if d < -slack:
        return False
    raise Invalid


@register("Region Regions", "Bool")
def is_outlier(ctx: Reading, region: str, regions: Iterable[str]) -> bool:
    """Outlier test of ``region`` against the other members (see module constants for the definition; Tukey's
    fences under the declared reading "1.5 IQR")."""
    rest = all_valued(ctx, set(regions) - {region})
    if len(rest) < 3 or ctx.lv(region) is None:
        raise Invalid
    level = known(ctx)
    lv = [level[c] for c in rest]
    if ctx.meaning("outlier") == IQR:
        return _tukey_outlier(ctx, level[region], lv)
    lo, hi, x = min(lv), max(lv), level[region]
    d = max(lo - x, x - hi, 0.0)
    if ctx.discrete:
        if d == 0:
            return False
        if d >= OUTLIER_CLASSES:
            return True
        raise Invalid
    slack, bound = 2 * ctx.tolerance, OUTLIER_TOL_FACTOR * ctx.tau  # d and the spread each move by <= 2r
    if d - slack >= bound and d - slack >= hi - lo + slack:
        return True
    if d + slack < bound or d + slack < hi - lo - slack:
        return False
    raise Invalid


@register("Regions Region Closeness", "Regions")
def closest_in_value(ctx: Reading, regions: Iterable[str], region: str, mode: str) -> frozenset[str]:
    """Members (other than ``region``) with the same/closest or most different value to ``region``.

    Discrete: ``same`` = same class (may be empty); ``most different`` = largest class distance (all tied).
    Continuous: the unique closest / furthest member, closer (further) than every other for every reading.
    """
    pool = [c for c in valued(ctx, regions) if c != region]
    x = ctx.lv(region)
    if x is None or len(pool) < 2:
        raise Invalid
    level = known(ctx)
    dist = {c: abs(level[c] - x) for c in pool}
    if ctx.discrete:
        if mode in ("same", "closest"):
            return frozenset(c for c in pool if dist[c] == 0)
        furthest = max(dist.values())
        if furthest == 0:
            raise Invalid
        tied = frozenset(c for c in pool if dist[c] == furthest)
        if len(tied) > 1 and ctx.meaning("superlative") == ONE_REGION:
            raise Invalid  # "the most different" read as one region: a tie leaves none
        return tied
    near = mode in ("same", "closest")
    ranked = sorted(pool, key=lambda c: dist[c], reverse=not near)
    best = ranked[0]
    for c in ranked[1:]:
        if not (_surely_closer(ctx, x, best, c) if near else _surely_closer(ctx, x, c, best)):
            raise Invalid
    return frozenset(ranked[:1])


def _surely_closer(ctx: Reading, x: float, a: str, b: str) -> bool:
    """Whether ``a``'s value is closer to ``x`` than ``b``'s for every reading of the three values."""
    level = known(ctx)
    da, db = level[a] - x, level[b] - x
    r2 = 2 * ctx.tolerance
    if da * db > 0 and min(abs(da), abs(db)) > r2:  # both on one side of x: only a and b's difference matters
        return abs(db) - abs(da) > r2
    return abs(db) - abs(da) > 2 * r2


@register("Region Number Number", "Number")
def closer_number(ctx: Reading, region: str, a: float, b: float) -> float:
    """Which of two numbers the region's value is closer to (for every reading: the distances differ by > 2r)."""
    x = ctx.lv(region)
    if x is None or a == b:
        raise Invalid
    da, db = abs(ctx.value[region] - a), abs(ctx.value[region] - b)
    if abs(da - db) <= 2 * ctx.tolerance or da == db:
        raise Invalid
    return a if da < db else b
