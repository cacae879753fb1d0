"""The border graph: the bordering pair with the largest difference, a region against its neighbours, regions
of one range bordering another."""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from mapgen.questions.functions.common import known
from mapgen.questions.functions.registry import register
from mapgen.questions.reading import Estimate, Invalid, Reading


def _border_diffs(ctx: Reading, borders: Iterable[tuple[str, str]]) -> list[tuple[float, str, str]]:
    """(|level difference|, a, b) of the given bordering pairs where both have data (reads nothing)."""
    level = ctx.level
    return [(abs(la - lb), a, b) for a, b in borders if (la := level[a]) is not None and (lb := level[b]) is not None]


def _top_border_diffs(ctx: Reading) -> list[tuple[float, str, str]]:
    """The two largest (difference, a, b) over all bordering pairs with data, largest first; reads every region.

    On a :meth:`Reading.copy_with` copy only the borders of the changed regions are recomputed: the top two of the
    copy are the top two of (the original's two largest among unchanged borders + the changed borders)."""
    ctx.reads.update(ctx.scene.regions)
    hit = ctx.cache.get("border_diffs")
    if hit is not None:
        return hit
    if ctx.changed_from is None:
        top = heapq.nlargest(2, _border_diffs(ctx, ctx.borders))  # = sorted(..., reverse=True)[:2]
    else:
        base, changed = ctx.changed_from
        full = base.cache.get("border_diffs_sorted")
        if full is None:
            full = base.cache["border_diffs_sorted"] = sorted(_border_diffs(base, base.borders), reverse=True)
        kept = []
        for d in full:
            if d[1] not in changed and d[2] not in changed:
                kept.append(d)
                if len(kept) == 2:
                    break
        touched = {(min(c, n), max(c, n)) for c in changed for n in ctx.sorted_neighbors[c]}
        top = heapq.nlargest(2, kept + _border_diffs(ctx, touched))
    ctx.cache["border_diffs"] = top
    return top


@register("Regions", "Bool", relative=True)
def is_max_border_pair(ctx: Reading, pair: Iterable[str]) -> bool:
    """Whether a pair of bordering regions (``regions(X, Y)``) is THE pair of bordering regions with the largest
    difference (class distance / value). Yes needs a unique maximum, No a smaller difference, for every reading
    (each difference moves by up to 2r, so the gap must exceed 4r). INVALID unless the set is two bordering
    regions."""
    members = sorted(pair)
    if len(members) != 2 or members[1] not in ctx.scene.regions[members[0]].neighbors:
        raise Invalid
    return _max_border_pair(ctx, *members)


def _max_border_pair(ctx: Reading, a: str, b: str) -> bool:
    """:func:`is_max_border_pair` for two regions known to border (reads ``a`` before ``b``)."""
    diffs = _top_border_diffs(ctx)
    if len(diffs) < 2 or ctx.lv(a) is None or ctx.lv(b) is None:
        raise Invalid
    level = known(ctx)
    mine = abs(level[a] - level[b])
    top, runner = diffs[0][0], diffs[1][0]
    gap = 4 * ctx.tolerance
    if frozenset(diffs[0][1:]) == frozenset((a, b)):
        if top - runner > gap:
            return True
        raise Invalid
    if top - mine > gap:
        return False
    raise Invalid


def vs_all_neighbors(ctx: Reading, code: str, cmp: str) -> bool | None:
    """True/False whether ``code`` is higher/lower/similar than every neighbour; None if unreadable."""
    nbrs = ctx.neighbours(code)
    if not nbrs or ctx.lv(code) is None:
        return False
    verdict: bool | None = True
    for n in nbrs:  # a fixed order: what the program reads before it stops must not vary by process
        r = ctx.relation(code, cmp, n)
        if r is None:
            verdict = None
        elif not r:
            return False
    return verdict


def vs_at_least_neighbors(ctx: Reading, code: str, cmp: str, n: int) -> bool | None:
    """True/False whether ``code`` is higher/lower/similar than at least ``n`` of its neighbours; None if a
    reading could say either. A neighbour without data is in no range: it never counts towards ``n``."""
    nbrs = ctx.neighbours(code)
    if len(nbrs) < n or ctx.lv(code) is None:
        return False
    sure = unsure = 0
    for nb in nbrs:  # every neighbour is read, in a fixed order
        if ctx.lv(nb) is None:
            continue
        r = ctx.relation(code, cmp, nb)
        if r is None:
            unsure += 1
        elif r:
            sure += 1
    if sure >= n:
        return True
    return False if sure + unsure < n else None


@register("Region Comparison", "Bool", relative=True)
def versus_all_neighbors(ctx: Reading, region: str, cmp: str) -> bool:
    """Whether ``region`` is higher/lower/similar compared with all its neighbours (it must have some)."""
    if not ctx.scene.regions[region].neighbors:
        raise Invalid
    v = vs_all_neighbors(ctx, region, cmp)
    if v is None:
        raise Invalid
    return v



def _bordering(ctx: Reading, pool: Iterable[str], relation: str, other_idx: int, n: int) -> list[str]:
    """The members of ``pool`` (in its order) that border ``at least n`` / ``only`` / ``no`` regions of range
    ``other_idx`` (regions without neighbours never qualify); every member is read."""
    found = []
    for c in pool:
        nbrs = ctx.scene.regions[c].neighbors
        if not nbrs:
            continue
        hits = sum(1 for b in nbrs if ctx.in_range(b, other_idx))
        ok = {"at least": hits >= n, "only": hits == len(nbrs), "none": hits == 0}[relation]
        if ok:
            found.append(c)
    return found


@register("Regions Relation LegendClass N", "Regions", relative=True)
def bordering_range(ctx: Reading, regions: Iterable[str], relation: str, other_idx: int, n: int) -> frozenset[str]:
    """Members that border ``at least n`` / ``only`` / ``no`` regions of range ``other_idx`` (members without
    neighbours never qualify; INVALID when a neighbour's range is unreadable)."""
    return frozenset(_bordering(ctx, sorted(regions), relation, other_idx, n))


@register("Region", "RegionGroup", relative=True)
def bordering(ctx: Reading, region: str) -> str:
    """The group ``bordering <region>`` of a region (INVALID when it has none: no neighbours)."""
    name = f"bordering {ctx.name(region)}"
    if ctx.group_kind.get(name) != "region_border" or not ctx.group(name):
        raise Invalid
    return name


@register("", "RegionGroups", relative=True)
def bordering_groups(ctx: Reading) -> list[str]:
    """Domain of a ``bordering``-only group parameter: every ``bordering <region>`` group of at least two
    members around a legible region, in the scene's order."""
    return [name for name, centre in ctx.group_centre.items()
            if ctx.is_legible(centre) and len(ctx.group(name)) >= 2]


@register("Region Comparison", "Int", relative=True)
def count_neighbours(ctx: Reading, region: str, cmp: str) -> int:
    """How many neighbours ``region`` is higher / lower / similar compared with (neighbours without data never
    count); INVALID when a reading could change the count, or the region is missing."""
    if ctx.lv(region) is None:
        raise Invalid
    return sum(1 for n in ctx.neighbours(region) if ctx.lv(n) is not None and ctx.compare(region, cmp, n))


@register("Region", "Value", relative=True)
def neighbour_mean(ctx: Reading, region: str) -> Estimate:
    """The mean value of a region's neighbours (at least one; all with data)."""
    nbrs = ctx.neighbours(region)
    if not nbrs:
        raise Invalid
    return Estimate.mean([ctx.estimate(n) for n in nbrs])
