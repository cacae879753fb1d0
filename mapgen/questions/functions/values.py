"""Comparing values: two regions, a region and a number, means of two sets, outliers, closest values."""

from __future__ import annotations

from collections.abc import Iterable

from mapgen.questions.functions.common import all_valued, known, valued
from mapgen.questions.functions.registry import register
from mapgen.questions.reading import INVALID, Ctx, Invalid, _Invalid, sign

#: Outliers: discrete — at least 2 classes outside the others' class range (0 = not an outlier, 1 = INVALID);
#: continuous — outside the others' range by >= 4τ and by at least the others' spread (inside = not).
OUTLIER_CLASSES, OUTLIER_TOL_FACTOR = 2, 4.0
#: Mean comparison on discrete maps uses mean class index: higher/lower if |Δ| >= 0.5 class, similar if <= 0.25.
MEAN_CLASS_DIFF, MEAN_CLASS_SIMILAR = 0.5, 0.25


@register("Region Comparison Region", "Bool")
def compare(ctx: Ctx, a: str, cmp: str, b: str) -> bool | _Invalid:
    """Whether ``a`` is higher/lower/similar compared with ``b``."""
    r = ctx.relation(a, cmp, b)
    return INVALID if r is None else r


@register("Region LegendClass", "Bool")
def is_in_range(ctx: Ctx, region: str, idx: int) -> bool:
    """Whether a region's value lies in a legend range (No for a missing value)."""
    return ctx.in_range(region, idx)



def _mean_relation(ctx: Ctx, d: float, cmp: str) -> bool | None:
    """higher / lower / similar on a difference of means (mean class index on discrete maps)."""
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
def means_relation(ctx: Ctx, a: Iterable[str], cmp: str, b: Iterable[str]) -> bool:
    """Whether the mean level of ``a`` is higher / lower / similar compared with that of ``b`` (mean class
    index on discrete maps: higher/lower by >= 0.5 class, similar within 0.25; continuous: as two values)."""
    pa, pb = all_valued(ctx, a), all_valued(ctx, b)
    if len(pa) < 2 or len(pb) < 2 or set(pa) == set(pb):
        raise Invalid
    level = known(ctx)
    d = sum(level[c] for c in pa) / len(pa) - sum(level[c] for c in pb) / len(pb)
    verdict = _mean_relation(ctx, d, cmp)
    if verdict is None:
        raise Invalid
    return verdict


@register("Region Regions", "Bool")
def is_outlier(ctx: Ctx, region: str, regions: Iterable[str]) -> bool:
    """Outlier test of ``region`` against the other members (see module constants for the definition)."""
    rest = all_valued(ctx, set(regions) - {region})
    if len(rest) < 3 or ctx.lv(region) is None:
        raise Invalid
    level = known(ctx)
    lv = [level[c] for c in rest]
    lo, hi, x = min(lv), max(lv), level[region]
    d = max(lo - x, x - hi, 0.0)
    if ctx.discrete:
        if d == 0:
            return False
        if d >= OUTLIER_CLASSES:
            return True
        raise Invalid
    slack, bound = 2 * ctx.reading, OUTLIER_TOL_FACTOR * ctx.tol  # d and the spread each move by <= 2r
    if d - slack >= bound and d - slack >= hi - lo + slack:
        return True
    if d + slack < bound or d + slack < hi - lo - slack:
        return False
    raise Invalid


@register("Regions Region Closeness", "Regions")
def closest_in_value(ctx: Ctx, regions: Iterable[str], region: str, mode: str) -> frozenset[str]:
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
        return frozenset(c for c in pool if dist[c] == furthest)
    near = mode in ("same", "closest")
    ranked = sorted(pool, key=lambda c: dist[c], reverse=not near)
    best = ranked[0]
    for c in ranked[1:]:
        if not (_surely_closer(ctx, x, best, c) if near else _surely_closer(ctx, x, c, best)):
            raise Invalid
    return frozenset(ranked[:1])


def _surely_closer(ctx: Ctx, x: float, a: str, b: str) -> bool:
    """Whether ``a``'s value is closer to ``x`` than ``b``'s for every reading of the three values."""
    level = known(ctx)
    da, db = level[a] - x, level[b] - x
    r2 = 2 * ctx.reading
    if da * db > 0 and min(abs(da), abs(db)) > r2:  # both on one side of x: only a and b's difference matters
        return abs(db) - abs(da) > r2
    return abs(db) - abs(da) > 2 * r2


@register("Region Number Number", "Number")
def closer_number(ctx: Ctx, region: str, a: float, b: float) -> float:
    """Which of two numbers the region's value is closer to (for every reading: the distances differ by > 2r)."""
    x = ctx.lv(region)
    if x is None or a == b:
        raise Invalid
    da, db = abs(ctx.value[region] - a), abs(ctx.value[region] - b)
    if abs(da - db) <= 2 * ctx.reading or da == db:
        raise Invalid
    return a if da < db else b
