"""`mapgen human score`: three simulated annotators of known accuracy, scored with the benchmark's metrics."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.human.agreement import fleiss_kappa, kappa_interval
from mapgen.human.kit import load_gold, write_kit
from mapgen.human.score import Annotator, majority, score_annotators
from mapgen.questions.record import Question

ACCURACY = {"p0": 0.9, "p1": 0.8, "p2": 0.7}


def wrong_answer(q: Question, k: int) -> object:
    """An answer that scores 0 and differs between annotators (binary: the other answer, so people agree)."""
    return {"binary": "No" if q.answer == "Yes" else "Yes", "count": 10**6 + k, "single": f"Nowhere{k}",
            "list": [f"Nowhere{k}"], "range": f"{9e11 + 10 * k:.0f}-{9e11 + 10 * k + 1:.0f}",
            "ranking": [[f"Nowhere{k}"]]}[q.answer_type]


def simulate(gold: list[Question], seed: int = 0) -> list[Annotator]:
    """Each annotator answers the gold with its accuracy, else its own wrong answer (seeded noise)."""
    out = []
    for k, (name, p) in enumerate(ACCURACY.items()):
        rng = random.Random(seed * 100 + k)
        texts = {q.question_id: json.dumps({"answer": q.answer if rng.random() < p else wrong_answer(q, k)})
                 for q in gold}
        out.append(Annotator(name, Path(f"{name}.jsonl"), texts))
    return out


def write_files(annotators: list[Annotator], folder: Path, names: dict[str, str] | None = None) -> list[str]:
    paths = []
    for a in annotators:
        name = (names or {}).get(a.id, a.id)
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"question_id": q, "prediction": t, "annotator": name}) + "\n"
                                for q, t in a.texts.items()))
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def kit(eval_bench, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hkit") / "kit"
    write_kit(eval_bench, out, n=150, seed=2)
    return out


def majority_probability(ps: list[float]) -> float:
    a, b, c = ps
    return a * b + a * c + b * c - 2 * a * b * c


def test_fleiss_kappa_matches_the_textbook_example() -> None:
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    ratings = [[str(j) for j, n in enumerate(row) for _ in range(n)] for row in table]  # Fleiss (1971) / Wikipedia
    assert fleiss_kappa(ratings) == pytest.approx(0.210, abs=5e-4)
    lo, hi = kappa_interval(ratings, seed=1)
    assert lo < 0.210 < hi
    assert fleiss_kappa([["a", "a"], ["b", "b"]]) == 1.0
    assert majority(["x", "y", "z"], 3) is None and majority(["x", "x", "(none)"], 3) == "x"
    assert majority(["(none)", "(none)", "x"], 3) is None


def test_simulated_annotators_recover_their_accuracy_agreement_and_kappa(kit: Path) -> None:
    base = load_gold(kit)
    gold = [dataclasses.replace(q, question_id=f"{q.question_id}-{i}") for i in range(12) for q in base]
    result = score_annotators(gold, simulate(gold, seed=7), seed=3)
    per = result.per_annotator.groupby(["annotator", "answer_type"])["main"].agg(["mean", "size"])
    for (name, _), row in per.iterrows():
        p = ACCURACY[name]
        assert abs(row["mean"] - p) <= 4 * math.sqrt(p * (1 - p) / row["size"]), (name, row)
    expected = majority_probability(list(ACCURACY.values()))
    for answer_type, group in result.items.groupby("answer_type"):
        sigma = math.sqrt(expected * (1 - expected) / len(group))
        assert abs(group["main"].mean() - expected) <= 4 * sigma, answer_type
        agreement = group["agreement"].mean()
        assert agreement == 1.0 if answer_type == "binary" else abs(agreement - expected) <= 4 * sigma
    binary = [q for q in gold if q.answer_type == "binary"]
    yes = np.mean([q.answer == "Yes" for q in binary])
    ps = list(ACCURACY.values())
    observed = np.mean([a * b + (1 - a) * (1 - b) for i, a in enumerate(ps) for b in ps[i + 1:]])
    share = yes * np.mean(ps) + (1 - yes) * (1 - np.mean(ps))
    chance = share**2 + (1 - share) ** 2
    analytic = (observed - chance) / (1 - chance)
    measured = result.kappa["binary"]
    assert abs(measured["kappa"] - analytic) < 0.05 and measured["ci95"][0] < analytic < measured["ci95"][1], (
        measured, analytic)


def _report(kit: Path, files: list[str], out: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["human", "score", str(kit), "--answers", *files, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return {p.name: p.read_text() for p in out.iterdir() if p.name.startswith("table")}


def test_shuffling_annotator_ids_and_order_changes_nothing(kit: Path, tmp_path: Path) -> None:
    annotators = simulate(load_gold(kit), seed=1)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _report(kit, write_files(annotators, tmp_path / "a"), tmp_path / "r1")
    renamed = write_files(annotators, tmp_path / "b", {"p0": "zed", "p1": "amy", "p2": "kim"})
    second = _report(kit, [renamed[2], renamed[0], renamed[1]], tmp_path / "r2")
    assert first == second and set(first) == {"table9_map_type.csv", "table9_country.csv", "table10_agreement.csv"}
    s1, s2 = (json.loads((tmp_path / r / "summary.json").read_text()) for r in ("r1", "r2"))
    assert s1["kappa"] == s2["kappa"] and s1["majority_accuracy"] == s2["majority_accuracy"]
    assert sorted(s1["annotator_accuracy"].values()) == sorted(s2["annotator_accuracy"].values())


def test_report_lists_where_people_disagree_with_the_gold(kit: Path, tmp_path: Path) -> None:
    files = write_files(simulate(load_gold(kit), seed=4), tmp_path)
    _report(kit, files, tmp_path / "r")
    wrong = [json.loads(line) for line in (tmp_path / "r" / "disagreements.jsonl").read_text().splitlines()]
    majority_rows = [json.loads(line) for line in (tmp_path / "r" / "majority.jsonl").read_text().splitlines()]
    assert len(wrong) == sum(r["agreement"] and r["main"] < 1 for r in majority_rows) > 0
    assert all((tmp_path / "r" / w["map"]).resolve().is_file() for w in wrong)
    predictions = (tmp_path / "r" / "predictions.jsonl").read_text().splitlines()
    assert len(predictions) == sum(r["agreement"] for r in majority_rows)


@pytest.mark.parametrize("problem", ["one", "same-id", "foreign"])
def test_bad_annotator_files_are_refused_in_one_line(kit: Path, tmp_path: Path, problem: str) -> None:
    annotators = simulate(load_gold(kit))
    files = write_files(annotators, tmp_path)
    if problem == "one":
        files = files[:1]
    elif problem == "same-id":
        files = write_files(annotators[:2], tmp_path, {"p0": "x", "p1": "x"})[:1] + files[:1]
        files.append(str(Path(files[0]).with_name("x2.jsonl")))
        Path(files[2]).write_text(Path(files[0]).read_text())
    else:
        Path(files[0]).write_text(Path(files[0]).read_text() + '{"question_id": "nope", "prediction": "1"}\n')
    result = CliRunner().invoke(main, ["human", "score", str(kit), "--answers", *files, "-o", str(tmp_path / "r")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "r").exists()


def test_eval_takes_the_human_result_as_a_source(kit: Path, eval_bench, tmp_path: Path) -> None:
    files = write_files(simulate(load_gold(kit), seed=5), tmp_path)
    _report(kit, files, tmp_path / "r")
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    result = CliRunner().invoke(main, ["eval", str(eval_bench), "--human", str(tmp_path / "r"), "--no-plots",
                                       "-o", str(tmp_path / "e")])
    assert result.exit_code == 0, result.output
    scored = json.loads((tmp_path / "e" / "summary.json").read_text())
    assert scored["n"] == summary["questions"] == len(load_gold(kit)) and scored["source"].startswith("human: ")
    assert scored["score"] * 100 == pytest.approx(summary["majority_accuracy"], abs=0.01)  # summary: 4 decimals
    wrong = CliRunner().invoke(main, ["eval", str(eval_bench), "--human", str(kit), "-o", str(tmp_path / "x")])
    assert wrong.exit_code == 2 and "not a human report" in wrong.output
