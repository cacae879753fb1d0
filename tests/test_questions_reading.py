"""The reading API: a pack-style function registered through the public decorator, written without any
tolerance check of its own, returns INVALID where the answer is undefined within the reading tolerance.

Scenes of test_questions_templates: C1 is continuous 0-100 (tau = 5, reading tolerance r = 6); D1 is discrete,
classes 2-8 / 11-18 / 22-30.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest
from test_questions_templates import hand_scene

from mapgen.questions import FUNCTIONS, INVALID, register
from mapgen.questions.functions import reading
from mapgen.questions.reading import Invalid, Reading


@pytest.fixture
def pack_functions() -> Iterator[None]:
    """Two functions as a pack's functions.py would write them (unregistered again afterwards)."""

    @register("Region Region", "Bool", name="pack_higher")
    def pack_higher(scene: Reading, a: str, b: str) -> bool:
        """Whether a's value is higher than b's."""
        return scene.compare(a, "higher", b)

    @register("Region Number", "Bool", name="pack_above")
    def pack_above(scene: Reading, region: str, mark: float) -> bool:
        """Whether the region's value is above a number."""
        return scene.side(region, mark) > 0

    yield
    for name in ("pack_higher", "pack_above"):
        FUNCTIONS.pop(name)


def run(name: str, scene: str, *args, reader: bool = False):
    ctx = reading(hand_scene(scene))
    return FUNCTIONS[name].fn(ctx.as_reader() if reader else ctx, *args)


def test_a_pack_function_is_invalid_within_the_tolerance(pack_functions: None) -> None:
    assert FUNCTIONS["pack_higher"].args == ("Region", "Region") and FUNCTIONS["pack_higher"].returns == "Bool"
    assert run("pack_higher", "C1", "CO", "NV") is True  # 90 vs 52
    assert run("pack_higher", "C1", "NV", "CO") is False
    assert run("pack_higher", "C1", "NM", "AZ") is INVALID  # 72 vs 70: within 2r
    assert run("pack_higher", "C1", "TX", "CO") is INVALID  # 96 vs 90: 6 apart, still within 2r = 12
    assert run("pack_higher", "C1", "TX", "CO", reader=True) is True  # a reader's copy answers exactly
    assert run("pack_higher", "D1", "NM", "AZ") is False  # one class: equal as shown
    assert run("pack_above", "C1", "NV", 50.0) is INVALID  # 52 within r of 50
    assert run("pack_above", "C1", "NV", 40.0) is True
    assert run("pack_above", "D1", "NV", 15.0) is INVALID  # 15 inside NV's printed class 11-18
    assert run("pack_above", "D1", "CA", 20.0) is True  # 22-30 wholly above 20


def test_a_pack_function_records_what_it_read(pack_functions: None) -> None:
    ctx = reading(hand_scene("C1"))
    ctx.reads = set()
    FUNCTIONS["pack_higher"].fn(ctx, "CO", "NV")
    assert ctx.reads == {"CO", "NV"}  # the engine re-checks answers that read an illegible region


def test_reading_facts() -> None:
    c1, d1 = reading(hand_scene("C1")), reading(hand_scene("D1"))
    assert c1.tau == 5.0 and c1.tolerance == pytest.approx(6.0) and d1.tau == 0.0
    assert c1.range_count == 5 and c1.range_bounds(2) == (40.0, 60.0)
    assert d1.printed_bounds(1) == (11.0, 18.0) and d1.level_of("NV") == 1.0 and c1.value_of("NV") == 52.0
    assert c1.neighbours("WA") == ("ID", "OR") and "WA" in c1.group("West Coast")
    assert c1.is_legible("CO") and len(c1.regions()) == 51
    assert Reading.decide(True) is True
    with pytest.raises(Invalid):
        Reading.decide(None)


def test_the_decorator_docstring_example_runs() -> None:
    doc = register.__doc__ or ""
    code = doc.split("A complete pack function (in a pack's ``functions.py``)::", 1)[1].split("and a template", 1)[0]
    namespace: dict = {"__name__": "pack_example"}
    exec(compile(textwrap.dedent(code), "pack_example", "exec"), namespace)
    try:
        assert run("differ_by_at_least", "C1", "CO", "NV", 20.0) is True  # 90 - 52 = 38, +- 12
        assert run("differ_by_at_least", "C1", "CO", "NV", 40.0) is INVALID  # 38 +- 12 straddles 40
        assert run("differ_by_at_least", "D1", "CA", "NV", 2.0) is True  # 22-30 against 11-18: at least 4 apart
    finally:
        FUNCTIONS.pop("differ_by_at_least")


def test_a_taken_name_cannot_be_registered_again() -> None:
    with pytest.raises(ValueError, match="already registered"):
        @register("Region", "Bool", name="compare")
        def mine(scene: Reading, a: str) -> bool:
            return True
    assert FUNCTIONS["compare"].args == ("Region", "Comparison", "Region")
