"""MAPWise import: the three CSV layouts, metadata files, specs, round trip through the written folder, CLI."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "sample"
pytestmark = pytest.mark.skipif(not SAMPLE.is_dir(), reason="shared MAPWise sample not available")


@pytest.mark.parametrize(("country", "map_col", "verified"), [("usa", "map_no", "verified answer"),
                                                              ("india", "map_id", None), ("china", "map_no", None)])
def test_read_sample_layouts(country: str, map_col: str, verified: str | None):
    from mapgen.recheck.importer import read_sample

    data = read_sample(SAMPLE / country)
    assert data.country == country and len(data.specs) == 10 and not data.missing_maps
    assert data.layout.map_col == map_col and data.layout.verified_col == verified
    assert len(data.questions) >= 100
    q = data.questions[0]
    assert q.row == 1 and q.template_no is not None and q.question and q.map_id == f"mapwise-{country}-{q.map_ref}"


def test_specs_unique_ids_and_layout_regions():
    from mapgen.recheck.importer import read_sample

    india = read_sample(SAMPLE / "india")
    assert india.specs["110_0D"].map_id != india.specs["110_5C"].map_id  # same MAPWise map_id "110"
    spec = india.specs["10_8C"]  # no Ladakh in MAPWise's metadata: drawn on MAPWise's edition, nothing derived
    assert spec.atlas == "india-mapwise" and spec.extra["derived"] == {}
    assert {"DN", "DD", "JK", "BH"} <= set(spec.values) and "LA" not in spec.values
    china = read_sample(SAMPLE / "china").specs["10_3D"]
    assert china.exclude == ("TW",) and "TW" not in china.values  # not listed in the metadata: not drawn


def test_import_writes_and_reloads(tmp_path: Path):
    from mapgen.recheck.importer import import_mapwise, load_imported

    import_mapwise(SAMPLE / "china", tmp_path / "imp")
    manifest = json.loads((tmp_path / "imp" / "manifest.json").read_text())
    assert manifest["country"] == "china" and manifest["questions"] == 100
    back = load_imported(tmp_path / "imp")
    assert set(back.specs) == set(manifest["maps"]) and back.questions[5].question
    assert back.specs["11_1D"].legend.k == 6


def test_cli_import_and_recheck(tmp_path: Path):
    from click.testing import CliRunner

    from mapgen.cli import main

    runner = CliRunner()
    res = runner.invoke(main, ["import", "mapwise", str(SAMPLE / "usa"), "-o", str(tmp_path / "imp")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["recheck", str(tmp_path / "imp"), "-o", str(tmp_path / "rc")])
    assert res.exit_code == 0, res.output
    for name in ("verdicts.jsonl", "summary.csv", "report.md", "corrected_questions.csv"):
        assert (tmp_path / "rc" / name).is_file()
    with open(tmp_path / "rc" / "corrected_questions.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    with open(SAMPLE / "usa" / "questions.csv", newline="") as fh:
        source = list(csv.reader(fh))
    assert rows[0] == source[0] and len(rows) == len(source)  # MAPWise's own layout
    header = rows[0]
    gt = header.index("ground_truth")
    lake = next(r for r in rows if r[2] == "Which states bordering Lake Michigan have the highest value?")
    assert lake[gt] == "Indiana"
    verdicts = [json.loads(line) for line in (tmp_path / "rc" / "verdicts.jsonl").read_text().splitlines()]
    parsed = sum(v["verdict"] != "unparsed" for v in verdicts)
    assert parsed / len(verdicts) >= 0.7
    assert all(v["facts"] for v in verdicts if v["verdict"] == "disagree")


# --- MAPWise's repository layout (dataset/<country>/final_*.csv) -------------------------------------------------

REPO = SAMPLE.parent / "repo-sample"
needs_repo = pytest.mark.skipif(not (REPO / "dataset").is_dir(), reason="MAPWise's repository slice not available")


@needs_repo
@pytest.mark.parametrize("country", ["usa", "india", "china"])
def test_read_repository_country_folder(country: str):
    from mapgen.recheck.importer import read_sample

    repo = read_sample(REPO / "dataset" / country, read_ticks=False)
    sample = read_sample(SAMPLE / country)
    assert repo.country == country and not repo.missing_maps
    assert set(repo.specs) == set(sample.specs)  # the same maps, found under MAPWise's own file names
    assert [(q.map_ref, q.template_no, q.question) for q in repo.questions] == \
        [(q.map_ref, q.template_no, q.question) for q in sample.questions]


@needs_repo
def test_cli_imports_a_repository_root_and_rechecks_a_country(tmp_path: Path):
    from click.testing import CliRunner

    from mapgen.cli import main

    runner = CliRunner()
    res = runner.invoke(main, ["import", "mapwise", str(REPO), "--no-ocr", "-o", str(tmp_path / "imp")])
    assert res.exit_code == 0, res.output
    for country in ("usa", "india", "china"):
        manifest = json.loads((tmp_path / "imp" / country / "manifest.json").read_text())
        assert manifest["country"] == country and manifest["questions"] >= 100 and not manifest["missing_maps"]
    res = runner.invoke(main, ["import", "mapwise", str(REPO / "dataset" / "india"), "--no-ocr",
                               "-o", str(tmp_path / "in")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["recheck", str(tmp_path / "in"), "-o", str(tmp_path / "rc")])
    assert res.exit_code == 0, res.output
    with open(tmp_path / "rc" / "corrected_questions.csv", newline="") as fh:
        header = next(csv.reader(fh))
    with open(REPO / "dataset" / "india" / "final_india_cleaned4.csv", newline="") as fh:
        assert header == next(csv.reader(fh))  # the corrected table keeps MAPWise's header


def test_a_folder_without_a_question_table_names_the_expected_files(tmp_path: Path):
    from mapgen.recheck.importer import read_sample

    (tmp_path / "metadata").mkdir()
    with pytest.raises(FileNotFoundError, match="final_us_cleaned8.csv"):
        read_sample(tmp_path)


@needs_repo
def test_recheck_of_a_repository_import_writes_summary_json(tmp_path: Path):
    from click.testing import CliRunner

    from mapgen.cli import main
    from mapgen.mapwise.repository import COUNTRY_TABLES
    from mapgen.recheck.verdicts import HELD_OUT, VERDICTS

    runner = CliRunner()
    assert runner.invoke(main, ["import", "mapwise", str(REPO), "--no-ocr", "-o", str(tmp_path / "imp")]).exit_code == 0
    res = runner.invoke(main, ["recheck", str(tmp_path / "imp"), "-o", str(tmp_path / "rc")])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "rc" / "summary.json").read_text())
    for country, (table, _) in COUNTRY_TABLES.items():
        with open(REPO / "dataset" / country / table, newline="", encoding="utf-8-sig") as fh:
            rows = [r for r in list(csv.reader(fh))[1:] if any(c.strip() for c in r)]
        assert summary["by_country"][country]["questions"] == len(rows)  # every released row is judged
        own = json.loads((tmp_path / "rc" / country / "summary.json").read_text())
        assert own["by_country"] == {country: summary["by_country"][country]}
    assert sum(summary[k] for k in VERDICTS) == summary["questions"] == sum(
        t["questions"] for t in summary["by_template"].values())
    assert sum(summary["unparsed_reasons"].values()) == summary["unparsed"]
    held = summary["held_out"]
    assert len(held["maps"]) == 10 == sum(len(m) for m in HELD_OUT.values())
    assert 0 < held["questions"] < summary["questions"]


def test_recheck_reads_a_raw_root_of_country_folders(tmp_path: Path):
    from click.testing import CliRunner

    from mapgen.cli import main

    res = CliRunner().invoke(main, ["recheck", str(SAMPLE), "-o", str(tmp_path / "rc")])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "rc" / "summary.json").read_text())
    assert set(summary["by_country"]) == {"usa", "india", "china"}
    assert all((tmp_path / "rc" / c / "corrected_questions.csv").is_file() for c in ("usa", "india", "china"))


@pytest.mark.parametrize(("title", "percent"), [
    ("Households with broadband internet (%)", True),
    ("State-Wise Pattern Of Land Use - Cropping Intensity (Per Cent) - 2007-08", True),
    ("State-Wise Forest Cover (Square Kilometre) - 1999", False),
    ("Percentage of Population Below Poverty Line - 2011", True),
    ("State-Wise Number of Percussion Instruments", False),
])
def test_a_mapqa_continuous_map_reads_its_unit_off_the_title(title: str, percent: bool) -> None:
    """India/China metadata (MapQA dialect) has no data_type: "depicts percentages" is judged on the title."""
    from mapgen.mapwise.schema import spec_from_mapwise

    meta = {"map_id": "1", "map_type": "Choropleth", "scope": None, "locationmode": "geojson-id",
            "legend_type": "Continuous", "missing_data": "False", "colormap_name": "YlGnBu",
            "paper_bgcolor": "white", "title": title,
            "data": [{"region": code, "value": 10.0 + i, "legend_position": i / 40}
                     for i, code in enumerate(("RJ", "MP", "MH", "UP", "GJ", "KA", "TN", "BR"))]}
    spec = spec_from_mapwise(meta, "india", map_id="t")
    assert spec.legend.percent is percent
    assert (spec.stat.unit == "%") is percent
