"""Positions: the north-/south-/east-/west-most region of a set or with a property, closest pairs of regions."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from mapgen.caches import ValueCache
from mapgen.questions.functions.neighbours import vs_all_neighbors, vs_at_least_neighbors
from mapgen.questions.functions.registry import register
from mapgen.questions.reading import INVALID, Invalid, Reading, _Invalid

#: "closest to each other": the best pair's centroid distance must beat the runner-up by this factor.
CLOSEST_PAIR_MARGIN = 0.9


def first_in_direction(ctx: Reading, regions: Iterable[str], direction: str, test: Callable[[str], bool | None]) -> str:
    """The furthest region in ``direction`` passing ``test``, as positioned and as drawn
    (:meth:`Scene.furthest <mapgen.scene.Scene.furthest>`), each region placed by the declared ``direction``
    reading in force (its centre, or its farthest point); INVALID when it is not clear."""
    seen: dict[str, bool | None] = {}

    def once(code: str) -> bool | None:  # the scene ranks twice (positions, then as drawn): test each region once
        if code not in seen:
            seen[code] = test(code)
        return seen[code]

    found = ctx.scene.furthest(regions, direction, once, point=ctx.meaning("direction"))
    if found is None:
        raise Invalid
    return found


@register("Regions Direction", "Region")
def extreme_direction(ctx: Reading, regions: Iterable[str], direction: str) -> str:
    """The north-/south-/east-/west-most region of a set (by the atlas position rule, with a margin)."""
    pool = list(regions)
    if len(pool) < 2:
        raise Invalid
    return first_in_direction(ctx, pool, direction, lambda c: True)



@register("Comparison Direction", "Region", relative=True)
def extreme_local(ctx: Reading, cmp: str, direction: str) -> str:
    """The north-/south-/... most region that is higher/lower/similar compared with all its neighbours."""
    return first_in_direction(ctx, ctx.scene.regions, direction, lambda c: vs_all_neighbors(ctx, c, cmp))


@register("Comparison Direction N", "Region", relative=True)
def extreme_local_count(ctx: Reading, cmp: str, direction: str, n: int) -> str:
    """The north-/south-/... most region that is higher/lower/similar compared with at least ``n`` of its
    neighbours (MAPWise's quantified template 20)."""
    if n < 1:
        raise Invalid
    return first_in_direction(
        ctx, ctx.scene.regions, direction, lambda c: vs_at_least_neighbors(ctx, c, cmp, int(n))
    )


@register("LegendClass Direction", "Region")
def extreme_in_range(ctx: Reading, idx: int, direction: str) -> str:
    """The north-/south-/... most region whose value is in a legend range."""
    return first_in_direction(ctx, ctx.scene.regions, direction, lambda c: ctx.in_range(c, idx))



@register("Regions", "Pair")
def closest_pair(ctx: Reading, regions: Iterable[str]) -> frozenset[str]:
    """The two regions whose centroids (projected CRS) are closest; must beat the runner-up by 10 %."""
    pool = sorted(regions)
    if len(pool) < 3:
        raise Invalid
    members = frozenset(pool)
    dists = []
    for d in _pair_distances(ctx):  # the nearest two pairs within the pool
        if d[1] in members and d[2] in members:
            dists.append(d)
            if len(dists) == 2:
                break
    if dists[0][0] > CLOSEST_PAIR_MARGIN * dists[1][0]:
        raise Invalid
    return frozenset(dists[0][1:])


#: Pair distances by the regions' centroids: one entry per atlas and page a build draws on.
_PAIR_DISTANCES: ValueCache[tuple[tuple[str, tuple[float, float]], ...], list[tuple[float, str, str]]] = ValueCache(
    "questions.pair_distances", maxsize=64)


def _pair_distances(ctx: Reading) -> list[tuple[float, str, str]]:
    """(centroid distance, a, b) for every pair of regions (a < b), nearest first (computed once per scene, and
    kept for every scene of the same regions and centroids)."""
    dists = ctx.fixed.get("pair_distances")
    if dists is None:
        cents = ctx.scene.centroids
        key = tuple((c, (float(cents[c][0]), float(cents[c][1]))) for c in sorted(ctx.scene.regions))
        dists = ctx.fixed["pair_distances"] = _PAIR_DISTANCES.get_or_make(key, lambda: _sorted_pairs(key))
    return dists


def _sorted_pairs(centroids: tuple[tuple[str, tuple[float, float]], ...]) -> list[tuple[float, str, str]]:
    """Every pair of ``(code, centroid)`` entries (in code order, a < b) with its distance, nearest first."""
    return sorted((math.dist(pa, pb), a, b) for i, (a, pa) in enumerate(centroids) for b, pb in centroids[i + 1:])


@register("Regions LegendClass", "Pair")
def closest_pair_in_range(ctx: Reading, regions: Iterable[str], idx: int) -> frozenset[str]:
    """:func:`closest_pair` of the members in a legend range (reads no region outside ``regions``); members whose
    membership is unreadable (continuous, within τ of a tick) must not change the answer whether they count or
    not — which ``closest_pair(in_range(...))`` cannot promise, as ``in_range`` rejects every unreadable member."""
    return _closest_pair_in(ctx, sorted(regions), idx)


def _closest_pair_in(ctx: Reading, pool: Iterable[str], idx: int) -> frozenset[str]:
    sure, maybe = [], []
    for c in pool:
        try:
            if ctx.in_range(c, idx):
                sure.append(c)
        except Invalid:
            maybe.append(c)
    best = closest_pair(ctx, sure)
    if maybe and (best is INVALID or closest_pair(ctx, sure + maybe) != best):
        raise Invalid
    if isinstance(best, _Invalid):  # the sentinel is a singleton: the same test as ``is INVALID``
        raise Invalid
    return best
