"""The two forms MAPWise's released questions ask that the engine lacked: template 20 with a quantifier
("... compared to at least N of its neighbours") and template 9 with a number ("Does X fall in range above 20%?").

Grid G (4 x 4 one-degree cells from ``helpers.write_grid``; row A south, column 1 west; rook adjacency, no
corner contacts), classes by breaks 10/20 (values 5 / 15 / 25 -> classes 0 / 1 / 2)::

        1  2  3  4
    D   2  2  0  1
    C   0  2  1  1
    B   0  0  1  0
    A   1  0  0  2
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache
from pathlib import Path

import pandas as pd
import pytest
from helpers import write_grid

from mapgen import load_atlas
from mapgen.data.statistic import StatInfo, Statistic
from mapgen.legend.classify import DiscreteOptions, discrete_legend
from mapgen.questions import Unaskable, load_templates
from mapgen.questions import ask as ask_question
from mapgen.questions.functions import FUNCTIONS, reading, round_inside
from mapgen.scene import Scene, build_scene
from mapgen.spec import make_spec

CLASSES = {"D": "2201", "C": "0211", "B": "0010", "A": "1002"}
VALUE = {"0": 5.0, "1": 15.0, "2": 25.0}


@cache
def grid_atlas(folder: str):
    geo, _ = write_grid(Path(folder), n=4)
    return load_atlas(geo)


@pytest.fixture(scope="module")
def atlas(tmp_path_factory: pytest.TempPathFactory):
    return grid_atlas(str(tmp_path_factory.mktemp("grid")))


def grid_scene(atlas, missing: tuple[str, ...] = ()) -> Scene:
    values = {f"C{row}{col + 1}": VALUE[k] for row, ks in CLASSES.items() for col, k in enumerate(ks)}
    values |= {code: math.nan for code in missing}
    stat = Statistic(values=pd.Series(values, dtype=float),
                     info=StatInfo(id="hand", country="grid", title="Hand", unit="", kind="absolute"))
    return build_scene(make_spec(atlas, stat, breaks=[10, 20]))


def answer(template: str, scene: Scene, **params) -> str | None:
    try:
        return ask_question(load_templates().get(template), scene, params).answer
    except Unaskable:
        return None


def test_grid_classes_are_as_drawn_above(atlas) -> None:
    scene = grid_scene(atlas)
    assert scene.regions["CC2"].class_index == 2 and scene.regions["CB4"].class_index == 0
    assert sorted(scene.regions["CC2"].neighbors) == ["CB2", "CC1", "CC3", "CD2"]


def test_at_least_n_neighbours_on_the_grid(atlas) -> None:
    scene = grid_scene(atlas)
    t = "direction_local_extreme_count"
    # column 1: D1 (same class as D2 only), C1 (B1 only), A1 (none) fail; B1 shares class 0 with C1 and B2
    assert answer(t, scene, C="similar", D="west", N=2) == "Cell B1"
    # at least 1: D1, C1 and B1 all qualify at the same longitude -> a tie, not asked
    assert answer(t, scene, C="similar", D="west", N=1) is None
    # row D: every cell is higher than at most one neighbour; C2 (class 2) is higher than C1, C3 and B2
    assert answer(t, scene, C="higher", D="north", N=2) == "Cell C2"
    assert answer(t, scene, C="higher", D="north", N=4) is None  # no cell is higher than 4 neighbours
    # lower than >= 3: B4 (class 0 under B3 1, A4 2, C4 1) is south of D3 (under D2, D4, C3)
    assert answer(t, scene, C="lower", D="south", N=3) == "Cell B4"


def test_a_neighbour_without_data_never_counts(atlas) -> None:
    """B3 missing: B4 is lower than only A4 and C4, so the south-most cell lower than 3 neighbours is D3."""
    scene = grid_scene(atlas, missing=("CB3",))
    assert answer("direction_local_extreme_count", scene, C="lower", D="south", N=3) == "Cell D3"


def test_the_quantifier_is_not_the_all_neighbours_template(atlas) -> None:
    """C2 is higher than 3 of its 4 neighbours (D2 is in its class): "at least 3" names it, "all" does not."""
    scene = grid_scene(atlas)
    assert answer("direction_local_extreme_count", scene, C="higher", D="north", N=3) == "Cell C2"
    assert answer("direction_local_extreme", scene, C="higher", D="north") != "Cell C2"


def test_region_against_a_number_on_the_grid(atlas) -> None:
    scene = grid_scene(atlas)  # classes as printed: 5-5, 15-15, 25-25 (every value of a class is equal)
    t = "region_vs_number"
    assert answer(t, scene, X="CD1", S="above", N=20.0) == "Yes"
    assert answer(t, scene, X="CD1", S="below", N=20.0) == "No"
    assert answer(t, scene, X="CA2", S="above", N=10.0) == "No"
    assert answer(t, scene, X="CA1", S="below", N=15.0) is None  # equal to the value: neither above nor below


def test_numbers_to_compare_are_the_marks_and_one_round_number_inside_each_class(atlas) -> None:
    ctx = reading(grid_scene(atlas))
    assert [lab for _, lab in ctx.thresholds] == ["10", "20"]
    # classes print as single values (5, 15, 25): nothing lies strictly inside them
    assert FUNCTIONS["numbers_to_compare"].fn(ctx) == [10.0, 20.0]
    assert round_inside(19.7, 26.7) == 20.0  # MAPWise's "above 20%" on a 19.7%-26.7% class
    assert round_inside(10.2, 13.6) == 12.0
    assert round_inside(161, 390) == 200.0
    assert round_inside(-3.2, 3.6) == 0.0
    assert round_inside(5, 5) is None


PERCENT_VALUES = {"WA": 0.02, "UT": 0.08, "NV": 0.12, "OR": 0.15, "TX": 0.22, "CA": 0.25}


def percent_scene() -> Scene:
    """USA, values as fractions printed as percents (MAPWise's USA maps): every state 0.05 (5%) but WA 0.02, UT
    0.08, NV 0.12, OR 0.15, TX 0.22, CA 0.25; breaks 10% / 20% -> classes printed 2%-8%, 12%-15%, 22%-25%."""
    codes = load_atlas("usa").codes
    vals = pd.Series({c: PERCENT_VALUES.get(c, 0.05) for c in codes}, dtype=float)
    stat = Statistic(values=vals, info=StatInfo(id="hand", country="usa", title="Hand", unit="%", kind="absolute"))
    spec = make_spec("usa", stat, breaks=[0.10, 0.20])
    legend = discrete_legend(vals, DiscreteOptions(breaks=[0.10, 0.20], percent=True, label_scale=100))
    return build_scene(replace(spec, legend=legend))


def test_numbers_are_read_against_classes_printed_in_percent() -> None:
    """Printed ranges are in display units (22%-25%), numbers in value units (0.23): a number inside a class is
    never answered for its regions (the bug: 22 >= 0.23 passed, so Texas read as above 23%)."""
    scene = percent_scene()
    assert [c.label for c in scene.legend.classes] == ["2%-8%", "12%-15%", "22%-25%"]
    t = "region_vs_number"
    assert answer(t, scene, X="TX", S="above", N=0.23) is None  # 23% lies inside Texas's class 22%-25%
    assert answer(t, scene, X="OR", S="below", N=0.20) == "Yes"  # 12%-15% wholly below 20%
    assert answer(t, scene, X="OR", S="below", N=0.13) is None  # 13% inside Oregon's class
    assert answer(t, scene, X="CA", S="above", N=0.20) == "Yes"
    assert answer(t, scene, X="OR", S="above", N=0.10) == "Yes"
    q = ask_question(load_templates().get(t), scene, {"X": "OR", "S": "below", "N": 0.20})
    assert q.question == "Does Oregon have a value below 20%?"
