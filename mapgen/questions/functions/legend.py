"""The legend: its classes as a set, a region's range, ranking classes by a key, colours, printed widths, spacing."""

from __future__ import annotations

import colorsys
import math
from collections.abc import Callable, Iterable

from mapgen.legend import PrintedNumber, printed_numbers, relative_luminance
from mapgen.questions.functions.arithmetic import as_value
from mapgen.questions.functions.common import position
from mapgen.questions.functions.registry import register
from mapgen.questions.functions.scene_facts import label_bounds, printed_range
from mapgen.questions.reading import Estimate, Invalid, Reading

#: Hue spread (degrees) under which a legend counts as "shades of the same colour".
SINGLE_HUE_MAX_SPREAD = 40.0
#: Colours less saturated than this are greys and carry no hue.
GREY_SATURATION = 0.12


@register("Region", "LegendClass")
def range_of(ctx: Reading, region: str) -> int:
    """The legend range of a region (class; tick interval on continuous maps, readable by τ): the shorthand of
    ``range_containing(value(region))``."""
    if ctx.lv(region) is None:
        raise Invalid
    for i in range(ctx.range_count):
        if ctx.in_range(region, i):
            return i
    raise Invalid


@register("Value", "LegendClass")
def range_containing(ctx: Reading, x: Estimate) -> int:
    """The legend range holding a Value for every reading: the class a discrete map shows it in; on a continuous
    map the tick interval it lies inside, clear of both ticks (INVALID when a reading could cross one)."""
    x = as_value(x)
    if ctx.discrete:
        if x.range_index is None:
            raise Invalid  # arithmetic on class readings shows no class
        return x.range_index
    for i in range(ctx.range_count):
        lo, hi = ctx.range_bounds(i)
        if x.above(lo) and x.below(hi):
            return i
    raise Invalid


def _legend_colors(ctx: Reading) -> list[str]:
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


@register("Shade", "LegendClass")
def class_by_shade(ctx: Reading, shade: str) -> int:
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


@register("", "Range")
def legend_span(ctx: Reading) -> tuple[str, list[float | None]]:
    """Overall range: the first class's lower to the last class's upper number (continuous: first to last tick),
    written as the legend prints them and joined as its labels join two numbers (``-3.20 to 18.37``)."""
    legend = ctx.scene.legend
    if ctx.discrete:
        lo, hi = _printed_end(legend.classes[0].label, 0), _printed_end(legend.classes[-1].label, 1)
        return printed_range(ctx.scene, lo.text, hi.text), [lo.value, hi.value]
    labels = legend.tick_labels
    if len(labels) < 2:
        raise Invalid
    scale = legend.label_scale or 1.0
    return printed_range(ctx.scene, labels[0], labels[-1]), [legend.vmin * scale, legend.vmax * scale]


def _printed_end(label: str, end: int) -> PrintedNumber:
    """The lower (``end`` 0) or upper (1) number a class label prints; INVALID for an open end or no number."""
    try:
        number = printed_numbers(label)[end]
    except ValueError:
        raise Invalid from None
    if number is None:
        raise Invalid
    return number


def _spacing(ctx: Reading) -> str:
    """``evenly spaced`` or ``significant gaps`` (:func:`mapgen.legend.legend_spacing`; INVALID in between)."""
    verdict = ctx.scene.legend_facts.spacing
    if verdict is None:
        raise Invalid
    return verdict


def _single_hue(ctx: Reading) -> bool:
    """Whether the legend uses shades of one colour (hue spread <= SINGLE_HUE_MAX_SPREAD degrees)."""
    if "single_hue" not in ctx.cache:
        ctx.cache["single_hue"] = hue_spread(_legend_colors(ctx)) <= SINGLE_HUE_MAX_SPREAD
    return ctx.cache["single_hue"]


#: The yes/no facts of the whole legend :func:`legend_is` answers (the ``LegendFlag`` values).
LEGEND_FLAGS: dict[str, Callable[[Reading], bool]] = {
    "darker_is_higher": lambda ctx: ctx.scene.legend_facts.darkness_increases_with_value,
    "single_hue": _single_hue,
    "percent": lambda ctx: ctx.depicts_percent(),  # a declared reading when the title shows otherwise
}


@register("LegendFlag", "Bool")
def legend_is(ctx: Reading, flag: str) -> bool:
    """A yes/no fact of the whole legend: ``darker_is_higher`` (darker colours mean higher values),
    ``single_hue`` (shades of one colour: hue spread <= SINGLE_HUE_MAX_SPREAD degrees), ``percent`` (the map
    shows percentages)."""
    return LEGEND_FLAGS[flag](ctx)


#: The described facts of the whole legend :func:`legend_trait` answers (the ``LegendTrait`` values).
LEGEND_TRAITS: dict[str, Callable[[Reading], str]] = {
    "kind": lambda ctx: ctx.scene.map_type,
    "spacing": _spacing,
}


@register("LegendTrait", "Str")
def legend_trait(ctx: Reading, trait: str) -> str:
    """A described fact of the whole legend: ``kind`` (``discrete`` or ``continuous``), ``spacing``
    (``evenly spaced`` or ``significant gaps``, defined in :mod:`mapgen.legend.spacing`; INVALID in between)."""
    return LEGEND_TRAITS[trait](ctx)


@register("", "LegendClasses")
def classes(ctx: Reading) -> tuple[int, ...]:
    """The legend's ranges, lowest first: its classes (discrete; without N/A) or tick intervals (continuous)."""
    return tuple(range(ctx.range_count))


@register("Regions", "LegendClasses")
def ranges_of(ctx: Reading, regions: Iterable[str]) -> tuple[int, ...]:
    """The legend ranges the members with data lie in, lowest first (members without data are in none; a member
    a reading could put in two ranges — near a tick — is INVALID)."""
    found = set()
    count = ctx.range_count
    for c in regions:
        lv = ctx.lv(c)
        if lv is None:
            continue
        if ctx.discrete:  # a class index is its range (what in_range tests, one range at a time)
            inside = [int(lv)] if 0 <= int(lv) < count else []
        else:
            inside = [i for i in range(count) if ctx.in_range(c, i)]
        if len(inside) != 1:
            raise Invalid
        found.add(inside[0])
    return tuple(sorted(found))


def _width(ctx: Reading) -> Callable[[int], float]:
    """A range's width as the legend prints it (a class label's bounds; continuous: the tick interval)."""
    def width(idx: int) -> float:
        if not ctx.discrete:
            start, end = ctx.range_bounds(idx)
            return end - start
        lo, hi = label_bounds(ctx.scene.legend.classes[idx].label)
        if lo is None or hi is None:
            raise Invalid
        return hi - lo
    return width


def _members(ctx: Reading) -> Callable[[int], float]:
    """How many regions a range holds (every region is read; one a reading could move across a tick: INVALID)."""
    counts = [0] * ctx.range_count
    for code in ctx.scene.regions:
        for i in range(ctx.range_count):
            counts[i] += ctx.in_range(code, i)
    return counts.__getitem__


#: The keys :func:`ranked_class` ranks legend ranges by.
CLASS_KEYS: dict[str, Callable[[Reading], Callable[[int], float]]] = {
    "level": lambda ctx: float,
    "width": _width,
    "regions": _members,
}


@register("LegendClasses ClassKey Extreme", "LegendClass")
def ranked_class(ctx: Reading, ranges: Iterable[int], key: str, extreme: str) -> int:
    """The range ranked highest / lowest / second … by ``key`` (``level``: the legend order, ``width``: as
    printed, ``regions``: how many regions it holds) among ``ranges``; its key must differ from those ranked just
    before and after it (a tie is INVALID), and there must be at least two ranges."""
    of = CLASS_KEYS[key](ctx)
    ranked = sorted(((of(i), i) for i in ranges), key=lambda kv: kv[0], reverse=extreme.endswith("highest"))
    k = position(extreme)
    if len(ranked) < max(2, k + 1):
        raise Invalid
    if any(math.isclose(ranked[j][0], ranked[k][0], rel_tol=1e-6) for j in (k - 1, k + 1) if 0 <= j < len(ranked)):
        raise Invalid
    return ranked[k][1]
