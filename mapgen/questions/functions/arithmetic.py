"""Generic arithmetic steps on values read off the map, and on counts.

A ``Value`` is an :class:`~mapgen.questions.reading.Estimate`: the interval a reader can be sure of (continuous:
the value ± r; discrete: the class as printed). Arithmetic keeps the interval, so a comparison at the end of a
chain (``exceeds(difference(value(X), value(Y)), N)``) is decided only when every reading agrees — the
tolerance rule holds for any composition without a step written for it. ``Int`` results (counts) are exact.
"""

from __future__ import annotations

from collections.abc import Iterable

from mapgen.questions.functions.registry import register
from mapgen.questions.reading import SIMILAR_TOLERANCES, Ctx, Estimate, Invalid, sign


@register("Region", "Value")
def value(ctx: Ctx, region: str) -> Estimate:
    """A region's value as read (INVALID when missing)."""
    return ctx.estimate(region)


@register("Number", "Value")
def number(ctx: Ctx, x: float) -> Estimate:
    """A number (a legend mark or N) as an exact Value."""
    return Estimate.exactly(x)


@register("Value Value", "Value")
def difference(ctx: Ctx, a: Estimate, b: Estimate) -> Estimate:
    """``a - b``."""
    return a.minus(b)


@register("Value Value", "Value")
def gap(ctx: Ctx, a: Estimate, b: Estimate) -> Estimate:
    """``|a - b|``, how far apart two values are."""
    return a.minus(b).magnitude()


@register("Value Value", "Value")
def ratio(ctx: Ctx, a: Estimate, b: Estimate) -> Estimate:
    """``a / b`` (INVALID when a reading of ``b`` could be 0)."""
    return a.divided_by(b)


@register("Regions", "Value")
def mean(ctx: Ctx, regions: Iterable[str]) -> Estimate:
    """The mean value of a set (at least 2 members, all with data)."""
    pool = sorted(regions)
    if len(pool) < 2:
        raise Invalid
    return Estimate.mean([ctx.estimate(c) for c in pool])


@register("Value Comparison Value", "Bool")
def value_compare(ctx: Ctx, a: Estimate, cmp: str, b: Estimate) -> bool:
    """Whether ``a`` is higher / lower / similar compared with ``b`` for every reading. ``similar`` = within
    SIMILAR_TOLERANCES τ, continuous maps only (discrete maps compare by class: use ``compare``)."""
    d = a.minus(b)
    if cmp == "similar":
        if ctx.discrete:
            raise Invalid
        bound, size = SIMILAR_TOLERANCES * ctx.tolerance, d.magnitude()
        if size.hi <= bound:
            return True
        if size.lo > bound:
            return False
        raise Invalid
    return d.above(0.0) if sign(cmp) > 0 else d.below(0.0)


@register("Value Side Number", "Bool")
def exceeds(ctx: Ctx, a: Estimate, cmp: str, n: float) -> bool:
    """Whether ``a`` is above (``above``/``higher``) or below (``below``/``lower``) the number ``n`` for every
    reading (a class as printed on a discrete map: a number inside it is not asked)."""
    return a.above(n) if sign(cmp) > 0 else a.below(n)


@register("Int Comparison Int", "Bool")
def count_compare(ctx: Ctx, a: int, cmp: str, b: int) -> bool:
    """Integer comparison: ``a`` higher / lower than ``b``; ``similar`` = equal."""
    s = sign(cmp)
    return a == b if s == 0 else (a > b if s > 0 else a < b)


@register("Int N", "Bool")
def at_least(ctx: Ctx, a: int, n: int) -> bool:
    """Whether a count is at least ``n``."""
    return int(a) >= int(n)
