"""Building a Scene's :class:`~mapgen.questions.reading.Reading`: levels, ranges, groups and legend marks.

:func:`context` is cached per Scene. The reading tolerance r of a generation-time Reading is τ plus the safety
margin :data:`READING_MARGIN`; discrete maps have r = 0 (they are read as classes). On a log colour bar τ and r
are shares of the bar, taken in value units where they are widest (at its top end: ``Legend.value_tolerance``).
A region beyond a clipped end of the bar reads only as "at or beyond the end": the Reading counts it among the
unreadable regions, so no question names it and none whose answer would change with its value is asked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace

from mapgen.data.map_words import map_words
from mapgen.geo.languages import DEFAULT_LANGUAGE
from mapgen.legend import Legend, parse_label
from mapgen.legend.grammar import RANGE_WORD, reword_range
from mapgen.questions.reading import Ctx, number_style, number_text
from mapgen.scene import PERCEPTUAL_TOLERANCE, Scene

#: Safety margin added to the tolerance at generation, as a share of the span (a colour bar is read by the
#: pixel oracle to about 1 %), so an asked answer also survives an oracle reading.
READING_MARGIN = 0.01


_CTX_CACHE: dict[int, tuple[Scene, Ctx]] = {}


def context(scene: Scene) -> Ctx:
    """The (cached) :class:`Ctx` of a Scene."""
    hit = _CTX_CACHE.get(id(scene))
    if hit is not None and hit[0] is scene:
        return hit[1]
    ctx = _build_context(scene)
    if len(_CTX_CACHE) > 64:
        _CTX_CACHE.clear()
    _CTX_CACHE[id(scene)] = (scene, ctx)
    return ctx


def _build_context(scene: Scene) -> Ctx:
    legend = scene.legend
    discrete = scene.map_type == "discrete"
    value = {c: r.value for c, r in scene.regions.items()}
    if discrete:
        level = {c: (None if r.class_index is None else float(r.class_index)) for c, r in scene.regions.items()}
        intervals = [(c.lower, c.upper) for c in legend.classes]
        labels = [c.label for c in legend.classes]
        tol, reading, clipped = 0.0, 0.0, frozenset[str]()
    else:
        level = {c: (None if math.isnan(v) else v) for c, v in value.items()}
        ticks = list(legend.ticks)
        intervals = list(zip(ticks[:-1], ticks[1:]))
        labels = [_join(a, b, scene.language) for a, b in zip(legend.tick_labels[:-1], legend.tick_labels[1:])]
        tol, reading = _tolerances(legend)
        clipped = frozenset(c for c, v in value.items() if legend.clipped_end(v))
    groups, kinds, centres = _groups(scene)
    printed = [label_bounds(c.label) for c in legend.classes] if discrete else []
    ctx = Ctx(
        scene, discrete, level, value, frozenset(scene.legible()) - clipped, tol, groups, kinds, centres, intervals,
        labels, [], reading, printed=printed,
    )
    ctx.thresholds = _thresholds(ctx)
    ctx.sorted_neighbors = {c: tuple(sorted(r.neighbors)) for c, r in scene.regions.items()}
    ctx.borders = tuple((a, b) for a, nbrs in ctx.sorted_neighbors.items() for b in nbrs if a < b)
    return ctx


def _tolerances(legend: Legend) -> tuple[float, float]:
    """(τ, r) of a colour bar in value units (module docstring)."""
    if legend.scale == "log":
        return legend.value_tolerance(PERCEPTUAL_TOLERANCE), legend.value_tolerance(PERCEPTUAL_TOLERANCE + READING_MARGIN)
    tol = PERCEPTUAL_TOLERANCE * (legend.vmax - legend.vmin)
    return tol, tol * (1 + READING_MARGIN / PERCEPTUAL_TOLERANCE)


def with_borders_flipped(ctx: Ctx, pairs: Iterable[tuple[str, str]]) -> Ctx:
    """A copy of ``ctx`` where each pair borders when the map says it does not, and the reverse (the contested
    check): neighbours, ``bordering <region>`` groups and the list of borders follow; levels stay."""
    pairs = tuple(pairs)
    key = f"flipped {pairs}"
    facts = ctx.fixed.get(key)
    if facts is None:
        regions = dict(ctx.scene.regions)
        for a, b in pairs:
            for x, y in ((a, b), (b, a)):
                regions[x] = replace(regions[x], neighbors=regions[x].neighbors ^ {y})
        scene = replace(ctx.scene, regions=regions)
        groups, _, _ = _groups(scene)
        ordered = {c: tuple(sorted(r.neighbors)) for c, r in regions.items()}
        borders = tuple((a, b) for a, nbrs in ordered.items() for b in nbrs if a < b)
        facts = ctx.fixed[key] = (scene, groups, ordered, borders)
    scene, groups, ordered, borders = facts
    return replace(ctx, scene=scene, groups=groups, sorted_neighbors=ordered, borders=borders, reads=set(),
                   cache={}, changed_from=None)


def _join(lo: str, hi: str, language: str = DEFAULT_LANGUAGE) -> str:
    """The interval between two colour-bar ticks as a legend would print it, in the map's language."""
    label = f"{lo} {RANGE_WORD} {hi}" if lo.startswith("-") or hi.startswith("-") else f"{lo}-{hi}"
    return label if language == DEFAULT_LANGUAGE else reword_range(label, map_words(language).range_format)


def _groups(scene: Scene) -> tuple[dict[str, frozenset[str]], dict[str, str], dict[str, str]]:
    """Named groups (curated + foreign borders) and ``bordering <region>`` for every region, display names."""
    groups: dict[str, frozenset[str]] = {}
    kinds: dict[str, str] = {}
    centres: dict[str, str] = {}
    present = frozenset(scene.regions)
    for g in scene.groups.values():
        groups[g.name] = g.members & present
        kinds[g.name] = g.kind
    for code, r in scene.regions.items():
        name = f"bordering {r.name}"
        if name not in groups:
            groups[name] = frozenset(r.neighbors) & present
            kinds[name] = "region_border"
            centres[name] = code
    return groups, kinds, centres


def _thresholds(ctx: Ctx) -> list[tuple[float, str]]:
    """Numbers N questions compare against: class boundaries (discrete) or tick marks (continuous)."""
    legend = ctx.scene.legend
    scale = legend.label_scale or 1.0
    if not ctx.discrete:
        return [(t, lab) for t, lab in zip(legend.ticks, legend.tick_labels)]
    by_class: dict[int, list[float]] = {}
    for c, lv in ctx.level.items():
        if lv is not None:
            by_class.setdefault(int(lv), []).append(ctx.value[c])
    out = []
    for i in range(len(legend.classes) - 1):
        if i not in by_class or i + 1 not in by_class:
            continue
        hi, lo = max(by_class[i]) * scale, min(by_class[i + 1]) * scale
        n = _number_between(hi, lo, legend.classes[i].label, legend.classes[i + 1].label)
        if n is not None:
            out.append((n / scale, number_text(n, legend.percent, number_style(legend))))
    return out


def _number_between(hi: float, lo: float, label_i: str, label_j: str) -> float | None:
    """A round display number strictly between ``hi`` (max of class i) and ``lo`` (min of class i+1) that a
    reader can also place from the labels: at or above class i's printed upper end, at or below class i+1's
    printed lower end."""
    top_i, bottom_j = label_bounds(label_i)[1], label_bounds(label_j)[0]
    floor_, ceil_ = max(hi, top_i if top_i is not None else hi), min(lo, bottom_j if bottom_j is not None else lo)
    cands: list[float | None] = [bottom_j, top_i]
    span = ceil_ - floor_
    if lo - hi <= 0 or span < 0:
        return None
    mid = (floor_ + ceil_) / 2
    digits = math.floor(math.log10(span)) if span > 0 else math.floor(math.log10(max(abs(mid), 1e-12))) - 6
    cands += [round(mid, -d) for d in range(digits + 1, digits - 4, -1)]
    for c in cands:
        if c is not None and hi < c < lo and floor_ <= c <= ceil_:
            return float(c)
    return None



def label_bounds(label: str) -> tuple[float | None, float | None]:
    """The (lower, upper) numbers a legend label prints (None, None when it prints none)."""
    try:
        return parse_label(label)
    except ValueError:
        return None, None
