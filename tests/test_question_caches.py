"""The question stage's shortcuts (issue 38) change no question: every built-in template instantiated on drawn
maps (pixel facts, illegible regions, contested borders) gives the same questions, in the same order, as the
plain path. The caches (the illegible-region copies kept per Reading, the whole-map direction orders of
``Scene.furthest``) change no refusal either, against a path where each illegible check re-runs on a copy built
from scratch and every direction ranking filters the map's order to the pool; declining a draw the answer quota
will not take before the illegible, contested and reading checks only stops counting it under those reasons."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from mapgen.caches import clear_all
from mapgen.data.curated import list_stats
from mapgen.questions import engine, instantiate, load_templates
from mapgen.render.api import get_canvas, scene_with_pixels
from mapgen.scene import CENTRE, Scene, build_scene
from mapgen.spec import make_spec

KINDS = ({"legend": "discrete"}, {"legend": "continuous"}, {"hatched": True})


def _drawn_scenes(country: str) -> list[Scene]:
    """Scenes with the pixel facts of their page, as the build's question stage has them."""
    out = []
    for kind in KINDS:
        spec = make_spec(country, list_stats(country)[0].id, classes=5, **kind)
        atlas = spec.load_atlas()
        out.append(scene_with_pixels(build_scene(spec, atlas), get_canvas(atlas, spec.style)))
    return out


def _questions(country: str) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Every template's questions on fresh drawn scenes of ``country``, and the draws refused by reason."""
    clear_all()  # fresh readings of every scene (mapgen.caches)
    before = Counter(engine.REFUSALS)
    out = [q.to_dict() for scene in _drawn_scenes(country) for t in load_templates()
           for q in instantiate(t, scene, 3, seed=7)]
    return out, engine.REFUSALS - before


def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    """The path without the caches: a fresh copy per illegible re-run, pools filtered from the map's order."""
    ranked = Scene._ranked

    def fresh(ctx: engine.Reading, codes: list[str], i: int) -> engine.Reading:
        return ctx.copy_with(codes, *engine._alternatives(ctx)[i])

    def filtered(self: Scene, pool: list[str], direction: str, drawn: bool, point: str = CENTRE,
                 whole: bool = False) -> list[str]:
        return ranked(self, pool, direction, drawn, point)

    monkeypatch.setattr(engine, "_alternative", fresh)
    monkeypatch.setattr(Scene, "_ranked", filtered)
    monkeypatch.setattr(Scene, "_all_drawn", lambda self: all(r.pixels for r in self.regions.values()))


@pytest.mark.parametrize("country", ["usa", "india"])
def test_cached_question_stage_asks_and_refuses_as_the_plain_path(country: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    cached, cached_refusals = _questions(country)
    with monkeypatch.context() as m:
        _plain(m)
        plain, plain_refusals = _questions(country)
    assert cached_refusals["illegible"] > 0  # the illegible check ran (else the test proves nothing)
    assert len(cached) > 100
    assert cached_refusals == plain_refusals
    assert [q["question_id"] for q in cached] == [q["question_id"] for q in plain]
    assert cached == plain


def test_declining_before_the_checks_asks_the_same_questions(monkeypatch: pytest.MonkeyPatch) -> None:
    early, early_refusals = _questions("usa")
    ask = engine.ask

    def checks_first(*args: Any, **kwargs: Any) -> Any:
        return ask(*args, **(kwargs | {"decline_first": False}))

    with monkeypatch.context() as m:
        m.setattr(engine, "ask", checks_first)
        late, late_refusals = _questions("usa")
    assert early == late
    assert early_refusals["illegible"] > 0
    assert late_refusals["illegible"] > early_refusals["illegible"]  # the early path skipped some checks
    assert all(late_refusals[k] >= v for k, v in early_refusals.items())
