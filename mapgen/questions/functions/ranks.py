"""Ranks: extreme regions and classes, top n, rankings with visible ties, medians."""

from __future__ import annotations

from collections.abc import Iterable

from mapgen.questions.functions.common import all_valued, known, position, sorted_levels, valued
from mapgen.questions.functions.registry import register
from mapgen.questions.reading import Estimate, Invalid, Reading


def _strict(ctx: Reading, a: str, b: str) -> bool:
    """True when a is clearly ranked apart from b (not similar, not ambiguous)."""
    o = ctx.order(a, b)
    if o is None:
        raise Invalid
    return o != 0


@register("Regions Extreme", "Region")
def extreme_region(ctx: Reading, regions: Iterable[str], extreme: str) -> str:
    """The region with the highest / lowest / second highest / second lowest value (unique, else INVALID)."""
    ranked = sorted_levels(ctx, regions, extreme)
    k = position(extreme)
    if len(ranked) < max(2, k + 2):
        raise Invalid
    if k > 0 and not _strict(ctx, ranked[k - 1], ranked[k]):
        raise Invalid
    if not _strict(ctx, ranked[k], ranked[k + 1]):
        raise Invalid
    return ranked[k]


@register("Regions Extreme N", "Regions")
def top_n(ctx: Reading, regions: Iterable[str], extreme: str, n: int) -> frozenset[str]:
    """The ``n`` regions with the highest/lowest values (the n-th must be clearly apart from the next)."""
    ranked = sorted_levels(ctx, regions, extreme)
    if len(ranked) <= n or not _strict(ctx, ranked[n - 1], ranked[n]):
        raise Invalid
    return frozenset(ranked[:n])


@register("Regions Extreme", "LegendClass")
def extreme_class(ctx: Reading, regions: Iterable[str], extreme: str) -> int:
    """The highest / lowest / second ... legend class among the regions' classes (discrete maps)."""
    level = known(ctx)
    classes = sorted({int(level[c]) for c in valued(ctx, regions)}, reverse=extreme.endswith("highest"))
    k = position(extreme)
    if len(classes) < max(2, k + 1):
        raise Invalid
    return classes[k]


@register("Regions", "Ranking")
def ranking(ctx: Reading, regions: Iterable[str]) -> list[list[str]]:
    """Tie groups, highest first. Ties only where equality is visible: the same class on a discrete map; on a
    continuous map every two values must be told apart (INVALID otherwise, and when all are tied)."""
    ranked = sorted_levels(ctx, all_valued(ctx, regions), "highest")
    groups: list[list[str]] = []
    for c in ranked:
        o = ctx.order(groups[-1][0], c) if groups else 1
        if o is None or (o == 0 and not ctx.discrete):
            raise Invalid
        if o == 0:
            groups[-1].append(c)
        else:
            groups.append([c])
    if len(groups) < 2:  # everything tied: nothing to rank (a degenerate question)
        raise Invalid
    return groups


@register("Regions", "Value")
def median(ctx: Reading, regions: Iterable[str]) -> Estimate:
    """The median of a set (at least 3 members, all with data) as a Value: the middle member by level; for an even
    count the mean of the two middle ones, which on a discrete map must share a class (INVALID otherwise)."""
    pool = all_valued(ctx, regions)
    if len(pool) < 3:
        raise Invalid
    level = known(ctx)
    ranked = sorted(pool, key=lambda c: (level[c], c))
    n = len(ranked)
    if n % 2:
        return ctx.estimate(ranked[n // 2])
    a, b = ranked[n // 2 - 1], ranked[n // 2]
    if ctx.discrete and level[a] != level[b]:
        raise Invalid  # the median falls between two classes
    return Estimate.mean([ctx.estimate(a), ctx.estimate(b)])
