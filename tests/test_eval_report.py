"""Report folder (mapgen.eval.report): MAPWise tables, summary, CSV, plots, determinism."""

from __future__ import annotations

import dataclasses
import json
import math
import random

import pandas as pd
import pytest
from helpers import make_question

from mapgen.eval import metrics
from mapgen.eval.report import (
    build_summary,
    markdown_table,
    paper_table,
    ranking_table,
    score_bars,
    with_variant,
    write_report,
)
from mapgen.eval.score import evaluate
from mapgen.questions.record import Question
from mapgen.tasks import tasks
from mapgen.tasks.grounding.scores import grounding_table


def q(qid, answer_type, answer, **kw) -> Question:
    return make_question(qid, answer_type, answer, template_id=f"t_{answer_type}", mapwise_template=1, **kw)

QUESTIONS = [
    q("b1", "binary", "Yes"),
    q("b2", "binary", "No", map_type="continuous"),
    q("b3", "binary", "Yes", hatched=True, annotated=False),
    q("c1", "count", 3, country="india"),
    q("s1", "single", "Texas", counterfactual="imaginary"),
    q("l1", "list", ["Texas", "Ohio"], relative_region=True),
    q("g1", "range", "1k-2k", map_type="continuous"),
    q("r1", "ranking", [["Texas"], ["Ohio"]]),
]
PREDICTIONS = {
    "b1": '{"answer": "Yes"}',  # 1
    "b2": "Yes",  # 0
    "b3": "Yes",  # 1
    "c1": "three",  # 1
    "s1": "Ohio",  # 0
    "l1": '{"answer": ["Texas"]}',  # P 1, R 0.5
    "g1": "between 1500 and 2500",  # overlapping on a continuous map: 0.5
    "r1": "Ohio > Texas",  # RWP 0
    "zz": "unknown id",
}


@pytest.fixture
def report():
    return evaluate(QUESTIONS, PREDICTIONS)


def test_map_variant():
    frame = with_variant(evaluate(QUESTIONS, PREDICTIONS).frame)
    assert frame.set_index("question_id")["map_variant"].to_dict()["b3"] == "hatched"
    assert frame.set_index("question_id")["map_variant"].to_dict()["b2"] == "continuous"


def test_paper_table_overall(report):
    row = paper_table(report.frame).iloc[0]
    assert row["n"] == 8
    assert row["Binary Acc"] == pytest.approx(200 / 3)
    assert row["Count Acc"] == 100 and row["Single Recall"] == 0
    assert row["List Precision"] == 100 and row["List Recall"] == 50
    assert row["Range Acc"] == 50 and row["Rank RWP"] == 0


def test_paper_table_breakdowns(report):
    variant = paper_table(report.frame, "map_variant").set_index("group")
    assert list(variant.index) == ["continuous", "discrete", "hatched"]
    assert variant.loc["continuous", "Binary Acc"] == 0 and variant.loc["hatched", "Binary Acc"] == 100
    assert math.isnan(variant.loc["hatched", "Count Acc"])
    annotated = paper_table(report.frame, "annotated").set_index("group")
    assert set(annotated.index) == {"with annotations", "without annotations"}
    relative = paper_table(report.frame, "relative_region").set_index("group")
    assert relative.loc["relative", "n"] == 1
    cf = paper_table(report.frame, "counterfactual").set_index("group")
    assert set(cf.index) == {"imaginary", "none"}
    assert set(paper_table(report.frame, "country")["group"]) == {"india", "usa"}


def test_ranking_and_grounding_tables(report):
    table = ranking_table(report.frame)
    assert list(table.columns[2:]) == [
        "ranking_rwp",
        "ranking_mrr",
        "ranking_map",
        "ranking_spearman",
        "ranking_kendall",
    ]
    assert table.iloc[0]["ranking_rwp"] == 0
    g = grounding_table({"n": 2, "acc@0.5": 0.5, "acc@0.7": 0.0, "mean_iou": 0.4, "unique/n": 0})
    assert list(g["referent"]) == ["all"] and g.iloc[0]["Acc@0.5"] == 50


def test_tables_use_each_metrics_declared_aggregation(report, monkeypatch):
    # Binary scores are 1, 0, 1: the mean gives 66.7 %; a metric declaring "all must be right" gives 0 %.
    strict = dataclasses.replace(metrics.metric_info("binary_exact"), aggregation=lambda scores: float(min(scores)))
    monkeypatch.setitem(metrics._METRICS, "binary_exact", strict)
    assert paper_table(report.frame).iloc[0]["Binary Acc"] == 0
    summary = build_summary(report)
    assert summary["by_answer_type"]["binary"]["binary_exact"] == 0
    assert summary["tables"]["overall"]["all"]["Binary Acc"] == 0
    assert summary["tables"]["overall"]["all"]["Count Acc"] == 1  # other metrics keep the mean (fractions, #37)
    by_variant = report.breakdown("map_type", metrics=["binary_exact"]).set_index("map_type")
    assert by_variant.loc["discrete", "binary_exact"] == 1 and by_variant.loc["continuous", "binary_exact"] == 0


def test_markdown_table():
    df = pd.DataFrame([{"group": "a", "n": 2, "x": 12.345, "y": math.nan}])
    assert markdown_table(df).splitlines() == [
        "| group | n | x | y |",
        "| --- | ---: | ---: | ---: |",
        "| a | 2 | 12.35 | - |",
    ]


def test_summary(report):
    summary = build_summary(report, {"source": "test", "nan": math.nan})
    assert summary["n"] == 8 and summary["unmatched_predictions"] == 1
    assert summary["by_answer_type"]["list"] == {
        "n": 1,
        "list_f1": pytest.approx(2 / 3, abs=1e-6),
        "list_precision": 1.0,
        "list_recall": 0.5,
    }
    assert summary["tables"]["overall"]["all"]["Range Acc"] == 0.5
    assert summary["source"] == "test" and summary["nan"] is None
    json.dumps(summary, allow_nan=False)


def test_write_report_is_complete_and_deterministic(report, tmp_path):
    extra = {
        "failures": [{"question_id": "b2", "error": "HTTP 500"}],
        "model_failures": 1,
        "captions": {"BLEU-1": 0.5, "CIDEr": 1.2, "tokenizer": "simple"},
    }
    paths = write_report(
        report, tmp_path / "a", extra, item_tables={"caption_scores": [{"question_id": "c", "x": [1]}]}, tasks=tasks()
    )
    write_report(
        report, tmp_path / "b", extra, item_tables={"caption_scores": [{"question_id": "c", "x": [1]}]}, tasks=tasks()
    )
    for name in ("scores", "summary", "tables", "caption_scores", "plot_answer_type", "plot_by_map_variant"):
        assert paths[name].is_file(), name
        assert (
            paths[name].read_bytes()
            == (tmp_path / "b" / paths[name].relative_to(tmp_path / "a")).read_bytes()
        )
    scores = pd.read_csv(paths["scores"])
    assert len(scores) == 8 and json.loads(scores.set_index("question_id").loc["r1", "answer"]) == [
        ["Texas"],
        ["Ohio"],
    ]
    md = paths["tables"].read_text()
    for heading in (
        "## Overall",
        "## By map type",
        "## By annotated",
        "## By country",
        "## By relative region",
        "## By counterfactual",
        "## Ranking metrics",
        "## Captions",
        "## Model failures",
    ):
        assert heading in md
    assert (
        "| group | n | Binary Acc | Single Recall | Count Acc | Range Acc | List Precision | List Recall | Rank RWP |"
        in md
    )
    assert "- 1 predictions for unknown question ids" in md and "`b2`: HTTP 500" in md
    assert json.loads(paths["summary"].read_text())["model_failures"] == 1


def test_empty_report(tmp_path):
    paths = write_report(evaluate([], {}), tmp_path)
    assert json.loads(paths["summary"].read_text())["n"] == 0
    assert "plot_answer_type" not in paths


def test_bootstrap_intervals_are_seeded_contain_the_score_and_narrow_with_more_questions():
    from mapgen.eval.report import paper_ci

    rng = random.Random(0)
    small = pd.DataFrame({"answer_type": ["binary"] * 40, "binary_exact": [float(rng.random() < 0.6) for _ in range(40)],
                          "map_type": "discrete", "hatched": False})
    for column in ("single_recall", "count_exact", "range_score", "list_precision", "list_recall", "ranking_rwp"):
        small[column] = math.nan
    big = pd.concat([small] * 16, ignore_index=True)  # the same score, 16 times the questions
    lo, hi = paper_ci(small, seed=3)["all"]["Binary Acc"]
    assert paper_ci(small, seed=3) == paper_ci(small, seed=3) != paper_ci(small, seed=4)
    score = small["binary_exact"].mean()  # intervals are fractions, like the scores (#37)
    assert lo <= score <= hi
    blo, bhi = paper_ci(big, seed=3)["all"]["Binary Acc"]
    assert blo <= score <= bhi and (bhi - blo) < (hi - lo) / 2.5  # width shrinks like 1/sqrt(n)


def test_plot_bars_carry_bootstrap_intervals(report):
    bars = score_bars(report.frame)
    binary, count = bars.score.loc["binary", "score"], bars.score.loc["count", "score"]
    assert binary == pytest.approx(200 / 3) and count == 100.0  # b1, b3 right, b2 wrong; c1 right
    assert bars.low.loc["binary", "score"] < binary < bars.high.loc["binary", "score"]  # mixed scores: a spread
    assert bars.low.loc["count", "score"] == bars.high.loc["count", "score"] == 100.0  # one question: no spread
    assert bars.yerr().shape == (1, 2, len(bars.score))
    grouped = score_bars(report.frame, "map_type")
    known = grouped.score.notna()
    assert ((grouped.low <= grouped.score) | ~known).all().all() and ((grouped.score <= grouped.high) | ~known).all().all()
    assert grouped.score.loc["binary", "continuous"] == 0.0 and set(grouped.score.columns) == {"discrete", "continuous"}
    assert score_bars(report.frame, "map_type").low.equals(grouped.low)  # seeded
