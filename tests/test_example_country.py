"""The worked example: Germany, a Natural Earth admin-1 country shipped as a user atlas in data/examples/."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mapgen import load_atlas
from mapgen.cli import main
from mapgen.data.user_tables import load_table
from mapgen.resources import data_path

FOLDER = Path(str(data_path("examples", "germany")))


def test_known_borders_of_the_german_states() -> None:
    atlas = load_atlas(FOLDER / "germany.geojson")
    assert len(atlas.codes) == 16 and atlas.name_of("BY") == "Bavaria"
    assert atlas.neighbors("Bavaria") == {"BW", "HE", "TH", "SN"}
    assert atlas.neighbors("Berlin") == {"BB"} and atlas.neighbors("Bremen") == {"NI"}
    assert atlas.neighbors("Saarland") == {"RP"} and atlas.neighbors("Hamburg") == {"NI", "SH"}
    assert len(atlas.neighbors("Lower Saxony")) == 9  # the state with the most neighbours
    assert atlas.group("city-states") == {"BE", "HB", "HH"}
    assert atlas.group("neue Länder") == {"BB", "MV", "SN", "ST", "TH"}
    assert atlas.extreme(atlas.codes, "north") == "SH"
    # the position rule is the centroid: Baden-Württemberg (~48.7°N) lies south of Bavaria (~49.0°N), although
    # Bavaria's extent reaches further south (the Alps, 47.3°N)
    assert atlas.extreme(atlas.codes, "south") == "BW"
    assert atlas.positions["BY"].south < atlas.positions["BW"].south


def test_the_area_table_agrees_with_the_geometry() -> None:
    atlas = load_atlas(FOLDER / "germany.geojson")
    stat = load_table(FOLDER / "germany.csv", atlas)
    assert stat.title == "Land area" and stat.unit == "km²" and not stat.missing
    for code in atlas.codes:  # measured on full-resolution geometry; the shipped display geometry is simplified
        assert abs(stat.values[code] - atlas.positions[code].area_km2) <= 0.02 * stat.values[code] + 5
    assert stat.values.idxmax() == "BY" and stat.values.idxmin() == "HB"


def test_the_example_builds_from_its_config(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", str(FOLDER / "germany.yaml"), "-o", str(tmp_path / "bench")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "bench" / "manifest.json").read_text())
    assert set(manifest["counts"]["maps_by_country"]) == {"germany"} and manifest["counts"]["questions"] > 0
    assert manifest["atlases"]["germany"]["path"] == "atlases/germany/germany.geojson"
    copied = tmp_path / "bench" / "atlases" / "germany"
    assert (copied / "germany.groups.yaml").read_bytes() == (FOLDER / "germany.groups.yaml").read_bytes()
    maps = [json.loads(line) for line in (tmp_path / "bench" / "maps.jsonl").read_text().splitlines()]
    assert {"land_area"} <= {m["statistic"] for m in maps}


def test_atlas_list_points_to_the_example() -> None:
    result = CliRunner().invoke(main, ["atlas", "list"])
    line = next(x for x in result.output.splitlines() if x.startswith("example user atlas:"))
    path = line.split(": ", 1)[1].split("  (")[0]
    assert Path(path).resolve() == (FOLDER / "germany.geojson").resolve()
