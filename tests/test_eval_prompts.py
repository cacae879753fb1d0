"""Prompt strategies (mapgen.eval.prompts): files, answer formats, counterfactual notes, user strategies."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from helpers import make_question

from mapgen.benchmark import load_benchmark
from mapgen.counterfactual import make_counterfactual
from mapgen.counterfactual import name_dictionary as cf_dictionary
from mapgen.eval.answers import extract_answer
from mapgen.eval.prompts import (
    PROMPTS_ENV,
    list_strategies,
    load_strategy,
    prompt_names,
    render_prompt,
    task_question,
)
from mapgen.questions.record import Question
from mapgen.resources import template_path
from mapgen.spec import make_spec


def make_q(answer_type: str = "binary", answer=None, **kw) -> Question:
    kw = {"mapwise_template": 1, "question": "Does Texas have a higher value than Ohio?"} | kw
    return make_question("Q1", answer_type, "Yes" if answer is None else answer, **kw)

def test_shipped_strategies():
    names = list_strategies()
    for name in ("direct", "cot", "eer", "fewshot_text", "caption", "grounding"):
        assert name in names
    assert not any(n.startswith("_") for n in names)


def test_direct_asks_for_json_only():
    p = render_prompt(make_q(), "direct", image_path="map.png")
    assert "Question: Does Texas have a higher value than Ohio?" in p.text
    assert '{"answer": "Yes"} or {"answer": "No"}' in p.text
    assert "nothing else" in p.text
    assert "step" not in p.text.lower()
    assert str(p.image_path) == "map.png" and p.images == (p.image_path,)
    assert p.strategy == "direct" and p.question_id == "Q1"


def test_cot_reasons_then_answers():
    text = render_prompt(make_q(), "cot").text
    assert "step by step" in text
    assert text.rstrip().endswith('{"answer": ...}.')


def test_eer_has_the_four_mapwise_steps():
    text = render_prompt(make_q(), "eer").text
    steps = re.findall(r"^Step (\d) - (\w+)", text, flags=re.MULTILINE)
    assert steps == [("1", "Regions"), ("2", "Places"), ("3", "Values"), ("4", "Reasoning")]
    assert "describe the legend" in text
    assert "colour bar" in render_prompt(make_q(map_type="continuous"), "eer").text
    assert "pattern" in render_prompt(make_q(hatched=True), "eer").text


@pytest.mark.parametrize(
    ("answer_type", "answer", "needle"),
    [
        ("binary", "Yes", "Yes or No"),
        ("count", 3, "whole number"),
        ("single", "Texas", "one name"),
        ("list", ["Texas"], "JSON array"),
        ("ranking", [["Texas"], ["Ohio"]], '">" between ranks and "="'),
        ("range", "1k-2k", "one legend label"),
    ],
)
def test_answer_type_formats(answer_type, answer, needle):
    text = render_prompt(make_q(answer_type, answer), "direct").text
    assert needle in text


def test_range_format_depends_on_map_type():
    discrete = render_prompt(make_q("range", "1k-2k"), "direct").text
    continuous = render_prompt(make_q("range", "0.4-0.45", map_type="continuous"), "direct").text
    assert "legend label" in discrete and "tick marks" not in discrete
    assert "tick marks" in continuous


def test_format_examples_are_extractable():
    """The example answers in the shared formats parse as answers of their own type."""
    common = yaml.safe_load((template_path("prompts") / "_common.yaml").read_text())
    for answer_type, fmt in common["answer_formats"].items():
        for text in fmt.values() if isinstance(fmt, dict) else [fmt]:
            example = re.findall(r'\{"answer": .*?\}(?=\.|\s|$)', text)[-1]
            kind = "single" if answer_type == "mcq" else answer_type  # MCQ answers are one letter
            assert extract_answer(example, kind).ok, (answer_type, example)


def test_fewshot_example_matches_answer_type():
    for answer_type, answer in (("count", 2), ("list", ["A"]), ("ranking", [["A"], ["B"]]), ("range", "1-2")):
        text = render_prompt(make_q(answer_type, answer), "fewshot_text").text
        assert "Australia" in text
        example = re.search(r"^Example answer: (.*)$", text, flags=re.MULTILINE).group(1)
        assert extract_answer(example, answer_type).ok
    assert '{"answer": "Yes"}' in render_prompt(make_q(), "fewshot_text").text


def test_region_words_per_country():
    assert "Each state or union territory" in render_prompt(make_q(country="india"), "direct").text
    assert "province" in render_prompt(make_q(country="china"), "direct").text
    assert "of the USA" in render_prompt(make_q(), "direct").text


def test_counterfactual_note_and_dictionary():
    q = make_q(counterfactual="imaginary", params={"name_dictionary": {"Texas": "Zorvia", "Ohio": "Belmar"}})
    text = render_prompt(q, "cot").text
    assert "fictional names" in text
    payload = text[text.index("{", text.index("Name dictionary:")) : text.index("}") + 1]
    assert json.loads(payload) == {"Texas": "Zorvia", "Ohio": "Belmar"}
    jumbled = render_prompt(make_q(counterfactual="jumbled"), "direct").text
    assert "counterfactual" in jumbled and "Name dictionary" not in jumbled
    assert "dictionary" not in render_prompt(make_q(), "direct").text


def test_name_dictionary_from_a_counterfactual_spec():
    spec = make_counterfactual(make_spec("usa", "population_2020"), "imaginary", 1)
    wanted = {real: f"{e['name']} ({e['label']})" for real, e in cf_dictionary(spec)["regions"].items()}
    assert len(wanted) == 51
    q = make_q(counterfactual="imaginary")
    assert prompt_names(q, {"spec": spec.to_dict()}) == wanted  # a map JSON nests the spec
    assert prompt_names(q, spec.to_dict()) == wanted
    assert prompt_names(make_q(), None) == {}


def test_user_strategies(tmp_path, monkeypatch):
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "terse.txt").write_text("Q: {{ question }} ({{ answer_type }})")
    (folder / "sys.yaml").write_text(
        "name: sys\nsystem: You read {{ country_name }} maps.\nvars:\n  tone: briefly\ntext: 'Answer {{ tone }}: {{ question }}'\n"
    )
    monkeypatch.setenv(PROMPTS_ENV, str(folder))
    assert {"terse", "sys"} <= set(list_strategies())
    assert render_prompt(make_q(), "terse").text == "Q: Does Texas have a higher value than Ohio? (binary)"
    p = render_prompt(make_q(), "sys")
    assert p.system == "You read the USA maps." and p.text.startswith("Answer briefly:")
    assert "[system]" in p.show()
    # a file path works without the environment variable
    monkeypatch.delenv(PROMPTS_ENV)
    assert load_strategy(folder / "terse.txt").name == "terse"


def test_bad_strategies(tmp_path):
    with pytest.raises(ValueError, match="unknown prompt strategy 'nope'.*direct"):
        render_prompt(make_q(), "nope")
    bad = tmp_path / "bad.txt"
    bad.write_text("{{ not_a_variable }}")
    with pytest.raises(ValueError, match=r"bad\.txt: text rejected: 'not_a_variable' is undefined; fix the text; "
                                         r"it may use .*country_name.*question"):
        render_prompt(make_q(), bad)
    empty = tmp_path / "empty.yaml"
    empty.write_text("name: empty\n")
    with pytest.raises(ValueError, match="needs a 'text'"):
        load_strategy(empty)


def test_every_counterfactual_prompt_of_a_real_build_carries_its_name_dictionary(eval_bench):
    bench = load_benchmark(eval_bench)
    renamed = [q for q in bench.questions if q.counterfactual_set in ("imaginary", "shuffled")]
    assert {q.counterfactual_set for q in renamed} == {"imaginary", "shuffled"}
    for q in renamed:
        spec = bench.map_json(q.map_id)["spec"]
        p = render_prompt(q, "eer", bench=bench)
        assert p.image_path == eval_bench / "maps" / f"{q.map_id}.png"
        cf = spec["counterfactual"]
        assert f'"Texas": "{cf["names"]["TX"]} ({cf["labels"]["TX"]})"' in p.text, q.question_id
        assert p.text.count('": "') >= len(spec["values"])  # one entry per region
    for q in bench.questions:
        if q.counterfactual_set in (None, "original", "jumbled"):
            assert "Name dictionary" not in render_prompt(q, "direct", bench=bench).text


def test_caption_and_grounding_prompts_name_the_country(eval_bench):
    bench = load_benchmark(eval_bench)
    titles = {"usa": "the USA", "india": "India"}
    for task, records in (("caption", bench.tasks.get("caption", [])), ("grounding", bench.tasks.get("grounding", []))):
        for record in records[:: max(1, len(records) // 10)]:
            country = bench.map(record["map_id"])["country"] if "map_id" in record else None
            text = render_prompt(task_question(record, task, bench), task, bench=bench).text
            assert country and f"choropleth map of {titles[country]}" in text, (task, record)
