"""Generic arithmetic steps on values read off the map, and on counts.

A ``Value`` is an :class:`~mapgen.questions.reading.Estimate`: the interval a reader can be sure of (continuous:
the value ± r; discrete: the class as printed). Arithmetic keeps the interval, so a comparison at the end of a
chain (``exceeds(difference(value(X), value(Y)), N)``) is decided only when every reading agrees — the
tolerance rule holds for any composition without a step written for it. A number (a ``Number`` parameter or
literal) may stand wherever a Value is expected: it is a value known exactly (:func:`as_value`). ``Int`` results
(counts) are exact.
"""

from __future__ import annotations

from collections.abc import Iterable

from mapgen.questions.functions.registry import register
from mapgen.questions.reading import SIMILAR_TOLERANCES, Estimate, Invalid, Reading, sign


def as_value(x: Estimate | float) -> Estimate:
    """A Value argument as an Estimate: a number given where a Value is expected is known exactly."""
    return x if isinstance(x, Estimate) else Estimate.exactly(float(x))


@register("Region", "Value")
def value(ctx: Reading, region: str) -> Estimate:
    """A region's value as read (INVALID when missing)."""
    return ctx.estimate(region)


@register("Number", "Value")
def number(ctx: Reading, x: float) -> Estimate:
    """A number (a legend mark or N) as an exact Value."""
    return Estimate.exactly(x)


@register("Value Value", "Value")
def difference(ctx: Reading, a: Estimate, b: Estimate) -> Estimate:
    """``a - b``."""
    return as_value(a).minus(as_value(b))


@register("Value Value", "Value")
def gap(ctx: Reading, a: Estimate, b: Estimate) -> Estimate:
    """``|a - b|``, how far apart two values are."""
    return as_value(a).minus(as_value(b)).magnitude()


@register("Value Value", "Value")
def ratio(ctx: Reading, a: Estimate, b: Estimate) -> Estimate:
    """``a / b`` (INVALID when a reading of ``b`` could be 0)."""
    return as_value(a).divided_by(as_value(b))


@register("Regions", "Value")
def mean(ctx: Reading, regions: Iterable[str]) -> Estimate:
    """The mean value of a set (at least 2 members, all with data)."""
    pool = sorted(regions)
    if len(pool) < 2:
        raise Invalid
    return Estimate.mean([ctx.estimate(c) for c in pool])


@register("Value Comparison Value", "Bool")
def value_compare(ctx: Reading, a: Estimate, cmp: str, b: Estimate) -> bool:
    """Whether ``a`` is higher / lower (``above`` / ``below``) / similar compared with ``b`` for every reading.

    On a discrete map two class readings (a region's value, the median of one class) are ordered by their classes
    (in one class neither is higher: INVALID); against a value known exactly (a number) ``a`` is read against it
    as a mark, as :func:`exceeds` reads it; otherwise by the difference of the intervals. ``similar`` = within
    SIMILAR_TOLERANCES τ, continuous maps only (discrete maps compare regions by class: use ``compare``)."""
    a, b = as_value(a), as_value(b)
    if cmp == "similar":
        return _similar(ctx, a.minus(b))
    up = sign(cmp) > 0
    if ctx.discrete and a.range_index is not None and b.range_index is not None:
        if a.range_index == b.range_index:
            raise Invalid
        return (a.range_index > b.range_index) == up
    if b.lo == b.hi:
        return a.above(b.value) if up else a.below(b.value)
    d = a.minus(b)
    return d.above(0.0) if up else d.below(0.0)


def _similar(ctx: Reading, d: Estimate) -> bool:
    """Whether a difference is within SIMILAR_TOLERANCES τ for every reading (continuous maps only)."""
    if ctx.discrete:
        raise Invalid
    bound, size = SIMILAR_TOLERANCES * ctx.tau, d.magnitude()
    if size.hi <= bound:
        return True
    if size.lo > bound:
        return False
    raise Invalid


@register("Value Side Number", "Bool")
def exceeds(ctx: Reading, a: Estimate, cmp: str, n: float) -> bool:
    """Whether ``a`` is above (``above``/``higher``) or below (``below``/``lower``) the number ``n`` for every
    reading (a class as printed on a discrete map: a number inside it is not asked)."""
    x = as_value(a)
    return x.above(n) if sign(cmp) > 0 else x.below(n)


@register("Int Comparison Int", "Bool")
def count_compare(ctx: Reading, a: int, cmp: str, b: int) -> bool:
    """Integer comparison: ``a`` higher / lower than ``b``; ``similar`` = equal."""
    s = sign(cmp)
    return a == b if s == 0 else (a > b if s > 0 else a < b)


@register("Int N", "Bool")
def at_least(ctx: Reading, a: int, n: int) -> bool:
    """Whether a count is at least ``n``."""
    return int(a) >= int(n)
