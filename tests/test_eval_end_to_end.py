"""A full eval of a small generated benchmark: mapgen.build → baselines / perfect answers → report folder.

The perfect-answer run is the end-to-end check that extraction, normalisation and the metrics agree with the
question engine's answer encoding: the gold answers, written as a model would (``{"answer": ...}``), must
score 1.0 on every answer type.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from mapgen.evaluation import Baseline, prediction_source, run_eval
from mapgen.questions.record import format_answer

ANSWER_TYPES = {"binary", "count", "single", "list", "range", "ranking"}


@pytest.fixture(scope="module")
def bench(eval_bench: Path) -> Path:
    return eval_bench


@pytest.fixture(scope="module")
def records(bench: Path) -> list[dict]:
    return [json.loads(line) for line in (bench / "questions.jsonl").read_text().splitlines() if line.strip()]


def test_the_benchmark_covers_every_answer_type_and_counterfactual_set(records):
    assert {r["answer_type"] for r in records} == ANSWER_TYPES
    assert {r["counterfactual_set"] for r in records} == {None, "original", "imaginary", "shuffled", "jumbled"}


@pytest.mark.parametrize("baseline", ["random", "prior"])
def test_baseline_eval_writes_the_report(bench: Path, records, tmp_path: Path, baseline: str):
    out = tmp_path / baseline
    report = run_eval(bench, Baseline(baseline), out_dir=out)
    for name in ("scores.csv", "summary.json", "tables.md", "plots/answer_type.png", "plots/by_counterfactual.png"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    if baseline == "prior":  # learned on the train split, scored on the held-out one
        records = [r for r in records if r["split"] == "test"]
    assert summary["n"] == len(records) == len(report.frame)
    assert summary["missing"] == 0 and summary["unparsed"] == 0 and summary["unmatched_predictions"] == 0
    assert 0.0 <= summary["score"] <= 1.0
    by_type = Counter(r["answer_type"] for r in records)
    assert {t: v["n"] for t, v in summary["by_answer_type"].items()} == dict(by_type)
    metrics = [c for c in report.frame.columns if c.startswith(("binary_", "count_", "single_", "range_", "list_"))]
    values = report.frame[["main", *metrics, "ranking_rwp", "ranking_kendall"]].stack().dropna()
    assert ((values >= 0) & (values <= 1)).all()
    with (out / "scores.csv").open() as fh:
        assert sum(1 for _ in csv.DictReader(fh)) == len(records)
    # the counterfactual breakdown shows MAPWise's Original row, then the counterfactual sets, then the rest
    table = summary["tables"]["counterfactual"]
    counts = Counter(r["counterfactual_set"] or "none" for r in records)
    assert {k: v["n"] for k, v in table.items() if " · " not in k} == dict(counts)
    md = (out / "tables.md").read_text()
    section = md.split("## By counterfactual", 1)[1].split("##", 1)[0]
    rows = [line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    groups = ["original", "imaginary", "shuffled", "jumbled", "none"]
    refs = ["random (empirical)", "chance (analytic)"]
    assert rows == ["group"] + [f"{g} · {r}" if r else g for g in groups for r in ["", *refs]]


def test_random_baseline_is_reproducible(bench: Path):
    a = run_eval(bench, Baseline("random"), seed=1).frame["main"].tolist()
    b = run_eval(bench, Baseline("random"), seed=1).frame["main"].tolist()
    assert a == b


@pytest.mark.parametrize("style", ["json", "prompt_format", "chain_of_thought"])
def test_perfect_predictions_score_one_on_every_answer_type(bench: Path, records, tmp_path: Path, style: str):
    """Gold answers written as a model would must score 1.0 everywhere (extraction ∘ metrics = engine)."""

    def text(r: dict) -> str:
        if style == "json":  # the engine's encoding as is: rankings as lists of tie groups
            return json.dumps({"answer": r["answer"]})
        answer = format_answer(r["answer"], r["answer_type"])  # rankings as "A > B = C", as the prompts ask
        if style == "prompt_format":
            return answer
        return f"Let me read the legend and the map carefully.\nStep 1: ...\nStep 2: ...\n{answer}"

    path = tmp_path / "perfect.jsonl"
    path.write_text("".join(json.dumps({"question_id": r["question_id"], "prediction": text(r)}) + "\n" for r in records))
    out = tmp_path / "report"
    report = run_eval(bench, prediction_source(path), out_dir=out, plots=False)
    frame = report.frame
    assert frame["parse_ok"].all()
    per_type = frame.groupby("answer_type")["main"].mean().to_dict()
    assert per_type == {t: 1.0 for t in ANSWER_TYPES}
    for column in ("range_exact", "list_precision", "list_recall", "ranking_mrr", "ranking_map",
                   "ranking_spearman", "ranking_kendall"):
        assert frame[column].dropna().eq(1.0).all(), column
    summary = json.loads((out / "summary.json").read_text())
    assert summary["score"] == 1.0 and summary["unparsed"] == 0
