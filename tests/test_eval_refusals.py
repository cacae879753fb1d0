"""Readers trust nothing (issue 28 items 2 and 4, issue 30's scores by style), on real builds: a tampered,
damaged or unfinished benchmark is refused by every reader (eval, export, report, prompt, audit); eval refuses
empty, foreign and duplicate-id predictions, an unknown split, a limit below 1 and a report folder inside the
benchmark, writing nothing; broken prediction lines are located; numeric CLI options carry the config's caps;
a build with two map styles gets a by-style table with intervals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import build_tiny

from mapgen.benchmark import MANIFEST_FILE, load_benchmark, verify_folder
from mapgen.cli import main
from mapgen.evaluation import EvalInputError, PredictionTexts, run_eval
from mapgen.files import ChecksumError, read_jsonl

TWO_STYLES = {
    "name": "two-styles", "seed": 0, "countries": [{"name": "usa", "maps": 4}],
    "variants": {"styles": ["default", "mapwise"]}, "questions": {"per_template": 1, "per_image": 8},
    "split": {"ratios": {"train": 0.5, "test": 0.5}}, "tasks": ["vqa", "extraction"],
}
"""A tiny build whose maps draw two styles (seed 0 draws both)."""


@pytest.fixture(scope="module")
def styled(tmp_path_factory) -> Path:
    return build_tiny(tmp_path_factory, TWO_STYLES, "two-styles")


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def refused(result, *words: str) -> str:
    """The one error line of a refused command (exit 2), checked for ``words``."""
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    assert "Traceback" not in result.output and all(w in line for w in words), line
    return line


def tampered(eval_bench: Path, dest: Path) -> Path:
    """A copy of the build whose questions.jsonl has one gold answer changed after the build."""
    root = Path(shutil.copytree(eval_bench, dest))
    records = read_jsonl(root / "questions.jsonl")
    records[0]["answer"] = "tampered"
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


def predictions(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def ids(bench: Path) -> list[str]:
    return [r["question_id"] for r in read_jsonl(bench / "questions.jsonl")]


# --- every reader verifies the manifest --------------------------------------------------------------------


def test_every_reader_refuses_a_tampered_benchmark(eval_bench, tmp_path):
    root = tampered(eval_bench, tmp_path / "bench")
    qid = ids(root)[0]
    commands = {
        "eval": ("eval", root, "--baseline", "random", "-o", tmp_path / "eval"),
        "export": ("export", root, "--format", "jsonl", "-o", tmp_path / "export"),
        "report": ("report", root, "-o", tmp_path / "site"),
        "prompt": ("prompt", root, "--question", qid),
        "audit": ("audit", root, "-o", tmp_path / "audit"),
    }
    for name, args in commands.items():
        line = refused(run(*args), "questions.jsonl", "checksum", MANIFEST_FILE, "--resume")
        assert line.count("Error:") == 1, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench"]  # no reader wrote anything


def test_images_are_verified_where_they_are_read(eval_bench, tmp_path):
    root = Path(shutil.copytree(eval_bench, tmp_path / "bench"))
    png = sorted((root / "maps").glob("*.mask.png"))[0]
    png.unlink()
    refused(run("export", root, "--format", "jsonl", "-o", tmp_path / "export"), png.name, "is missing")
    with pytest.raises(ChecksumError, match=png.name):
        verify_folder(root, "all")
    verify_folder(root, "records")  # scoring replies reads no image: a baseline run still scores
    assert run("eval", root, "--baseline", "random", "--no-plots", "-o", tmp_path / "eval").exit_code == 0


def test_an_unfinished_build_is_refused_with_resume(eval_bench, tmp_path):
    root = Path(shutil.copytree(eval_bench, tmp_path / "bench"))
    (root / MANIFEST_FILE).unlink()  # the config marker stays: a build that never finished
    refused(run("eval", root, "--baseline", "random", "-o", tmp_path / "eval"), "unfinished build", "--resume")
    refused(run("export", root, "--format", "jsonl", "-o", tmp_path / "export"), "unfinished build")
    assert not (tmp_path / "eval").exists() and not (tmp_path / "export").exists()


# --- eval's inputs --------------------------------------------------------------------------------------------


def test_eval_refuses_bad_predictions_and_writes_nothing(eval_bench, tmp_path):
    known = ids(eval_bench)
    out = tmp_path / "report"
    empty = predictions(tmp_path / "empty.jsonl", [])
    refused(run("eval", eval_bench, "--predictions", empty, "-o", out), "holds no prediction", "question_id")
    broken = predictions(tmp_path / "broken.jsonl", ["{broken", "[1, 2]"])
    refused(run("eval", eval_bench, "--predictions", broken, "-o", out), "no prediction", f"{broken}:1")
    foreign = predictions(tmp_path / "foreign.jsonl", [{"question_id": f"other-{i}", "prediction": "Yes"}
                                                       for i in range(5)] + [{"question_id": known[0],
                                                                              "prediction": "Yes"}])
    refused(run("eval", eval_bench, "--predictions", foreign, "-o", out), "5 of 6 prediction ids",
            "'other-0'", "another benchmark")
    twice = predictions(tmp_path / "twice.jsonl", [{"question_id": q, "prediction": "Yes"}
                                                   for q in (known[0], known[1], known[2], known[0])])
    refused(run("eval", eval_bench, "--predictions", twice, "-o", out), f"{known[0]!r} (lines 1, 4)",
            "one prediction per id")
    assert not out.exists()
    with pytest.raises(EvalInputError, match="1 of 1 prediction ids"):
        run_eval(eval_bench, PredictionTexts({"nowhere": "Yes"}))


def test_broken_prediction_lines_are_located(eval_bench, tmp_path):
    known = ids(eval_bench)
    path = predictions(tmp_path / "p.jsonl", [{"question_id": known[0], "prediction": "Yes"}, "{broken",
                                              {"prediction": "x"}, "[3]"])
    result = run("eval", eval_bench, "--predictions", path, "--no-plots", "-o", tmp_path / "r")
    assert result.exit_code == 0, result.output
    assert "invalid prediction lines: 3" in result.output
    assert f"{path}:2: not valid JSON" in result.output and f"{path}:3: no question_id" in result.output
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["prediction_problems"][2] == f"{path}:4: a JSON list, not an object"


def test_eval_refuses_bad_split_limit_and_output(eval_bench, tmp_path):
    before = sorted(p.relative_to(eval_bench) for p in eval_bench.rglob("*"))
    base = ("eval", eval_bench, "--baseline", "random")
    refused(run(*base, "--split", "tset", "-o", tmp_path / "r"), "unknown split 'tset'", "(did you mean 'test'?)")
    refused(run(*base, "--split", "dev", "-o", tmp_path / "r"), "unknown split 'dev'", "(valid: ", "train")
    for limit in ("0", "-1"):
        refused(run(*base, "--limit", limit, "-o", tmp_path / "r"), "--limit", "at least 1")
    refused(run(*base, "-o", eval_bench), "is the benchmark folder")
    refused(run(*base, "-o", eval_bench / "report"), "is inside the benchmark folder")
    refused(run("eval", eval_bench, "--baseline", "pixel", "-o", eval_bench / "px"), "inside the benchmark")
    refused(run("report", eval_bench, "-o", eval_bench / "site"), "inside the benchmark folder")
    refused(run(*base, "--cache", eval_bench / "cache.jsonl", "-o", tmp_path / "r"), "--cache", "inside the benchmark")
    refused(run("export", eval_bench, "--format", "jsonl", "--split", "test", "-o", tmp_path / "x"), "--split",
            "every split")  # a format that exports every split no longer ignores --split silently
    assert not (tmp_path / "r").exists() and not (tmp_path / "x").exists()
    assert sorted(p.relative_to(eval_bench) for p in eval_bench.rglob("*")) == before
    verify_folder(eval_bench)  # nothing was written into the benchmark
    with pytest.raises(EvalInputError, match="--limit 0"):
        run_eval(eval_bench, PredictionTexts({}), limit=0)


# --- caps on the CLI's options -------------------------------------------------------------------------------


def test_numeric_options_carry_the_configs_caps(eval_bench, tmp_path):
    map_json = next(p for p in sorted((eval_bench / "maps").glob("*.json")))
    out = tmp_path / "q.jsonl"
    per_template = "questions.per_template"
    refused(run("questions", map_json, "--per-template", "100000000", "-o", out), "more than 1000", per_template)
    refused(run("questions", map_json, "--per-template", "-3", "-o", out), "less than 1", per_template)
    refused(run("questions", map_json, "--seed", "-1", "-o", out), "less than 0", "seed")
    refused(run("templates", "preview", "1", "--map", map_json, "-n", "100000000"), "more than 1000")
    refused(run("counterfactual", map_json, "--per-template", "0", "-o", tmp_path / "cf"), per_template)
    refused(run("describe", map_json, "--n-referring", "5000"), "referring_per_map")
    refused(run("stats", "synth", "usa", "--decimals", "99"), "more than 12")
    refused(run("stats", "synth", "usa", "--low", "nan"), "not a finite number")
    refused(run("build", "small", "--workers", "1000", "-o", tmp_path / "b"), "more than 64")
    for option, value in (("--concurrency", "0"), ("--retries", "-1"), ("--timeout", "inf"), ("--seed", "-5")):
        refused(run("eval", eval_bench, "--baseline", "random", option, value, "-o", tmp_path / "r"), option)
    assert not out.exists() and not (tmp_path / "r").exists() and not (tmp_path / "b").exists()
    assert not (tmp_path / "cf").exists()


# --- scores by style -----------------------------------------------------------------------------------------


def test_report_breaks_scores_down_by_style(styled, eval_bench, tmp_path):
    styles = set(load_benchmark(styled).map_styles.values())
    assert styles == {"default", "mapwise"}
    out = tmp_path / "r"
    assert run("eval", styled, "--baseline", "random", "-o", out).exit_code == 0
    tables = (out / "tables.md").read_text()
    section = tables.split("## By style", 1)[1].split("\n## ", 1)[0]
    for style in styles:
        row = next(line for line in section.splitlines() if line.startswith(f"| {style} |"))
        assert "[" in row  # each cell with its bootstrap interval
        assert f"| {style} · random (empirical) |" in section and f"| {style} · chance (analytic) |" in section
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["tables_ci"]["style"]) == styles and (out / "plots" / "by_style.png").is_file()
    assert {"default", "mapwise"} == set(summary["extraction"]["by_style"])
    assert "### Table extraction by style" in tables
    site = tmp_path / "site"
    assert run("report", styled, "--eval", out, "-o", site).exit_code == 0
    assert 'id="f-style"' in (site / "index.html").read_text() and "By style" in (site / "index.html").read_text()
    assert '"style":"mapwise"' in (site / "data.js").read_text()
    plain = tmp_path / "plain"  # one style: no style table, column or plot, as before
    assert run("eval", eval_bench, "--baseline", "random", "--no-plots", "-o", plain).exit_code == 0
    assert "By style" not in (plain / "tables.md").read_text()
    assert "style" not in (plain / "scores.csv").read_text().splitlines()[0].split(",")
