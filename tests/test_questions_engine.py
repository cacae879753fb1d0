"""Question engine on real Scenes: coverage of every template, determinism, illegibility, balance, CLI, lint."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from itertools import chain
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.data.curated import list_stats
from mapgen.data.synthetic import synthesize
from mapgen.questions import (
    ANSWER_TYPES,
    Question,
    ask,
    balance,
    generate_questions,
    lint_file,
    load_templates,
)
from mapgen.questions.templates import TemplateError
from mapgen.scene import build_scene
from mapgen.spec import make_spec

REQUIRED_KEYS = {
    "question_id", "map_id", "template_id", "mapwise_template", "question", "answer", "accepted_answers",
    "answer_type", "map_type", "relative_region", "program",
}  # fmt: skip


@cache
def scene(country: str, stat: str, legend: str = "discrete", **kw):
    return build_scene(make_spec(country, stat, legend=legend, classes=5, **kw))


def test_builtin_templates_cover_mapwise_1_to_43() -> None:
    ts = load_templates()
    numbers = {t.mapwise for t in ts}
    assert numbers == set(range(1, 44))
    assert all(t.answer_type in ANSWER_TYPES for t in ts)
    assert ts.get(14).id == "region_vs_all_neighbours"


TWO_WORDINGS = """
templates:
  - id: border_count
    mapwise: null
    answer_type: count
    map_types: [discrete, continuous]
    params:
      X: {type: Region, from: "with_neighbors()"}
    text: ["How many {{ states }} border {{ X }}?", "{{ X }} borders how many {{ states }}?"]
    program:
      - answer: count(neighbors(X))
"""


def test_questions_record_their_text_variant(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TWO_WORDINGS)
    (template,) = load_templates(tmp_path / "t.yaml")
    s = scene("usa", "population_2020")
    qs = generate_questions(s, [template], per_template=12, seed=4)
    assert {q.text_variant for q in qs} == {0, 1}
    for q in qs:
        assert q.question.startswith("How many") == (q.text_variant == 0)
        again = ask(template, s, q.params, q.text_variant)
        assert again.to_dict() == q.to_dict()  # the recorded variant re-creates the question exactly


@pytest.mark.parametrize("country", ["usa", "india", "china"])
@pytest.mark.parametrize("legend", ["discrete", "continuous"])
def test_every_template_instantiates_on_every_country(country: str, legend: str) -> None:
    ts = load_templates()
    wanted = {t.id for t in ts if t.applies_to(legend)}
    got: set[str] = set()
    kw = {"scheme": "natural_breaks"} if legend == "discrete" else {}
    scenes = (scene(country, info.id, legend, **kw) for info in list_stats(country))
    synthetic = (
        build_scene(make_spec(country, synthesize(country, seed=i, distribution="uniform"), legend=legend, **kw))
        for i in range(12)
    )
    for s in chain(scenes, synthetic):
        got |= {q.template_id for q in generate_questions(s, ts, per_template=2, seed=0)}
        if wanted <= got:
            break
    assert wanted - got == set()


def test_records_have_the_required_keys_and_json_round_trip() -> None:
    qs = generate_questions(scene("usa", "population_2020"), per_template=1, seed=3)
    assert qs
    for q in qs:
        d = json.loads(json.dumps(q.to_dict()))
        assert set(d) >= REQUIRED_KEYS
        assert Question.from_dict(d) == q
        assert 1 <= d["mapwise_template"] <= 43
        assert d["map_type"] == "discrete"


def test_same_scene_and_seed_give_identical_questions() -> None:
    s = scene("india", "literacy_2011", "continuous")
    a = [q.to_dict() for q in generate_questions(s, per_template=2, seed=7)]
    b = [q.to_dict() for q in generate_questions(s, per_template=2, seed=7)]
    c = [q.to_dict() for q in generate_questions(s, per_template=2, seed=8)]
    assert a == b
    assert a != c


def test_no_question_depends_on_an_illegible_region() -> None:
    base = scene("usa", "population_2020")
    hidden = {"DC": False, "RI": False, "DE": False}
    s = base.with_pixels({}, hidden)
    qs = generate_questions(s, per_template=3, seed=1)
    assert qs
    for q in qs:
        assert not {"District of Columbia", "Rhode Island", "Delaware"} & set(json.dumps(q.answer).split('"'))
        assert not {"DC", "RI", "DE"} & {v for v in q.params.values() if isinstance(v, str)}
        assert "District of Columbia" not in q.question and "Rhode Island" not in q.question


def test_binary_answers_are_balanced_per_template_and_map() -> None:
    counts: Counter = Counter()
    for country, stat in [("usa", "population_2020"), ("india", "literacy_2011"), ("china", "population_2020")]:
        for q in generate_questions(scene(country, stat), per_template=2, seed=0):
            if q.answer_type == "binary":
                per = [x.answer for x in generate_questions(scene(country, stat), [load_templates().get(q.template_id)],
                                                            per_template=2, seed=0)]
                assert per.count("Yes") <= 1 and per.count("No") <= 1
                counts[q.answer] += 1
    assert counts["Yes"] == counts["No"] or abs(counts["Yes"] - counts["No"]) <= 0.25 * sum(counts.values())


def test_balance_evens_binary_and_caps_answers() -> None:
    qs = generate_questions(scene("usa", "population_2020"), per_template=4, seed=2)
    qs += generate_questions(scene("usa", "population_2020", "continuous"), per_template=4, seed=2)
    out = balance(qs, max_share=0.5)
    by_t: dict[str, Counter] = {}
    for q in out:
        by_t.setdefault(q.template_id, Counter())[json.dumps(q.answer)] += 1
    for tid, c in by_t.items():
        if next(q for q in out if q.template_id == tid).answer_type == "binary":
            assert c['"Yes"'] == c['"No"']


def test_relative_region_follows_mapwise_meaning() -> None:
    qs = generate_questions(scene("usa", "population_2020"), per_template=3, seed=4)
    for q in qs:
        if q.template_id in {"neighbour_comparison", "bordering_pair_max_difference", "direction_local_extreme"}:
            assert q.relative_region
        if q.template_id in {"legend_class_count", "region_in_range", "region_comparison"}:
            assert not q.relative_region
        if "bordering" in q.question and any(
            f"bordering {r.name}" in q.question for r in scene("usa", "population_2020").regions.values()
        ):
            assert q.relative_region


def test_counterfactual_names_are_used_in_text_and_answers() -> None:
    from dataclasses import replace

    base = scene("usa", "population_2020")
    names = {c: f"Land{i}" for i, c in enumerate(base.regions)}
    regions = {c: replace(r, name=names[c]) for c, r in base.regions.items()}
    cf = replace(base, regions=regions, counterfactual="imaginary", map_id="cf")
    qs = generate_questions(cf, per_template=1, seed=0)
    real = {r.name for r in base.regions.values()}
    for q in qs:
        assert not any(f" {n} " in f" {q.question} " for n in real if len(n) > 6), q.question


def test_cli_questions_templates_list_show_preview_lint(tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020", classes=4)
    path = spec.save(tmp_path / "map.json")
    runner = CliRunner()
    out = tmp_path / "q.jsonl"
    r = runner.invoke(main, ["questions", str(path), "-o", str(out), "--per-template", "1", "--seed", "1"])
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    assert lines and set(json.loads(lines[0])) >= REQUIRED_KEYS
    r = runner.invoke(main, ["templates", "list"])
    assert r.exit_code == 0 and "region_in_range\t9\tbinary" in r.output
    r = runner.invoke(main, ["templates", "show", "20"])
    assert r.exit_code == 0 and json.loads(r.output)["mapwise"] == 20
    r = runner.invoke(main, ["templates", "preview", "20", "--map", str(path), "-n", "2"])
    assert r.exit_code == 0 and "A: " in r.output and "extreme_local" in r.output
    builtin = Path(__file__).resolve().parents[1] / "templates" / "questions" / "mapwise.yaml"
    r = runner.invoke(main, ["templates", "lint", str(builtin)])
    assert r.exit_code == 0 and "ok" in r.output


BAD = """
templates:
  - id: bad_one
    answer_type: binary
    params:
      X: Region
      Q: {type: Colour}
    text: ["Is {{ X }} big and {{ Z }}?"]
    program:
      - answer: is_big(Y)
    uses: [bigness]
"""


def test_lint_names_unknown_parameter_function_type_and_word(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD)
    problems = " | ".join(lint_file(path))
    assert "unknown type 'Colour'" in problems and "Region, RegionGroup" in problems
    path.write_text(BAD.replace("      Q: {type: Colour}\n", ""))
    problems = " | ".join(lint_file(path))
    assert "unknown function 'is_big'" in problems and "extreme_region" in problems
    assert "unknown parameter or step 'Y'" in problems and "defined here: X" in problems
    assert "unknown parameter 'Z'" in problems
    assert "'bigness' without a definition" in problems
    with pytest.raises(TemplateError, match="is_big"):
        load_templates(path)
    r = CliRunner().invoke(main, ["templates", "lint", str(path)])
    assert r.exit_code == 1 and "is_big" in r.output


def test_user_template_file_is_used(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        "definitions:\n  big: a value in the highest legend class\n"
        "templates:\n  - id: is_top_class\n    answer_type: binary\n    map_types: [discrete]\n"
        "    params:\n      X: Region\n    text: ['Is {{ X }} in the top class?']\n"
        "    program:\n      - answer: equals(range_of(X), count(classes()))\n    uses: [big]\n"
    )
    assert lint_file(path) == []
    qs = generate_questions(scene("usa", "population_2020"), str(path), per_template=2, seed=0)
    assert [q.template_id for q in qs] == ["is_top_class"] * len(qs) and qs
