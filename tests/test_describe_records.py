"""VQA typing, VRSBench eval/training records, the metrics of mapgen.eval on them, and the CLI."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.describe import (
    caption_eval_record,
    describe,
    grounding_eval_records,
    training_records,
    vqa_eval_records,
    write_jsonl,
)
from mapgen.describe.attributes import box_to_100
from mapgen.questions import VQA_TYPES, load_templates
from mapgen.questions.record import Question
from mapgen.render import render
from mapgen.spec import make_spec

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
TEMPLATES_CSV = SHARED / "reference" / "mapwise" / "templates.csv"
vqa_type = load_templates().vqa_type


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render(make_spec("usa", "population_2020"), tmp_path_factory.mktemp("rec") / "m.png")


@pytest.fixture(scope="module")
def annotations(rendered):
    return describe(rendered.scene, seed=0)


def _question(number, answer_type="binary", **kw):
    return Question(
        question_id=f"q{number}", map_id="m", template_id="t", mapwise_template=number, question="?",
        answer="Yes", answer_type=answer_type, map_type="discrete", country="usa", **kw,
    )


def test_every_mapwise_template_has_a_vqa_type():
    types = load_templates().vqa_types()
    assert {str(n) for n in range(1, 44)} <= set(types)
    assert set(types.values()) <= set(VQA_TYPES)


@pytest.mark.skipif(not TEMPLATES_CSV.exists(), reason="MAPWise's templates.csv (../shared/reference) not available")
def test_vqa_types_cover_mapwise_templates_csv():
    with TEMPLATES_CSV.open() as fh:
        numbers = {row[0] for row in csv.reader(fh) if row and row[0].strip().isdigit()}
    assert len(numbers) == 43 and numbers <= set(load_templates().vqa_types())


def test_vqa_types_of_records():
    assert vqa_type(_question(1, "count")) == "quantity"
    assert vqa_type(_question(7, "single")) == "scene"
    assert vqa_type(_question(36, "single")) == "direction"
    assert vqa_type({"mapwise_template": 4, "answer_type": "range"}) == "colour"
    assert vqa_type({"template_no": 40}) == "position"  # MAPWise's own question files
    assert vqa_type({"template_id": "range_closest_pair", "mapwise_template": 1}) == "position"  # id first
    assert vqa_type({"mapwise_template": None, "answer_type": "count"}) == "quantity"
    with pytest.raises(ValueError, match="Cannot type"):
        vqa_type({"question_id": "x"})


def test_caption_and_grounding_eval_records(annotations):
    cap = caption_eval_record(annotations)
    assert set(cap) >= {"image_id", "question", "ground_truth", "question_id", "type"}
    assert cap["type"] == "caption" and cap["ground_truth"] == annotations["captions"]["detailed"]
    refs = grounding_eval_records(annotations, image="m.png")
    assert len(refs) == len(annotations["referring"])
    for rec, ref in zip(refs, annotations["referring"]):
        assert rec["image_id"] == "m.png" and rec["question"] == ref["expression"]
        assert rec["ground_truth"] == box_to_100(ref["box"], 800, 600)
        assert all(isinstance(v, int) and 0 <= v <= 100 for v in rec["ground_truth"])
        assert rec["box"] == ref["box"] and rec["unique"] == ref["unique"]


def test_vqa_eval_records():
    recs = vqa_eval_records([_question(1, "count"), _question(19).to_dict()], vqa_type=vqa_type)
    assert [r["type"] for r in recs] == ["quantity", "reasoning"]
    assert recs[0]["image_id"] == "m.png" and recs[0]["ground_truth"] == "Yes"


def test_training_records_are_llava(annotations):
    records = training_records(annotations, [_question(19)], image="m.png")
    assert len(records) == 2 + len(annotations["referring"]) + 1
    for rec in records:
        assert set(rec) == {"id", "image", "conversations"} and rec["image"] == "m.png"
        human, gpt = rec["conversations"]
        assert human["from"] == "human" and human["value"].startswith("<image>\n")
        assert gpt["from"] == "gpt" and gpt["value"]
    ground = records[2]["conversations"][1]["value"]
    assert json.loads(ground) == box_to_100(annotations["referring"][0]["box"], 800, 600)


def test_grounding_metrics_run_on_the_records(annotations):
    from mapgen.tasks.grounding.scores import grounding_scores

    records = grounding_eval_records(annotations)
    perfect = {r["question_id"]: json.dumps({"answer": r["ground_truth"]}) for r in records}
    summary, rows = grounding_scores(records, perfect, lambda r: (r["width"], r["height"]))
    # a perfect answer on the 0-100 scale loses only rounding (at most ~1% of the image per edge)
    assert summary["acc@0.5"] == 1.0 and summary["acc@0.7"] == 1.0 and all(row["iou"] > 0.7 for row in rows)
    wrong = {r["question_id"]: json.dumps({"answer": [0, 0, 1, 1]}) for r in records}
    assert grounding_scores(records, wrong, lambda r: (r["width"], r["height"]))[0]["acc@0.5"] == 0.0


def test_caption_metrics_run_on_the_records(annotations, rendered):
    pytest.importorskip("pycocoevalcap", reason="caption metrics need mapgen's [eval] extra")
    from mapgen.tasks.caption.scores import caption_scores

    other = describe(rendered.scene, seed=1)
    refs = {"a": caption_eval_record(annotations)["ground_truth"], "b": caption_eval_record(other)["ground_truth"]}
    result = caption_scores(refs, dict(refs), tokenizer="simple", meteor=False)
    assert result.scores["BLEU-1"] > 0.99


def test_cli_describe(rendered, tmp_path):
    out = tmp_path / "ann.json"
    result = CliRunner().invoke(
        main, ["describe", str(rendered.json), "-o", str(out), "--seed", "2", "--records", str(tmp_path / "rec")]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data == json.loads(json.dumps(describe(rendered.scene, seed=2)))
    lines = (tmp_path / "rec" / "grounding.jsonl").read_text().splitlines()
    assert len(lines) == len(data["referring"]) and json.loads(lines[0])["image_id"] == "m.png"
    assert (tmp_path / "rec" / "train_llava.jsonl").exists()


def test_write_jsonl(tmp_path):
    path = write_jsonl(tmp_path / "x" / "r.jsonl", [{"a": 1}, {"b": "é"}])
    assert [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] == [{"a": 1}, {"b": "é"}]
