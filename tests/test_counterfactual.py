"""Counterfactual maps: imaginary names, shuffled names, jumbled values, the original control."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections import Counter

import pytest

from mapgen.counterfactual import (
    BLOCKLIST,
    SIMILARITY_CUTOFF,
    counterfactual_kind,
    imaginary_names,
    is_pronounceable,
    jumbled_values,
    make_counterfactual,
    name_dictionary,
    original_control,
    prompt_note,
    random_derangement,
    shuffled_names,
)
from mapgen.geo.atlas import list_atlases, load_atlas
from mapgen.geo.names import UnknownRegionError, normalize_name
from mapgen.scene import build_scene
from mapgen.spec import load_spec, make_spec

COUNTRIES = ("usa", "india", "china")
SEEDS = (0, 1, 3, 42)


def _real_spellings() -> tuple[set[str], set[str]]:
    """Normalised names/aliases and upper-case two-letter spellings of every built-in atlas."""
    names, codes = set(), set()
    for country in list_atlases():
        atlas = load_atlas(country)
        for code in atlas.codes:
            for spelling in atlas.spellings(code):
                names.add(normalize_name(spelling))
                if len(normalize_name(spelling)) == 2:
                    codes.add(normalize_name(spelling).upper())
    return names, codes


@pytest.fixture(scope="module")
def real() -> tuple[set[str], set[str]]:
    return _real_spellings()


@pytest.fixture(scope="module")
def us_spec():
    return make_spec("usa", "population_2020", classes=5)


@pytest.fixture(scope="module")
def india_spec():
    return make_spec("india", "literacy_2011", classes=4)  # Ladakh is N/A in this table


# --- imaginary ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("country", COUNTRIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_imaginary_names_never_collide_with_real_ones(country: str, seed: int, real) -> None:
    real_names, real_codes = real
    atlas = load_atlas(country)
    invented = imaginary_names(atlas, seed)
    assert set(invented) == set(atlas.codes)
    names = [n for n, _ in invented.values()]
    labels = [c for _, c in invented.values()]
    assert len({normalize_name(n) for n in names}) == len(names)
    assert len(set(labels)) == len(labels)
    for name, label in invented.values():
        key = normalize_name(name)
        assert key not in real_names, name
        assert name == name.capitalize() and is_pronounceable(name), name
        assert not any(bad in key for bad in BLOCKLIST), name
        assert len(label) == 2 and label.isalpha() and label.isupper() and label not in real_codes, label
        close = [r for r in real_names if len(r) > 3 and _ratio(key, r) >= SIMILARITY_CUTOFF]
        assert not close, (name, close)


#: Words a reader takes for the legend's no-data key or for a yes/no answer, stated here independently of the code.
LEGEND_WORDS = ("NA", "N/A", "N.A.", "No data", "None", "Null", "NaN", "Missing", "Not available", "Yes", "No")
MANY_SEEDS = range(60)


@pytest.mark.parametrize("country", COUNTRIES)
def test_imaginary_codes_and_names_never_read_as_legend_words(country: str) -> None:
    """Over many seeds (the "NA" code turned up for about one map in three before), no code or name is a legend
    word, and no region wears another region's code or name on the same map."""
    reserved = {normalize_name(w) for w in LEGEND_WORDS}
    atlas = load_atlas(country)
    for seed in MANY_SEEDS:
        invented = imaginary_names(atlas, seed)
        labels = [lab for _, lab in invented.values()]
        keys = [normalize_name(n) for n, _ in invented.values()]
        assert not reserved & (set(keys) | {normalize_name(lab) for lab in labels}), (seed, invented)
        assert len(set(labels)) == len(labels) and len(set(keys)) == len(keys), seed
        for code, (_, label) in invented.items():
            assert label not in set(atlas.codes) - {code}, (seed, code, label)


def _ratio(a: str, b: str) -> float:
    import difflib

    return difflib.SequenceMatcher(None, a, b).ratio()


@pytest.mark.parametrize("name,ok", [("Aquilis", True), ("Davina", True), ("Strangle", False), ("Aeiou", False),
                                     ("Ab", False), ("Tor-Ma", False)])
def test_pronounceable_rule(name: str, ok: bool) -> None:
    assert is_pronounceable(name) is ok


def test_imaginary_names_are_reproducible_and_seed_dependent() -> None:
    a, b = imaginary_names("usa", 3), imaginary_names("usa", 3)
    assert a == b
    assert a != imaginary_names("usa", 4)
    assert imaginary_names("usa", 3, n=5) == dict(list(sorted(a.items()))[:5])


def test_imaginary_names_are_stable_across_processes() -> None:
    code = "from mapgen.counterfactual import imaginary_names as f; import json; print(json.dumps(f('china', 7)))"
    env = os.environ | {"PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert {k: tuple(v) for k, v in json.loads(out).items()} == imaginary_names("china", 7)


def test_imaginary_scene_resolves_new_names_and_keeps_neighbours(us_spec) -> None:
    cf = make_counterfactual(us_spec, "imaginary", 3)
    scene = build_scene(cf)
    names, labels = cf.counterfactual["names"], cf.counterfactual["labels"]
    assert set(names) == set(labels) == set(us_spec.values)
    ca = names["CA"]
    assert scene.resolve(ca) == "CA" and scene.resolve(labels["CA"]) == "CA"
    assert scene.resolve(ca.upper()) == "CA"
    assert {scene.name_of(c) for c in scene.region(ca).neighbors} == {names["OR"], names["NV"], names["AZ"]}
    assert scene.spellings("CA") == [ca, labels["CA"]]
    assert scene.region(ca).value == us_spec.values["CA"]  # values stay with the shapes
    with pytest.raises(UnknownRegionError):
        scene.resolve("California")


# --- shuffled -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("country", COUNTRIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_shuffled_is_a_derangement_and_a_bijection(country: str, seed: int) -> None:
    codes = load_atlas(country).codes
    perm = shuffled_names(country, seed)
    assert set(perm) == set(perm.values()) == set(codes)
    assert all(shape != worn for shape, worn in perm.items())
    assert perm == shuffled_names(country, seed)


def test_random_derangement_is_uniform_on_three_items() -> None:
    rng = random.Random(0)
    counts = Counter(tuple(random_derangement(["a", "b", "c"], rng).values()) for _ in range(3000))
    assert set(counts) == {("b", "c", "a"), ("c", "a", "b")}  # the only two derangements of three items
    assert abs(counts[("b", "c", "a")] - 1500) < 150
    with pytest.raises(ValueError):
        random_derangement(["a"], rng)


def test_shuffled_names_and_codes_follow_the_permutation(us_spec) -> None:
    cf = make_counterfactual(us_spec, "shuffled", 3)
    perm = shuffled_names("usa", 3)
    atlas = load_atlas("usa")
    scene = build_scene(cf)
    for shape, worn in perm.items():
        facts = scene.regions[shape]
        assert (facts.name, facts.label) == (atlas.names[worn], worn)
        assert facts.value == us_spec.values[shape]
        assert facts.neighbors == atlas.neighbors(shape)  # geography stays with the shape
    ca = scene.regions["CA"]
    assert {scene.name_of(c) for c in ca.neighbors} == {atlas.names[perm[c]] for c in ("OR", "NV", "AZ")}


def test_shuffled_scene_resolves_worn_names(us_spec) -> None:
    cf = make_counterfactual(us_spec, "shuffled", 3)
    scene = build_scene(cf)
    worn = cf.counterfactual["labels"]["CA"]
    assert scene.resolve(cf.counterfactual["names"]["CA"]) == "CA"
    assert scene.resolve(worn) == "CA"


# --- jumbled ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_jumbled_keeps_multiset_na_set_and_legend(india_spec, seed: int) -> None:
    cf = make_counterfactual(india_spec, "jumbled", seed)
    before, after = india_spec.values, cf.values
    na = {c for c, v in before.items() if math.isnan(v)}
    assert na and na == {c for c, v in after.items() if math.isnan(v)}
    assert sorted(v for v in before.values() if not math.isnan(v)) == sorted(v for v in after.values()
                                                                               if not math.isnan(v))
    assert cf.legend is india_spec.legend and cf.legend.to_dict() == india_spec.legend.to_dict()
    assert all(india_spec.legend.class_of(v) is not None for v in after.values() if not math.isnan(v))
    moved = [c for c in before if before[c] != after[c] and c not in na]
    assert moved and cf.counterfactual["moved_from"] == {c: c in moved for c in sorted(before)}
    scene = build_scene(cf)
    assert scene.regions["KL"].name == "Kerala" and scene.regions["KL"].value == after["KL"]


def test_jumbled_is_a_derangement_of_distinct_values(us_spec) -> None:
    after = jumbled_values(us_spec, 5)
    assert all(after[c] != us_spec.values[c] for c in us_spec.values)  # population values are all distinct
    assert after == jumbled_values(us_spec, 5) != jumbled_values(us_spec, 6)


def test_jumbled_ignores_dict_order(us_spec) -> None:
    from dataclasses import replace

    reordered = replace(us_spec, values=dict(reversed(list(us_spec.values.items()))))
    assert jumbled_values(reordered, 2) == jumbled_values(us_spec, 2)


# --- specs, control, dictionary -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["imaginary", "shuffled", "jumbled"])
def test_counterfactual_spec_round_trips_and_is_marked(us_spec, kind: str, tmp_path) -> None:
    cf = make_counterfactual(us_spec, kind, 3)
    assert cf.map_id == f"{us_spec.map_id}-{kind}-s3"
    assert cf.counterfactual["kind"] == kind and cf.counterfactual["source_map_id"] == us_spec.map_id
    assert counterfactual_kind(cf) == kind and build_scene(cf).counterfactual == kind
    assert cf.style == us_spec.style and cf.title == us_spec.title
    assert load_spec(cf.save(tmp_path / "cf.json")) == cf
    assert make_counterfactual(us_spec, kind, 3) == cf
    with pytest.raises(ValueError):
        make_counterfactual(cf, "imaginary", 1)


def test_unknown_kind_is_refused(us_spec) -> None:
    with pytest.raises(ValueError, match="imaginary"):
        make_counterfactual(us_spec, "inverted", 1)  # type: ignore[arg-type]


def test_original_control_is_a_real_map(us_spec) -> None:
    control = original_control(us_spec)
    assert control.map_id == f"{us_spec.map_id}-original" and control.counterfactual is None
    assert counterfactual_kind(control) == "original" and counterfactual_kind(us_spec) is None
    assert control.values == us_spec.values and control.style == us_spec.style
    scene = build_scene(control)
    assert scene.counterfactual is None and scene.resolve("Calif.") == "CA"
    assert prompt_note(control) == ""


def test_name_dictionary_and_prompt_note(us_spec) -> None:
    cf = make_counterfactual(us_spec, "imaginary", 3)
    book = name_dictionary(cf)
    assert book["kind"] == "imaginary" and book["seed"] == 3 and len(book["regions"]) == 51
    entry = book["regions"]["California"]
    assert entry == {"code": "CA", "name": cf.counterfactual["names"]["CA"], "label": cf.counterfactual["labels"]["CA"]}
    note = prompt_note(cf)
    assert note.startswith("The map in the image uses fictional names for each state")
    assert f"{entry['name']} ({entry['label']})" in note
    assert name_dictionary(make_counterfactual(us_spec, "jumbled", 3))["regions"] == {}
    assert "shuffled" in prompt_note(make_counterfactual(us_spec, "shuffled", 3))
    assert "fictional" in prompt_note(make_counterfactual(us_spec, "jumbled", 3))
