"""The extraction task in the eval report and the report site, on a real tiny build: a perfect predictions file
(the gold tables written back as replies) and a perturbed one (cells made wrong, unreadable, dropped, an invented
region, a repeated row) give exactly the counts, scores, intervals and pages they should."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import build_tiny

from mapgen.benchmark import load_benchmark
from mapgen.evaluation import prediction_source, run_eval
from mapgen.files import read_jsonl
from mapgen.report_site import build_site
from mapgen.tasks.extraction.scores import gold_text

CONFIG = {
    "name": "xreport-test",
    "seed": 0,
    "countries": [
        {"name": "usa", "maps": 3},
        {"name": "india", "maps": 2, "statistics": {"curated": ["literacy_2011"]}},
    ],
    "questions": {"per_template": 1, "per_image": 2},
    "tasks": ["vqa", "extraction"],
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
WRONG, COLOUR, DROPPED = 3, 1, 2
"""Per perturbed table: rows read as another class / value, rows whose cell is a colour word (the parser reads no
row from the line), rows left out; continuous tables also get one open-ended reading (no value: unreadable)."""


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return load_benchmark(build_tiny(tmp_path_factory, CONFIG, "xreport"), finished=True)


def cell(table, row) -> str:
    if table["map_type"] == "discrete":
        return row["class"]
    return "N/A" if row["value"] is None else f"{row['value']:.6g}"


def other_cell(table, row) -> str:
    """A reading that is wrong: another legend class, or the far end of the bar (beyond the tolerance)."""
    if table["map_type"] == "discrete":
        return next(c for c in table["classes"] if c not in (row["class"], "N/A"))
    mid = (table["vmin"] + table["vmax"]) / 2
    return f"{table['vmax'] if row['value'] < mid else table['vmin']:.6g}"


def reply(rows: list[tuple[str, str]]) -> str:
    return "Here is the table:\n\n| Region | Reading |\n|---|---|\n" + "\n".join(f"| {r} | {c} |" for r, c in rows)


def open_ended(table) -> int:
    return int(table["map_type"] == "continuous")


def perturbed(table) -> str:
    """The gold table with WRONG wrong cells, COLOUR colour words, DROPPED rows left out, an open-ended reading on
    continuous maps, then a row naming Atlantis and a second (repeated) row for the first region."""
    valued = [r["region"] for r in table["rows"] if r.get("class", r.get("value")) not in (None, "N/A")]
    kinds = ["wrong"] * WRONG + ["colour"] * COLOUR + ["dropped"] * DROPPED + ["open"] * open_ended(table)
    kind = dict(zip(valued[1:], kinds))  # the first row stays right: it is repeated below
    text = {"wrong": lambda r: other_cell(table, r), "colour": lambda r: "dark blue",
            "open": lambda r: f"over {table['vmin']:.6g}"}
    rows = [(r["region"], text[kind[r["region"]]](r) if r["region"] in kind and kind[r["region"]] in text
             else cell(table, r)) for r in table["rows"] if kind.get(r["region"]) != "dropped"]
    first = table["rows"][0]
    return reply(rows + [("Atlantis", cell(table, first)), (first["region"], cell(table, first))])


@pytest.fixture(scope="module")
def runs(bench, tmp_path_factory):
    """Eval folders of the perfect and the perturbed predictions files, and a site for each."""
    root = tmp_path_factory.mktemp("xreport-runs")
    out = {}
    for name, make in (("perfect", lambda t: reply([(r["region"], cell(t, r)) for r in t["rows"]])),
                       ("perturbed", perturbed)):
        path = root / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"question_id": t["question_id"], "prediction": make(t)}) + "\n"
                                for t in bench.tasks.get("extraction", [])), encoding="utf-8")
        run_eval(bench, prediction_source(path), out_dir=root / name)
        build_site(bench.root, root / f"site-{name}", eval_dir=root / name)
        out[name] = root / name
    return out


def site_data(site: Path) -> dict:
    text = (site / "data.js").read_text(encoding="utf-8")
    return json.loads(text[len("window.MAPGEN_SITE = "):].rstrip().rstrip(";"))


# ------------------------------------------------------------------------------------------- eval report


def test_perfect_replies_read_every_row_right(bench, runs) -> None:
    readings = {r["map_id"]: r for r in read_jsonl(runs["perfect"] / "extraction_readings.jsonl")}
    assert set(readings) == {t["map_id"] for t in bench.tasks.get("extraction", [])}
    for t in bench.tasks.get("extraction", []):
        r = readings[t["map_id"]]
        assert r["counts"] == {"right": len(t["rows"]), "wrong": 0, "unreadable": 0, "missing": 0,
                               "unknown region": 0, "repeat": 0, "unparsed": 0}
        assert r["score"] == 1.0 and r["format"] == "markdown" and not r["extra"]
        assert [g["read"] for g in r["rows"]] == [cell(t, row) for row in t["rows"]]


def test_perturbed_replies_count_each_kind_of_error(bench, runs) -> None:
    readings = {r["map_id"]: r for r in read_jsonl(runs["perturbed"] / "extraction_readings.jsonl")}
    for t in bench.tasks.get("extraction", []):
        r, n = readings[t["map_id"]], len(t["rows"])
        right = n - WRONG - COLOUR - DROPPED - open_ended(t)
        assert r["counts"] == {"right": right, "wrong": WRONG, "unreadable": open_ended(t),
                               "missing": COLOUR + DROPPED, "unknown region": 1, "repeat": 1, "unparsed": COLOUR}
        assert r["score"] == pytest.approx(right / n)
        assert [e["region"] for e in r["extra"]] == ["Atlantis", t["rows"][0]["region"], ""]
        assert "dark blue" in r["extra"][-1]["read"]
        assert {g["region"] for g in r["rows"] if g["status"] == "missing"} == {
            g["region"] for g in r["rows"] if g["read"] is None}


def test_tables_md_has_the_task_overview_and_intervals(bench, runs) -> None:
    summary = json.loads((runs["perturbed"] / "summary.json").read_text(encoding="utf-8"))["extraction"]
    text = (runs["perturbed"] / "tables.md").read_text(encoding="utf-8")
    overview = next(line for line in text.splitlines() if line.startswith("| Table extraction |"))
    cells = [c.strip() for c in overview.strip("|").split("|")]
    assert cells[1] == str(len(bench.tasks.get("extraction", [])))
    assert float(cells[3]) == pytest.approx(summary["score"] * 100, abs=0.01)
    lo, hi = summary["score_ci"]  # a fraction, like the score it bounds
    assert cells[4] == f"[{lo * 100:.1f}, {hi * 100:.1f}]" and lo <= summary["score"] <= hi
    assert float(cells[5]) == pytest.approx(summary["random"]["score"] * 100, abs=0.01)  # random
    assert float(cells[7]) == pytest.approx(summary["chance"]["score"] * 100, abs=0.01)  # chance
    assert next(line for line in text.splitlines() if line.startswith("| VQA |"))
    section = text.split("## Table extraction (%)", 1)[1].splitlines()
    for variant in ("discrete", "continuous"):
        row = next(line for line in section if line.startswith(f"| {variant} |"))
        lo, hi = summary["ci"][variant]["class_accuracy" if variant == "discrete" else "within_tolerance"]
        assert f"[{lo * 100:.1f}, {hi * 100:.1f}]" in row


def test_intervals_narrow_to_the_score_when_every_table_scores_the_same(runs) -> None:
    summary = json.loads((runs["perfect"] / "summary.json").read_text(encoding="utf-8"))["extraction"]
    assert summary["score_ci"] == [1.0, 1.0]
    assert summary["ci"]["continuous"]["mae_share"] == pytest.approx([0.0, 0.0], abs=1e-3)  # 6-digit readings


def test_extraction_plot_and_csv(bench, runs) -> None:
    from PIL import Image

    plot = runs["perturbed"] / "plots" / "extraction.png"
    assert Image.open(plot).size == (800, 400)
    rows = (runs["perturbed"] / "extraction_scores.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == len(bench.tasks.get("extraction", [])) + 1


def test_extraction_bars_hold_the_run_and_its_references(runs) -> None:
    from mapgen.tasks.extraction.report import extraction_bars

    summary = json.loads((runs["perturbed"] / "summary.json").read_text(encoding="utf-8"))["extraction"]
    bars = extraction_bars(summary)
    assert list(bars.score.columns) == ["run", "random", "chance"]
    assert bars.score.loc["discrete", "run"] == pytest.approx(summary["discrete"]["class_accuracy"] * 100)
    assert bars.low.loc["discrete", "run"] <= bars.score.loc["discrete", "run"] <= bars.high.loc["discrete", "run"]
    assert not math.isnan(bars.score.loc["continuous", "chance"])


# ------------------------------------------------------------------------------------------- site


def test_site_shows_each_map_gold_beside_the_parsed_table(bench, runs) -> None:
    data = site_data(runs["perturbed"].parent / "site-perturbed")
    by_map = {m["id"]: m for m in data["maps"]}
    for t in bench.tasks.get("extraction", []):
        table = by_map[t["map_id"]]["table"]
        n = len(t["rows"])
        right = n - WRONG - COLOUR - DROPPED - open_ended(t)
        assert table["scored"] and table["counts"]["wrong"] == WRONG and table["counts"]["right"] == right
        assert [r["gold"] for r in table["rows"]] == [gold_text(r) for r in t["rows"]]
        assert "Atlantis" in table["reply"]
    page = (runs["perturbed"].parent / "site-perturbed" / "index.html").read_text(encoding="utf-8")
    assert "Table extraction" in page and "| Table extraction |" not in page  # Markdown became HTML
    n_tables = len(bench.tasks.get("extraction", []))
    assert f"{n_tables} gold tables" in page and 'src="eval/plots/extraction.png"' in page


def test_gold_text() -> None:
    rows = ({"class": "10-20"}, {"value": None}, {"value": 4779736.0}, {"value": 61.834})
    assert [gold_text(r) for r in rows] == ["10-20", "N/A", "4,779,736", "61.83"]


def test_site_without_eval_shows_the_gold_tables(bench, tmp_path) -> None:
    build_site(bench.root, tmp_path / "site")
    data = site_data(tmp_path / "site")
    tables = {m["id"]: m["table"] for m in data["maps"]}
    for t in bench.tasks.get("extraction", []):
        assert not tables[t["map_id"]]["scored"] and len(tables[t["map_id"]]["rows"]) == len(t["rows"])


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_detail_page_shows_the_counts_in_headless_chromium(bench, runs, tmp_path) -> None:
    site = runs["perturbed"].parent / "site-perturbed"
    t = next(t for t in bench.tasks.get("extraction", []) if t["map_type"] == "discrete")
    url = (site / "index.html").resolve().as_uri() + f"#map={t['map_id']}"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--virtual-time-budget=5000", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", url]
    dom = subprocess.run([CHROMIUM, *flags], capture_output=True, text=True, timeout=120).stdout
    assert '<pre id="site-errors"></pre>' in dom, dom[-1500:]
    n = len(t["rows"])
    for status, count in (("right", n - 6), ("wrong", WRONG), ("unreadable", 0), ("missing", COLOUR + DROPPED),
                          ("unknown region", 1), ("repeat", 1), ("unparsed", COLOUR)):
        assert f'data-count="{status}">{status} {count}</span>' in dom
    assert dom.count('class="status-wrong"') == WRONG and "Atlantis" in dom


def test_tasks_overview_gives_grounding_its_interval(eval_bench, tmp_path) -> None:
    """Gold boxes for the first half of the grounding records, no box for the rest: Acc@0.5 is the half, and its
    interval brackets it; every gold box: the interval collapses onto 100."""
    records = read_jsonl(eval_bench / "grounding.jsonl")
    k = len(records) // 2
    half = {r["question_id"]: json.dumps(r["ground_truth"]) if i < k else "I cannot tell."
            for i, r in enumerate(records)}
    for name, preds, score in (("half", half, 100 * k / len(records)),
                               ("all", {r["question_id"]: json.dumps(r["ground_truth"]) for r in records}, 100.0)):
        run_eval(eval_bench, prediction_source(preds), out_dir=tmp_path / name, plots=False)
        text = (tmp_path / name / "tables.md").read_text(encoding="utf-8")
        line = next(x for x in text.splitlines() if x.startswith("| Grounding |"))
        row = [c.strip() for c in line.strip("|").split("|")]
        lo, hi = (float(x) for x in row[4].strip("[]").split(","))
        assert row[1] == str(len(records)) and float(row[3]) == pytest.approx(score, abs=0.01)
        assert lo <= score <= hi and (lo == hi == 100.0) == (name == "all")
