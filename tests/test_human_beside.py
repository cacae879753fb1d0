"""A human row everywhere (#42 item 4): `mapgen eval --human REPORT --beside ...` sets the people's majority beside
random, prior and the pixel oracle on the questions people answered, and the report site shows that table.

Everything is made by the commands themselves: `mapgen build` of a tiny config, `human sample`, simulated
annotators, `human score`, `eval --baseline`, `eval --human --beside`, `mapgen report`. Expected figures are
computed from the records those commands wrote (the human report's majority.jsonl, each eval's scores.csv)."""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from test_human_score import simulate, write_files
from test_report_site import CHROMIUM, FLAGS

from mapgen.cli import main
from mapgen.human.kit import load_gold

CONFIG = """\
name: human-beside
seed: 3
countries: [{name: usa, maps: 2}]
questions: {per_image: 40}
split: {ratios: {train: 0.5, test: 0.5}}
"""
SOURCES = {"random": "random", "prior": "prior", "pixel": "pixel oracle"}


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("beside")
    (root / "tiny.yaml").write_text(CONFIG)
    run("build", str(root / "tiny.yaml"), "-o", str(root / "bench"), "--quiet")
    run("human", "sample", str(root / "bench"), "-n", "30", "-o", str(root / "kit"))
    files = write_files(simulate(load_gold(root / "kit"), seed=2), root)
    run("human", "score", str(root / "kit"), "--answers", *files, "-o", str(root / "people"))
    for name in SOURCES:
        run("eval", str(root / "bench"), "--baseline", name, "--no-plots", "-o", str(root / f"e-{name}"))
    out = run("eval", str(root / "bench"), "--human", str(root / "people"), "--beside", str(root / "e-random"),
              "--beside", str(root / "e-prior"), "--beside", f"pixel  oracle={root / 'e-pixel'}", "-o", str(root / "e"))
    assert "sources.md" in out
    run("report", str(root / "bench"), "--eval", str(root / "e"), "-o", str(root / "site"))
    return root


def expected_rows(root: Path, ids: set[str]) -> dict[str, dict[str, float]]:
    """Per source: questions, overall and binary score in % on ``ids``, from the records the commands wrote."""
    people = pd.DataFrame([json.loads(line) for line in (root / "people" / "majority.jsonl").read_text().splitlines()])
    frames = {"human (majority)": people}
    for name, label in SOURCES.items():
        frames[label] = pd.read_csv(root / f"e-{name}" / "scores.csv", dtype={"question_id": str})
    out = {}
    for label, frame in frames.items():
        f = frame[frame["question_id"].isin(ids)]
        out[label] = {"n": len(f), "Overall": f["main"].mean() * 100,
                      "Binary Acc": f.loc[f["answer_type"] == "binary", "main"].mean() * 100}
    return out


def page_tables(page: str) -> list[dict[str, list[str]]]:
    """The tables of the site's side-by-side section: ``{source: cells}`` each."""
    section = page[page.index('<div id="sources">'):]
    section = section[:section.index("</div>")]
    tables = []
    for table in re.findall(r"<table>(.*?)</table>", section, re.S):
        rows = [[html.unescape(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r)]
                for r in re.findall(r"<tr>(.*?)</tr>", table)]
        tables.append({r[0]: r[1:] for r in rows})
    return tables


def test_the_site_shows_the_human_row_beside_the_others_on_the_same_questions(made: Path) -> None:
    kit_ids = {q.question_id for q in load_gold(made / "kit")}
    prior_ids = set(pd.read_csv(made / "e-prior" / "scores.csv", dtype={"question_id": str})["question_id"])
    page = (made / "site" / "index.html").read_text()
    tables = page_tables(page)
    assert "restricted to them" in page and "like with like" in page  # the page says the rows share questions
    answered, common = tables[0], tables[2]  # [1] and [3]: the same rows by map type
    header = answered["source"]
    for table, ids in ((answered, kit_ids), (common, kit_ids & prior_ids)):
        assert list(table)[1:] == ["human (majority)", "random", "prior", "pixel oracle", "chance (analytic)"]
        for label, want in expected_rows(made, ids).items():
            cells = dict(zip(header, table[label]))
            n = len(kit_ids & prior_ids) if label == "prior" else want["n"]
            assert int(cells["n"]) == n, (label, cells)
            for column in ("Overall", "Binary Acc"):
                assert cells[column] == f"{want[column]:.2f}", (label, column, cells)
    assert 0 < len(kit_ids & prior_ids) < len(kit_ids)  # prior scores the held-out split: the second table is needed
    assert 'src="eval/plots/sources.png"' in page and (made / "site" / "eval" / "plots" / "sources.png").is_file()


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_site_with_the_human_row_loads_in_chromium(made: Path, tmp_path: Path) -> None:
    url = (made / "site" / "index.html").resolve().as_uri() + "#eval"
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120).stdout
    assert 'data-status="ready"' in dom and '<pre id="site-errors"></pre>' in dom, dom[-2000:]
    assert '<div id="sources">' in dom and "human (majority)" in dom


def test_the_human_row_is_the_human_reports_majority_accuracy(made: Path) -> None:
    people = json.loads((made / "people" / "summary.json").read_text())
    beside = json.loads((made / "e" / "summary.json").read_text())["beside"]
    human = next(r for r in beside["answered"]["rows"] if r["source"] == "human (majority)")
    assert human["n"] == people["questions"] and human["Overall"] * 100 == pytest.approx(people["majority_accuracy"],
                                                                                       abs=0.01)
    csv = pd.read_csv(made / "e" / "sources.csv")
    assert set(csv["subset"]) == {"answered", "common"} and len(csv) == 10


@pytest.mark.parametrize("problem", ["no-human", "not-an-eval", "same-label"])
def test_bad_beside_folders_are_refused_in_one_line(made: Path, tmp_path: Path, problem: str) -> None:
    args = ["eval", str(made / "bench"), "--human", str(made / "people"), "--beside", str(made / "e-random")]
    if problem == "no-human":
        args = ["eval", str(made / "bench"), "--baseline", "random", "--beside", str(made / "e-random")]
    elif problem == "not-an-eval":
        args += ["--beside", str(made / "kit")]
    else:
        args += ["--beside", f"random={made / 'e-prior'}"]
    result = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "x")])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and (len(lines) == 1 or problem == "no-human"), result.output  # + click's usage
    assert "--beside" in lines[-1] and not (tmp_path / "x").exists()
