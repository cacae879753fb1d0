"""The reading margin rejects near-tolerance questions at generation, while a reader still answers them."""

from __future__ import annotations

from test_questions_templates import asked_or_none, hand_scene

from mapgen.questions import load_templates


def test_near_tolerance_comparison_is_not_generated_but_a_reader_answers_it() -> None:
    template = load_templates().get("region_comparison")
    scene = hand_scene("C1")  # continuous 0-100: tau = 5, margin = 1; TX 96 vs CA 100 differ by 4 > tau - 2m = 3
    params = {"X": "TX", "Y": "CA", "C": "similar"}
    assert asked_or_none(template, scene, params) is None
    answered = asked_or_none(template, scene, params, reader=True)
    assert answered is not None and answered.answer == "Yes"  # |4| <= tau
