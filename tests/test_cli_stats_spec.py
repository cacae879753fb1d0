"""CLI: ``mapgen stats`` / ``spec`` / ``scene`` (click CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mapgen.cli import main
from mapgen.data.user_tables import load_table
from mapgen.mapwise.schema import spec_from_mapwise, spec_to_mapwise
from mapgen.spec import load_spec

METADATA = sorted((Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "metadata").glob("*.json"))


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_stats_list_and_show() -> None:
    result = run("stats", "list", "usa")
    assert result.exit_code == 0
    line = next(x for x in result.stdout.splitlines() if "\tpopulation_2020\t" in x)
    assert line.split("\t")[:5] == ["usa", "population_2020", "2020", "people", "absolute"]
    assert {x.split("\t")[0] for x in run("stats", "list").stdout.splitlines()} == {"usa", "india", "china"}
    show = run("stats", "show", "usa", "population_2020").stdout.splitlines()
    assert "California\t39,538,223" in "\n".join(show) and len([x for x in show if not x.startswith("#")]) == 51
    bad = run("stats", "show", "usa", "populaton_2020")
    assert bad.exit_code == 2 and "population_2020" in bad.output


def test_synth_spec_scene_round_trip(tmp_path: Path) -> None:
    csv = tmp_path / "synth.csv"
    result = run("stats", "synth", "india", "--seed", "7", "--distribution", "lognormal", "--spatial", "0.6",
                 "--missing", "2", "-o", str(csv))
    assert result.exit_code == 0 and "Moran's I" in result.stdout
    assert (tmp_path / "synth.csv-metadata.json").is_file()
    assert csv.read_text().splitlines()[0] == "code,name,value"
    again = tmp_path / "again.csv"
    run("stats", "synth", "india", "--seed", "7", "--distribution", "lognormal", "--spatial", "0.6", "--missing", "2",
        "-o", str(again))
    assert again.read_text() == csv.read_text()

    map_json = tmp_path / "map.json"
    # quantiles: natural breaks would isolate this table's top outlier, the speck Dadra and Nagar Haveli, and
    # the legend merges a class no one can see (tests/test_legend_usability.py), leaving 3 classes.
    result = run("spec", "india", "--stat-file", str(csv), "--legend", "discrete", "--classes", "4",
                 "--scheme", "quantiles", "--order", "large_to_small", "--colormap", "Greens", "-o", str(map_json))
    assert result.exit_code == 0, result.output
    assert "Warning" not in result.output  # the sidecar lists the two N/A regions
    spec = load_spec(map_json)
    stat = load_table(csv, "india")
    assert spec.stat == stat.info and spec.stat.id == "synthetic_lognormal_7"
    assert spec.legend.k == 4 and spec.legend.order == "large_to_small"

    scene = json.loads(run("scene", str(map_json), "--json").stdout)
    assert scene["map_id"] == spec.map_id and scene["legend"]["num_classes"] == 4 and scene["legend"]["has_na"]
    by_code = {r["code"]: r for r in scene["regions"]}
    assert len(by_code) == 36 and sum(r["value"] is None for r in by_code.values()) == 2
    for code, value in stat.values.items():
        assert by_code[code]["value"] == (None if value != value else value)
    assert set(by_code["MP"]["neighbors"]) == {"RJ", "GJ", "MH", "CG", "UP"}

    table = run("scene", str(map_json)).stdout
    assert "Madhya Pradesh" in table and "N/A" in table and spec.map_id in table


def test_spec_from_curated_stat_with_breaks_and_stdout(tmp_path: Path) -> None:
    result = run("spec", "usa", "--stat", "population_2020", "--breaks", "1e6,5e6,1e7,5e7", "--hatched")
    assert result.exit_code == 0, result.output
    spec = json.loads(result.stdout)
    assert spec["atlas"] == "usa" and spec["legend"]["kind"] == "discrete" and len(spec["legend"]["classes"]) == 4
    cont = run("spec", "china", "--stat", "urbanisation_2020", "--legend", "continuous", "--reverse",
               "-o", str(tmp_path / "c.json"))
    assert cont.exit_code == 0 and load_spec(tmp_path / "c.json").map_type == "continuous"


def test_spec_user_csv_with_columns_and_errors(tmp_path: Path) -> None:
    csv = tmp_path / "lit.csv"
    csv.write_text("Region Name,Other,Rate\nOrissa,x,72.9\nNCT of Delhi,y,86.2\nKerala,z,94\nBihar,w,61.8\n")
    out = tmp_path / "m.json"
    result = run("spec", "india", "--stat-file", str(csv), "--region-col", "region name", "--value-col", "Rate",
                 "--kind", "percent", "--classes", "3", "-o", str(out))
    assert result.exit_code == 0, result.output
    spec = load_spec(out)
    assert spec.values["OD"] == 72.9 and spec.stat.percent and spec.legend.percent
    bad = tmp_path / "bad.csv"
    bad.write_text("state,value\nOdisha,1\nOrissa,2\n")
    result = run("spec", "india", "--stat-file", str(bad), "-o", str(tmp_path / "bad.json"))
    assert result.exit_code == 2 and "both OD" in result.output and not (tmp_path / "bad.json").exists()
    empty = tmp_path / "e.csv"
    empty.write_text("state,value\nKerala,\nBihar,3\nGoa,4\n")
    assert "Warning: Empty / N/A values" in run("spec", "india", "--stat-file", str(empty), "--classes", "3").output
    assert run("spec", "india", "--stat-file", str(empty), "--on-missing", "error").exit_code == 2
    assert run("spec", "india").exit_code == 2  # neither --stat nor --stat-file


@pytest.mark.skipif(not METADATA, reason="MAPWise reference metadata not available")
@pytest.mark.parametrize("path", METADATA, ids=[p.stem for p in METADATA])
def test_spec_from_metadata(tmp_path: Path, path: Path) -> None:
    out = tmp_path / "map.json"
    result = run("spec", "--from-metadata", str(path), "-o", str(out))
    assert result.exit_code == 0, result.output
    meta = json.loads(path.read_text())
    saved = load_spec(out)
    direct = spec_from_mapwise(meta)
    assert [c.label for c in saved.legend.classes] == [c.label for c in direct.legend.classes]
    assert saved.legend.to_dict() == direct.legend.to_dict()
    assert spec_to_mapwise(saved) == spec_to_mapwise(direct)
    scene = json.loads(run("scene", str(out), "--json").stdout)
    assert scene["map_type"] == saved.map_type
