"""Built-in templates re-expressed with generic steps answer exactly like their old single-template programs.

The old programs and the old functions they called (deleted from the package when the templates stopped calling
them) are kept here as the oracle. Every parameter draw the engine could make on hand-built and real scenes
(discrete, continuous, hatched, N/A; as generated and as a reader answers) is run through both programs: the
answers (INVALID included) must agree, and so must the regions each program read when it answers (what the
difficulty features and the illegible-region check see; a draw that is INVALID is dropped whatever it read).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import replace

import pytest
from test_questions_templates import hand_scene

from mapgen.data.curated import list_stats
from mapgen.legend import legend_spacing
from mapgen.questions import load_templates, register
from mapgen.questions.engine import answer_key, run_program, sample_params
from mapgen.questions.functions import (
    FUNCTIONS,
    INVALID,
    SINGLE_HUE_MAX_SPREAD,
    Invalid,
    Reading,
    hue_spread,
    label_bounds,
    reading,
)
from mapgen.questions.functions.common import all_valued, known, position
from mapgen.questions.functions.geography import _closest_pair_in
from mapgen.questions.functions.neighbours import _bordering, _max_border_pair
from mapgen.questions.templates import Template, parse_expr
from mapgen.scene import build_scene
from mapgen.spec import make_spec

DRAWS = 120

#: Each re-expressed template's program before (calling the oracle functions below, prefixed ``old_``).
OLD_PROGRAMS: dict[str, str] = {
    "region_vs_number": "old_versus_number(X, S, N)",  # now value_compare(value(X), S, N)
    "region_range": "range_of(X)",  # the old program's function, kept in the package as the shorthand
    "group_median_range": "old_median_range(members(R))",
    "group_median_in_range": "equals(old_median_range(members(R)), Y)",
    "range_border_relation": "old_border_relation(X, Rel, Y, N)",
    "group_border_relation": "old_group_border_relation(members(R), Rel, Y, N)",
    "range_closest_pair": "old_closest_pair_in_range(Y)",
    "range_closest_pair_in_group": "old_closest_pair_in_group_range(members(R), Y)",
    "group_all_same_range": "old_same_range(members(R))",
    "region_vs_group_median": "old_versus_median(X, S, members(R))",  # now value_compare(value(X), S, median(…))
    # the legend's classes as a set, ranked by a key: count(classes()), ranked_class(S, key, E), ranges_of(S)
    "legend_class_count": "old_num_classes()",
    "legend_widest_class": "old_widest_class('largest')",
    "range_with_extreme_count": "old_class_by_count(E)",
    "direction_extreme_category": "extreme_in_range(old_end_class(E), D)",
    # the extreme range of a group: the members' ranges ranked by legend order (extreme_class stays for packs)
    "group_extreme_range": "extreme_class(members(R), E)",
    # one generic step for the yes/no facts of the legend (legend_is) and one for its described facts (legend_trait)
    "legend_darkness_direction": "equals(old_darker_is_higher(), equals(P, 'directly'))",
    "legend_colour_kind": "equals(old_single_hue(), equals(K, 'different shades of the same colour'))",
    "map_percent_or_absolute": "equals(old_is_percent(), equals(K, 'percentages'))",
    "legend_kind": "old_legend_kind()",
    "legend_spacing": "old_legend_spacing()",
    # one variadic set constructor, regions(X, Y[, Z]), for the pair of template 33 and the trio of template 43
    "bordering_pair_max_difference": "old_is_max_border_pair(X, Y)",
    "group_ranking": "ranking(old_trio(X, Y, Z))",
}


# ------------------------------------------------------------------------------- the old functions (the oracle)


def old_versus_number(ctx: Reading, region: str, side: str, number: float) -> bool:
    return ctx.side(region, number) == (1 if side == "above" else -1)


def _median_level(ctx: Reading, regions: Iterable[str]) -> float:
    pool = all_valued(ctx, regions)
    if len(pool) < 3:
        raise Invalid
    lv = sorted(known(ctx)[c] for c in pool)
    n = len(lv)
    if n % 2:
        return lv[n // 2]
    a, b = lv[n // 2 - 1], lv[n // 2]
    if ctx.discrete and a != b:
        raise Invalid
    return (a + b) / 2


def old_versus_median(ctx: Reading, region: str, side: str, regions: Iterable[str]) -> bool:
    med = _median_level(ctx, regions)
    o = ctx.order_levels(ctx.lv(region), med)
    if o is None or o == 0:
        raise Invalid
    return o == (1 if side == "above" else -1)


def old_same_range(ctx: Reading, regions: Iterable[str]) -> bool:
    pool = list(regions)
    if len(pool) < 2 or any(ctx.lv(c) is None for c in pool):
        raise Invalid
    ranges = set()
    for c in pool:
        inside = [i for i in range(ctx.range_count) if ctx.in_range(c, i)]
        if len(inside) != 1:
            raise Invalid
        ranges.add(inside[0])
    return len(ranges) == 1


def old_median_range(ctx: Reading, regions: Iterable[str]) -> int:
    med = _median_level(ctx, regions)
    if ctx.discrete:
        return int(med)
    for i, (lo, hi) in enumerate(ctx.intervals):
        if lo + ctx.tolerance < med < hi - ctx.tolerance:
            return i
    raise Invalid


def _unique_border_relation(ctx: Reading, pool: Iterable[str], relation: str, other_idx: int, n: int) -> str:
    found = _bordering(ctx, pool, relation, other_idx, n)
    if len(found) != 1:
        raise Invalid
    return found[0]


def old_border_relation(ctx: Reading, pool_idx: int, relation: str, other_idx: int, n: int) -> str:
    pool = [c for c in ctx.scene.regions if ctx.in_range(c, pool_idx)]
    return _unique_border_relation(ctx, pool, relation, other_idx, n)


def old_group_border_relation(ctx: Reading, regions: Iterable[str], relation: str, other_idx: int, n: int) -> str:
    pool = sorted(regions)
    if len(pool) < 2 or any(ctx.lv(c) is None for c in pool):
        raise Invalid
    return _unique_border_relation(ctx, pool, relation, other_idx, n)


def old_closest_pair_in_range(ctx: Reading, idx: int) -> frozenset[str]:
    return _closest_pair_in(ctx, ctx.scene.regions, idx)


def old_closest_pair_in_group_range(ctx: Reading, regions: Iterable[str], idx: int) -> frozenset[str]:
    return _closest_pair_in(ctx, sorted(regions), idx)


def old_num_classes(ctx: Reading) -> int:
    return ctx.scene.legend_facts.num_classes


def old_widest_class(ctx: Reading, extreme: str) -> int:
    widths = []
    for c in ctx.scene.legend.classes:
        lo, hi = label_bounds(c.label)
        if lo is None or hi is None:
            raise Invalid
        widths.append((hi - lo, c.index))
    widths.sort(reverse=extreme.endswith("highest") or extreme == "largest")
    if len(widths) < 2 or math.isclose(widths[0][0], widths[1][0], rel_tol=1e-6):
        raise Invalid
    return widths[0][1]


def old_class_by_count(ctx: Reading, extreme: str) -> int:
    counts = {c.index: 0 for c in ctx.scene.legend.classes}
    for code in ctx.scene.regions:
        lv = ctx.lv(code)
        if lv is not None:
            counts[int(lv)] += 1
    ranked = sorted(counts.items(), key=lambda kv: kv[1], reverse=extreme.endswith("highest"))
    k = position(extreme)
    if len(ranked) < max(2, k + 1):
        raise Invalid
    tied = [ranked[j][1] for j in (k - 1, k + 1) if 0 <= j < len(ranked)]
    if ranked[k][1] in tied:
        raise Invalid
    return ranked[k][0]


def old_end_class(ctx: Reading, extreme: str) -> int:
    return ctx.range_count - 1 if extreme.endswith("highest") else 0


def old_darker_is_higher(ctx: Reading) -> bool:
    return ctx.scene.legend_facts.darkness_increases_with_value


def old_is_percent(ctx: Reading) -> bool:
    return ctx.scene.legend_facts.percent


def old_legend_kind(ctx: Reading) -> str:
    return ctx.scene.map_type


def old_single_hue(ctx: Reading) -> bool:
    legend = ctx.scene.legend
    colors = [c.color for c in legend.classes] if ctx.discrete else list(legend.colors)
    return hue_spread(colors) <= SINGLE_HUE_MAX_SPREAD


def old_legend_spacing(ctx: Reading) -> str:
    """The spacing verdict, from its one definition (mapgen.legend.spacing, which replaced the function's own)."""
    verdict = legend_spacing(ctx.scene.legend)
    if verdict is None:
        raise Invalid
    return verdict


def old_is_max_border_pair(ctx: Reading, a: str, b: str) -> bool:
    """Two regions, bordering as ``b`` among ``a``'s neighbours (the verdict itself is unchanged and shared)."""
    if b not in ctx.scene.regions[a].neighbors:
        raise Invalid
    return _max_border_pair(ctx, a, b)


def old_trio(ctx: Reading, a: str, b: str, c: str) -> frozenset[str]:
    return frozenset((a, b, c))


ORACLE = {
    old_is_max_border_pair: ("Region Region", "Bool", True),
    old_trio: ("Region Region Region", "Regions", False),
    old_versus_number: ("Region Choice Number", "Bool", False),
    old_median_range: ("Regions", "LegendClass", False),
    old_border_relation: ("LegendClass Relation LegendClass N", "Region", True),
    old_group_border_relation: ("Regions Relation LegendClass N", "Region", True),
    old_closest_pair_in_range: ("LegendClass", "Pair", False),
    old_closest_pair_in_group_range: ("Regions LegendClass", "Pair", False),
    old_versus_median: ("Region Comparison Regions", "Bool", False),
    old_same_range: ("Regions", "Bool", False),
    old_num_classes: ("", "Int", False),
    old_widest_class: ("Str", "LegendClass", False),
    old_class_by_count: ("Extreme", "LegendClass", False),
    old_end_class: ("Extreme", "LegendClass", False),
    old_darker_is_higher: ("", "Bool", False),
    old_is_percent: ("", "Bool", False),
    old_legend_kind: ("", "Str", False),
    old_single_hue: ("", "Bool", False),
    old_legend_spacing: ("", "Str", False),
}


@pytest.fixture(scope="module")
def old_templates() -> Iterator[dict[str, Template]]:
    """The shipped templates with their old programs, the oracle functions registered while the tests run."""
    for fn, (args, returns, relative) in ORACLE.items():
        register(args, returns, relative=relative)(fn)
    shipped = load_templates()
    try:
        yield {tid: replace(shipped.get(tid), _compiled={}, program=(("answer", parse_expr(call)),))
               for tid, call in OLD_PROGRAMS.items()}
    finally:
        for fn in ORACLE:
            FUNCTIONS.pop(fn.__name__, None)


def _scenes() -> list:
    scenes = [hand_scene(name) for name in ("D1", "D2", "N1", "C1", "C2")]
    for country in ("usa", "india", "china"):
        for info in list_stats(country)[:2]:
            for kind in ({"legend": "discrete"}, {"legend": "continuous"}, {"hatched": True}):
                scenes.append(build_scene(make_spec(country, info.id, classes=5, **kind)))
        for k in (3, 4, 7):  # legends of other sizes (the legend-class templates rank and count classes)
            scenes.append(build_scene(make_spec(country, list_stats(country)[2].id, classes=k)))
    return scenes


SCENES = _scenes()


def _outcome(template: Template, ctx: Reading, params: dict) -> tuple:
    """The answer and, when there is one, the regions read (an INVALID draw is dropped, whatever it read)."""
    answer, _ = run_program(template, ctx, dict(params))
    return ("INVALID", None) if answer is INVALID else (answer_key(answer), frozenset(ctx.reads))


def test_the_old_single_template_functions_are_gone() -> None:
    """Deleted from the package (only ``range_of``, the documented shorthand of ``range_containing(value(X))``,
    stays a library step, and ``closest_pair_in_range`` now takes the regions to look among)."""
    assert not {"versus_number", "median_range", "border_relation", "group_border_relation",
                "closest_pair_in_group_range", "same_range", "num_classes", "widest_class", "class_by_count",
                "end_class", "count_ranges", "versus_median", "darker_is_higher", "is_percent", "single_hue",
                "legend_kind", "legend_spacing", "trio"} & set(FUNCTIONS)
    assert FUNCTIONS["closest_pair_in_range"].args == ("Regions", "LegendClass")


@pytest.mark.parametrize("template_id", sorted(OLD_PROGRAMS))
def test_reexpressed_template_answers_like_the_old_program(template_id: str, old_templates) -> None:
    old = old_templates[template_id]
    shipped = load_templates().get(template_id)
    compared = answered = 0
    for scene in SCENES:
        if not shipped.applies_to(scene.map_type):
            continue
        rng = random.Random(f"reexpressed:{template_id}:{scene.map_id}")
        for reader in (False, True):
            ctx = reading(scene).as_reader() if reader else reading(scene)
            for _ in range(DRAWS):
                params = sample_params(shipped, ctx, rng)
                if params is None:
                    break
                want, got = _outcome(old, ctx, params), _outcome(shipped, ctx, params)
                assert got == want, f"{template_id} on {scene.map_id} {params}: {got} != {want}"
                compared += 1
                answered += want[0] != "INVALID"
    assert compared >= 500 and answered >= 100  # many draws, many of them asked
