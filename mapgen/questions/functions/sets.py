"""Sets of regions and logic: groups, neighbours, filters by range, number or region, counts, quantifiers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from mapgen.questions.functions.arithmetic import as_value
from mapgen.questions.functions.common import valued
from mapgen.questions.functions.registry import register
from mapgen.questions.reading import INVALID, Estimate, Invalid, Reading, _Invalid, sign

#: The declared ``majority`` reading (``templates/readings.yaml``) under which an exact half is a majority.
AT_LEAST_HALF = "at least half"


@register("RegionGroup", "Regions")
def members(ctx: Reading, group: str) -> frozenset[str]:
    """Members of a named region group (curated, ``bordering <country>`` or ``bordering <region>``)."""
    return ctx.group(group)


@register("Region", "Regions", relative=True)
def neighbors(ctx: Reading, region: str) -> frozenset[str]:
    """Regions sharing a land border with ``region``."""
    return ctx.scene.regions[region].neighbors


@register("", "Regions")
def all_regions(ctx: Reading) -> frozenset[str]:
    """Every region of the map."""
    return frozenset(ctx.scene.regions)


@register("Regions", "Regions")
def missing(ctx: Reading, regions: Iterable[str]) -> frozenset[str]:
    """The regions without a value (drawn in the legend's N/A colour)."""
    return frozenset(c for c in regions if ctx.lv(c) is None)


@register("Regions Region", "Regions")
def others(ctx: Reading, regions: frozenset[str], region: str) -> frozenset[str]:
    """``regions`` without ``region``."""
    return frozenset(regions) - {region}


@register("Set", "Int")
def count(ctx: Reading, items: Iterable[Any]) -> int:
    """Number of members of a set (regions, or legend classes as ``classes()`` and ``ranges_of(S)`` give)."""
    return len(list(items))


def _forced(ctx: Reading, key: Any, test: Callable[[str], bool | None]) -> bool:
    """True when no region of the map passes ``test`` (None or Invalid = unreadable, counts as passing): a
    member filter with it is empty by construction. Cached per scene under ``key``; records no reads."""
    key = ("forced", *key)
    hit = ctx.cache.get(key)
    if hit is not None:
        return hit
    reads, ctx.reads = ctx.reads, set()
    forced = True
    for c in ctx.scene.regions:
        if ctx.level[c] is None:
            continue
        try:
            ok = test(c)
        except Invalid:
            ok = None
        if ok is not False:
            forced = False
            break
    ctx.reads = reads
    ctx.cache[key] = forced
    return forced


@register("Regions LegendClass", "Regions")
def in_range(ctx: Reading, regions: Iterable[str], idx: int) -> frozenset[str]:
    """Regions whose value lies in a legend range (class, or tick interval on continuous maps); INVALID when
    no region of the map lies in it (an empty answer forced by the legend)."""
    if not ctx.exact and _forced(ctx, ("range", idx), lambda c: ctx.in_range(c, idx)):
        raise Invalid
    return frozenset(c for c in regions if ctx.in_range(c, idx))


@register("Regions Comparison Number", "Regions")
def filter_threshold(ctx: Reading, regions: Iterable[str], cmp: str, number: float) -> frozenset[str]:
    """Regions with a value higher/lower than a number (missing values never qualify); INVALID when no region
    of the map is on that side (forced)."""
    want = sign(cmp)
    if not ctx.exact and _forced(ctx, (cmp, number), lambda c: ctx.side(c, number) == want):
        raise Invalid
    return frozenset(c for c in valued(ctx, regions) if ctx.side(c, number) == want)


@register("Regions Comparison Region", "Regions")
def filter_compare(ctx: Reading, regions: Iterable[str], cmp: str, region: str) -> frozenset[str]:
    """Regions (other than ``region``) whose value is higher/lower/similar compared with ``region``; INVALID
    when ``region`` is the map's highest (lowest) and the question asks for higher (lower) ones (forced)."""
    if cmp != "similar" and not ctx.exact and _forced(
        ctx, (cmp, region), lambda c: False if c == region else ctx.relation(c, cmp, region)
    ):
        raise Invalid
    out = []
    for c in valued(ctx, regions):
        if c == region:
            continue
        r = ctx.relation(c, cmp, region)
        if r is None:
            raise Invalid
        if r:
            out.append(c)
    return frozenset(out)


@register("Regions Any", "Bool")
def contains(ctx: Reading, regions: Iterable[str], item: Any) -> bool:
    """Membership test."""
    return item in set(regions)


@register("Region Region...", "Regions")
def regions(ctx: Reading, *codes: str) -> frozenset[str]:
    """The set of the regions named (one or more): ``regions(X, Y)``, ``regions(X, Y, Z)``."""
    return frozenset(codes)


@register("Regions", "Bool")
def nonempty(ctx: Reading, regions: Iterable[str]) -> bool:
    """True if the set has a member."""
    return bool(list(regions))


@register("Any Any", "Bool")
def equals(ctx: Reading, a: Any, b: Any) -> bool:
    """Equality of two values (sets compare as sets)."""
    if isinstance(a, (set, frozenset, list, tuple)) and isinstance(b, (set, frozenset, list, tuple)):
        return set(a) == set(b)
    return a == b


@register("Bool Bool", "Bool")
def both(ctx: Reading, a: bool, b: bool) -> bool:
    """Logical and."""
    return bool(a) and bool(b)


@register("Regions Regions", "Bool")
def is_majority(ctx: Reading, subset: Iterable[str], regions: Iterable[str]) -> bool | _Invalid:
    """Majority: strictly more than half of ``regions`` (all must have values) are in ``subset`` (an exact half
    consults the declared reading ``majority``)."""
    pool = list(regions)
    if any(ctx.lv(c) is None for c in pool) or len(pool) < 3:
        return INVALID
    inside = 2 * len(set(subset) & set(pool))
    if inside == len(pool):  # an exact half: "more than half" says no, the declared reading "at least half" yes
        return ctx.meaning("majority") == AT_LEAST_HALF
    return inside > len(pool)


@register("Regions Regions", "Bool")
def all_of(ctx: Reading, subset: Iterable[str], regions: Iterable[str]) -> bool | _Invalid:
    """True when every region of ``regions`` (all must have values) is in ``subset``."""
    pool = list(regions)
    if any(ctx.lv(c) is None for c in pool) or len(pool) < 2:
        return INVALID
    return set(pool) <= set(subset)


@register("Region Region", "Pair")
def pair(ctx: Reading, a: str, b: str) -> frozenset[str]:
    """The unordered pair {a, b}."""
    return frozenset((a, b))


@register("Regions Regions", "Regions")
def union(ctx: Reading, a: Iterable[str], b: Iterable[str]) -> frozenset[str]:
    """Regions in ``a`` or ``b``."""
    return frozenset(a) | frozenset(b)


@register("Regions Regions", "Regions")
def intersection(ctx: Reading, a: Iterable[str], b: Iterable[str]) -> frozenset[str]:
    """Regions in both ``a`` and ``b``."""
    return frozenset(a) & frozenset(b)


@register("Regions Regions", "Regions")
def without(ctx: Reading, a: Iterable[str], b: Iterable[str]) -> frozenset[str]:
    """Regions in ``a`` but not in ``b``."""
    return frozenset(a) - frozenset(b)


@register("Regions Comparison LegendClass", "Regions")
def beyond_range(ctx: Reading, regions: Iterable[str], cmp: str, idx: int) -> frozenset[str]:
    """Members above (``higher``) or below (``lower``) legend range ``idx``: a higher / lower class, or on a
    continuous map clearly beyond the range's upper / lower tick (missing values never qualify)."""
    up = sign(cmp) > 0
    if ctx.discrete:
        levels = {c: ctx.lv(c) for c in regions}
        return frozenset(c for c, lv in levels.items() if lv is not None and (lv > idx if up else lv < idx))
    lo, hi = ctx.range_bounds(idx)
    return frozenset(c for c in valued(ctx, regions) if (ctx.side(c, hi) > 0 if up else ctx.side(c, lo) < 0))


@register("Regions Comparison Value", "Regions")
def filter_value(ctx: Reading, regions: Iterable[str], cmp: str, threshold: Estimate) -> frozenset[str]:
    """Members whose value is higher / lower than a Value (e.g. a group's mean) for every reading; INVALID
    when one member could be on either side (missing values never qualify)."""
    up, mark = sign(cmp) > 0, as_value(threshold)
    return frozenset(c for c in valued(ctx, regions) if ctx.estimate(c).minus(mark).above(0.0) == up)


@register("Regions", "Region")
def unique(ctx: Reading, regions: Iterable[str]) -> str:
    """The one member of a set (INVALID when it has none or several: the question asks for one region)."""
    pool = list(regions)
    if len(pool) != 1:
        raise Invalid
    return pool[0]


@register("Regions", "Regions")
def with_data(ctx: Reading, regions: Iterable[str]) -> frozenset[str]:
    """The set itself when it has at least two members, all with data (an aggregate over it needs every
    member's level); INVALID otherwise."""
    pool = sorted(regions)
    if len(pool) < 2 or any(ctx.lv(c) is None for c in pool):
        raise Invalid
    return frozenset(pool)
