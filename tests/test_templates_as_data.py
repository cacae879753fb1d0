"""A template is one YAML record: its questions, its VQA type and its MAPWise parsing all come from the record."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import template_record, templates_plus

from mapgen.questions import TemplateSet, generate_questions, lint_file, load_templates
from mapgen.recheck.importer import RawQuestion
from mapgen.recheck.parse import compiled_rules, parse_question
from mapgen.recheck.verdicts import recheck_question
from mapgen.scene import build_scene
from mapgen.spec import make_spec

EXTRA = template_record(
    "share_a_class", "Yes or no: {{ X }} and {{ Y }} are in the same legend class.",
    ("Yes or no: {{ X }}[ state] and {{ Y }}[ state] (share|fall in) the same (class|range).",),
)


@pytest.fixture(scope="module")
def extended(tmp_path_factory) -> TemplateSet:
    path = templates_plus(tmp_path_factory.mktemp("templates") / "mapwise_plus_one.yaml", EXTRA)
    assert lint_file(path) == []
    return load_templates(path)


@pytest.fixture(scope="module")
def scene():
    return build_scene(make_spec("usa", "population_2020", classes=4))


def test_new_record_gives_its_vqa_type(extended: TemplateSet) -> None:
    assert extended.vqa_types()["share_a_class"] == "colour"  # not the binary default, "reasoning"
    record = {"template_id": "share_a_class", "mapwise_template": None, "answer_type": "binary"}
    assert extended.vqa_type(record) == "colour"
    assert load_templates().vqa_type(record) == "reasoning"  # mapgen's own templates do not know it


def test_new_record_gives_questions_and_its_mapwise_parsing(extended: TemplateSet, scene) -> None:
    new = TemplateSet([extended.get("share_a_class")], extended.definitions)
    questions = generate_questions(scene, new, per_template=2, seed=0)
    assert questions and {q.template_id for q in questions} == {"share_a_class"}
    assert [r.template_id for r in compiled_rules(extended)][-1] == "share_a_class"
    for q in questions:
        x, y = (scene.regions[q.params[p]].name for p in ("X", "Y"))
        text = f"Yes/No: {x} state and {y} fall in the same range?"  # MAPWise's way of writing it
        parsed = parse_question(text, scene, templates=extended)
        assert parsed.ok and parsed.template_id == "share_a_class", parsed
        assert parsed.params == {"X": q.params["X"], "Y": q.params["Y"]}
        builtin = parse_question(text, scene)
        assert not (builtin.ok and builtin.template_id == "share_a_class")
        raw = RawQuestion("usa", 1, "m", scene.map_id, None, text, str(q.answer))
        verdict = recheck_question(raw, scene, templates=extended)
        assert (verdict.template_id, verdict.verdict) == ("share_a_class", "agree")
        wrong = recheck_question(raw.__class__(**{**raw.to_dict(), "ground_truth": _other(q.answer)}), scene,
                                 templates=extended)
        assert wrong.verdict == "disagree"


def _other(answer: str) -> str:
    return "No" if answer == "Yes" else "Yes"


def test_wording_lint_names_the_problem(tmp_path: Path) -> None:
    bad = EXTRA.replace("{{ Y }}[ state] (share", "{{ Z | most }}[ state] (share").replace("(class|range)", "(class")
    path = tmp_path / "bad.yaml"
    path.write_text("templates:" + bad.replace("    uses: [similar]\n", ""), encoding="utf-8")
    problems = " | ".join(lint_file(path))
    assert "uses unknown parameter 'Z'" in problems and "does not give Y" in problems
    assert "is not a valid wording" in problems
    path.write_text("templates:" + EXTRA.replace("{{ X }}[ state] and", "{{ X | adjective }} and").replace(
        "vqa_type: colour", "vqa_type: colours"), encoding="utf-8")
    problems = " | ".join(lint_file(path))
    assert "applies filter 'adjective' to 'X'" in problems and "unknown vqa_type 'colours'" in problems
