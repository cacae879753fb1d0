"""Captions: structure, and every sentence's claim re-checked against the Scene."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mapgen.counterfactual import make_counterfactual
from mapgen.data.curated import load_curated
from mapgen.describe import captions, describe
from mapgen.render import render
from mapgen.spec import make_spec


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("cap")


def _scene(folder, name, *args, **kw):
    return render(make_spec(*args, **kw), folder / f"{name}.png").scene


@pytest.fixture(scope="module")
def usa(folder):
    return _scene(folder, "usa", "usa", "population_2020")


def test_overview_first_with_country_and_classes(usa):
    cap = captions(usa, seed=0)
    sentences = cap["sentences"]
    assert 3 <= len(sentences) <= 7
    assert [s["kind"] for s in sentences][:3] == ["overview", "legend", "counts"]
    assert "United States" in sentences[0]["text"] and usa.title in sentences[0]["text"]
    assert "5 classes" in sentences[1]["text"] and "discrete" in sentences[1]["text"]
    assert "darker shades for higher values" in sentences[1]["text"]
    assert cap["detailed"] == " ".join(s["text"] for s in sentences)
    assert "United States" in cap["short"] and "5" in cap["short"]


def test_class_counts_are_true_and_sum_to_regions(usa):
    counts = next(s for s in captions(usa)["sentences"] if s["kind"] == "counts")
    claimed = counts["claim"]["counts"]
    assert sum(claimed.values()) == len(usa.regions)
    for cls in usa.legend.classes:
        true = sum(1 for r in usa.regions.values() if r.class_index == cls.index)
        assert claimed[str(cls.index)] == true
        assert re.search(rf"\b{true}\b[^,]*?{re.escape(cls.label)}", counts["text"]), (true, cls.label)


def _check_claims(scene, sentences):
    """Re-derive every sentence's claim from the Scene (independently of captions.py)."""
    valued = [c for c, r in scene.regions.items() if not r.missing]
    for s in sentences:
        claim = s["claim"]
        if s["kind"] == "extremes" and scene.map_type == "discrete":
            for key, cls in (("top", scene.legend.k - 1), ("low", 0)):
                for code in claim[key]:
                    assert scene.regions[code].class_index == cls and scene.regions[code].legible
                    assert scene.regions[code].name in s["text"]
        elif s["kind"] == "extremes":
            high = max(valued, key=lambda c: scene.regions[c].value)
            assert claim["highest"] == high and scene.regions[high].name in s["text"]
        elif s["kind"] == "spatial":
            top = claim["top"]
            if claim["direction"]:
                mid_lon = np.median([scene.regions[c].lon for c in valued])
                mid_lat = np.median([scene.regions[c].lat for c in valued])
                for part in claim["direction"].split("-"):
                    side = {
                        "east": [scene.regions[c].lon > mid_lon for c in top],
                        "west": [scene.regions[c].lon < mid_lon for c in top],
                        "north": [scene.regions[c].lat > mid_lat for c in top],
                        "south": [scene.regions[c].lat < mid_lat for c in top],
                    }[part]
                    assert sum(side) / len(top) >= 0.75
                    assert part in s["text"]
            else:
                assert "spread" in s["text"]
        elif s["kind"] == "group":
            members = [c for c in scene.group(claim["group"]) if not scene.regions[c].missing]
            top = set(claim["top"])
            assert claim["size"] == len(members)
            assert claim["count"] == sum(c in top for c in members) and claim["count"] / len(members) >= 0.5
            assert str(claim["size"]) in s["text"]
        elif s["kind"] == "na":
            assert claim["missing"] == sorted(c for c, r in scene.regions.items() if r.missing)


@pytest.mark.parametrize(
    "args,kw",
    [
        (("usa", "population_2020"), {}),
        (("china", "population_density_2020"), {"colormap": "YlOrRd"}),
        (("india", "population_2011"), {}),
        (("india", "population_2011"), {"legend": "continuous"}),
        (("usa", "population_2020"), {"hatched": True}),
    ],
)
def test_every_claim_is_true(folder, args, kw):
    scene = _scene(folder, "_".join(args) + "_".join(kw), *args, **kw)
    for seed in (0, 1):
        sentences = captions(scene, seed)["sentences"]
        assert 3 <= len(sentences) <= 7
        _check_claims(scene, sentences)


def test_top_class_concentration_in_the_east_of_china(folder):
    scene = _scene(folder, "cn", "china", "population_density_2020")
    spatial = next(s for s in captions(scene)["sentences"] if s["kind"] == "spatial")
    assert "east" in spatial["claim"]["direction"]


def test_na_regions_are_named(folder):
    stat = load_curated("usa", "population_2020")
    stat = type(stat)(stat.values.drop(["TX", "WY"]), stat.info)
    scene = render(make_spec("usa", stat), folder / "na.png").scene
    sentences = captions(scene)["sentences"]
    na = next(s for s in sentences if s["kind"] == "na")
    assert "Texas" in na["text"] and "Wyoming" in na["text"]
    counts = next(s for s in sentences if s["kind"] == "counts")
    assert sum(counts["claim"]["counts"].values()) == len(scene.regions)
    _check_claims(scene, sentences)


def test_counterfactual_maps_use_display_names(folder):
    spec = make_counterfactual(make_spec("usa", "population_2020"), "imaginary", seed=2)
    scene = render(spec, folder / "cf.png").scene
    text = captions(scene)["detailed"]
    assert scene.regions["TX"].name in text and "Texas" not in text


def test_deterministic_per_seed_with_several_phrasings(usa):
    assert captions(usa, seed=5) == captions(usa, seed=5)
    assert describe(usa, seed=5) == describe(usa, seed=5)
    assert len({captions(usa, seed=s)["detailed"] for s in range(6)}) >= 3
