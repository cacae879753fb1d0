"""Inputs that used to get a vague or no message (#37 item 8, and the silent cases of its list): each now gets
one line naming the input and the fix, or a correct result. Every case runs the real CLI on files written here."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import geopandas as gpd
import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.geo.atlas import load_atlas
from mapgen.geo.vector_file import make_codes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fault_tour import says  # noqa: E402


def invoke(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def one_error(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1, output
    assert "Traceback" not in output and "unexpected" not in output, output
    return lines[0]


def _square(x: float, y: float, d: float = 1.0) -> list[list[float]]:
    return [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]


def grid(tmp_path: Path, name: str, edit=None) -> Path:
    """A 3×3 grid of 1° cells at 10°E 40°N, with ``edit(features)`` applied."""
    features = [{"type": "Feature", "properties": {"name": f"Cell {i}{j}"},
                 "geometry": {"type": "Polygon", "coordinates": [_square(10 + i, 40 + j)]}}
                for i in range(3) for j in range(3)]
    if edit:
        edit(features)
    path = tmp_path / name
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


# --- config keys ----------------------------------------------------------------------------------------


def test_a_mistyped_config_key_names_the_closest_key(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("name: t\ncountries: [{name: usa, maps: 2}]\nsplit:\n  ratio: 0.5\n")
    code, out = invoke("build", config, "-o", tmp_path / "out")
    line = one_error(out)
    assert code == 2 and "split.ratio" in line and "did you mean `ratios`" in line
    assert not (tmp_path / "out").exists()


def test_an_unguessable_config_key_lists_the_keys_the_mapping_takes(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("name: t\ncountries: [{name: usa, maps: 2, zzzz: 1}]\n")
    code, out = invoke("build", config, "-o", tmp_path / "out")
    line = one_error(out)
    assert code == 2 and "countries.0.zzzz: unknown key" in line and "`maps`" in line and "`name`" in line


def test_a_config_with_no_task_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("name: t\ncountries: [{name: usa, maps: 2}]\ntasks: []\n")
    code, out = invoke("build", config, "-o", tmp_path / "out")
    line = one_error(out)
    assert code == 2 and "tasks" in line and "vqa" in line and not (tmp_path / "out").exists()


# --- tables ----------------------------------------------------------------------------------------------


def _shares(tmp_path: Path, fmt: str) -> Path:
    rng = random.Random(1)
    path = tmp_path / "shares.csv"
    path.write_text("state,share\n" + "".join(f"{c},{fmt.format(rng.random())}\n" for c in load_atlas("usa").codes))
    return path


def test_percent_values_that_look_like_fractions_are_refused(tmp_path: Path) -> None:
    code, out = invoke("render", "usa", "--data", _shares(tmp_path, "{:.2f}"), "--kind", "percent",
                       "-o", tmp_path / "m.png")
    line = one_error(out)
    assert code == 2 and "0-1" in line and "multiply" in line and "% sign" in line
    assert not (tmp_path / "m.png").exists()


def test_percent_values_under_one_written_with_a_sign_are_drawn(tmp_path: Path) -> None:
    code, out = invoke("render", "usa", "--data", _shares(tmp_path, "{:.2f}%"), "--kind", "percent",
                       "-o", tmp_path / "m.png")
    assert code == 0, out
    assert (tmp_path / "m.png").stat().st_size > 1000


def test_the_same_fractions_as_an_absolute_table_are_drawn(tmp_path: Path) -> None:
    code, out = invoke("render", "usa", "--data", _shares(tmp_path, "{:.2f}"), "-o", tmp_path / "m.png")
    assert code == 0, out


def test_a_gb18030_table_is_told_to_convert_from_gb18030(tmp_path: Path) -> None:
    path = tmp_path / "gb.csv"
    path.write_bytes("省份,人口\n北京,2189\n上海,2487\n广东,12601\n".encode("gb18030"))
    code, out = invoke("render", "china", "--data", path, "-o", tmp_path / "m.png")
    line = one_error(out)
    assert code == 2 and "iconv -f gb18030" in line and "省份" in line and "cp1252" not in line


def test_a_latin1_table_is_still_told_cp1252(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_bytes("state,v\nZürich Größe,1\nMünchen,2\n".encode("cp1252"))
    code, out = invoke("render", "usa", "--data", path, "-o", tmp_path / "m.png")
    assert "iconv -f cp1252" in one_error(out)


def test_classic_mac_line_ends_are_read(tmp_path: Path) -> None:
    path = tmp_path / "cr.csv"
    path.write_bytes(b"state,v\rCA,1\rTX,2\rNY,3\rFL,4\r")
    code, out = invoke("render", "usa", "--data", path, "-o", tmp_path / "m.png")
    assert code == 0, out
    facts = json.loads((tmp_path / "m.json").read_text())
    assert "TX" in json.dumps(facts)


# --- atlases ---------------------------------------------------------------------------------------------


def test_a_zero_area_ring_is_named(tmp_path: Path) -> None:
    def flatten(features):
        features[0]["geometry"]["coordinates"] = [[[10, 40], [11, 40], [12, 40], [10, 40]]]
    code, out = invoke("atlas", "show", grid(tmp_path, "zero.geojson", flatten))
    line = one_error(out)
    assert code == 2 and "Cell 00" in line and "no area" in line and "remove" in line
    assert "repaired" not in out  # no warning about a repair the refusal throws away


def test_an_antimeridian_edge_is_refused_with_the_fix(tmp_path: Path) -> None:
    def wrap(features):
        features[4]["geometry"]["coordinates"] = [[[179.5, 41], [-179.5, 41], [-179.5, 42], [179.5, 42], [179.5, 41]]]
    code, out = invoke("atlas", "show", grid(tmp_path, "anti.geojson", wrap))
    line = one_error(out)
    assert code == 2 and "Cell 11" in line and "antimeridian" in line and "-wrapdateline" in line


def test_a_region_split_at_the_antimeridian_is_read(tmp_path: Path) -> None:
    def split(features):
        for f in features:
            f["geometry"]["coordinates"] = [[[x + 166.0, y] for x, y in ring] for ring in f["geometry"]["coordinates"]]
        features[7]["geometry"] = {"type": "MultiPolygon", "coordinates": [
            [[[179.0, 41], [180.0, 41], [180.0, 42], [179.0, 42], [179.0, 41]]],
            [[[-180.0, 41], [-179.5, 41], [-179.5, 42], [-180.0, 42], [-180.0, 41]]]]}
    code, out = invoke("atlas", "show", grid(tmp_path, "east.geojson", split))
    assert code == 0, out


def test_a_far_speck_is_named_with_its_distance(tmp_path: Path) -> None:
    def speck(features):
        features[4]["geometry"] = {"type": "MultiPolygon",
                                   "coordinates": [[_square(11, 41)], [_square(-120, -30, 0.01)]]}
    code, out = invoke("atlas", "show", grid(tmp_path, "speck.geojson", speck))
    line = one_error(out)
    assert code == 2 and "Cell 11" in line and "km away" in line and "remove" in line


def test_a_near_island_is_no_speck(tmp_path: Path) -> None:
    def island(features):
        features[4]["geometry"] = {"type": "MultiPolygon",
                                   "coordinates": [[_square(11, 41)], [_square(14, 41, 0.01)]]}
    code, out = invoke("atlas", "show", grid(tmp_path, "island.geojson", island))
    assert code == 0, out


def test_a_geopackage_with_two_layers_names_them(tmp_path: Path) -> None:
    frame = gpd.read_file(grid(tmp_path, "g.geojson"))
    path = tmp_path / "two.gpkg"
    frame.to_file(path, layer="regions")
    frame.head(2).to_file(path, layer="rivers")
    code, out = invoke("atlas", "show", path)
    line = one_error(out)
    assert code == 2 and "regions" in line and "rivers" in line and "ogr2ogr" in line


def test_generated_codes_never_name_another_region() -> None:
    names = [f"R{i:02d}" for i in range(1, 120)] + ["New Mexico", "North Maine", "NM"]
    codes = make_codes(names)
    assert len(set(codes)) == len(codes)
    folded = {n.casefold(): i for i, n in enumerate(names)}
    assert all(folded.get(code.casefold(), i) == i for i, code in enumerate(codes))


def test_an_atlas_whose_names_look_like_codes_loads(tmp_path: Path) -> None:
    features = [{"type": "Feature", "properties": {"name": f"R{i:02d}" if i < 100 else "R0100"},
                 "geometry": {"type": "Polygon", "coordinates": [_square(i % 10, i // 10)]}} for i in range(101)]
    path = tmp_path / "r.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    code, out = invoke("atlas", "show", path)
    assert code == 0, out


# --- paths -----------------------------------------------------------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_a_symlink_loop_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to("loop")
    code, out = invoke("render", "usa", "--stat", "population_2020", "-o", tmp_path / "loop" / "m.png")
    line = one_error(out)
    assert code == 2 and "points back at itself" in line and "loop" in line


# --- the project's own tour --------------------------------------------------------------------------------


def test_the_tour_does_not_read_invalid_as_a_fix() -> None:
    assert not says("error: invalid build config: extra inputs are not permitted", "valid")
    assert says("error: x: give a valid key", "valid")
    assert says("error: x; did you mean `ratios`?", "did you mean")
