"""Pixel oracle: classes and values read back from rendered maps of every country and variant."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mapgen.audit.oracle import FLAT, answers_equal, oracle_map, texture_distance, texture_features
from mapgen.questions import generate_questions
from mapgen.render import render
from mapgen.spec import make_hatched, make_spec

STATS = {"usa": "population_2020", "india": "literacy_2011", "china": "gdp_per_capita_2022"}
VARIANTS = ("annotated", "unannotated", "hatched", "continuous")


def variant_spec(country: str, variant: str):
    legend = "continuous" if variant == "continuous" else "discrete"
    spec = make_spec(country, STATS[country], legend=legend, classes=5, colormap="YlGnBu", map_id=f"{country}-{variant}")
    if variant == "hatched":
        return make_hatched(spec)
    return spec.with_style(annotated=variant != "unannotated")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict[tuple[str, str], Path]:
    out = tmp_path_factory.mktemp("oracle")
    return {(c, v): render(variant_spec(c, v), out / f"{c}-{v}.png").image for c in STATS for v in VARIANTS}


@pytest.mark.parametrize("country", list(STATS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_oracle_recovers_every_legible_region(rendered, country: str, variant: str) -> None:
    om = oracle_map(rendered[(country, variant)])
    truth, reading = om.truth, om.reading
    legible = [c for c, r in truth.regions.items() if r.legible]
    assert len(legible) > 20
    if variant == "continuous":
        span = truth.legend.vmax - truth.legend.vmin
        errors = [abs(reading.regions[c].value - truth.regions[c].value) / span for c in legible
                  if not truth.regions[c].missing]
        assert max(errors) < 0.02  # well under the engine's perceptual tolerance (5 % of the bar)
        assert all(reading.regions[c].na == truth.regions[c].missing for c in legible)
    else:
        right = [reading.regions[c].class_index == truth.regions[c].class_index for c in legible]
        assert sum(right) / len(right) >= (0.95 if variant == "hatched" else 1.0)
        if variant != "hatched":
            assert all(right)


@pytest.mark.parametrize("variant", VARIANTS)
def test_oracle_answers_the_questions(rendered, variant: str) -> None:
    om = oracle_map(rendered[("usa", variant)])
    questions = generate_questions(om.truth, per_template=2, seed=3)
    assert len(questions) > 30
    from mapgen.audit.oracle import answer

    right = 0
    for q in questions:
        got = answer(q, om.scene)
        right += got is not None and answers_equal(got.answer, q.answer, q.answer_type)
    assert right / len(questions) >= 0.95


def test_oracle_scene_keeps_truth_out(rendered) -> None:
    """The oracle Scene's discrete values are class mid values (it cannot know the data values)."""
    om = oracle_map(rendered[("usa", "annotated")])
    for code, facts in om.scene.regions.items():
        if facts.class_index is not None:
            cls = om.truth.legend.classes[facts.class_index]
            assert facts.value == (cls.lower + cls.upper) / 2
        assert om.reading.regions[code].n_pixels >= 1
    assert om.reading.to_dict()["regions"]


def test_texture_features_are_shift_invariant_and_tell_patterns_apart() -> None:
    y, x = np.mgrid[0:40, 0:40]
    horizontal = np.where(y % 6 < 1, 0.0, 255.0)
    shifted = np.where((y + 3) % 6 < 1, 0.0, 255.0)
    diagonal = np.where((x + y) % 8 < 1, 0.0, 255.0)
    a, b, c = (texture_features(p[5:25, 5:25]) for p in (horizontal, shifted, diagonal))
    assert texture_distance(a, b) < 0.1  # same stripes, another phase (window edges add a little)
    assert texture_distance(a, c) > 4 * texture_distance(a, b)
    flat = texture_features(np.full((10, 10), 200.0))
    assert flat is FLAT and texture_distance(flat, a) == 1.0 and texture_distance(flat, FLAT) == 0.0
    assert texture_features(np.zeros((2, 2))) is None


def test_answers_equal_ignores_list_order() -> None:
    assert answers_equal(["b", "a"], ["a", "b"], "list")
    assert answers_equal([["x", "y"], ["z"]], [["y", "x"], ["z"]], "ranking")
    assert not answers_equal("Yes", "No", "binary")


def test_continuous_na_region_reads_as_missing(tmp_path: Path) -> None:
    spec = variant_spec("usa", "continuous")
    values = dict(spec.values)
    values["TX"] = math.nan
    spec = replace(spec, values=values)
    om = oracle_map(render(spec, tmp_path / "na.png").image)
    assert om.reading.regions["TX"].na and math.isnan(om.scene.regions["TX"].value)
