"""Audit: oracle vs ground truth per question with reasons, the illegible-map flag, CLI and pixel baseline."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.audit.audit import REASONS, AuditResult, audit_benchmark, audit_map, audit_question, write_audit
from mapgen.build import build
from mapgen.cli import main
from mapgen.questions import generate_questions, load_templates
from mapgen.questions.record import format_answer
from mapgen.render import render
from mapgen.spec import make_spec


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "tiny"
    config = {"name": "tiny", "seed": 2, "countries": [{"name": "usa", "maps": 2}, {"name": "india", "maps": 2}],
              "questions": {"per_template": 1, "per_image": 8}}
    build(config, out, progress=False)
    return out


def test_audit_benchmark_writes_rows_summary_and_markdown(bench: Path, tmp_path: Path) -> None:
    result = audit_benchmark(bench, tmp_path / "audit")
    questions = [json.loads(line) for line in (bench / "questions.jsonl").read_text().splitlines()]
    assert len(result.rows) == len(questions) > 20
    rows = [json.loads(line) for line in (tmp_path / "audit" / "audit.jsonl").read_text().splitlines()]
    assert {r["question_id"] for r in rows} == {q["question_id"] for q in questions}
    summary = json.loads((tmp_path / "audit" / "summary.json").read_text())
    for kind in ("discrete", "hatched", "continuous"):
        assert summary["by_map_kind"][kind]["questions"] > 0
        assert summary["targets"][kind]["met"], summary["targets"]
    assert set(summary["by_variant"]) == {"annotated", "unannotated", "hatched"}
    assert set(summary["by_country"]) == {"usa", "india"}
    for r in rows:
        assert set(r["reasons"]) <= set(REASONS)
        assert r["oracle_correct"] or r["reasons"]  # every failure is explained
    assert "# Pixel audit" in (tmp_path / "audit" / "audit.md").read_text()


def test_near_identical_class_colours_are_flagged(tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020", classes=4, map_id="illegible")
    colors = ["#6496c8", "#6597c8", "#6698c9", "#6799ca"]  # 1-2 RGB units apart
    classes = tuple(replace(c, color=col) for c, col in zip(spec.legend.classes, colors))
    spec = replace(spec, legend=replace(spec.legend, classes=classes, colors=tuple(colors)))
    png = render(spec, tmp_path / "illegible.png").image
    ma = audit_map(png)
    assert "colours too close" in ma.flags
    assert ma.legend["min_class_de"] < 1.5
    questions = generate_questions(ma.oracle.truth, per_template=1, seed=0)
    rows = [audit_question(q.to_dict(), ma, load_templates()) for q in questions]
    reading_rows = [r for r in rows if r["flags"]]
    assert reading_rows and not any(r["recoverable"] for r in reading_rows)


def test_a_legible_map_has_no_flags(tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020", classes=5, colormap="viridis")
    ma = audit_map(render(spec, tmp_path / "ok.png").image)
    assert ma.flags == [] and ma.legend["min_class_de"] > 6
    assert all(not m["legible"] for m in ma.misread.values())


def test_a_one_class_legend_has_no_closest_pair_and_its_map_record_is_json(tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020", classes=3, map_id="one")
    one = spec.legend.classes[0]
    spec = replace(spec, legend=replace(spec.legend, classes=(one,), colors=(one.color,)))
    ma = audit_map(render(spec, tmp_path / "one.png").image)
    assert ma.legend["min_class_de"] is None and "colours too close" not in ma.flags
    json.dumps(ma.to_dict(), allow_nan=False)  # null, not Infinity


def test_an_audit_that_cannot_be_written_leaves_none_of_its_files(tmp_path: Path) -> None:
    rows = [{"question_id": "q1", "oracle_answer": "Yes", "answer_type": "yes_no"}]
    result = AuditResult(rows, [{"map_id": "m", "legend": {"min_class_de": float("inf")}}], {})
    out = tmp_path / "audit"
    with pytest.raises(ValueError, match="not JSON compliant"):
        write_audit(result, out)
    assert not out.exists() or not any(out.iterdir())


def test_cli_audit_writes_oracle_predictions_that_eval_scores(bench: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["audit", str(bench), "-o", str(tmp_path / "audit"), "--quiet"])
    assert res.exit_code == 0, res.output
    assert "pixel oracle" in res.output and (tmp_path / "audit" / "summary.json").exists()
    preds = tmp_path / "audit" / "predictions.jsonl"
    res = runner.invoke(main, ["eval", str(bench), "--predictions", str(preds), "-o", str(tmp_path / "eval"),
                               "--no-plots"])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "eval" / "summary.json").read_text())
    audit = json.loads((tmp_path / "audit" / "summary.json").read_text())
    assert audit["overall"]["oracle_accuracy"] >= 0.95
    assert summary["source"] == f"predictions: {preds}"
    assert summary["score"] >= 0.9


def test_oracle_predictions_are_an_ordinary_predictions_file(bench: Path, tmp_path: Path) -> None:
    from mapgen.benchmark import load_benchmark
    from mapgen.eval.baselines import run_baseline
    from mapgen.evaluation import load_predictions

    result = audit_benchmark(bench, tmp_path / "audit")
    b = load_benchmark(bench)
    preds = load_predictions(result.paths["predictions"])
    assert set(preds.texts) == {q.question_id for q in b.questions} and not preds.invalid
    rows = {r["question_id"]: r for r in result.rows}
    for qid, text in preds.texts.items():  # the oracle's answer, written as the prompts ask models to
        assert json.loads(text).keys() == {"answer"}
        if rows[qid]["oracle_correct"] and rows[qid]["answer_type"] in ("binary", "count", "single", "range"):
            assert json.loads(text)["answer"] == rows[qid]["answer"]
    assert text == format_answer(rows[qid]["oracle_answer"], rows[qid]["answer_type"])
    with pytest.raises(ValueError):  # eval no longer runs the oracle itself
        run_baseline("pixel", b.questions)


def test_drop_mode_leaves_only_questions_the_oracle_recovers(tmp_path: Path, monkeypatch) -> None:
    """`build --audit drop` asks only questions the oracle recovers: those it shares with a `flag` build are marked
    recoverable there, auditing the dropped build finds every question recoverable, and with an oracle that fails
    every binary question, drop asks none."""
    from conftest import EVAL_BENCH_CONFIG

    config = EVAL_BENCH_CONFIG | {"questions": {"per_image": 12}}
    build(config | {"audit": "flag"}, tmp_path / "flag", progress=False)
    build(config | {"audit": "drop"}, tmp_path / "drop", progress=False)
    read = lambda p: [json.loads(x) for x in (p / "questions.jsonl").read_text().splitlines()]  # noqa: E731
    flagged = read(tmp_path / "flag")
    kept = {r["question_id"] for r in read(tmp_path / "drop")}
    # drop removes unrecoverable candidates before the questions are chosen, so it may choose others; every
    # question both builds ask is one the flag build marks recoverable
    common = [r for r in flagged if r["question_id"] in kept]
    assert common and all(r["audit"]["recoverable"] for r in common)
    assert all(r["recoverable"] for r in audit_benchmark(tmp_path / "drop").rows)
    import mapgen.audit.audit as audit_module

    real = audit_module.audit_question

    def fails_binary(record, ma, templates):
        row = real(record, ma, templates)
        return row | {"recoverable": row["recoverable"] and record["answer_type"] != "binary"}

    monkeypatch.setattr(audit_module, "audit_question", fails_binary)
    build(config | {"audit": "drop"}, tmp_path / "drop2", progress=False)
    kept2 = read(tmp_path / "drop2")
    assert kept2 and not any(r["answer_type"] == "binary" for r in kept2)
    candidates = [q for u in (tmp_path / "flag" / "units").glob("*.json") for q in json.loads(u.read_text())["questions"]]
    assert any(r["answer_type"] == "binary" for r in candidates)  # there were binary questions to drop


@pytest.mark.parametrize("legend, hatched", [("discrete", False), ("discrete", True), ("continuous", False)])
def test_a_fresh_render_audits_from_memory_as_from_its_files(tmp_path: Path, legend: str, hatched: bool) -> None:
    from mapgen.audit.audit import audit_render
    from mapgen.audit.legibility import vet
    from mapgen.spec import make_hatched

    spec = make_spec("india", "literacy_2011", legend=legend, classes=5, map_id=f"fresh-{legend}-{hatched}")
    rendered = render(make_hatched(spec) if hatched else spec, tmp_path / "fresh.png", vet=vet)
    fresh, disk = audit_render(rendered), audit_map(rendered.image)
    assert fresh.to_dict() == disk.to_dict()
    templates = load_templates()
    records = [q.to_dict() for q in generate_questions(rendered.scene, per_template=1, seed=3)]
    assert len(records) > 10
    assert [audit_question(r, fresh, templates) for r in records] == [
        audit_question(r, disk, templates) for r in records]
