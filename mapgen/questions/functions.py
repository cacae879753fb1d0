"""The function library question programs call (CLEVR-style handlers over a Scene).

Every function takes a :class:`Ctx` (the Scene's facts in fast form) plus typed arguments and returns a value
or :data:`INVALID` when the question it serves would be ambiguous, degenerate or unreadable; the engine then
drops that instantiation. Functions are registered by name in :data:`FUNCTIONS` with their argument types so
template files can be linted without running them.

Definitions applied everywhere (also stated in ``templates/questions/mapwise.yaml``):

- *level* of a region: its legend class index on discrete maps, its value on continuous maps.
- *tolerance* τ = :data:`PERCEPTUAL_TOLERANCE` (defined in :mod:`mapgen.scene`, shared with the table-extraction
  task) × colour-bar span (continuous maps only): a value read off a
  colour bar may be off by up to τ. Discrete maps are read exactly, as classes (same class = equal).
- **One ambiguity rule.** A question is asked only when its answer is the same for every reading of the values
  it reads: on continuous maps each value anywhere within τ of the truth (plus a safety margin
  m = :data:`READING_MARGIN` × span at generation), on discrete maps each value anywhere in its class. Every
  function decides its answer on those intervals and returns INVALID when they straddle a boundary — a near
  tie is rejected, never answered "No" or "=".
- *higher/lower*: the order of the values (discrete: of the classes; same class = equal, so "X higher than Y"
  is "No"); on continuous maps asked only when the values are more than 2(τ + m) apart. *Similar*: same class
  (discrete) / within :data:`SIMILAR_TOLERANCES` τ (continuous; Yes asked only when within that minus
  2(τ + m), No only when beyond it plus 2(τ + m)). Rankings on continuous maps never hold "=".
- A value is compared with a mark (a tick or a number N) on a continuous map only when more than τ + m away;
  on a discrete map only when the class's printed range lies on one side of it.
- *Missing* (N/A) regions have no level: they belong to no range and never count as extreme; aggregates
  (mean, median, majority, "all", outlier, ranking) over a set containing an N/A region are INVALID.
- *Forced answers* are degenerate and INVALID: comparing with the map's highest (lowest) region, asking which
  members lie in a range or beyond a number no region of the map reaches.

A Ctx has a *reading* tolerance r in value units: τ + m when generating, 0 when answering as a reader
(:meth:`Ctx.as_reader`: the exact answer on the values given, what the pixel oracle and the tolerance property
test use).
"""

from __future__ import annotations

import colorsys
import heapq
import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, ParamSpec, TypeVar, cast

from mapgen.data.map_words import map_words
from mapgen.geo.languages import DEFAULT_LANGUAGE
from mapgen.legend import format_value, parse_label, relative_luminance
from mapgen.legend.grammar import RANGE_WORD, reword_range
from mapgen.scene import PERCEPTUAL_TOLERANCE, Scene

#: Safety margin added to the tolerance at generation, as a share of the span (a colour bar is read by the
#: pixel oracle to about 1 %), so an asked answer also survives an oracle reading.
READING_MARGIN = 0.01
#: "similar" on continuous maps: values within this many tolerances τ of each other.
SIMILAR_TOLERANCES = 3.0
#: "closest to each other": the best pair's centroid distance must beat the runner-up by this factor.
CLOSEST_PAIR_MARGIN = 0.9
#: Hue spread (degrees) under which a legend counts as "shades of the same colour".
SINGLE_HUE_MAX_SPREAD = 40.0
#: Colours less saturated than this are greys and carry no hue.
GREY_SATURATION = 0.12
#: "evenly spaced": widths within 5 % of the widest and gaps <= 5 % of the span; "significant gaps": widest
#: >= 1.5 × narrowest or a gap >= 10 % of the span; in between: INVALID.
EVEN_WIDTH_TOL, EVEN_GAP_TOL, UNEVEN_WIDTH_RATIO, UNEVEN_GAP = 0.05, 0.05, 1.5, 0.10
#: Outliers: discrete — at least 2 classes outside the others' class range (0 = not an outlier, 1 = INVALID);
#: continuous — outside the others' range by >= 4τ and by at least the others' spread (inside = not).
OUTLIER_CLASSES, OUTLIER_TOL_FACTOR = 2, 4.0
#: Mean comparison on discrete maps uses mean class index: higher/lower if |Δ| >= 0.5 class, similar if <= 0.25.
MEAN_CLASS_DIFF, MEAN_CLASS_SIMILAR = 0.5, 0.25


class _Invalid:
    """Sentinel: the question is ambiguous / degenerate / unreadable (prunes the search)."""

    _instance: _Invalid | None = None

    def __new__(cls) -> _Invalid:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "INVALID"

    def __bool__(self) -> bool:
        return False


INVALID = _Invalid()


class Invalid(Exception):
    """Raised inside a function to return :data:`INVALID` from deep helpers."""


# ---------------------------------------------------------------------------------------------- context


@dataclass
class Ctx:
    """Fast per-scene facts: levels, legibility, groups, legend marks. Build with :func:`context`."""

    scene: Scene
    discrete: bool
    level: dict[str, float | None]
    value: dict[str, float]
    legible: frozenset[str]
    tol: float
    groups: dict[str, frozenset[str]]
    group_kind: dict[str, str]
    group_centre: dict[str, str]  # "bordering <region>" group -> that region's code
    intervals: list[tuple[float, float]]  # value units: classes (discrete) / tick intervals (continuous)
    interval_labels: list[str]
    thresholds: list[tuple[float, str]]  # (value, display text)
    reading: float = 0.0  # reading tolerance r in value units: tau + margin when generating, 0 for a reader
    exact: bool = False  # answering as a reader: the exact answer on the values given, no tolerance
    reads: set[str] = field(default_factory=set)
    cache: dict[Any, Any] = field(default_factory=dict)
    printed: list[tuple[float | None, float | None]] = field(default_factory=list)  # class ranges as printed
    borders: tuple[tuple[str, str], ...] = ()  # every bordering pair (a, b) with a < b, for scans of all borders
    sorted_neighbors: dict[str, tuple[str, ...]] = field(default_factory=dict)  # code -> neighbours in code order
    changed_from: tuple[Ctx, frozenset[str]] | None = None  # copy_with: the context copied and the regions changed
    fixed: dict[str, Any] = field(default_factory=dict)  # facts of the scene that no level changes (shared by copies)

    def copy_with(self, code: str | Iterable[str], level: float | None, value: float) -> Ctx:
        """A copy where one region (or several) has another level/value (for the illegible-region test)."""
        lv, vv = dict(self.level), dict(self.value)
        for c in [code] if isinstance(code, str) else code:
            lv[c], vv[c] = level, value
        alt = object.__new__(Ctx)  # a shallow copy without dataclasses.replace's re-validation (hot path)
        changed = frozenset([code] if isinstance(code, str) else code)
        base = self if self.changed_from is None else None  # a copy of a copy is computed from scratch
        alt.__dict__.update(self.__dict__, level=lv, value=vv, reads=set(), cache={},
                            changed_from=(base, changed) if base is not None else None)
        return alt

    def with_values(self, values: dict[str, float]) -> Ctx:
        """A reader's copy (no reading tolerance) where regions have other values, same classes on discrete
        maps (what the tolerance property test answers on)."""
        vv = dict(self.value) | values
        lv = dict(self.level) if self.discrete else {c: (None if math.isnan(v) else v) for c, v in vv.items()}
        return replace(self, level=lv, value=vv, reading=0.0, exact=True, reads=set(), cache={})

    def as_reader(self) -> Ctx:
        """A copy without the reading tolerance: the exact answer on the values as given, instead of rejecting
        near ties (the pixel oracle answers this way; generation keeps the tolerance)."""
        return replace(self, reading=0.0, exact=True, reads=set(), cache={})

    @property
    def margin(self) -> float:
        """The generation-time safety margin in force (value units; 0 for a reader or a discrete map)."""
        return max(0.0, self.reading - self.tol)

    def lv(self, code: str) -> float | None:
        """Level of a region (records the read); None when missing."""
        self.reads.add(code)
        return self.level[code]

    def name(self, code: str) -> str:
        return self.scene.regions[code].name

    def spellings(self, code: str) -> list[str]:
        """Accepted spellings of a region (cached)."""
        key = ("spellings", code)
        if key not in self.cache:
            self.cache[key] = self.scene.spellings(code)
        return self.cache[key]

    def num(self, x: float) -> str:
        """A display number written like the legend writes numbers."""
        return number_text(x, self.scene.legend.percent, number_style(self.scene.legend))


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
        tol = 0.0
    else:
        level = {c: (None if math.isnan(v) else v) for c, v in value.items()}
        ticks = list(legend.ticks)
        intervals = list(zip(ticks[:-1], ticks[1:]))
        labels = [_join(a, b, scene.language) for a, b in zip(legend.tick_labels[:-1], legend.tick_labels[1:])]
        tol = PERCEPTUAL_TOLERANCE * (legend.vmax - legend.vmin)
    groups, kinds, centres = _groups(scene)
    reading = 0.0 if discrete else tol * (1 + READING_MARGIN / PERCEPTUAL_TOLERANCE)
    printed = [_label_bounds(c.label) for c in legend.classes] if discrete else []
    ctx = Ctx(
        scene, discrete, level, value, frozenset(scene.legible()), tol, groups, kinds, centres, intervals, labels, [],
        reading, printed=printed,
    )
    ctx.thresholds = _thresholds(ctx)
    ctx.sorted_neighbors = {c: tuple(sorted(r.neighbors)) for c, r in scene.regions.items()}
    ctx.borders = tuple((a, b) for a, nbrs in ctx.sorted_neighbors.items() for b in nbrs if a < b)
    return ctx


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


def number_style(legend: Any) -> str:
    """``compact`` (1.2M, 580k) when the legend prints numbers >= 1e6, else ``plain`` — like its labels."""
    scale = legend.label_scale or 1.0
    return "compact" if max(abs(legend.vmin), abs(legend.vmax)) * scale >= 1e6 else "plain"


def number_text(x: float, percent: bool, style: str = "plain") -> str:
    """Shortest legend-style text of a display number that reads back as the same number."""
    for d in range(-6 if style == "compact" else 0, 8):
        s = format_value(x, percent=percent, style=style, decimals=d)
        lo, _ = parse_label(s)
        if lo is not None and math.isclose(lo, x, rel_tol=1e-9, abs_tol=1e-12):
            return s
    return format_value(x, percent=percent, style=style, decimals=8)


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
    top_i, bottom_j = _label_bounds(label_i)[1], _label_bounds(label_j)[0]
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


# ---------------------------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Function:
    """A library function with its argument and result types (for lint and docs)."""

    name: str
    fn: Callable[..., Any]
    args: tuple[str, ...]
    returns: str
    doc: str
    relative: bool = False  # uses the border graph (makes a question "relative_region")


FUNCTIONS: dict[str, Function] = {}
F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")


def register(args: tuple[str, ...] | str, returns: str, relative: bool = False) -> Callable[[F], F]:
    """Decorator registering a library function under its Python name (its signature kept for the checker)."""
    arg_types = tuple(args.split()) if isinstance(args, str) else args

    def deco(fn: F) -> F:
        FUNCTIONS[fn.__name__] = Function(fn.__name__, fn, arg_types, returns, (fn.__doc__ or "").strip(), relative)
        return fn

    return deco


# ---------------------------------------------------------------------------------------------- comparisons


def order(ctx: Ctx, a: str, b: str) -> int | None:
    """1 if a is higher than b, -1 if lower, 0 if equal as shown (same class on a discrete map), None if not
    decidable (missing, or closer than 2r on a continuous map)."""
    la, lb = ctx.lv(a), ctx.lv(b)
    return order_levels(ctx, la, lb)


def order_levels(ctx: Ctx, la: float | None, lb: float | None, reads: int = 2) -> int | None:
    """:func:`order` on levels; ``reads`` is how many misreadings the difference can carry (2: two values)."""
    if la is None or lb is None:
        return None
    d = la - lb
    if ctx.discrete or ctx.exact:
        return (d > 0) - (d < 0)
    if abs(d) > reads * ctx.reading:
        return 1 if d > 0 else -1
    return None


def similar_levels(ctx: Ctx, la: float | None, lb: float | None, reads: int = 2) -> bool | None:
    """Whether two levels are similar (same class / within SIMILAR_TOLERANCES τ); None when a reading within
    the tolerance could say either."""
    if la is None or lb is None:
        return None
    if ctx.discrete:
        return la == lb
    d, bound, slack = abs(la - lb), SIMILAR_TOLERANCES * ctx.tol, reads * ctx.reading
    if d <= bound - slack:
        return True
    if d > bound + slack:
        return False
    return None


def relation(ctx: Ctx, a: str, cmp: str, b: str) -> bool | None:
    """Whether ``a`` is higher / lower / similar compared with ``b``; None when not decidable."""
    la, lb = ctx.lv(a), ctx.lv(b)
    if cmp == "similar":
        return similar_levels(ctx, la, lb)
    o = order_levels(ctx, la, lb)
    if o is None or (o == 0 and not ctx.discrete):
        return None  # unreadable, or two equal values on a continuous map
    return o == _sign(cmp)


_CMP = {"higher": 1, "lower": -1, "similar": 0, "above": 1, "below": -1}


def _sign(cmp: str) -> int:
    return _CMP[cmp]


def _versus_mark(ctx: Ctx, code: str, mark: float) -> int:
    """1 above, -1 below a number (value units); raises Invalid when missing or not readable: on a continuous
    map within r of the mark, on a discrete map when the class's printed range does not lie on one side."""
    lv = ctx.lv(code)
    if lv is None:
        raise Invalid
    v = ctx.value[code]
    side = (v > mark) - (v < mark)
    if side == 0:
        raise Invalid
    if ctx.exact:
        return side
    if ctx.discrete:  # printed ranges are in display units (label_scale: percent labels over fractions)
        lo, hi = ctx.printed[int(lv)] if ctx.printed else (None, None)
        shown = mark * (ctx.scene.legend.label_scale or 1.0)
        eps = 1e-9 * max(1.0, abs(shown))
        if side > 0 and lo is not None and lo >= shown - eps or side < 0 and hi is not None and hi <= shown + eps:
            return side
        raise Invalid
    if abs(v - mark) <= ctx.reading:
        raise Invalid
    return side


def _in_interval(ctx: Ctx, code: str, idx: int) -> bool:
    """Whether a region's value is in range ``idx`` (class or tick interval); Invalid when not readable."""
    lv = ctx.lv(code)
    if lv is None:
        return False
    if ctx.discrete:
        return int(lv) == idx
    lo, hi = ctx.intervals[idx]
    return _versus_mark(ctx, code, lo) > 0 and _versus_mark(ctx, code, hi) < 0


def _guard(fn: Callable[P, R]) -> Callable[P, R | _Invalid]:
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R | _Invalid:
        try:
            return fn(*args, **kwargs)
        except Invalid:
            return INVALID

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _valued(ctx: Ctx, regions: Iterable[str]) -> list[str]:
    return [c for c in regions if ctx.lv(c) is not None]


def _all_valued(ctx: Ctx, regions: Iterable[str]) -> list[str]:
    out = list(regions)
    if any(ctx.lv(c) is None for c in out):
        raise Invalid
    return out


def _known(ctx: Ctx) -> dict[str, float]:
    """``ctx.level`` typed for regions already checked to have a level (by :func:`_valued`,
    :func:`_all_valued`, :func:`readable` or ``ctx.lv``): the same dict, without the None of missing ones."""
    return cast("dict[str, float]", ctx.level)


# ---------------------------------------------------------------------------------------------- sets


@register("RegionGroup", "Regions")
def members(ctx: Ctx, group: str) -> frozenset[str]:
    """Members of a named region group (curated, ``bordering <country>`` or ``bordering <region>``)."""
    return ctx.groups[group]


@register("Region", "Regions", relative=True)
def neighbors(ctx: Ctx, region: str) -> frozenset[str]:
    """Regions sharing a land border with ``region``."""
    return ctx.scene.regions[region].neighbors


@register("", "Regions")
def all_regions(ctx: Ctx) -> frozenset[str]:
    """Every region of the map."""
    return frozenset(ctx.scene.regions)


@register("Regions", "Regions")
def missing(ctx: Ctx, regions: Iterable[str]) -> frozenset[str]:
    """The regions without a value (drawn in the legend's N/A colour)."""
    return frozenset(c for c in regions if ctx.lv(c) is None)


@register("Regions Region", "Regions")
def others(ctx: Ctx, regions: frozenset[str], region: str) -> frozenset[str]:
    """``regions`` without ``region``."""
    return frozenset(regions) - {region}


@register("Regions", "Int")
def count(ctx: Ctx, regions: Iterable[str]) -> int:
    """Number of regions in a set."""
    return len(list(regions))


def _forced(ctx: Ctx, key: Any, test: Callable[[str], bool | None]) -> bool:
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
@_guard
def in_range(ctx: Ctx, regions: Iterable[str], idx: int) -> frozenset[str]:
    """Regions whose value lies in a legend range (class, or tick interval on continuous maps); INVALID when
    no region of the map lies in it (an empty answer forced by the legend)."""
    if not ctx.exact and _forced(ctx, ("range", idx), lambda c: _in_interval(ctx, c, idx)):
        raise Invalid
    return frozenset(c for c in regions if _in_interval(ctx, c, idx))


@register("Regions Comparison Number", "Regions")
@_guard
def filter_threshold(ctx: Ctx, regions: Iterable[str], cmp: str, number: float) -> frozenset[str]:
    """Regions with a value higher/lower than a number (missing values never qualify); INVALID when no region
    of the map is on that side (forced)."""
    sign = _sign(cmp)
    if not ctx.exact and _forced(ctx, (cmp, number), lambda c: _versus_mark(ctx, c, number) == sign):
        raise Invalid
    return frozenset(c for c in _valued(ctx, regions) if _versus_mark(ctx, c, number) == sign)


@register("Regions Comparison Region", "Regions")
@_guard
def filter_compare(ctx: Ctx, regions: Iterable[str], cmp: str, region: str) -> frozenset[str]:
    """Regions (other than ``region``) whose value is higher/lower/similar compared with ``region``; INVALID
    when ``region`` is the map's highest (lowest) and the question asks for higher (lower) ones (forced)."""
    if cmp != "similar" and not ctx.exact and _forced(
        ctx, (cmp, region), lambda c: False if c == region else relation(ctx, c, cmp, region)
    ):
        raise Invalid
    out = []
    for c in _valued(ctx, regions):
        if c == region:
            continue
        r = relation(ctx, c, cmp, region)
        if r is None:
            raise Invalid
        if r:
            out.append(c)
    return frozenset(out)


@register("Region Comparison Region", "Bool")
def compare(ctx: Ctx, a: str, cmp: str, b: str) -> bool | _Invalid:
    """Whether ``a`` is higher/lower/similar compared with ``b``."""
    r = relation(ctx, a, cmp, b)
    return INVALID if r is None else r


@register("Region Choice Number", "Bool")
@_guard
def versus_number(ctx: Ctx, region: str, side: str, number: float) -> bool:
    """Whether a region's value is above/below a number; asked only when the region's class as printed
    (discrete) or its reading within r (continuous) lies wholly on one side of the number."""
    return _versus_mark(ctx, region, number) == _sign(side)


@register("Region LegendClass", "Bool")
@_guard
def is_in_range(ctx: Ctx, region: str, idx: int) -> bool:
    """Whether a region's value lies in a legend range (No for a missing value)."""
    return _in_interval(ctx, region, idx)


@register("Regions Any", "Bool")
def contains(ctx: Ctx, regions: Iterable[str], item: Any) -> bool:
    """Membership test."""
    return item in set(regions)


@register("Region Region Region", "Regions")
def trio(ctx: Ctx, a: str, b: str, c: str) -> frozenset[str]:
    """The set {a, b, c}."""
    return frozenset((a, b, c))


@register("Regions", "Bool")
def nonempty(ctx: Ctx, regions: Iterable[str]) -> bool:
    """True if the set has a member."""
    return bool(list(regions))


@register("Any Any", "Bool")
def equals(ctx: Ctx, a: Any, b: Any) -> bool:
    """Equality of two values (sets compare as sets)."""
    if isinstance(a, (set, frozenset, list, tuple)) and isinstance(b, (set, frozenset, list, tuple)):
        return set(a) == set(b)
    return a == b


@register("Bool Bool", "Bool")
def both(ctx: Ctx, a: bool, b: bool) -> bool:
    """Logical and."""
    return bool(a) and bool(b)


@register("Regions Regions", "Bool")
def is_majority(ctx: Ctx, subset: Iterable[str], regions: Iterable[str]) -> bool | _Invalid:
    """Majority: strictly more than half of ``regions`` (all must have values) are in ``subset``."""
    pool = list(regions)
    if any(ctx.lv(c) is None for c in pool) or len(pool) < 3:
        return INVALID
    return 2 * len(set(subset) & set(pool)) > len(pool)


@register("Regions Regions", "Bool")
def all_of(ctx: Ctx, subset: Iterable[str], regions: Iterable[str]) -> bool | _Invalid:
    """True when every region of ``regions`` (all must have values) is in ``subset``."""
    pool = list(regions)
    if any(ctx.lv(c) is None for c in pool) or len(pool) < 2:
        return INVALID
    return set(pool) <= set(subset)


@register("Regions", "Bool")
@_guard
def same_range(ctx: Ctx, regions: Iterable[str]) -> bool:
    """True when every region (at least 2, all with values) lies in one legend range, whichever it is; on a
    continuous map each value must be read clearly inside one tick interval."""
    pool = list(regions)
    if len(pool) < 2 or any(ctx.lv(c) is None for c in pool):
        raise Invalid
    ranges = set()
    for c in pool:
        inside = [i for i in range(len(ctx.intervals)) if _in_interval(ctx, c, i)]
        if len(inside) != 1:
            raise Invalid
        ranges.add(inside[0])
    return len(ranges) == 1


# ---------------------------------------------------------------------------------------------- ranks


def _sorted_levels(ctx: Ctx, regions: Iterable[str], extreme: str) -> list[str]:
    vals = _valued(ctx, regions)
    high = extreme.endswith("highest") or extreme in ("most", "largest")
    known = _known(ctx)
    return sorted(vals, key=lambda c: (-known[c] if high else known[c], c))


ORDINALS = {"second": 1, "third": 2}


def _position(extreme: str) -> int:
    """0 for highest/lowest, 1 for "second ...", 2 for "third ..."."""
    return ORDINALS.get(extreme.split(" ", 1)[0], 0)


def _strict(ctx: Ctx, a: str, b: str) -> bool:
    """True when a is clearly ranked apart from b (not similar, not ambiguous)."""
    o = order(ctx, a, b)
    if o is None:
        raise Invalid
    return o != 0


@register("Regions Extreme", "Region")
@_guard
def extreme_region(ctx: Ctx, regions: Iterable[str], extreme: str) -> str:
    """The region with the highest / lowest / second highest / second lowest value (unique, else INVALID)."""
    ranked = _sorted_levels(ctx, regions, extreme)
    k = _position(extreme)
    if len(ranked) < max(2, k + 2):
        raise Invalid
    if k > 0 and not _strict(ctx, ranked[k - 1], ranked[k]):
        raise Invalid
    if not _strict(ctx, ranked[k], ranked[k + 1]):
        raise Invalid
    return ranked[k]


@register("Regions Extreme N", "Regions")
@_guard
def top_n(ctx: Ctx, regions: Iterable[str], extreme: str, n: int) -> frozenset[str]:
    """The ``n`` regions with the highest/lowest values (the n-th must be clearly apart from the next)."""
    ranked = _sorted_levels(ctx, regions, extreme)
    if len(ranked) <= n or not _strict(ctx, ranked[n - 1], ranked[n]):
        raise Invalid
    return frozenset(ranked[:n])


@register("Regions Extreme", "LegendClass")
@_guard
def extreme_class(ctx: Ctx, regions: Iterable[str], extreme: str) -> int:
    """The highest / lowest / second ... legend class among the regions' classes (discrete maps)."""
    known = _known(ctx)
    classes = sorted({int(known[c]) for c in _valued(ctx, regions)}, reverse=extreme.endswith("highest"))
    k = _position(extreme)
    if len(classes) < max(2, k + 1):
        raise Invalid
    return classes[k]


@register("Regions", "Ranking")
@_guard
def ranking(ctx: Ctx, regions: Iterable[str]) -> list[list[str]]:
    """Tie groups, highest first. Ties only where equality is visible: the same class on a discrete map; on a
    continuous map every two values must be told apart (INVALID otherwise, and when all are tied)."""
    ranked = _sorted_levels(ctx, _all_valued(ctx, regions), "highest")
    groups: list[list[str]] = []
    for c in ranked:
        o = order(ctx, groups[-1][0], c) if groups else 1
        if o is None or (o == 0 and not ctx.discrete):
            raise Invalid
        if o == 0:
            groups[-1].append(c)
        else:
            groups.append([c])
    if len(groups) < 2:  # everything tied: nothing to rank (a degenerate question)
        raise Invalid
    return groups


def _median_level(ctx: Ctx, regions: Iterable[str]) -> float:
    pool = _all_valued(ctx, regions)
    if len(pool) < 3:
        raise Invalid
    lv = sorted(_known(ctx)[c] for c in pool)
    n = len(lv)
    if n % 2:
        return lv[n // 2]
    a, b = lv[n // 2 - 1], lv[n // 2]
    if ctx.discrete and a != b:
        raise Invalid  # the median falls between two classes
    return (a + b) / 2


@register("Regions", "LegendClass")
@_guard
def median_range(ctx: Ctx, regions: Iterable[str]) -> int:
    """Range holding the median (middle member by level; even counts need both middle members in one range)."""
    med = _median_level(ctx, regions)
    if ctx.discrete:
        return int(med)
    for i, (lo, hi) in enumerate(ctx.intervals):
        if lo + ctx.reading < med < hi - ctx.reading:  # the median moves by at most r
            return i
    raise Invalid


@register("Region Comparison Regions", "Bool")
@_guard
def versus_median(ctx: Ctx, region: str, side: str, regions: Iterable[str]) -> bool:
    """Whether ``region`` is above/below the median of ``regions`` (a tie with the median is INVALID)."""
    med = _median_level(ctx, regions)
    o = order_levels(ctx, ctx.lv(region), med)
    if o is None or o == 0:
        raise Invalid
    return o == _sign(side)


def _mean_relation(ctx: Ctx, d: float, cmp: str) -> bool | None:
    """higher / lower / similar on a difference of means (mean class index on discrete maps)."""
    if ctx.discrete:
        if cmp == "similar":
            return True if abs(d) <= MEAN_CLASS_SIMILAR else False if abs(d) >= MEAN_CLASS_DIFF else None
        sign = _sign(cmp)
        return True if sign * d >= MEAN_CLASS_DIFF else False if sign * d <= 0 else None
    if cmp == "similar":
        return similar_levels(ctx, d, 0.0)
    o = order_levels(ctx, d, 0.0)  # each mean moves by at most r: the difference by 2r
    return None if not o else o == _sign(cmp)


@register("Regions Comparison Regions", "Bool")
@_guard
def means_relation(ctx: Ctx, a: Iterable[str], cmp: str, b: Iterable[str]) -> bool:
    """Whether the mean level of ``a`` is higher / lower / similar compared with that of ``b`` (mean class
    index on discrete maps: higher/lower by >= 0.5 class, similar within 0.25; continuous: as two values)."""
    pa, pb = _all_valued(ctx, a), _all_valued(ctx, b)
    if len(pa) < 2 or len(pb) < 2 or set(pa) == set(pb):
        raise Invalid
    known = _known(ctx)
    d = sum(known[c] for c in pa) / len(pa) - sum(known[c] for c in pb) / len(pb)
    verdict = _mean_relation(ctx, d, cmp)
    if verdict is None:
        raise Invalid
    return verdict


@register("Region Regions", "Bool")
@_guard
def is_outlier(ctx: Ctx, region: str, regions: Iterable[str]) -> bool:
    """Outlier test of ``region`` against the other members (see module constants for the definition)."""
    rest = _all_valued(ctx, set(regions) - {region})
    if len(rest) < 3 or ctx.lv(region) is None:
        raise Invalid
    known = _known(ctx)
    lv = [known[c] for c in rest]
    lo, hi, x = min(lv), max(lv), known[region]
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
@_guard
def closest_in_value(ctx: Ctx, regions: Iterable[str], region: str, mode: str) -> frozenset[str]:
    """Members (other than ``region``) with the same/closest or most different value to ``region``.

    Discrete: ``same`` = same class (may be empty); ``most different`` = largest class distance (all tied).
    Continuous: the unique closest / furthest member, closer (further) than every other for every reading.
    """
    pool = [c for c in _valued(ctx, regions) if c != region]
    x = ctx.lv(region)
    if x is None or len(pool) < 2:
        raise Invalid
    known = _known(ctx)
    dist = {c: abs(known[c] - x) for c in pool}
    if ctx.discrete:
        if mode in ("same", "closest"):
            return frozenset(c for c in pool if dist[c] == 0)
        best = max(dist.values())
        if best == 0:
            raise Invalid
        return frozenset(c for c in pool if dist[c] == best)
    near = mode in ("same", "closest")
    ranked = sorted(pool, key=lambda c: dist[c], reverse=not near)
    first = ranked[0]
    for c in ranked[1:]:
        if not (_surely_closer(ctx, x, first, c) if near else _surely_closer(ctx, x, c, first)):
            raise Invalid
    return frozenset(ranked[:1])


def _surely_closer(ctx: Ctx, x: float, a: str, b: str) -> bool:
    """Whether ``a``'s value is closer to ``x`` than ``b``'s for every reading of the three values."""
    known = _known(ctx)
    da, db = known[a] - x, known[b] - x
    r2 = 2 * ctx.reading
    if da * db > 0 and min(abs(da), abs(db)) > r2:  # both on one side of x: only a and b's difference matters
        return abs(db) - abs(da) > r2
    return abs(db) - abs(da) > 2 * r2


@register("Region Number Number", "Number")
@_guard
def closer_number(ctx: Ctx, region: str, a: float, b: float) -> float:
    """Which of two numbers the region's value is closer to (for every reading: the distances differ by > 2r)."""
    x = ctx.lv(region)
    if x is None or a == b:
        raise Invalid
    da, db = abs(ctx.value[region] - a), abs(ctx.value[region] - b)
    if abs(da - db) <= 2 * ctx.reading or da == db:
        raise Invalid
    return a if da < db else b


def _border_diffs(ctx: Ctx, borders: Iterable[tuple[str, str]]) -> list[tuple[float, str, str]]:
    """(|level difference|, a, b) of the given bordering pairs where both have data (reads nothing)."""
    level = ctx.level
    return [(abs(la - lb), a, b) for a, b in borders if (la := level[a]) is not None and (lb := level[b]) is not None]


def _top_border_diffs(ctx: Ctx) -> list[tuple[float, str, str]]:
    """The two largest (difference, a, b) over all bordering pairs with data, largest first; reads every region.

    On a :meth:`Ctx.copy_with` copy only the borders of the changed regions are recomputed: the top two of the
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


@register("Region Region", "Bool", relative=True)
@_guard
def is_max_border_pair(ctx: Ctx, a: str, b: str) -> bool:
    """Whether bordering ``a``/``b`` are THE pair of bordering regions with the largest difference (class
    distance / value). Yes needs a unique maximum, No a smaller difference, for every reading (each difference
    moves by up to 2r, so the gap must exceed 4r)."""
    if b not in ctx.scene.regions[a].neighbors:
        raise Invalid
    diffs = _top_border_diffs(ctx)
    if len(diffs) < 2 or ctx.lv(a) is None or ctx.lv(b) is None:
        raise Invalid
    mine = abs(_known(ctx)[a] - _known(ctx)[b])
    top, runner = diffs[0][0], diffs[1][0]
    gap = 4 * ctx.reading
    if frozenset(diffs[0][1:]) == frozenset((a, b)):
        if top - runner > gap:
            return True
        raise Invalid
    if top - mine > gap:
        return False
    raise Invalid


@register("Region Region", "Pair")
def pair(ctx: Ctx, a: str, b: str) -> frozenset[str]:
    """The unordered pair {a, b}."""
    return frozenset((a, b))


# ---------------------------------------------------------------------------------------------- geography


def _first_in_direction(ctx: Ctx, regions: Iterable[str], direction: str, test: Callable[[str], bool | None]) -> str:
    """The furthest region in ``direction`` passing ``test``, as positioned and as drawn
    (:meth:`Scene.furthest <mapgen.scene.Scene.furthest>`); INVALID when it is not clear."""
    seen: dict[str, bool | None] = {}

    def once(code: str) -> bool | None:  # the scene ranks twice (positions, then as drawn): test each region once
        if code not in seen:
            seen[code] = test(code)
        return seen[code]

    found = ctx.scene.furthest(regions, direction, once)
    if found is None:
        raise Invalid
    return found


@register("Regions Direction", "Region")
@_guard
def extreme_direction(ctx: Ctx, regions: Iterable[str], direction: str) -> str:
    """The north-/south-/east-/west-most region of a set (by the atlas position rule, with a margin)."""
    pool = list(regions)
    if len(pool) < 2:
        raise Invalid
    return _first_in_direction(ctx, pool, direction, lambda c: True)


def _vs_all_neighbors(ctx: Ctx, code: str, cmp: str) -> bool | None:
    """True/False whether ``code`` is higher/lower/similar than every neighbour; None if unreadable."""
    nbrs = ctx.sorted_neighbors[code]
    if not nbrs or ctx.lv(code) is None:
        return False
    verdict: bool | None = True
    for n in nbrs:  # a fixed order: what the program reads before it stops must not vary by process
        r = relation(ctx, code, cmp, n)
        if r is None:
            verdict = None
        elif not r:
            return False
    return verdict


def _vs_at_least_neighbors(ctx: Ctx, code: str, cmp: str, n: int) -> bool | None:
    """True/False whether ``code`` is higher/lower/similar than at least ``n`` of its neighbours; None if a
    reading could say either. A neighbour without data is in no range: it never counts towards ``n``."""
    nbrs = ctx.sorted_neighbors[code]
    if len(nbrs) < n or ctx.lv(code) is None:
        return False
    sure = unsure = 0
    for nb in nbrs:  # every neighbour is read, in a fixed order
        if ctx.lv(nb) is None:
            continue
        r = relation(ctx, code, cmp, nb)
        if r is None:
            unsure += 1
        elif r:
            sure += 1
    if sure >= n:
        return True
    return False if sure + unsure < n else None


@register("Region Comparison", "Bool", relative=True)
@_guard
def versus_all_neighbors(ctx: Ctx, region: str, cmp: str) -> bool:
    """Whether ``region`` is higher/lower/similar compared with all its neighbours (it must have some)."""
    if not ctx.scene.regions[region].neighbors:
        raise Invalid
    v = _vs_all_neighbors(ctx, region, cmp)
    if v is None:
        raise Invalid
    return v


@register("Comparison Direction", "Region", relative=True)
@_guard
def extreme_local(ctx: Ctx, cmp: str, direction: str) -> str:
    """The north-/south-/... most region that is higher/lower/similar compared with all its neighbours."""
    return _first_in_direction(ctx, ctx.scene.regions, direction, lambda c: _vs_all_neighbors(ctx, c, cmp))


@register("Comparison Direction N", "Region", relative=True)
@_guard
def extreme_local_count(ctx: Ctx, cmp: str, direction: str, n: int) -> str:
    """The north-/south-/... most region that is higher/lower/similar compared with at least ``n`` of its
    neighbours (MAPWise's quantified template 20)."""
    if n < 1:
        raise Invalid
    return _first_in_direction(
        ctx, ctx.scene.regions, direction, lambda c: _vs_at_least_neighbors(ctx, c, cmp, int(n))
    )


@register("LegendClass Direction", "Region")
@_guard
def extreme_in_range(ctx: Ctx, idx: int, direction: str) -> str:
    """The north-/south-/... most region whose value is in a legend range."""
    return _first_in_direction(ctx, ctx.scene.regions, direction, lambda c: _in_interval(ctx, c, idx))


def _unique_border_relation(ctx: Ctx, pool: Iterable[str], relation: str, other_idx: int, n: int) -> str:
    """The unique member of ``pool`` that borders ``at least n`` / ``only`` / ``no`` regions of range
    ``other_idx`` (regions without neighbours never qualify)."""
    found = []
    for c in pool:
        nbrs = ctx.scene.regions[c].neighbors
        if not nbrs:
            continue
        hits = sum(1 for b in nbrs if _in_interval(ctx, b, other_idx))
        ok = {"at least": hits >= n, "only": hits == len(nbrs), "none": hits == 0}[relation]
        if ok:
            found.append(c)
    if len(found) != 1:
        raise Invalid
    return found[0]


@register("LegendClass Relation LegendClass N", "Region", relative=True)
@_guard
def border_relation(ctx: Ctx, pool_idx: int, relation: str, other_idx: int, n: int) -> str:
    """The unique region in range ``pool_idx`` that borders ``at least n`` / ``only`` / ``no`` regions of
    range ``other_idx`` (regions without neighbours never qualify for ``only``/``no``)."""
    pool = [c for c in ctx.scene.regions if _in_interval(ctx, c, pool_idx)]
    return _unique_border_relation(ctx, pool, relation, other_idx, n)


@register("Regions Relation LegendClass N", "Region", relative=True)
@_guard
def group_border_relation(ctx: Ctx, regions: Iterable[str], relation: str, other_idx: int, n: int) -> str:
    """:func:`border_relation` with a group of regions as the pool (MAPWise's "state in region R")."""
    pool = sorted(regions)
    if len(pool) < 2 or any(ctx.lv(c) is None for c in pool):
        raise Invalid
    return _unique_border_relation(ctx, pool, relation, other_idx, n)


@register("Extreme", "LegendClass")
def end_class(ctx: Ctx, extreme: str) -> int:
    """The legend's highest or lowest class (discrete maps: the "highest / lowest category")."""
    return len(ctx.intervals) - 1 if extreme.endswith("highest") else 0


@register("Regions", "Pair")
@_guard
def closest_pair(ctx: Ctx, regions: Iterable[str]) -> frozenset[str]:
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


def _pair_distances(ctx: Ctx) -> list[tuple[float, str, str]]:
    """(centroid distance, a, b) for every pair of regions (a < b), nearest first (computed once per scene)."""
    dists = ctx.fixed.get("pair_distances")
    if dists is None:
        cents, codes = ctx.scene.centroids, sorted(ctx.scene.regions)
        dists = ctx.fixed["pair_distances"] = sorted(
            (math.dist(cents[a], cents[b]), a, b) for i, a in enumerate(codes) for b in codes[i + 1 :]
        )
    return dists


@register("LegendClass", "Pair")
@_guard
def closest_pair_in_range(ctx: Ctx, idx: int) -> frozenset[str]:
    """:func:`closest_pair` of the regions in a range; regions whose membership is unreadable (continuous,
    within τ of a tick) must not change the answer whether they count or not."""
    return _closest_pair_in(ctx, ctx.scene.regions, idx)


@register("Regions LegendClass", "Pair")
@_guard
def closest_pair_in_group_range(ctx: Ctx, regions: Iterable[str], idx: int) -> frozenset[str]:
    """:func:`closest_pair_in_range` among a group's regions only (reads no region outside the group), so a
    group away from illegible regions can be asked where the whole map cannot (China: Hong Kong and Macau)."""
    return _closest_pair_in(ctx, sorted(regions), idx)


def _closest_pair_in(ctx: Ctx, pool: Iterable[str], idx: int) -> frozenset[str]:
    sure, maybe = [], []
    for c in pool:
        try:
            if _in_interval(ctx, c, idx):
                sure.append(c)
        except Invalid:
            maybe.append(c)
    best = closest_pair(ctx, sure)
    if maybe and (best is INVALID or closest_pair(ctx, sure + maybe) != best):
        raise Invalid
    if isinstance(best, _Invalid):
        raise Invalid
    return best


# ---------------------------------------------------------------------------------------------- legend


@register("Region", "LegendClass")
@_guard
def range_of(ctx: Ctx, region: str) -> int:
    """The legend range of a region (class; tick interval on continuous maps, readable by τ)."""
    if ctx.lv(region) is None:
        raise Invalid
    for i in range(len(ctx.intervals)):
        if _in_interval(ctx, region, i):
            return i
    raise Invalid


@register("", "Int")
def num_classes(ctx: Ctx) -> int:
    """Number of legend classes (without N/A)."""
    return ctx.scene.legend_facts.num_classes


@register("", "Bool")
def darker_is_higher(ctx: Ctx) -> bool:
    """True when darker colours mean higher values."""
    return ctx.scene.legend_facts.darkness_increases_with_value


@register("", "Bool")
def is_percent(ctx: Ctx) -> bool:
    """True when the map shows percentages."""
    return ctx.scene.legend_facts.percent


@register("", "Str")
def legend_kind(ctx: Ctx) -> str:
    """``discrete`` or ``continuous``."""
    return ctx.scene.map_type


def _legend_colors(ctx: Ctx) -> list[str]:
    legend = ctx.scene.legend
    return [c.color for c in legend.classes] if ctx.discrete else list(legend.colors)


def hue_spread(colors: Iterable[str]) -> float:
    """Smallest arc (degrees) holding the hues of the saturated colours (0 when all are grey)."""
    hues = []
    for col in colors:
        r, g, b = (int(col[i : i + 2], 16) / 255 for i in (1, 3, 5))
        h, _l, s = colorsys.rgb_to_hls(r, g, b)
        if s >= GREY_SATURATION and 0.08 < _l < 0.92:
            hues.append(h * 360)
    if len(hues) < 2:
        return 0.0
    hues.sort()
    gaps = [b - a for a, b in zip(hues, hues[1:])] + [hues[0] + 360 - hues[-1]]
    return 360 - max(gaps)


@register("", "Bool")
def single_hue(ctx: Ctx) -> bool:
    """True when the legend uses shades of one colour (hue spread <= SINGLE_HUE_MAX_SPREAD degrees)."""
    if "single_hue" not in ctx.cache:
        ctx.cache["single_hue"] = hue_spread(_legend_colors(ctx)) <= SINGLE_HUE_MAX_SPREAD
    return ctx.cache["single_hue"]


@register("Shade", "LegendClass")
@_guard
def class_by_shade(ctx: Ctx, shade: str) -> int:
    """Class drawn in the darkest / lightest / second darkest / second lightest shade (discrete)."""
    lum = sorted((relative_luminance(c.color), c.index) for c in ctx.scene.legend.classes)
    if len({round(x, 4) for x, _ in lum}) != len(lum):
        raise Invalid
    if shade.endswith("lightest"):
        lum.reverse()
    k = 1 if shade.startswith("second") else 0
    if len(lum) < k + 2:
        raise Invalid
    return lum[k][1]


def _label_bounds(label: str) -> tuple[float | None, float | None]:
    try:
        return parse_label(label)
    except ValueError:
        return None, None


@register("", "Range")
@_guard
def legend_span(ctx: Ctx) -> tuple[str, list[float | None]]:
    """Overall range: first class's lower to last class's upper bound (continuous: first to last tick)."""
    legend = ctx.scene.legend
    scale = legend.label_scale or 1.0
    if ctx.discrete:
        lo, _ = _label_bounds(legend.classes[0].label)
        _, hi = _label_bounds(legend.classes[-1].label)
        if lo is None or hi is None:
            raise Invalid
        label = f"{ctx.num(lo)} - {ctx.num(hi)}"
        return label, [lo, hi]
    labels = legend.tick_labels
    if len(labels) < 2:
        raise Invalid
    return f"{labels[0]} - {labels[-1]}", [legend.vmin * scale, legend.vmax * scale]


@register("Extreme", "LegendClass")
@_guard
def widest_class(ctx: Ctx, extreme: str) -> int:
    """The class with the largest (or smallest) range of values, as its label prints it (unique)."""
    widths = []
    for c in ctx.scene.legend.classes:
        lo, hi = _label_bounds(c.label)
        if lo is None or hi is None:
            raise Invalid
        widths.append((hi - lo, c.index))
    widths.sort(reverse=extreme.endswith("highest") or extreme == "largest")
    if len(widths) < 2 or math.isclose(widths[0][0], widths[1][0], rel_tol=1e-6):
        raise Invalid
    return widths[0][1]


@register("Extreme", "LegendClass")
@_guard
def class_by_count(ctx: Ctx, extreme: str) -> int:
    """The class holding the most / fewest regions, or the second / third most / fewest; its count must differ
    from the counts ranked just before and after it (a tie is INVALID)."""
    counts = {c.index: 0 for c in ctx.scene.legend.classes}
    for code in ctx.scene.regions:
        lv = ctx.lv(code)
        if lv is not None:
            counts[int(lv)] += 1
    ranked = sorted(counts.items(), key=lambda kv: kv[1], reverse=extreme.endswith("highest"))
    k = _position(extreme)
    if len(ranked) < max(2, k + 1):
        raise Invalid
    tied = [ranked[j][1] for j in (k - 1, k + 1) if 0 <= j < len(ranked)]
    if ranked[k][1] in tied:
        raise Invalid
    return ranked[k][0]


@register("", "Str")
@_guard
def legend_spacing(ctx: Ctx) -> str:
    """``evenly spaced`` or ``significant gaps`` (definitions in the module constants)."""
    labelled = [_label_bounds(c.label) for c in ctx.scene.legend.classes]
    bounds = [(lo, hi) for lo, hi in labelled if lo is not None and hi is not None]
    if len(bounds) < len(labelled):
        raise Invalid
    widths = [hi - lo for lo, hi in bounds]
    gaps = [b[0] - a[1] for a, b in zip(bounds, bounds[1:])]
    span = bounds[-1][1] - bounds[0][0]
    if span <= 0:
        raise Invalid
    wmax, wmin = max(widths), min(widths)
    if wmax - wmin <= EVEN_WIDTH_TOL * wmax and max(gaps, default=0) <= EVEN_GAP_TOL * span:
        return "evenly spaced"
    if wmax >= UNEVEN_WIDTH_RATIO * wmin or max(gaps, default=0) >= UNEVEN_GAP * span:
        return "significant gaps"
    raise Invalid


# ---------------------------------------------------------------------------------------------- domains
# Functions used in ``from:`` of a parameter: they return candidate values (ordered; the engine samples).


@register("", "Regions")
def readable_regions(ctx: Ctx) -> list[str]:
    """Legible regions with a value (the default domain of Region parameters)."""
    return [c for c in ctx.scene.regions if c in ctx.legible and ctx.level[c] is not None]


@register("Regions", "Regions")
def readable(ctx: Ctx, regions: Iterable[str]) -> list[str]:
    """The legible, valued members of a set (sorted)."""
    return sorted(c for c in regions if c in ctx.legible and ctx.level[c] is not None)


@register("Regions Extreme", "Regions")
def by_level(ctx: Ctx, regions: Iterable[str], extreme: str) -> list[str]:
    """Legible, valued regions sorted by level, the given extreme first (domain helper for yes-answers)."""
    return _sorted_levels(ctx, readable(ctx, regions), extreme)


@register("Region", "Regions")
def by_border_difference(ctx: Ctx, region: str) -> list[str]:
    """Legible, valued neighbours of ``region``, the most different first (domain helper)."""
    x, known = ctx.level[region], _known(ctx)
    pool = readable(ctx, ctx.scene.regions[region].neighbors)
    return sorted(pool, key=lambda c: (-abs(known[c] - x), c)) if x is not None else pool


@register("", "Regions")
def regions_by_border_difference(ctx: Ctx) -> list[str]:
    """Legible, valued regions with neighbours, the one on the largest border difference first."""
    best: dict[str, float] = {}
    for a in readable_regions(ctx):
        la = _known(ctx)[a]  # readable
        diffs = [abs(la - lb) for b in ctx.scene.regions[a].neighbors if (lb := ctx.level[b]) is not None]
        if diffs:
            best[a] = max(diffs)
    return sorted(best, key=lambda c: (-best[c], c))


@register("Comparison Direction", "Regions", relative=True)
def local_candidates(ctx: Ctx, cmp: str, direction: str) -> list[str]:
    """Legible regions with neighbours, those higher/lower/similar to all neighbours first, in direction order."""
    pool = [c for c in readable_regions(ctx) if ctx.scene.regions[c].neighbors]
    key = {c: (0 if _vs_all_neighbors(ctx, c, cmp) else 1, -ctx.scene.direction_key(c, direction), c) for c in pool}
    return sorted(pool, key=key.__getitem__)


@register("", "Regions")
def with_neighbors(ctx: Ctx) -> list[str]:
    """Legible, valued regions that have at least one neighbour."""
    return [c for c in readable_regions(ctx) if ctx.scene.regions[c].neighbors]


@register("Number", "Numbers")
def numbers_above(ctx: Ctx, number: float) -> list[float]:
    """Legend numbers larger than ``number``."""
    return [v for v, _ in ctx.thresholds if v > number]


@register("", "Numbers")
def numbers_to_compare(ctx: Ctx) -> list[float]:
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
def by_outlyingness(ctx: Ctx, regions: Iterable[str]) -> list[str]:
    """Legible, valued members, the one furthest from the others' median level first (domain helper)."""
    pool = readable(ctx, regions)
    if len(pool) < 2:
        return pool
    known = _known(ctx)
    lv = sorted(known[c] for c in pool)
    med = lv[len(lv) // 2]
    return sorted(pool, key=lambda c: (-abs(known[c] - med), c))


@register("Regions", "LegendClasses")
def ranges_by_share(ctx: Ctx, regions: Iterable[str]) -> list[int]:
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
    return sorted(range(len(ctx.intervals)), key=lambda i: (-counts[i], i))


def call(ctx: Ctx, name: str, *args: Any) -> Any:
    """Call a library function by name."""
    return FUNCTIONS[name].fn(ctx, *args)
