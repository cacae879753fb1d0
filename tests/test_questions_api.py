"""The question engine's public API (mapgen.questions.api): trace, hinge check, domains, re-ask, reading."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from mapgen.questions import (
    Template,
    TemplateSet,
    Unaskable,
    answer_key,
    ask,
    function_signatures,
    hinges_on,
    load_templates,
    reading,
    reask,
    source_domain,
    trace,
)
from mapgen.scene import Scene, build_scene
from mapgen.spec import make_spec

BORDERS = """
templates:
  - id: border_count
    mapwise: null
    answer_type: count
    map_types: [discrete, continuous]
    params:
      X: {type: Region, from: "with_neighbors()"}
    text: ["How many {{ states }} border {{ X }}?"]
    program:
      - near: neighbors(X)
      - answer: count(near)
    constraints: ["equals(X, 'KS')"]
"""


@cache
def usa(legend: str = "discrete") -> Scene:
    return build_scene(make_spec("usa", "population_2020", legend=legend, classes=5))


@pytest.fixture
def template(tmp_path: Path) -> Template:
    (tmp_path / "t.yaml").write_text(BORDERS)
    (t,) = load_templates(tmp_path / "t.yaml")
    return t


def test_trace_gives_the_steps_answer_and_reads_ask_records(template: Template) -> None:
    q = ask(template, usa(), {"X": "KS"}, 0)
    run = trace(template, usa(), {"X": "KS"})
    assert run.ok and run.answer == 4 and run.failed_step is None
    assert [(s.name, s.call) for s in run.steps] == [(p["step"], p["call"]) for p in q.program if "step" in p]
    assert run.steps[0].result == frozenset({"NE", "MO", "OK", "CO"})


def test_a_count_that_hinges_on_a_contested_border_is_traced_but_not_asked(tmp_path: Path) -> None:
    """Colorado's 6 neighbours leave out Arizona, a published border (the Four Corners) the map shows as a point:
    the program runs, but the question is not asked."""
    (tmp_path / "t.yaml").write_text(BORDERS.replace("""    constraints: ["equals(X, 'KS')"]\n""", ""))
    (template,) = load_templates(tmp_path / "t.yaml")
    run = trace(template, usa(), {"X": "CO"})
    assert run.ok and run.answer == 6
    with pytest.raises(Unaskable) as no:
        ask(template, usa(), {"X": "CO"}, 0)
    assert no.value.kind == "contested"


def test_trace_of_a_failed_constraint(template: Template) -> None:
    run = trace(template, usa(), {"X": "UT"})
    assert not run.ok and run.answer is None and run.failed_step is None and len(run.steps) == 2


def test_hinges_on_a_named_region_only_when_it_is_unreadable(template: Template) -> None:
    assert hinges_on(template, usa(), {"X": "KS"}, ["KS"]) == ["KS"]
    assert hinges_on(template, usa(), {"X": "KS"}, ["TX"]) == []


def test_source_domain_is_the_from_expression_on_the_map(template: Template) -> None:
    domain = source_domain(template, "X", usa(), {})
    assert domain is not None and domain.text == "with_neighbors()" and "KS" in domain.values
    assert "HI" not in domain.values  # no neighbours
    with pytest.raises(KeyError):
        source_domain(template, "Y", usa(), {})


def test_reask_repeats_a_record_and_says_when_its_template_is_missing(template: Template) -> None:
    q = ask(template, usa(), {"X": "KS"}, 0)
    assert reask(q, usa(), TemplateSet([template], {})).to_dict() == q.to_dict()
    assert reask(q, usa(), {template.id: template}, original=usa()).to_dict() == q.to_dict()
    with pytest.raises(Unaskable) as no:
        reask(q, usa(), TemplateSet([], {}))
    assert no.value.kind == "template"


def test_reading_answer_key_and_signatures() -> None:
    assert reading(usa()).tau == 0 and reading(usa()).discrete
    continuous = reading(usa("continuous"))
    assert continuous.tau > 0 and len(continuous.interval_labels) == len(continuous.intervals)
    assert answer_key({"b", "a"}) == ("a", "b") and answer_key([{"b", "a"}, 1]) == (("a", "b"), 1)
    count = next(f for f in function_signatures() if f.name == "count")
    assert count.args and count.returns
