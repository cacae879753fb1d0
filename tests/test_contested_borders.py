"""Contested borders: pairs on which the border graph and the published list disagree are marked, and no
question whose answer hinges on one is asked (docs/atlases-and-data.md "Border graph audit")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mapgen.data.synthetic import synthesize
from mapgen.geo.atlas import load_atlas
from mapgen.geo.border_audit import audit, load_published
from mapgen.questions import contested_hinges, generate_questions, load_templates
from mapgen.scene import build_scene
from mapgen.spec import make_spec

CONTESTED = {
    "usa": {("AZ", "CO"), ("IL", "MI"), ("MI", "MN"), ("NM", "UT"), ("NY", "RI")},
    "india": {("HP", "UP"), ("HR", "UK")},
    "china": set(),
}


def _pairs(pairs) -> set[tuple[str, ...]]:
    return {tuple(sorted(p)) for p in pairs}


@pytest.mark.parametrize("country", sorted(CONTESTED))
def test_contested_pairs_are_the_published_lists_disagreements(country: str) -> None:
    atlas, published, result = load_atlas(country), load_published(country), audit(country)
    assert _pairs(atlas.contested) == CONTESTED[country]
    assert atlas.contested == result.contested
    assert atlas.contested == frozenset(result.disagreements) | frozenset(published.unsure)
    assert not any(atlas.graph.has_edge(*p) for p in atlas.contested)  # none is a border of the graph


def test_uttar_pradesh_and_himachal_pradesh_are_contested_everywhere() -> None:
    india = load_atlas("india")
    assert india.contested_with("Uttar Pradesh") == {"HP"}
    assert "HP" not in india.neighbors("UP")
    assert india.region_record("Himachal Pradesh")["contested"] == ["UP"]
    assert frozenset(("HP", "UP")) in load_atlas("india-mapwise").contested
    assert _pairs(india.without(["UK"]).contested) == {("HP", "UP")}


def _india_scenes():
    atlas = load_atlas("india")
    for seed in range(3):
        stat = synthesize(atlas, seed=seed)
        for legend in ("discrete", "continuous"):
            yield build_scene(make_spec(atlas, stat, legend=legend, map_id=f"in{seed}{legend[0]}"))


def _hinges(question, scene, templates) -> bool:
    """Whether the question's answer changes with Himachal Pradesh-Uttar Pradesh counted as a border."""
    template = templates[question.template_id]
    params = {p.name: frozenset(v) if isinstance(v := question.params[p.name], list) else v for p in template.params}
    return ("HP", "UP") in contested_hinges(template, scene, params)


def test_no_india_question_hinges_on_uttar_pradesh_himachal_pradesh() -> None:
    """Over six India maps: every asked question has the same answer with HP-UP counted as a border, while the
    same generation without the check asks some that do not (so the check is what keeps them out)."""
    templates = {t.id: t for t in load_templates()}
    asked = unchecked = 0
    for scene in _india_scenes():
        assert ("HP", "UP") in scene.contested
        questions = generate_questions(scene, seed=1)
        asked += len(questions)
        assert not [q.question for q in questions if _hinges(q, scene, templates)]
        bare = replace(scene, contested=())
        unchecked += sum(_hinges(q, scene, templates) for q in generate_questions(bare, seed=1))
    assert asked > 400 and unchecked > 0


def test_china_scenes_have_nothing_contested() -> None:
    atlas = load_atlas("china")
    scene = build_scene(make_spec(atlas, synthesize(atlas, seed=0), map_id="cn"))
    assert scene.contested == ()
