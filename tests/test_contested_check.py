"""The fast contested-border check (``engine.hinges_on_contested``: a flip whose border facts the program never
read is not re-run, whether those reads are learnt from a flipped run or given by the run that answered) gives exactly the verdict of the slow reference kept here as the oracle: re-running the
program once per contested pair and once with all of them flipped, each on a copy of the Reading built from
scratch (docs/atlases-and-data.md "Border graph audit")."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from mapgen.data.curated import list_stats
from mapgen.questions import load_templates
from mapgen.questions.engine import answer_key, hinges_on_contested, run_program, sample_params
from mapgen.questions.functions import INVALID, Reading, reading
from mapgen.questions.functions.scene_facts import _groups, watch_borders, with_borders_flipped
from mapgen.questions.templates import Template
from mapgen.scene import build_scene
from mapgen.spec import make_spec

KINDS = ({"legend": "discrete"}, {"legend": "continuous"}, {"hatched": True})
DRAWS = 12  # parameter draws per template and map


def _slow_flip(ctx: Reading, pairs: list[tuple[str, str]]) -> Reading:
    """The reference copy of ``ctx`` with ``pairs`` counted the other way, every border fact rebuilt."""
    regions = dict(ctx.scene.regions)
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            regions[x] = replace(regions[x], neighbors=regions[x].neighbors ^ {y})
    scene = replace(ctx.scene, regions=regions)
    groups, _, _ = _groups(scene)
    ordered = {c: tuple(sorted(r.neighbors)) for c, r in regions.items()}
    borders = tuple((a, b) for a, nbrs in ordered.items() for b in nbrs if a < b)
    return replace(ctx, scene=scene, groups=groups, sorted_neighbors=ordered, borders=borders, reads=set(),
                   cache={}, changed_from=None)


def _reference(template: Template, ctx: Reading, params: dict[str, Any], answer: Any) -> bool:
    """The oracle: every flip re-run (each pair alone, then all at once)."""
    pairs = ctx.scene.contested
    if not pairs or not (template.relative or any(p.type == "RegionGroup" for p in template.params)):
        return False
    for flip in [[p] for p in pairs] + ([list(pairs)] if len(pairs) > 1 else []):
        other, _ = run_program(template, _slow_flip(ctx, flip), params)
        if other is INVALID or answer_key(other) != answer_key(answer):
            return True
    return False


def _scenes(country: str) -> list:
    return [build_scene(make_spec(country, info.id, classes=5, **kind))
            for info in list_stats(country)[:2] for kind in KINDS]


@pytest.mark.parametrize("country", ["usa", "india"])
def test_fast_contested_check_gives_the_reference_verdict(country: str) -> None:
    """Over every built-in template and many parameter draws on real maps, both verdicts agree (the flipped
    copies' caches warm across templates and draws, as in generation); some draws hinge."""
    hinged = checked = 0
    for scene in _scenes(country):
        ctx = reading(scene)
        for template in load_templates():
            if not template.applies_to(scene.map_type):
                continue
            rng = random.Random(f"{scene.map_id}:{template.id}")
            for _ in range(DRAWS):
                params = sample_params(template, ctx, rng)
                if params is None:
                    continue
                answer, _ = run_program(template, ctx, params)
                if answer is INVALID:
                    continue
                want = _reference(template, ctx, params, answer)
                assert hinges_on_contested(template, ctx, params, answer) == want, (scene.map_id, template.id, params)
                watched, watch = watch_borders(ctx)  # the reads of the run that gave the answer, as ask passes them
                assert answer_key(run_program(template, watched, params)[0]) == answer_key(answer)
                seen = set(watch.read)
                assert hinges_on_contested(template, ctx, params, answer, seen) == want, (template.id, params, seen)
                hinged += want
                checked += 1
    assert checked > 1000 and hinged > 10


@pytest.mark.parametrize("country", ["usa", "india"])
def test_flipped_reading_has_the_reference_border_facts(country: str) -> None:
    """The flipped copy the check runs on has the border facts of a copy built from scratch."""
    ctx = reading(_scenes(country)[0])
    pairs = list(ctx.scene.contested)
    for flip in [[p] for p in pairs] + [pairs]:
        fast, slow = with_borders_flipped(ctx, flip), _slow_flip(ctx, flip)
        assert dict(fast.groups) == slow.groups
        assert dict(fast.sorted_neighbors) == slow.sorted_neighbors
        assert tuple(fast.borders) == slow.borders
        assert {c: r.neighbors for c, r in fast.scene.regions.items()} == {
            c: r.neighbors for c, r in slow.scene.regions.items()}
