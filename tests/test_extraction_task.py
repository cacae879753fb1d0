"""The table-extraction task on a real tiny build: gold tables, every reply format scoring 1.0, metamorphic
checks of the metrics, and the random baseline against its analytic chance."""

from __future__ import annotations

import csv
import io
import json
import statistics

import pytest
from helpers import build_tiny

from mapgen.benchmark import load_benchmark
from mapgen.tasks.extraction.scores import chance, random_replies, score_table, score_tables, summarize

CONFIG = {
    "name": "extract-test",
    "seed": 0,
    "countries": [
        {"name": "usa", "maps": 2},
        # the curated literacy table leaves Ladakh empty: N/A rows on both map types
        {"name": "india", "maps": 2, "statistics": {"curated": ["literacy_2011"]}},
    ],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["shuffled"]},
    "questions": {"per_template": 1, "per_image": 1},
    "tasks": ["extraction"],
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
}


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return load_benchmark(build_tiny(tmp_path_factory, CONFIG, "extract"), finished=True)


@pytest.fixture(scope="module")
def tables(bench):
    return bench.tasks.get("extraction", [])


def _by_type(tables, map_type):
    return [t for t in tables if t["map_type"] == map_type]


# ------------------------------------------------------------------------------------------- gold tables


def test_one_gold_table_per_image(bench, tables) -> None:
    assert [t["map_id"] for t in tables] == [m["map_id"] for m in bench.maps]
    assert bench.manifest["counts"]["extraction"] == len(tables) == 11
    assert "extraction.jsonl" in bench.manifest["files"]
    assert {t["map_type"] for t in tables} == {"discrete", "continuous"} and any(t["hatched"] for t in tables)


def test_rows_are_the_legible_regions_of_the_render(bench, tables) -> None:
    """Rows and omitted regions split the map's regions exactly as the render's pixel facts mark legibility."""
    for t in tables:
        regions = bench.map_json(t["map_id"])["regions"]
        assert [r["code"] for r in t["rows"]] == [c for c, px in regions.items() if px["legible"]]
        assert [r["code"] for r in t["omitted"]] == [c for c, px in regions.items() if not px["legible"]]
    hatched = next(t for t in tables if t["hatched"] and t["country"] == "usa")
    assert {"RI", "DE"} <= {r["code"] for r in hatched["omitted"]}  # too small to read hatching


def test_classes_are_the_drawn_legend_and_values_the_spec(bench, tables) -> None:
    for t in tables:
        data = bench.map_json(t["map_id"])
        values = data["spec"]["values"]
        if t["map_type"] == "discrete":
            drawn = [item["label"] for item in data["legend_items"] if "label" in item and "tick" not in item]
            assert sorted(t["classes"]) == sorted(drawn)
            for row in t["rows"]:
                assert row["class"] in t["classes"]
        else:
            assert t["tolerance"] == pytest.approx(0.05 * (t["vmax"] - t["vmin"]))
            for row in t["rows"]:
                v = values[row["code"]]  # the spec JSON writes N/A as null
                assert row["value"] == (None if v is None else pytest.approx(min(max(v, t["vmin"]), t["vmax"])))


def test_no_data_regions_are_gold_na(tables) -> None:
    india = [t for t in tables if t["country"] == "india"]
    for t in india:
        ladakh = next(r for r in t["rows"] if r["code"] == "LA")
        assert ladakh.get("class", "N/A") == "N/A" and ladakh.get("value") is None
        if t["map_type"] == "discrete":
            assert "N/A" in t["classes"]


def test_renamed_maps_accept_only_their_own_names(tables) -> None:
    cf = next(t for t in tables if t["counterfactual"] == "shuffled")
    texas = next(r for r in cf["rows"] if r["code"] == "TX")
    assert texas["region"] != "Texas" and "Texas" not in texas["accepted"]


# ------------------------------------------------------------------------------------------- gold as a reply


def _cell(table, row):
    if table["map_type"] == "discrete":
        return row["class"]
    return "N/A" if row["value"] is None else f"{row['value']:,.4f}"


def as_markdown(table):
    lines = ["Here is the table I read from the map:", "", "| State/UT | Reading |", "|:--|--:|"]
    return "\n".join(lines + [f"| **{r['region']}** | {_cell(table, r)} |" for r in table["rows"]])


def as_csv(table):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["region", "value"])
    writer.writerows([r["region"], _cell(table, r)] for r in table["rows"])
    return f"```csv\n{out.getvalue()}```\nThese are my readings."


def as_json_object(table):
    cells = {r["region"]: (r["value"] if table["map_type"] == "continuous" else r["class"]) for r in table["rows"]}
    return json.dumps({"answer": cells}, ensure_ascii=False)


def as_json_rows(table):
    key = "class" if table["map_type"] == "discrete" else "value"
    return "```json\n" + json.dumps([{"region": r["region"], key: _cell(table, r)} for r in table["rows"]]) + "\n```"


def as_lines_by_code(table):
    """Bullets naming each region by its last accepted spelling (a code or the drawn label), en dashes."""
    lines = ["Readings:"]
    for r in table["rows"]:
        lines.append(f"- {r['accepted'][-1]}: {_cell(table, r).replace('-', '–') if table['map_type'] == 'discrete' else _cell(table, r)}")
    return "\n".join(lines + ["", "Some small regions were too small to read."])


FORMATS = [as_markdown, as_csv, as_json_object, as_json_rows, as_lines_by_code]


@pytest.mark.parametrize("render", FORMATS, ids=[f.__name__ for f in FORMATS])
def test_gold_read_back_scores_one(tables, render) -> None:
    for t in tables:
        s = score_table(t, render(t))
        assert s.main == 1.0, (t["question_id"], s.metrics, s.unknown_regions)
        assert all(v == (0.0 if k == "mae_share" else 1.0) for k, v in s.metrics.items())


def test_the_records_own_ground_truth_scores_one(tables) -> None:
    assert all(score_table(t, t["ground_truth"]).main == 1.0 for t in tables)


def test_illegible_regions_in_a_reply_are_ignored(tables) -> None:
    t = next(t for t in tables if t["omitted"])
    extra = "\n".join(f"| {o['region']} | 1 |" for o in t["omitted"])
    assert score_table(t, as_markdown(t) + "\n" + extra).metrics == score_table(t, as_markdown(t)).metrics


# ------------------------------------------------------------------------------------------- metamorphic


def test_one_wrong_class_costs_one_row(tables) -> None:
    t = _by_type(tables, "discrete")[0]
    n = len(t["rows"])
    row = t["rows"][0]
    other = next(c for c in t["classes"] if c != row["class"])
    reply = as_markdown(t).replace(f"| **{row['region']}** | {row['class']} |", f"| **{row['region']}** | {other} |")
    m = score_table(t, reply).metrics
    assert m["class_accuracy"] == pytest.approx((n - 1) / n)
    assert m["pair_precision"] == m["pair_recall"] == pytest.approx((n - 1) / n)


def test_dropped_and_invented_rows(tables) -> None:
    t = _by_type(tables, "discrete")[0]
    n = len(t["rows"])
    half = {**t, "rows": t["rows"][: n // 2]}
    m = score_table(t, as_markdown(half)).metrics
    assert m["pair_precision"] == 1.0 and m["pair_recall"] == pytest.approx((n // 2) / n)
    m = score_table(t, as_markdown(t) + "\n| Atlantis | " + t["classes"][0] + " |").metrics
    assert m["class_accuracy"] == 1.0 and m["pair_precision"] == pytest.approx(n / (n + 1))


def test_a_hedged_second_reading_costs_precision_not_accuracy(tables) -> None:
    t = _by_type(tables, "discrete")[0]
    row = t["rows"][0]
    other = next(c for c in t["classes"] if c != row["class"])
    m = score_table(t, as_markdown(t) + f"\n| {row['region']} | {other} |").metrics
    assert m["class_accuracy"] == 1.0 and m["pair_recall"] == 1.0 and m["pair_precision"] < 1.0


def test_continuous_readings_inside_and_outside_the_tolerance(tables) -> None:
    t = next(t for t in _by_type(tables, "continuous") if t["country"] == "usa")
    span, tol, n = t["vmax"] - t["vmin"], t["tolerance"], len(t["rows"])

    def shifted(k):
        rows = [dict(r) for r in t["rows"]]
        rows[0]["value"] = rows[0]["value"] + k * tol * (1 if rows[0]["value"] < (t["vmin"] + t["vmax"]) / 2 else -1)
        return as_markdown({**t, "rows": rows})

    inside, outside = score_table(t, shifted(0.9)).metrics, score_table(t, shifted(1.2)).metrics
    assert inside["within_tolerance"] == 1.0 and outside["within_tolerance"] == pytest.approx((n - 1) / n)
    assert outside["mae_share"] == pytest.approx(1.2 * tol / span / n, rel=1e-3)


def test_na_must_be_read_as_na(tables) -> None:
    for t in (t for t in tables if t["country"] == "india"):
        wrong = as_markdown(t).replace("| **Ladakh** | N/A |", f"| **Ladakh** | {_cell(t, t['rows'][0])} |")
        assert score_table(t, wrong).main == pytest.approx((len(t["rows"]) - 1) / len(t["rows"]))


def test_missing_and_empty_replies(tables) -> None:
    t = _by_type(tables, "continuous")[0]
    assert score_table(t, None).missing and score_table(t, None).metrics["mae_share"] == 1.0
    empty = score_table(t, "I cannot read this map.")
    assert empty.main == 0.0 and empty.metrics["mae_share"] == 1.0 and not empty.missing


# ------------------------------------------------------------------------------------------- baseline


def test_chance_is_stated_analytically(tables) -> None:
    """Discrete chance is 1/|classes| per row; continuous chance matches a direct numerical integration."""
    for t in _by_type(tables, "discrete"):
        assert chance(t)["class_accuracy"] == pytest.approx(1 / len(t["classes"]))
    t = next(t for t in _by_type(tables, "continuous") if t["country"] == "usa")
    grid = [t["vmin"] + (t["vmax"] - t["vmin"]) * (i + 0.5) / 4000 for i in range(4000)]
    values = [r["value"] for r in t["rows"]]
    hit = statistics.mean(statistics.mean(abs(u - v) <= t["tolerance"] for u in grid) for v in values)
    err = statistics.mean(statistics.mean(abs(u - v) for u in grid) for v in values) / (t["vmax"] - t["vmin"])
    assert chance(t)["within_tolerance"] == pytest.approx(hit, abs=1e-3)
    assert chance(t)["mae_share"] == pytest.approx(err, abs=1e-3)


def test_random_baseline_is_near_chance(tables) -> None:
    runs = [summarize(score_tables(tables, random_replies(tables, seed=s)), tables) for s in range(30)]
    for group, metric in (("discrete", "class_accuracy"), ("discrete", "pair_f1"), ("hatched", "class_accuracy"),
                          ("continuous", "within_tolerance"), ("continuous", "mae_share")):
        members = [t for t in tables if ("hatched" if t["hatched"] else t["map_type"]) == group]
        expected = statistics.mean(chance(t)[metric] for t in members)
        assert statistics.mean(r[group][metric] for r in runs) == pytest.approx(expected, abs=0.02), (group, metric)


def test_random_replies_are_seeded() -> None:
    t = {"question_id": "x", "map_type": "discrete", "classes": ["1-2", "2-3"], "rows": [{"region": "A"}] * 5}
    assert random_replies([t], seed=1) == random_replies([t], seed=1) != random_replies([t], seed=2)


# ------------------------------------------------------------------------------------------- prompts and eval


def test_prompts_ask_for_the_table_of_each_map(bench, tables) -> None:
    from mapgen.evaluation import build_prompts
    from mapgen.tasks import EvalScope, tasks

    prompts = build_prompts(EvalScope(bench), "direct", tasks(["extraction"]))
    assert [p.question_id for p in prompts] == [t["question_id"] for t in tables]
    for p, t in zip(prompts, tables):
        assert p.image_path == bench.image_path(t["map_id"]) and p.strategy == "extraction"
        assert ("| Value |" if t["map_type"] == "continuous" else "| Class |") in p.text
        assert ("hatch pattern" in p.text) == bool(t["hatched"])


def test_eval_run_reports_extraction(bench, tables, tmp_path) -> None:
    from mapgen.evaluation import Baseline, PredictionTexts, run_eval

    perfect = run_eval(bench, PredictionTexts({t["question_id"]: as_csv(t) for t in tables}), out_dir=tmp_path / "gold",
                       plots=False)
    summary = perfect.extra["extraction"]
    assert summary["score"] == 1.0 and summary["discrete"]["pair_f1"] == 1.0
    assert summary["continuous"]["mae_share"] == 0.0 and not perfect.unmatched_predictions
    assert summary["chance"]["discrete"]["class_accuracy"] < 0.3
    text = (tmp_path / "gold" / "tables.md").read_text(encoding="utf-8")
    assert "## Table extraction (%)" in text and "| continuous · chance (analytic) |" in text
    assert (tmp_path / "gold" / "extraction_scores.csv").is_file()
    baseline = run_eval(bench, Baseline("random"), plots=False).extra["extraction"]
    assert baseline["discrete"]["class_accuracy"] == pytest.approx(baseline["random"]["discrete"]["class_accuracy"])


# ------------------------------------------------------------------------------------------- exports


def _import(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_jsonl_export_carries_the_gold_tables(bench, tables, tmp_path) -> None:
    from mapgen.export import export
    from mapgen.files import read_jsonl

    dest = export(bench.root, "jsonl", tmp_path / "jsonl")
    rows = read_jsonl(dest / "extraction.jsonl")
    assert [r["question_id"] for r in rows] == [t["question_id"] for t in tables]
    assert all((dest / r["image"]).is_file() and r["image"] == r["image_id"] for r in rows)
    assert all(score_table(r, as_json_rows(r)).main == 1.0 for r in rows)


def test_hf_export_scores_through_gold_json(bench, tables, tmp_path) -> None:
    datasets = pytest.importorskip("datasets")
    from mapgen.export import export
    from mapgen.tasks.extraction.rows import table_from_row

    dest = export(bench.root, "hf", tmp_path / "hf")
    data = datasets.load_dataset(str(dest), "extraction")
    assert sum(len(data[s]) for s in data) == len(tables)
    for row in data["test"]:
        gold = table_from_row(row)
        assert score_table(gold, row["answer"]).main == 1.0 and score_table(gold, as_markdown(gold)).main == 1.0
        assert row["image"].size in {(800, 600), (800, 800)} and "Markdown table" in row["prompt"]  # India: 800x800


def test_lmms_eval_extraction_task(bench, tables, tmp_path) -> None:
    datasets = pytest.importorskip("datasets")
    import yaml

    from mapgen.export import export

    dest = export(bench.root, "lmms-eval", tmp_path / "lmms")
    assert (dest / "extract_test_extraction.yaml").is_file()
    utils = _import(dest / "utils.py", "lmms_extract_utils")
    task = yaml.load((dest / "extract_test_extraction.yaml").read_text(), Loader=_FunctionLoader)  # noqa: S506
    assert task["process_results"] == "mapgen_extraction_process_results"
    docs = datasets.load_dataset("parquet", data_files=utils.extraction_data_files)["test"]
    results = [utils.mapgen_extraction_process_results(d, [d["answer"]]) for d in docs]
    assert all(r["extraction_score"] == 1.0 for r in results)
    by_name = {m["metric"]: m for m in task["metric_list"]}
    assert by_name["extraction_mae_share"]["higher_is_better"] is False
    assert utils.mean_present([r["extraction_class_accuracy"] for r in results]) == 1.0
    blank = utils.mapgen_extraction_process_results(docs[0], ["I cannot read it."])
    assert blank["extraction_score"] == 0.0


class _FunctionLoader(__import__("yaml").SafeLoader):
    """Reads lmms-eval's ``!function utils.name`` tags as the bare function name."""


_FunctionLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node).split(".")[-1])


def test_vlmevalkit_extraction_dataset(bench, tables, tmp_path, monkeypatch) -> None:
    import pandas as pd

    from mapgen.export import export

    dest = export(bench.root, "vlmevalkit", tmp_path / "vlm", split="test")
    module = _import(dest / "mapgen_dataset.py", "mapgen_vlmeval_extraction")
    monkeypatch.setenv("MAPGEN_TSV_DIR", str(dest))
    dataset = module.MapgenExtractionDataset(module.EXTRACTION_NAME)
    assert len(dataset) == sum(t["split"] == "test" for t in tables)
    msgs = dataset.build_prompt(0)
    assert msgs[0]["type"] == "image" and "Markdown table" in msgs[1]["value"]
    dataset.data.drop(columns=["image"]).assign(prediction=dataset.data["answer"]).to_csv(
        tmp_path / "p.tsv", sep="\t", index=False)
    result = dataset.evaluate(str(tmp_path / "p.tsv")).set_index("group")
    own = result.loc[[g for g in result.index if "·" not in g]]
    assert (own["n"] > 0).all() and own[["Class acc", "Within τ"]].max(axis=1).eq(100.0).all()
    assert isinstance(result, pd.DataFrame) and "continuous · chance (analytic)" in result.index
    assert result.loc["continuous · chance (analytic)", "Within τ"] < 20


def test_croissant_and_llava_carry_the_tables(bench, tables, tmp_path) -> None:
    from mapgen.export import export

    llava = export(bench.root, "llava", tmp_path / "llava")
    turns = {c["id"]: c["conversations"] for s in ("train", "test")
             for c in json.loads((llava / f"llava_{s}.json").read_text(encoding="utf-8"))}
    for t in tables:
        human, gpt = turns[t["question_id"]]
        assert human["value"].startswith("<image>\n[table] ") and score_table(t, gpt["value"]).main == 1.0
    mlc = pytest.importorskip("mlcroissant")
    dest = export(bench.root, "croissant", tmp_path / "croissant")
    records = list(mlc.Dataset(jsonld=str(dest / "croissant.json")).records("extraction"))
    assert len(records) == len(tables)
    gold = json.loads(records[0]["extraction/gold_json"])
    assert score_table(gold, records[0]["extraction/answer"].decode("utf-8")).main == 1.0


def test_cli_eval_scores_one_split_of_tables(bench, tables, tmp_path) -> None:
    from click.testing import CliRunner

    from mapgen.cli import main

    result = CliRunner().invoke(main, ["eval", str(bench.root), "--baseline", "random", "--split", "test",
                                       "-o", str(tmp_path / "r"), "--no-plots"])
    assert result.exit_code == 0, result.output
    n = sum(t["split"] == "test" for t in tables)
    assert f"{n} gold tables, extraction score" in result.output and 0 < n < len(tables)
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    assert summary["extraction"]["n"] == n and summary["extraction"]["missing"] == 0


def test_gold_classes_agree_with_census_facts(tables) -> None:
    """Census 2011 literacy: Kerala highest (94.0 %), Bihar lowest (61.8 %) of India's states and UTs."""
    for t in (t for t in tables if t["country"] == "india"):
        rows = {r["code"]: r for r in t["rows"]}
        if t["map_type"] == "discrete":
            valued = [c for c in t["classes"] if c != "N/A"]
            assert rows["KL"]["class"] == valued[-1] and rows["BR"]["class"] == valued[0]
        else:
            assert rows["KL"]["value"] == pytest.approx(94.0) == t["vmax"]
            assert rows["BR"]["value"] == pytest.approx(61.8) == t["vmin"]
