"""``ranked_class(classes(), 'regions', E)`` (MAPWise T29 "Which range has the second highest number of states?") on hand-built scenes.

Counts are worked out by hand from the scene descriptions in test_questions_templates:
D1 classes 2-8 / 11-18 / 22-30 hold 41 / 6 / 4 states; D2 classes 50-90 / 120-180 / 250-320 hold 3 / 44 / 4.
T1 (below) has four classes holding 43 / 3 / 3 / 2 states: the second and third ranks tie.
"""

from __future__ import annotations

from functools import cache

import pytest
from test_questions_templates import D1_VALUES, _stat, hand_scene

from mapgen.questions.functions import FUNCTIONS, INVALID, reading
from mapgen.scene import build_scene
from mapgen.spec import make_spec

T1_VALUES = {"WA": 12, "OR": 14, "CA": 15, "NV": 22, "UT": 25, "AZ": 26, "TX": 35, "NM": 38}


@cache
def scene(name: str):
    if name == "T1":
        return build_scene(make_spec("usa", _stat(5, T1_VALUES), breaks=[10, 20, 30]))
    return hand_scene(name)


def by_count(ctx, extreme: str):
    """The class ranked ``extreme`` by its count of regions (template 29's program)."""
    return FUNCTIONS["ranked_class"].fn(ctx, FUNCTIONS["classes"].fn(ctx), "regions", extreme)


def class_by_count(name: str, extreme: str):
    return by_count(reading(scene(name)), extreme)


@pytest.mark.parametrize(("name", "extreme", "expected"), [
    ("D1", "highest", 0), ("D1", "second highest", 1), ("D1", "third highest", 2),
    ("D1", "lowest", 2), ("D1", "second lowest", 1), ("D1", "third lowest", 0),
    ("D2", "highest", 1), ("D2", "second highest", 2), ("D2", "third highest", 0),
    ("D2", "lowest", 0), ("D2", "second lowest", 2),
    ("T1", "highest", 0), ("T1", "lowest", 3),
])
def test_rank_by_count(name: str, extreme: str, expected: int) -> None:
    assert class_by_count(name, extreme) == expected


@pytest.mark.parametrize("extreme", ["second highest", "third highest", "second lowest"])
def test_tied_counts_are_invalid(extreme: str) -> None:
    assert class_by_count("T1", extreme) is INVALID


def test_counts_follow_the_data() -> None:
    """Moving three states from the largest class into the smallest swaps the second and third ranks of D1."""
    moved = dict(D1_VALUES, ID=29, MT=29, ND=29)  # class 22-30 now holds 7 states, 11-18 still 6
    s = build_scene(make_spec("usa", _stat(5, moved), breaks=[10, 20]))
    ctx = reading(s)
    assert by_count(ctx, "second highest") == 2
    assert by_count(ctx, "third highest") == 1
