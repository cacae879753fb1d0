"""The ``fewshot_image`` prompt: an example map rendered by mapgen from a country not in the benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

from mapgen.eval import examples
from mapgen.eval.baselines import format_answer
from mapgen.eval.examples import (
    CACHE_ENV,
    SYNTHETIC_COUNTRY,
    example_country,
    example_folder,
    example_for,
)
from mapgen.eval.prompts import render_prompt
from mapgen.eval.score import score
from mapgen.questions import generate_questions
from mapgen.questions.record import Question
from mapgen.resources import template_path
from mapgen.scene import build_scene


def make_q(answer_type: str = "list", **kw) -> Question:
    base = dict(
        question_id="Q1",
        map_id="m1",
        template_id="group_regions_in_range",
        mapwise_template=1,
        question="Which states on the West Coast belong to range 1M-5M?",
        answer=["Oregon"],
        answer_type=answer_type,
        map_type="discrete",
        country="usa",
    )
    base.update(kw)
    return Question(**base)


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_example_country_is_absent_from_the_benchmark():
    assert example_country(["usa", "india"]) == "china"
    assert example_country(["USA"]) == "india"
    assert example_country(["usa", "india", "china"]) == SYNTHETIC_COUNTRY


def test_prompt_carries_the_example_image_first_and_a_computed_answer(cache: Path):
    q = make_q()
    prompt = render_prompt(q, "fewshot_image", image_path="maps/m1.png", countries=["usa", "india"])
    assert len(prompt.images) == 2
    example_image, map_image = prompt.images
    assert map_image == Path("maps/m1.png")
    assert example_image.is_file() and example_image.is_relative_to(cache / "examples")
    assert "china" in example_image.parent.name and "discrete" in example_image.parent.name
    assert prompt.text.index("first image") < prompt.text.index("second image")

    ex = example_for(q, ["usa", "india"])
    assert ex.country == "china" and ex.image == example_image
    assert ex.question.answer_type == "list"
    assert f"Example question: {ex.question.question}" in prompt.text
    assert f"Example answer: {ex.answer_text}" in prompt.text
    # computed, not typed: the question engine on a fresh scene of the same spec gives the same answer ...
    atlas, spec = examples._builtin_spec("china", "discrete")
    fresh = generate_questions(build_scene(spec, atlas), per_template=examples.EXAMPLES_PER_TEMPLATE, seed=0)
    twin = next(f for f in fresh if f.question == ex.question.question)
    assert format_answer(twin.answer, twin.answer_type) == ex.answer_text
    # ... the answer scores 1 through the same extraction and metrics as model output ...
    assert score(ex.question, ex.answer_text).main == 1.0
    # ... and it is nowhere in the strategy file.
    template = (template_path("prompts") / "fewshot_image.yaml").read_text()
    assert ex.answer_text not in template and "{{ example.answer }}" in template


def test_synthetic_country_when_every_builtin_is_in_the_benchmark(cache: Path):
    q = make_q("ranking", template_id="group_ranking", answer=[["Texas"], ["Ohio"]])
    prompt = render_prompt(q, "fewshot_image", countries=["usa", "india", "china"])
    assert len(prompt.images) == 1  # no map image given: only the example
    ex = example_for(q, ["usa", "india", "china"])
    assert ex.country == SYNTHETIC_COUNTRY and "Gridland" in prompt.text
    assert ex.question.template_id == "group_ranking"
    names = {"Arvia", "Belmora", "Calden", "Dorvik", "Elmswald", "Fenmark", "Galdor", "Hestia", "Istra"}
    assert any(n in ex.question.question for n in names)
    assert score(ex.question, ex.answer_text).main == 1.0


def test_variant_follows_the_question(cache: Path):
    countries = ["usa", "india", "china"]
    continuous = example_for(make_q("range", answer="1-2", map_type="continuous"), countries)
    hatched = example_for(make_q(hatched=True), countries)
    assert continuous.image.parent.name.endswith("-continuous")
    assert hatched.image.parent.name.endswith("-hatched")
    assert continuous.question.map_type == "continuous"


def test_examples_are_cached_and_deterministic(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    first = example_folder(SYNTHETIC_COUNTRY, "discrete")
    other = example_folder(SYNTHETIC_COUNTRY, "discrete", cache_dir=tmp_path / "elsewhere")
    assert first != other
    assert (first / "map.png").read_bytes() == (other / "map.png").read_bytes()
    assert (first / "questions.jsonl").read_text() == (other / "questions.jsonl").read_text()

    def boom(*args, **kwargs):
        raise AssertionError("re-rendered a cached example")

    monkeypatch.setattr(examples, "_build", boom)
    assert example_folder(SYNTHETIC_COUNTRY, "discrete") == first
    with pytest.raises(ValueError, match="unknown map variant"):
        example_folder(SYNTHETIC_COUNTRY, "pastel")
