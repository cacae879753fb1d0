"""The reading API: what a question function may ask of a map, with the reading-tolerance rule applied once.

Every function of the library (built-in or a pack's, see :func:`mapgen.questions.register`) receives a
:class:`Reading` of the Scene as its first argument and asks it for facts and decisions:

- **facts** — :meth:`~Reading.regions`, :meth:`~Reading.level_of` (legend class index on discrete maps, value on
  continuous maps; None for N/A), :meth:`~Reading.value_of`, :meth:`~Reading.is_legible`,
  :meth:`~Reading.neighbours`, :meth:`~Reading.group`, :attr:`~Reading.range_count`,
  :meth:`~Reading.range_bounds`, :meth:`~Reading.printed_bounds`, :attr:`~Reading.tau` (the perceptual
  tolerance τ), :attr:`~Reading.tolerance` (the reading tolerance r), and :meth:`~Reading.meaning`: the
  declared reading of a word or fact in force (:mod:`mapgen.questions.readings`; the engine re-asks under every
  other one the run consulted);
- **decisions** — :meth:`~Reading.compare`, :meth:`~Reading.side`, :meth:`~Reading.in_range`,
  :meth:`~Reading.estimate` (a value as an interval, :class:`Estimate`): they answer only when every reading of
  the values within the tolerance gives the same answer, and otherwise raise :class:`Invalid`, which the
  registering decorator turns into :data:`INVALID` (the engine then drops the question). A function built on
  them cannot answer a near tie;
- **maybe-decisions** — :meth:`~Reading.order`, :meth:`~Reading.relation`, :meth:`~Reading.order_levels`,
  :meth:`~Reading.similar_levels`: the same rule, returning None instead of raising (for functions that count
  the undecided cases); :meth:`~Reading.decide` turns their None into :class:`Invalid`.

The rule (also stated in ``templates/questions/mapwise.yaml``): a value read off a colour bar may be off by up to
the tolerance τ (5 % of the span, :attr:`Reading.tau`) plus a generation margin, together the *reading tolerance* r
(:attr:`Reading.tolerance`) in value units; a discrete map is read exactly, as classes (same class = equal). A
reader's copy (:meth:`Reading.as_reader`, r = 0) gives the exact answer on the values as given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from mapgen.legend import format_value, parse_label
from mapgen.questions.readings import default_of
from mapgen.scene import Scene

#: "similar" on continuous maps: values within this many tolerances τ of each other.
SIMILAR_TOLERANCES = 3.0
#: The declared reading of "similar" (axis ``similar``) under which neighbouring legend classes are similar.
ADJACENT_CLASSES = "same or adjacent class"
#: Comparison words and their sign (higher/above = 1, lower/below = -1, similar = 0).
SIGNS: dict[str, int] = {"higher": 1, "lower": -1, "similar": 0, "above": 1, "below": -1}


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


#: What a function returns when its question would be ambiguous, degenerate or unreadable.
INVALID = _Invalid()


class Invalid(Exception):
    """Raised by a decision of the reading API (or by a function) to return :data:`INVALID`."""


def sign(cmp: str) -> int:
    """The sign of a comparison word (``higher``/``above`` 1, ``lower``/``below`` -1, ``similar`` 0)."""
    return SIGNS[cmp]


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


@dataclass(frozen=True)
class Estimate:
    """A value as a reader can know it: somewhere in ``[lo, hi]`` (value units), truly ``value``.

    Continuous maps: the value ± r; discrete maps: the region's class as printed (``closed``: a value on a
    printed bound counts as inside); a reader's copy: the value itself. Arithmetic keeps the interval.
    ``range_index`` is the legend class a discrete map's reading shows (None on continuous maps and for the result
    of arithmetic): a class, not its interval, is what a discrete reader sees.
    """

    value: float
    lo: float
    hi: float
    closed: bool = False
    range_index: int | None = None

    @staticmethod
    def exactly(x: float) -> Estimate:
        """A number known exactly (a legend mark, a number N)."""
        return Estimate(x, x, x, closed=True)

    def plus(self, other: Estimate) -> Estimate:
        """The sum: each end moves with the ends of both."""
        return Estimate(self.value + other.value, self.lo + other.lo, self.hi + other.hi, self.closed and other.closed)

    def minus(self, other: Estimate) -> Estimate:
        """The difference ``self - other``."""
        return Estimate(self.value - other.value, self.lo - other.hi, self.hi - other.lo, self.closed and other.closed)

    def divided_by(self, other: Estimate) -> Estimate:
        """The ratio ``self / other``; Invalid when a reading of ``other`` could be 0."""
        if other.lo <= 0 <= other.hi:
            raise Invalid
        ends = [a / b for a in (self.lo, self.hi) for b in (other.lo, other.hi)]
        return Estimate(self.value / other.value, min(ends), max(ends), self.closed and other.closed)

    def magnitude(self) -> Estimate:
        """The absolute value (an interval straddling 0 starts at 0)."""
        if self.lo >= 0:
            return self
        if self.hi <= 0:
            return Estimate(-self.value, -self.hi, -self.lo, self.closed)
        return Estimate(abs(self.value), 0.0, max(-self.lo, self.hi), self.closed)

    @staticmethod
    def mean(estimates: list[Estimate]) -> Estimate:
        """The mean of several readings (each end the mean of the ends); Invalid for none."""
        if not estimates:
            raise Invalid
        n = len(estimates)
        shown = {e.range_index for e in estimates}
        return Estimate(sum(e.value for e in estimates) / n, sum(e.lo for e in estimates) / n,
                        sum(e.hi for e in estimates) / n, all(e.closed for e in estimates),
                        shown.pop() if len(shown) == 1 else None)

    def below(self, mark: float) -> bool:
        """Whether the value is below ``mark`` for every reading; raises :class:`Invalid` when undecided."""
        return not self.above(mark)

    def above(self, mark: float) -> bool:
        """Whether the value is above ``mark`` for every reading; raises :class:`Invalid` when undecided."""
        side = (self.value > mark) - (self.value < mark)
        eps = 1e-9 * max(1.0, abs(mark))
        if side > 0 and (self.lo >= mark - eps if self.closed else self.lo > mark):
            return True
        if side < 0 and (self.hi <= mark + eps if self.closed else self.hi < mark):
            return False
        raise Invalid


@dataclass
class Reading:
    """One Scene as question functions read it (build with :func:`mapgen.questions.reading`, cached per Scene).

    The fields are the facts in fast form (``level``/``value`` by region code, ``intervals`` of the legend
    ranges, ``thresholds`` = marks questions compare against); functions should ask through the methods, which
    record what was read (the engine re-checks answers that read an illegible region) and apply the tolerance.
    """

    scene: Scene
    discrete: bool
    level: dict[str, float | None]
    value: dict[str, float]
    legible: frozenset[str]
    tau: float  # the perceptual tolerance τ in value units (0 on a discrete map)
    groups: dict[str, frozenset[str]]
    group_kind: dict[str, str]
    group_centre: dict[str, str]  # "bordering <region>" group -> that region's code
    intervals: list[tuple[float, float]]  # value units: classes (discrete) / tick intervals (continuous)
    interval_labels: list[str]
    thresholds: list[tuple[float, str]]  # (value, display text)
    tolerance: float = 0.0  # the reading tolerance r in value units: τ + margin when generating, 0 for a reader
    exact: bool = False  # answering as a reader: the exact answer on the values given, no tolerance
    reads: set[str] = field(default_factory=set)
    cache: dict[Any, Any] = field(default_factory=dict)
    printed: list[tuple[float | None, float | None]] = field(default_factory=list)  # class ranges as printed
    borders: tuple[tuple[str, str], ...] = ()  # every bordering pair (a, b) with a < b, for scans of all borders
    sorted_neighbors: dict[str, tuple[str, ...]] = field(default_factory=dict)  # code -> neighbours in code order
    changed_from: tuple[Reading, frozenset[str]] | None = None  # copy_with: the reading copied, regions changed
    fixed: dict[str, Any] = field(default_factory=dict)  # facts of the scene that no level changes (shared by copies)
    #: Declared readings (:mod:`mapgen.questions.readings`): axis -> the reading taken (absent: mapgen's own),
    #: the axes a run consulted, and each group's alternative memberships (group -> name -> members).
    taken: dict[str, str] = field(default_factory=dict)
    consulted: set[str] = field(default_factory=set)
    group_readings: dict[str, dict[str, frozenset[str]]] = field(default_factory=dict)

    # ------------------------------------------------------------------------------------------ copies

    def copy_with(self, code: str | Iterable[str], level: float | None, value: float) -> Reading:
        """A copy where one region (or several) has another level/value (for the illegible-region test)."""
        lv, vv = dict(self.level), dict(self.value)
        for c in [code] if isinstance(code, str) else code:
            lv[c], vv[c] = level, value
        alt = object.__new__(type(self))  # a shallow copy without dataclasses.replace's re-validation (hot path)
        changed = frozenset([code] if isinstance(code, str) else code)
        base = self if self.changed_from is None else None  # a copy of a copy is computed from scratch
        alt.__dict__.update(self.__dict__, level=lv, value=vv, reads=set(), consulted=set(), cache={},
                            changed_from=(base, changed) if base is not None else None)
        return alt

    def with_values(self, values: dict[str, float]) -> Reading:
        """A reader's copy (no reading tolerance) where regions have other values, same classes on discrete
        maps (what the tolerance property test answers on)."""
        vv = dict(self.value) | values
        lv = dict(self.level) if self.discrete else {c: (None if math.isnan(v) else v) for c, v in vv.items()}
        return replace(self, level=lv, value=vv, tolerance=0.0, exact=True, reads=set(), cache={})

    def taking(self, choices: dict[str, str]) -> Reading:
        """A copy under other declared readings (axis -> reading name; kept per Reading in its cache, with a
        cache of its own)."""
        key = ("taking", tuple(sorted(choices.items())))
        hit = self.cache.get(key)
        if hit is None:
            hit = self.cache[key] = replace(self, taken=self.taken | choices, reads=set(), consulted=set(), cache={})
        hit.reads, hit.consulted = set(), set()
        return hit

    def as_reader(self) -> Reading:
        """A copy without the reading tolerance: the exact answer on the values as given, instead of rejecting
        near ties (the pixel oracle answers this way; generation keeps the tolerance)."""
        return replace(self, tolerance=0.0, exact=True, reads=set(), cache={})

    # ------------------------------------------------------------------------------------------ facts

    @property
    def margin(self) -> float:
        """The generation-time safety margin in force (value units; 0 for a reader or a discrete map)."""
        return max(0.0, self.tolerance - self.tau)

    @property
    def range_count(self) -> int:
        """Number of legend ranges: classes (discrete) or tick intervals (continuous)."""
        return len(self.intervals)

    def lv(self, code: str) -> float | None:
        """Level of a region (records the read); None when missing."""
        self.reads.add(code)
        return self.level[code]

    level_of = lv

    def value_of(self, code: str) -> float:
        """A region's value in value units (records the read; NaN when missing). On a discrete map a reader
        sees only its class: decide with :meth:`side`, :meth:`in_range` or :meth:`estimate`, not this."""
        self.reads.add(code)
        return self.value[code]

    def is_legible(self, code: str) -> bool:
        """Whether the region is drawn large enough to read."""
        return code in self.legible

    def regions(self) -> list[str]:
        """Every region code of the map, in the scene's order."""
        return list(self.scene.regions)

    def neighbours(self, code: str) -> tuple[str, ...]:
        """The regions sharing a land border with ``code``, in code order."""
        return self.sorted_neighbors[code]

    def group(self, name: str) -> frozenset[str]:
        """Members of a named group (curated, ``bordering <country>`` or ``bordering <region>``); a group with
        declared alternative memberships is a consulted reading (``group:<name>``)."""
        alts = self.group_readings.get(name)
        if alts is None:
            return self.groups[name]
        key = f"group:{name}"
        self.consulted.add(key)
        chosen = self.taken.get(key)
        return self.groups[name] if chosen is None else alts[chosen] & frozenset(self.level)

    def meaning(self, axis: str) -> str:
        """The reading of declared axis ``axis`` in force (:mod:`mapgen.questions.readings`; mapgen's own unless
        the engine is re-asking under another), recording that the run consulted it."""
        self.consulted.add(axis)
        chosen = self.taken.get(axis)
        return chosen if chosen is not None else default_of(axis)

    def depicts_percent(self) -> bool:
        """Whether the map depicts percentages: the table's kind; when its printed title says otherwise ("%" in
        an absolute table's title, or none in a percent table's), a consulted reading (``percent``)."""
        kind = bool(self.scene.legend_facts.percent)
        shown = "%" in (self.scene.title or "")
        if kind == shown:
            return kind
        return shown if self.meaning("percent") != default_of("percent") else kind

    def range_bounds(self, idx: int) -> tuple[float, float]:
        """Value-unit ends of legend range ``idx`` (class bounds / the two ticks)."""
        return self.intervals[idx]

    def printed_bounds(self, idx: int) -> tuple[float | None, float | None]:
        """Ends of discrete class ``idx`` as its label prints them (display units; None when unprinted)."""
        return self.printed[idx] if self.printed else (None, None)

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

    # ------------------------------------------------------------------------------------------ maybe-decisions

    def order(self, a: str, b: str) -> int | None:
        """1 if a is higher than b, -1 if lower, 0 if equal as shown (same class on a discrete map), None if not
        decidable (missing, or closer than 2r on a continuous map)."""
        return self.order_levels(self.lv(a), self.lv(b))

    def order_levels(self, la: float | None, lb: float | None, reads: int = 2) -> int | None:
        """:meth:`order` on levels; ``reads`` is how many misreadings the difference can carry (2: two values)."""
        if la is None or lb is None:
            return None
        d = la - lb
        if self.discrete or self.exact:
            return (d > 0) - (d < 0)
        if abs(d) > reads * self.tolerance:
            return 1 if d > 0 else -1
        return None

    def similar_levels(self, la: float | None, lb: float | None, reads: int = 2) -> bool | None:
        """Whether two levels are similar (same class / within SIMILAR_TOLERANCES τ); None when a reading within
        the tolerance could say either."""
        if la is None or lb is None:
            return None
        if self.discrete:
            if abs(la - lb) == 1 and self.meaning("similar") == ADJACENT_CLASSES:
                return True
            return la == lb
        d, bound, slack = abs(la - lb), SIMILAR_TOLERANCES * self.tau, reads * self.tolerance
        if d <= bound - slack:
            return True
        if d > bound + slack:
            return False
        return None

    def relation(self, a: str, cmp: str, b: str) -> bool | None:
        """Whether ``a`` is higher / lower / similar compared with ``b``; None when not decidable."""
        reads, level = self.reads, self.level
        reads.add(a)
        reads.add(b)
        la, lb = level[a], level[b]
        if cmp == "similar":
            return self.similar_levels(la, lb)
        o = self.order_levels(la, lb)
        if o is None or (o == 0 and not self.discrete):
            return None  # unreadable, or two equal values on a continuous map
        return o == SIGNS[cmp]

    @staticmethod
    def decide(verdict: Any) -> Any:
        """``verdict`` unless it is None (undecided), which raises :class:`Invalid`."""
        if verdict is None:
            raise Invalid
        return verdict

    # ------------------------------------------------------------------------------------------ decisions

    def compare(self, a: str, cmp: str, b: str) -> bool:
        """Whether ``a`` is higher / lower / similar compared with ``b`` (:class:`Invalid` when undecided)."""
        return self.decide(self.relation(a, cmp, b))

    def side(self, code: str, mark: float) -> int:
        """1 above, -1 below a number (value units); raises Invalid when missing or not readable: on a continuous
        map within r of the mark, on a discrete map when the class's printed range does not lie on one side."""
        self.reads.add(code)
        lv = self.level[code]
        if lv is None:
            raise Invalid
        return self._side(code, lv, mark)

    def _side(self, code: str, lv: float, mark: float) -> int:
        """:meth:`side` of a region already read, with level ``lv``."""
        v = self.value[code]
        side = (v > mark) - (v < mark)
        if side == 0:
            raise Invalid
        if self.exact:
            return side
        if self.discrete:  # printed ranges are in display units (label_scale: percent labels over fractions)
            lo, hi = self.printed[int(lv)] if self.printed else (None, None)
            shown = mark * (self.scene.legend.label_scale or 1.0)
            eps = 1e-9 * max(1.0, abs(shown))
            if side > 0 and lo is not None and lo >= shown - eps or side < 0 and hi is not None and hi <= shown + eps:
                return side
            raise Invalid
        if abs(v - mark) <= self.tolerance:
            raise Invalid
        return side

    def in_range(self, code: str, idx: int) -> bool:
        """Whether a region's value is in range ``idx`` (class or tick interval); False when missing, Invalid
        when a reading could put it on either side of an end."""
        self.reads.add(code)
        lv = self.level[code]
        if lv is None:
            return False
        if self.discrete:
            return int(lv) == idx
        lo, hi = self.intervals[idx]
        return self._side(code, lv, lo) > 0 and self._side(code, lv, hi) < 0

    def estimate(self, code: str) -> Estimate:
        """A region's value as an interval a reader can be sure of (:class:`Estimate`; an end its class label
        does not print is infinite); Invalid when missing."""
        lv = self.lv(code)
        if lv is None:
            raise Invalid
        v = self.value[code]
        shown = int(lv) if self.discrete else None
        if self.exact:
            return Estimate(v, v, v, range_index=shown)
        if shown is None:
            return Estimate(v, v - self.tolerance, v + self.tolerance)
        lo, hi = self.printed_bounds(shown)
        scale = self.scene.legend.label_scale or 1.0
        low, high = -math.inf if lo is None else lo / scale, math.inf if hi is None else hi / scale
        return Estimate(v, low, high, closed=True, range_index=shown)
