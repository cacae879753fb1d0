"""The ``fewshot_image`` prompt: a fixed example map shipped with mapgen, made once by the real pipeline."""

from __future__ import annotations

import runpy
from fnmatch import fnmatch
from pathlib import Path

import pytest
import tomllib
from helpers import make_question

from mapgen.eval.examples import VARIANTS, example_for, examples_dir, load_examples
from mapgen.eval.prompts import render_prompt
from mapgen.eval.score import score
from mapgen.questions.record import Question, format_answer
from mapgen.resources import template_path

ROOT = Path(__file__).resolve().parent.parent
GRIDLAND = {"Arvia", "Belmora", "Calden", "Dorvik", "Elmswald", "Fenmark", "Galdor", "Hestia", "Istra"}


def make_q(answer_type: str = "list", **kw) -> Question:
    base = {"template_id": "group_regions_in_range", "mapwise_template": 1, "answer": ["Oregon"],
            "question": "Which states on the West Coast belong to range 1M-5M?"}
    return make_question("Q1", answer_type, **(base | kw))

def test_prompt_carries_the_example_image_first_and_a_computed_answer():
    q = make_q()
    prompt = render_prompt(q, "fewshot_image", image_path="maps/m1.png")
    assert len(prompt.images) == 2
    example_image, map_image = prompt.images
    assert map_image == Path("maps/m1.png")
    assert example_image == examples_dir() / "discrete.png" and example_image.is_file()
    assert prompt.text.index("first image") < prompt.text.index("second image")

    ex = example_for(q)
    assert ex.country == "gridland" and ex.image == example_image and "Gridland" in prompt.text
    assert ex.question.template_id == q.template_id and ex.question.answer
    assert f"Example question: {ex.question.question}" in prompt.text
    assert f"Example answer: {ex.answer_text}" in prompt.text
    assert ex.answer_text == format_answer(ex.question.answer, ex.question.answer_type)
    # the answer scores 1 through the same extraction and metrics as model output ...
    assert score(ex.question, ex.answer_text).main == 1.0
    # ... and it is nowhere in the strategy file.
    template = (template_path("prompts") / "fewshot_image.yaml").read_text()
    assert ex.answer_text not in template and "{{ example.answer }}" in template


def test_shipped_examples_are_what_the_pipeline_makes(tmp_path: Path):
    """Computed, not typed: the script renders Gridland and runs the question engine to the same bytes."""
    script = runpy.run_path(str(ROOT / "scripts" / "make_prompt_examples.py"))
    for variant in VARIANTS:
        png, doc = script["make_example"](variant, tmp_path)
        assert png.read_bytes() == (examples_dir() / png.name).read_bytes(), variant
        assert doc.read_text() == (examples_dir() / doc.name).read_text(), variant


def test_the_example_matches_template_then_answer_type_and_variant():
    ranking = example_for(make_q("ranking", template_id="group_ranking", answer=[["Texas"], ["Ohio"]]))
    assert ranking.question.template_id == "group_ranking" and len(ranking.question.answer) > 1
    assert any(n in ranking.question.question for n in GRIDLAND)
    assert score(ranking.question, ranking.answer_text).main == 1.0
    other = example_for(make_q("count", template_id="not_a_template", answer=3))
    assert other.question.answer_type == "count" and not other.question.relative_region
    continuous = example_for(make_q("range", answer="1-2", map_type="continuous"))
    hatched = example_for(make_q(hatched=True))
    assert continuous.image.name == "continuous.png" and continuous.question.map_type == "continuous"
    assert hatched.image.name == "hatched.png" and hatched.question.hatched
    with pytest.raises(ValueError, match="unknown map variant"):
        load_examples("pastel")


def test_examples_ship_in_the_wheel():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = [p.relative_to(ROOT / "templates").as_posix() for p in (ROOT / "templates").rglob("*")
               if p.is_file() and p.is_relative_to(ROOT / "templates" / "prompts" / "examples")]
    assert len(shipped) == 2 * len(VARIANTS)
    for path in shipped:
        assert any(fnmatch(path, pattern) for pattern in patterns["mapgen._templates"]), path
