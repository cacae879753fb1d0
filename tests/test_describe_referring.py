"""Referring expressions: every one resolves to exactly its target; non-unique expressions are rejected."""

from __future__ import annotations

import re

import pytest

from mapgen.counterfactual import make_counterfactual
from mapgen.describe import describe, make_context, region_attributes, run_referring_program, verify
from mapgen.describe.referring import candidate_programs
from mapgen.render import render
from mapgen.scene import FARTHEST
from mapgen.spec import make_spec

MAPS = {
    "usa_quantiles": ("usa", "population_2020", {}),
    "usa_jenks": ("usa", "population_2020", {"scheme": "fisher_jenks"}),
    "usa_hatched": ("usa", "population_2020", {"hatched": True}),
    "china": ("china", "population_density_2020", {"colormap": "YlOrRd"}),
    "india_continuous": ("india", "population_2011", {"legend": "continuous"}),
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ref")
    out = {}
    for key, (country, stat, kw) in MAPS.items():
        out[key] = render(make_spec(country, stat, **kw), folder / f"{key}.png").scene
    return out


@pytest.mark.parametrize("key", list(MAPS))
def test_every_expression_resolves_to_its_target(scenes, key):
    scene = scenes[key]
    annotations = describe(scene, seed=3, n_referring=8)
    ctx = make_context(scene, annotations["attributes"])
    refs = annotations["referring"]
    assert len(refs) >= 5
    for ref in refs:
        target = ref["target_code"]
        assert run_referring_program(ctx, ref["program"]) == [target], ref
        assert scene.regions[target].legible
        assert ref["box"] == scene.regions[target].pixels["bbox"]
        assert ref["unique"] == ctx.attrs[target]["is_unique"]
        assert len(ref["box_norm"]) == 4
        # the target is never named
        assert scene.regions[target].name.lower() not in ref["expression"].lower()
        assert not re.search(rf"\b{re.escape(target)}\b", ref["expression"])
    assert len({r["target_code"] for r in refs}) == len(refs)


def test_uniqueness_verification_rejects_non_unique_expressions(scenes):
    scene = scenes["usa_quantiles"]
    ctx = make_context(scene, region_attributes(scene))
    top = scene.legend.k - 1
    members = [c for c, r in scene.regions.items() if r.class_index == top]
    assert len(members) > 1
    # "the state in the highest class" names 10 states: not a referring expression for any of them
    assert not verify(ctx, [{"op": "filter_class", "arg": top}], "CA")
    assert run_referring_program(ctx, [{"op": "filter_class", "arg": top}, {"op": "unique"}]) is None
    # adding a filter that leaves one state makes it one
    program = [{"op": "filter_class", "arg": top}, {"op": "filter_group", "arg": "West Coast"}, {"op": "unique"}]
    assert verify(ctx, program, "CA")


def test_direction_needs_image_and_atlas_to_agree(scenes):
    scene = scenes["usa_quantiles"]
    ctx = make_context(scene, region_attributes(scene))
    lowest = [c for c, r in scene.regions.items() if r.class_index == 0]
    assert "AK" in lowest
    # Alaska is the northern-most of the lowest class by latitude but is drawn at the bottom (inset):
    # "the northern-most state in the lightest class" is ambiguous on the image and is never asked.
    assert scene.extreme(lowest, "north") == "AK"
    assert run_referring_program(ctx, [{"op": "filter_class", "arg": 0}, {"op": "extreme_direction", "arg": "north"}]) is None


@pytest.mark.parametrize("key", ["usa_quantiles", "china", "india_continuous"])
def test_questions_and_expressions_share_one_direction_rule(scenes, key):
    from mapgen.questions.functions import FUNCTIONS, INVALID, reading

    scene = scenes[key]
    ctx, qctx = make_context(scene, region_attributes(scene)), reading(scene)
    pools = [[c for c, r in scene.regions.items() if r.class_index == k] for k in range(scene.legend.k)]
    pools.append(list(scene.regions))
    seen = set()
    for pool in pools:
        step = [{"op": "filter_class", "arg": scene.regions[pool[0]].class_index}] if len(pool) < len(scene.regions) else []
        for direction in ("north", "south", "east", "west"):
            picked = run_referring_program(ctx, [*step, {"op": "extreme_direction", "arg": direction}])
            asked = FUNCTIONS["extreme_direction"].fn(qctx, pool, direction)
            best = scene.furthest(pool, direction) if len(pool) >= 2 else None
            both = best if best is not None and scene.furthest(pool, direction, point=FARTHEST) == best else None
            assert picked == (None if both is None else [both])  # both readings of "-most" must agree
            assert asked is INVALID if best is None else asked == best  # the question's default reading; ask()
            seen.add(both is None)  # refuses it when the farthest-point reading disagrees (test_readings)
    assert seen == {True, False}  # both outcomes occur


def test_extremes_need_a_clear_winner_and_two_candidates(scenes):
    scene = scenes["usa_jenks"]
    ctx = make_context(scene, region_attributes(scene))
    top = scene.legend.k - 1
    assert run_referring_program(ctx, [{"op": "filter_class", "arg": top}, {"op": "extreme_size", "arg": "largest"}]) is None
    assert verify(ctx, [{"op": "filter_class", "arg": top}, {"op": "unique"}], "CA")


def test_mix_of_unique_and_non_unique_targets(scenes):
    refs = describe(scenes["usa_jenks"], seed=0, n_referring=8)["referring"]
    assert {r["unique"] for r in refs} == {True, False}
    assert any(r["type"] == "only_in_class" or r["unique"] for r in refs)


def test_several_expression_types_and_wordings(scenes):
    kinds, texts = set(), set()
    for seed in range(4):
        for ref in describe(scenes["usa_quantiles"], seed=seed)["referring"]:
            kinds.add(ref["type"])
            texts.add(ref["expression"])
    assert len(kinds) >= 5 and len(texts) >= 20


def test_deterministic_per_seed(scenes):
    scene = scenes["china"]
    assert describe(scene, seed=1)["referring"] == describe(scene, seed=1)["referring"]
    assert describe(scene, seed=1)["referring"] != describe(scene, seed=2)["referring"]


def test_candidates_skip_class_types_on_continuous_maps(scenes):
    scene = scenes["india_continuous"]
    ctx = make_context(scene, region_attributes(scene))
    kinds = set(candidate_programs(ctx, "UP"))
    assert "value_extreme" in kinds and not any(k.startswith("class_") for k in kinds)


def test_counterfactual_names_are_never_leaked(tmp_path):
    spec = make_counterfactual(make_spec("usa", "population_2020"), "imaginary", seed=4)
    scene = render(spec, tmp_path / "cf.png").scene
    for ref in describe(scene, seed=0)["referring"]:
        assert scene.regions[ref["target_code"]].name.lower() not in ref["expression"].lower()
        if "neighbour" in ref["type"]:
            neighbour = next(s["arg"] for s in ref["program"] if s["op"] == "filter_borders")
            assert scene.regions[neighbour].name in ref["expression"]
