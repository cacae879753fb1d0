"""The illegible check tries every unreadable region together first and the N/A alternative first (issue 38: a
hinge is found after a third fewer re-runs); its verdict cannot depend on the order, so every built-in template on
drawn maps asks the same questions and refuses the same draws as the order it had before (each region alone, then
all together; the legend's alternatives in order)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from mapgen.caches import clear_all
from mapgen.data.curated import list_stats
from mapgen.questions import engine, instantiate, load_templates
from mapgen.render.api import get_canvas, scene_with_pixels
from mapgen.scene import build_scene
from mapgen.spec import make_spec


def _questions(country: str) -> tuple[list[dict[str, Any]], Counter[str], int]:
    """Every template's questions on fresh drawn scenes, the draws refused by reason and the check's re-runs."""
    clear_all()
    runs = 0
    run_program = engine.run_program

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal runs
        runs += 1
        return run_program(*args, **kwargs)

    check = engine.hinges_on_illegible

    def check_counted(*args: Any, **kwargs: Any) -> bool:
        engine.run_program = counted
        try:
            return check(*args, **kwargs)
        finally:
            engine.run_program = run_program

    before = Counter(engine.REFUSALS)
    out = []
    engine.hinges_on_illegible = check_counted
    try:
        for kind in ({"legend": "discrete"}, {"legend": "continuous"}, {"hatched": True}):
            spec = make_spec(country, list_stats(country)[0].id, classes=5, **kind)
            atlas = spec.load_atlas()
            scene = scene_with_pixels(build_scene(spec, atlas), get_canvas(atlas, spec.style))
            out += [q.to_dict() for t in load_templates() for q in instantiate(t, scene, 3, seed=7)]
    finally:
        engine.hinges_on_illegible = check
    return out, engine.REFUSALS - before, runs


def _in_order(template: Any, ctx: Any, params: dict[str, Any], answer: Any) -> bool:
    """The check as it was: each unreadable region alone, then all together; alternatives in the legend's order."""
    if ctx.legible.issuperset(ctx.reads):
        return False
    unreadable = sorted(c for c in ctx.reads if c not in ctx.legible)
    if any(v in unreadable for v in params.values() if isinstance(v, str)):
        return True
    groups = [[code] for code in unreadable] + ([unreadable] if len(unreadable) > 1 else [])
    key = engine.answer_key(answer)
    for codes in groups:
        for i in range(len(engine._alternatives(ctx))):
            other, _ = engine.run_program(template, engine._alternative(ctx, codes, i), params)
            if other is engine.INVALID or engine.answer_key(other) != key:
                return True
    return False


def test_the_check_order_changes_no_question_and_no_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    likeliest, refusals, runs = _questions("usa")
    monkeypatch.setattr(engine, "hinges_on_illegible", _in_order)
    in_order, in_order_refusals, in_order_runs = _questions("usa")
    assert refusals["illegible"] > 0  # the check refused draws (else the test proves nothing)
    assert len(likeliest) > 100
    assert refusals == in_order_refusals
    assert likeliest == in_order
    assert runs < in_order_runs
