"""Domain helpers: functions used in a parameter's ``from:``, returning candidate values in order (the engine
samples them; ``prefer_first`` favours the first, so helpers put likely yes-answers first)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from mapgen.questions.functions.common import known, sorted_levels
from mapgen.questions.functions.neighbours import vs_all_neighbors
from mapgen.questions.functions.registry import register
from mapgen.questions.reading import Reading


@register("", "Regions")
def readable_regions(ctx: Reading) -> list[str]:
    """Legible regions with a value (the default domain of Region parameters)."""
    return _readable_regions(ctx)


@register("Regions", "Regions")
def readable(ctx: Reading, regions: Iterable[str]) -> list[str]:
    """The legible, valued members of a set (sorted)."""
    return _readable(ctx, regions)


def _readable_regions(ctx: Reading) -> list[str]:
    """:func:`readable_regions` unregistered (never INVALID: what the other helpers here build on)."""
    return [c for c in ctx.scene.regions if c in ctx.legible and ctx.level[c] is not None]


def _readable(ctx: Reading, regions: Iterable[str]) -> list[str]:
    """:func:`readable` unregistered (never INVALID)."""
    return sorted(c for c in regions if c in ctx.legible and ctx.level[c] is not None)


@register("Regions Extreme", "Regions")
def by_level(ctx: Reading, regions: Iterable[str], extreme: str) -> list[str]:
    """Legible, valued regions sorted by level, the given extreme first (domain helper for yes-answers)."""
    return sorted_levels(ctx, _readable(ctx, regions), extreme)


@register("Region", "Regions")
def by_border_difference(ctx: Reading, region: str) -> list[str]:
    """Legible, valued neighbours of ``region``, the most different first (domain helper)."""
    x, level = ctx.level[region], known(ctx)
    pool = _readable(ctx, ctx.scene.regions[region].neighbors)
    return sorted(pool, key=lambda c: (-abs(level[c] - x), c)) if x is not None else pool


@register("", "Regions")
def regions_by_border_difference(ctx: Reading) -> list[str]:
    """Legible, valued regions with neighbours, the one on the largest border difference first."""
    best: dict[str, float] = {}
    for a in _readable_regions(ctx):
        la = known(ctx)[a]  # readable
        diffs = [abs(la - lb) for b in ctx.scene.regions[a].neighbors if (lb := ctx.level[b]) is not None]
        if diffs:
            best[a] = max(diffs)
    return sorted(best, key=lambda c: (-best[c], c))


@register("Comparison Direction", "Regions", relative=True)
def local_candidates(ctx: Reading, cmp: str, direction: str) -> list[str]:
    """Legible regions with neighbours, those higher/lower/similar to all neighbours first, in direction order."""
    pool = [c for c in _readable_regions(ctx) if ctx.scene.regions[c].neighbors]
    key = {c: (0 if vs_all_neighbors(ctx, c, cmp) else 1, -ctx.scene.direction_key(c, direction), c) for c in pool}
    return sorted(pool, key=key.__getitem__)


@register("", "Regions")
def with_neighbors(ctx: Reading) -> list[str]:
    """Legible, valued regions that have at least one neighbour."""
    return [c for c in _readable_regions(ctx) if ctx.scene.regions[c].neighbors]


@register("Number", "Numbers")
def numbers_above(ctx: Reading, number: float) -> list[float]:
    """Legend numbers larger than ``number``."""
    return [v for v, _ in ctx.thresholds if v > number]


@register("", "Numbers")
def numbers_to_compare(ctx: Reading) -> list[float]:
    """Numbers a region is read against: the legend's marks (class boundaries / ticks) and the roundest number
    inside each class as printed / each tick interval ("above 20%" inside a 19.7%-26.7% class), ascending."""
    scale = ctx.scene.legend.label_scale or 1.0
    spans = ctx.printed if ctx.discrete else [(lo * scale, hi * scale) for lo, hi in ctx.intervals]
    inner = [round_inside(lo, hi) for lo, hi in spans if lo is not None and hi is not None]
    out = {v: None for v, _ in ctx.thresholds}
    out.update({x / scale: None for x in inner if x is not None})
    return sorted(out)


def round_inside(lo: float, hi: float) -> float | None:
    """The roundest number strictly between ``lo`` and ``hi`` (steps 1, 2, 5 x 10^k from coarse to fine; among
    the multiples of the first step that fits, the one nearest the middle); None when ``lo >= hi``."""
    if not lo < hi:
        return None
    top = math.floor(math.log10(max(abs(lo), abs(hi)))) + 1
    for k in range(top, top - 12, -1):
        for unit in (5, 2, 1):
            step = unit * 10.0**k
            inside = [x for i in range(math.floor(lo / step), math.ceil(hi / step) + 1)
                      if lo < (x := float(f"{i * step:.12g}")) < hi]
            if inside:
                return min(inside, key=lambda x: (abs(x - (lo + hi) / 2), x))
    return None


@register("Regions", "Regions")
def by_outlyingness(ctx: Reading, regions: Iterable[str]) -> list[str]:
    """Legible, valued members, the one furthest from the others' median level first (domain helper)."""
    pool = _readable(ctx, regions)
    if len(pool) < 2:
        return pool
    level = known(ctx)
    lv = sorted(level[c] for c in pool)
    med = lv[len(lv) // 2]
    return sorted(pool, key=lambda c: (-abs(level[c] - med), c))


@register("Regions", "LegendClasses")
def ranges_by_share(ctx: Reading, regions: Iterable[str]) -> list[int]:
    """Legend ranges, the one holding most members first (domain helper for yes-answers)."""
    counts: Counter[int] = Counter()
    for c in regions:
        lv = ctx.level[c]
        if lv is None:
            continue
        if ctx.discrete:
            counts[int(lv)] += 1
        else:
            for i, (lo, hi) in enumerate(ctx.intervals):
                if lo <= ctx.value[c] <= hi:
                    counts[i] += 1
    return sorted(range(ctx.range_count), key=lambda i: (-counts[i], i))
