"""Building a Scene's :class:`~mapgen.questions.reading.Reading`: levels, ranges, groups and legend marks.

:func:`reading` is cached per Scene. The reading tolerance r of a generation-time Reading is τ plus the safety
margin :data:`READING_MARGIN`; discrete maps have r = 0 (they are read as classes). On a log colour bar τ and r
are shares of the bar, taken in value units where they are widest (at its top end: ``Legend.value_tolerance``).
A region beyond a clipped end of the bar reads only as "at or beyond the end": the Reading counts it among the
unreadable regions, so no question names it and none whose answer would change with its value is asked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from mapgen.caches import ObjectCache
from mapgen.data.map_words import map_words
from mapgen.geo.languages import DEFAULT_LANGUAGE
from mapgen.legend import Legend, parse_label, printed_numbers
from mapgen.legend.grammar import join_range, reword_range
from mapgen.questions.reading import Reading, number_style, number_text
from mapgen.questions.readings import group_alternatives
from mapgen.scene import PERCEPTUAL_TOLERANCE, RegionFacts, Scene

#: Safety margin added to the tolerance at generation, as a share of the span (a colour bar is read by the
#: pixel oracle to about 1 %), so an asked answer also survives an oracle reading.
READING_MARGIN = 0.01

V = TypeVar("V")


_READINGS: ObjectCache[Reading] = ObjectCache("questions.scene_facts.reading", maxsize=64)


def reading(scene: Scene) -> Reading:
    """The (cached) :class:`Reading` of a Scene."""
    return _READINGS.get_or_make(scene, lambda: _build_reading(scene))


def _build_reading(scene: Scene) -> Reading:
    legend = scene.legend
    discrete = scene.map_type == "discrete"
    value = {c: r.value for c, r in scene.regions.items()}
    if discrete:
        level = {c: (None if r.class_index is None else float(r.class_index)) for c, r in scene.regions.items()}
        intervals = [(c.lower, c.upper) for c in legend.classes]
        labels = [c.label for c in legend.classes]
        tau, tolerance, clipped = 0.0, 0.0, frozenset[str]()
    else:
        level = {c: (None if math.isnan(v) else v) for c, v in value.items()}
        ticks = list(legend.ticks)
        intervals = list(zip(ticks[:-1], ticks[1:]))
        labels = [printed_range(scene, a, b) for a, b in zip(legend.tick_labels[:-1], legend.tick_labels[1:])]
        tau, tolerance = _tolerances(legend)
        clipped = frozenset(c for c, v in value.items() if legend.clipped_end(v))
    groups, kinds, centres = _groups(scene)
    printed = [label_bounds(c.label) for c in legend.classes] if discrete else []
    ctx = Reading(
        scene, discrete, level, value, frozenset(scene.legible()) - clipped, tau, groups, kinds, centres, intervals,
        labels, [], tolerance, printed=printed,
    )
    ctx.thresholds = _thresholds(ctx)
    ctx.group_readings = {name: alts for name, alts in group_alternatives(scene.country, scene.groups).items()
                          if name in groups}
    ctx.sorted_neighbors = {c: tuple(sorted(r.neighbors)) for c, r in scene.regions.items()}
    ctx.borders = tuple((a, b) for a, nbrs in ctx.sorted_neighbors.items() for b in nbrs if a < b)
    return ctx


def _tolerances(legend: Legend) -> tuple[float, float]:
    """(τ, r) of a colour bar in value units (module docstring)."""
    if legend.scale == "log":
        return legend.value_tolerance(PERCEPTUAL_TOLERANCE), legend.value_tolerance(PERCEPTUAL_TOLERANCE + READING_MARGIN)
    tol = PERCEPTUAL_TOLERANCE * (legend.vmax - legend.vmin)
    return tol, tol * (1 + READING_MARGIN / PERCEPTUAL_TOLERANCE)


#: The border fact "the list of every border" (:attr:`Reading.borders`), beside the neighbour facts of a region,
#: named by its code (its neighbours, :meth:`Reading.neighbours` and its ``bordering <region>`` group).
ALL_BORDERS = "*borders"


class BorderWatch:
    """The border facts a run on a flipped Reading read (:func:`flip_borders`), among those a flip of any
    contested pair of the map changes: a region code (its neighbours) or :data:`ALL_BORDERS`. ``changed`` are
    the facts this flip changes (:func:`flipped_facts`)."""

    __slots__ = ("changed", "read")

    def __init__(self, changed: frozenset[str]) -> None:
        self.changed = changed
        self.read: set[str] = set()


class _WatchedRegion(RegionFacts):
    """A region whose ``neighbors`` records the read in its :class:`BorderWatch` (built by :func:`_watched`)."""

    @property
    def neighbors(self) -> frozenset[str]:
        facts = self.__dict__
        facts["_watch"].read.add(facts["code"])
        return facts["neighbors"]


def _watched(region: RegionFacts, neighbors: frozenset[str], watch: BorderWatch) -> RegionFacts:
    """A copy of ``region`` with ``neighbors`` whose reads ``watch`` records (no dataclass re-validation)."""
    out = object.__new__(_WatchedRegion)
    out.__dict__.update(region.__dict__, neighbors=neighbors, _watch=watch)
    return out


class _WatchedMap(Mapping[str, V]):
    """A read-only view of a dict recording in a :class:`BorderWatch` each read of a watched key's value
    (``facts``: key -> the border fact it is). Membership and iteration read no fact (flips keep the keys)."""

    __slots__ = ("_data", "_facts", "_watch")

    def __init__(self, data: Mapping[str, V], facts: Mapping[str, str], watch: BorderWatch) -> None:
        self._data, self._facts, self._watch = data, facts, watch

    def __getitem__(self, key: str) -> V:
        fact = self._facts.get(key)
        if fact is not None:
            self._watch.read.add(fact)
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]`` (the read recorded) or ``default`` (no exception raised and caught: the hot path)."""
        return self[key] if key in self._data else default

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class _WatchedBorders(Sequence[tuple[str, str]]):
    """The list of every border, recording :data:`ALL_BORDERS` in a :class:`BorderWatch` when read at all."""

    __slots__ = ("_data", "_watch")

    def __init__(self, data: tuple[tuple[str, str], ...], watch: BorderWatch) -> None:
        self._data, self._watch = data, watch

    def __getitem__(self, i: Any) -> Any:
        self._watch.read.add(ALL_BORDERS)
        return self._data[i]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        self._watch.read.add(ALL_BORDERS)
        return iter(self._data)

    def __len__(self) -> int:
        self._watch.read.add(ALL_BORDERS)
        return len(self._data)


def flipped_facts(pairs: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The border facts that counting ``pairs`` the other way changes: their regions' neighbours (groups
    ``bordering <region>`` included) and the list of every border."""
    return frozenset(c for pair in pairs for c in pair) | {ALL_BORDERS}


def with_borders_flipped(ctx: Reading, pairs: Iterable[tuple[str, str]]) -> Reading:
    """A copy of ``ctx`` where each pair borders when the map says it does not, and the reverse (the contested
    check): neighbours, ``bordering <region>`` groups and the list of borders follow; levels stay."""
    return flip_borders(ctx, pairs)[0]


def watch_borders(ctx: Reading) -> tuple[Reading, BorderWatch]:
    """A copy of ``ctx`` with the map's own borders whose :class:`BorderWatch` records the border facts a run on
    it reads (:func:`flip_borders` with no pair flipped): what the contested check needs to know of the run that
    gave the answer."""
    return flip_borders(ctx, ())


def flip_borders(ctx: Reading, pairs: Iterable[tuple[str, str]]) -> tuple[Reading, BorderWatch]:
    """:func:`with_borders_flipped`, with the :class:`BorderWatch` of the copy: the facts a run on it reads among
    the neighbours of every region of a contested pair of the map (and of ``pairs``) and the list of borders.

    The flipped facts are built once per map (in ``ctx.fixed``) and the copy once per Reading (in ``ctx.cache``:
    its own cache, a :class:`_WatchedCache`, is kept across runs); each call empties its reads and the watch."""
    pairs = tuple(pairs)
    hit = ctx.cache.get(("border flip", pairs))
    if hit is None:
        hit = ctx.cache[("border flip", pairs)] = _flipped_copy(ctx, pairs)
    alt, watch = hit
    alt.reads = set()
    watch.read.clear()
    return alt, watch


def _flipped_copy(ctx: Reading, pairs: tuple[tuple[str, str], ...]) -> tuple[Reading, BorderWatch]:
    key = f"flipped {pairs}"
    facts = ctx.fixed.get(key)
    if facts is None:
        facts = ctx.fixed[key] = _flipped(ctx, pairs)
    scene, groups, ordered, borders, watch = facts
    alt = object.__new__(type(ctx))  # a shallow copy without dataclasses.replace's re-validation
    alt.__dict__.update(ctx.__dict__, scene=scene, groups=groups, sorted_neighbors=ordered, borders=borders,
                        reads=set(), consulted=set(), cache=_WatchedCache(watch), changed_from=None)
    return alt, watch


def contested_flips(ctx: Reading) -> list[tuple[tuple[tuple[str, str], ...], frozenset[str]]]:
    """The flips the contested check tries — each contested pair of the map alone, then all of them at once when
    there are several — with the border facts each changes (:func:`flipped_facts`; once per map)."""
    flips = ctx.fixed.get("contested flips")
    if flips is None:
        pairs = tuple(ctx.scene.contested)
        flips = [((p,), flipped_facts([p])) for p in pairs] + ([(pairs, flipped_facts(pairs))] if len(pairs) > 1 else [])
        ctx.fixed["contested flips"] = flips
    return flips


class _WatchedCache(MutableMapping[Any, Any]):
    """The cache of a flipped Reading, kept across runs: each entry keeps the border facts its run had read when
    it was stored (all it can have been computed from), and a run that uses the entry has read them too — so a
    :class:`BorderWatch` misses no fact behind a value computed in an earlier run."""

    __slots__ = ("_data", "_watch")

    def __init__(self, watch: BorderWatch) -> None:
        self._data: dict[Any, tuple[Any, frozenset[str]]] = {}
        self._watch = watch

    def __getitem__(self, key: Any) -> Any:
        value, facts = self._data[key]
        self._watch.read.update(facts)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        """``self[key]`` (its facts counted as read) or ``default`` (no exception raised and caught)."""
        hit = self._data.get(key)
        if hit is None:
            return default
        self._watch.read.update(hit[1])
        return hit[0]

    def __contains__(self, key: object) -> bool:
        hit = self._data.get(key)
        if hit is not None:
            self._watch.read.update(hit[1])
        return hit is not None

    def __setitem__(self, key: Any, value: Any) -> None:
        self._data[key] = (value, frozenset(self._watch.read))

    def __delitem__(self, key: Any) -> None:
        del self._data[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def _flipped(ctx: Reading, pairs: tuple[tuple[str, str], ...]) -> tuple[Scene, Any, Any, Any, BorderWatch]:
    """(scene, groups, ordered neighbours, borders, watch) of ``ctx`` with ``pairs`` flipped, read-watched."""
    watch = BorderWatch(flipped_facts(pairs))
    codes = {c for pair in (*ctx.scene.contested, *pairs) for c in pair}
    nbrs = {c: r.neighbors for c, r in ctx.scene.regions.items()}
    for a, b in pairs:
        nbrs[a], nbrs[b] = nbrs[a] ^ {b}, nbrs[b] ^ {a}
    regions = {c: _watched(r, nbrs[c], watch) if c in codes else r for c, r in ctx.scene.regions.items()}
    scene = replace(ctx.scene, regions=regions)
    groups = dict(ctx.groups)
    present = frozenset(regions)
    for name, centre in ctx.group_centre.items():
        if centre in codes:
            groups[name] = nbrs[centre] & present
    ordered = {c: tuple(sorted(n)) for c, n in nbrs.items()}
    borders = tuple((a, b) for a, nb in ordered.items() for b in nb if a < b)
    group_facts = {name: centre for name, centre in ctx.group_centre.items() if centre in codes}
    return (scene, _WatchedMap(groups, group_facts, watch), _WatchedMap(ordered, {c: c for c in codes}, watch),
            _WatchedBorders(borders, watch), watch)


def printed_range(scene: Scene, lo: str, hi: str) -> str:
    """Two numbers as printed on the map's legend, joined as its labels join them (:func:`join_range`, in the
    legend's label style), in the map's language: a colour bar's tick interval, the legend's overall range."""
    labelling = scene.legend.labelling
    label = join_range(lo, hi, labelling.style if labelling is not None else "plain")
    language = scene.language
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


def _thresholds(ctx: Reading) -> list[tuple[float, str]]:
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
            out.append((n / scale, _number_as_printed(n, legend, i)))
    return out


def _number_as_printed(n: float, legend: Legend, i: int) -> str:
    """A display number between classes ``i`` and ``i + 1`` as the legend prints it: the label's own text when
    it is the upper number of class i or the lower of class i + 1 (``5.0``), else its shortest legend-style text."""
    try:
        printed = [printed_numbers(legend.classes[i].label)[1], printed_numbers(legend.classes[i + 1].label)[0]]
    except ValueError:
        printed = []
    same = [p.text for p in printed if p is not None and math.isclose(p.value, n, rel_tol=1e-9, abs_tol=1e-12)]
    return same[0] if same else number_text(n, legend.percent, number_style(legend))


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
