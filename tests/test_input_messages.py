"""Bad input files get one line naming the file, the problem and the fix (#28 item 7), on real artefacts:
tables in other encodings or with other delimiters, broken vector files, YAML syntax errors, closed pipes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import geopandas as gpd
import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.data.user_tables import TableError, load_table
from mapgen.geo.atlas import load_atlas
from mapgen.geo.vector_file import AtlasFileError

SEATS = "State,Seats\nCalifornia,52\ntexas,38\nNY,26\nFlorida,28\nOhio,15\nUtah,4\n"
EXPECTED = {"CA": 52.0, "TX": 38.0, "NY": 26.0, "FL": 28.0, "OH": 15.0, "UT": 4.0}


def invoke(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def _values(stat) -> dict[str, float]:
    return {code: value for code, value in stat.values.items() if not math.isnan(value)}


# --- tables: encodings ------------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-8-sig"])
def test_a_table_with_a_byte_order_mark_is_read(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "seats.csv"
    data = SEATS.encode(encoding)
    path.write_bytes(data if encoding != "utf-16-be" else b"\xfe\xff" + data)
    assert _values(load_table(path, "usa")) == EXPECTED


def test_a_latin1_table_is_refused_with_save_as_utf8_naming_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "mexico.csv"
    path.write_bytes((SEATS + "Nuevo León,3\n").encode("cp1252"))  # before: 'utf-8' codec can't decode byte 0xf3
    with pytest.raises(TableError) as err:
        load_table(path, "usa")
    message = str(err.value)
    assert str(path) in message and "save it as UTF-8" in message and "line 8" in message
    assert "Nuevo León" in message and "0xf3" in message


def test_utf16_without_a_byte_order_mark_is_refused_not_read_as_nul_names(tmp_path: Path) -> None:
    path = tmp_path / "seats.csv"
    path.write_bytes(SEATS.encode("utf-16-le"))  # before: "Unknown region '\x00'"
    code, out = invoke("spec", "usa", "--data", path, "-o", tmp_path / "s.json")
    assert code == 2 and "UTF-16 without a byte-order mark" in out and "save it as UTF-8" in out
    assert len(out.strip().splitlines()) == 1 and not (tmp_path / "s.json").exists()


# --- tables: delimiters and decimal commas -------------------------------------------------------------------


@pytest.mark.parametrize(("sep", "word"), [(";", "semicolon"), ("\t", "tab"), ("|", "vertical bar")])
def test_other_delimiters_are_detected_and_named(tmp_path: Path, sep: str, word: str) -> None:
    path = tmp_path / "seats.csv"
    path.write_text(SEATS.replace(",", sep))  # before: "Cannot tell which column …", --value-col suggested
    with pytest.warns(UserWarning, match=word):
        stat = load_table(path, "usa")
    assert _values(stat) == EXPECTED


def test_decimal_commas_in_a_semicolon_table_are_read(tmp_path: Path) -> None:
    path = tmp_path / "share.csv"
    path.write_text("State;Share\nCalifornia;12,5\ntexas;1.234,5\nNY;26\nFlorida;28,25\n")
    with pytest.warns(UserWarning, match="decimal commas"):
        stat = load_table(path, "usa")
    assert _values(stat) == {"CA": 12.5, "TX": 1234.5, "NY": 26.0, "FL": 28.25}


def test_a_comma_table_is_read_as_before(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    path = tmp_path / "seats.csv"
    path.write_text(SEATS.replace("52", '"1,052"'))
    assert _values(load_table(path, "usa")) == EXPECTED | {"CA": 1052.0}
    assert not [w for w in recwarn if "separated" in str(w.message)]


# --- numeric extremes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("values", "word", "fix"), [
    (["1e306", "2e306", "3e306"], "too large", "divide by 1e306"),  # before: a legend off the page, 90-digit numbers
    (["5e-314", "1e-313", "2e-313"], "too small", "multiply by 1e314"),  # subnormal; before: unexpected IndexError
])
def test_numeric_extremes_are_refused_naming_regions_and_the_rescaling(tmp_path: Path, values: list[str], word: str,
                                                                       fix: str) -> None:
    path = tmp_path / "extreme.csv"
    path.write_text("State,V\n" + "".join(f"{s},{v}\n" for s, v in zip(("California", "Texas", "Ohio"), values)))
    code, out = invoke("render", "usa", "--data", path, "-o", tmp_path / "m.png")
    assert code == 2 and len(out.strip().splitlines()) == 1 and not (tmp_path / "m.png").exists()
    assert str(path) in out and word in out and fix in out and "CA " in out and "OH " in out


def test_ordinary_magnitudes_and_zeros_are_read(tmp_path: Path) -> None:
    path = tmp_path / "ok.csv"
    path.write_text("State,V\nCalifornia,0\nTexas,1e14\nOhio,-2.5e-11\n")
    assert _values(load_table(path, "usa")) == {"CA": 0.0, "TX": 1e14, "OH": -2.5e-11}


# --- vector files --------------------------------------------------------------------------------------------


def _squares(n: int = 3) -> dict:
    def square(x: float) -> list:
        return [[[x, 0.0], [x + 1, 0.0], [x + 1, 1.0], [x, 1.0], [x, 0.0]]]

    return {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": f"R{i}"}, "geometry": {"type": "Polygon", "coordinates": square(i)}}
        for i in range(n)]}


def test_an_empty_or_non_json_geojson_is_named(tmp_path: Path) -> None:
    empty, garbage = tmp_path / "empty.geojson", tmp_path / "garbage.geojson"
    empty.write_text("")
    garbage.write_text("regions, not json\n")
    with pytest.raises(AtlasFileError, match=r"empty \(0 bytes\)"):  # before: "not recognized as … format"
        load_atlas(empty)
    with pytest.raises(AtlasFileError, match=r"not valid JSON \(line 1, column 1"):
        load_atlas(garbage)


def test_nan_coordinates_name_the_file_and_the_feature(tmp_path: Path) -> None:
    data = _squares()
    data["features"][1]["geometry"]["coordinates"][0][2] = [math.nan, 1.0]
    path = tmp_path / "nan.geojson"
    path.write_text(json.dumps(data))  # Python writes NaN; GDAL reads it
    code, out = invoke("atlas", "show", path)  # before: "unexpected GEOSException: … NaN/Inf numbers"
    assert code == 2 and str(path) in out and "feature 1 ('R1')" in out and "NaN or infinite" in out
    assert len(out.strip().splitlines()) == 1


def _shapefile(tmp_path: Path) -> Path:
    source = tmp_path / "squares.geojson"
    source.write_text(json.dumps(_squares()))
    gpd.read_file(source).to_file(tmp_path / "squares.shp")
    return tmp_path / "squares.shp"


@pytest.mark.parametrize("side", [".dbf", ".shx"])
def test_a_shapefile_missing_a_side_file_names_it(tmp_path: Path, side: str) -> None:
    shp = _shapefile(tmp_path)
    shp.with_suffix(side).unlink()  # before (.dbf): "Cannot tell which column … (columns: none)"
    with pytest.raises(AtlasFileError) as err:
        load_atlas(shp)
    assert f"squares{side}" in str(err.value) and "side file" in str(err.value)


def test_a_shapefile_without_prj_warns_naming_it(tmp_path: Path) -> None:
    shp = _shapefile(tmp_path)
    shp.with_suffix(".prj").unlink()
    with pytest.warns(UserWarning, match=r"squares\.prj"):
        atlas = load_atlas(shp)
    assert len(atlas.codes) == 3


# --- YAML ---------------------------------------------------------------------------------------------------

BAD_YAML = "name: x\ncountries:\n  - {name: usa, maps: 2\nseed: 1\n"


def test_a_yaml_syntax_error_is_one_line_file_line_column(tmp_path: Path) -> None:
    geo = tmp_path / "squares.geojson"
    geo.write_text(json.dumps(_squares()))
    (tmp_path / "squares.groups.yaml").write_text(BAD_YAML)
    code, out = invoke("atlas", "show", geo)  # before: 8 lines of PyYAML excerpts citing "<unicode string>"
    assert code == 2 and len(out.strip().splitlines()) == 1
    assert f"{tmp_path / 'squares.groups.yaml'}:4:5: expected ',' or '}}'" in out and "<unicode" not in out
    style = tmp_path / "style.yaml"
    style.write_text(BAD_YAML)
    code, out = invoke("render", "usa", "--style", style, "-o", tmp_path / "r.png")
    assert code == 2 and f"{style}:4:5:" in out  # before: "not valid YAML (ParserError)", no place
    code, out = invoke("templates", "lint", style)
    assert code != 0 and len(out.strip().splitlines()) == 1 and "line 4, column 5" in out and "<unicode" not in out


# --- a closed pipe ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["templates", "list"], ["atlas", "show", "usa"]])
def test_a_closed_pipe_exits_quietly_with_141(args: list[str]) -> None:
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-m", "mapgen", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the first line (`… | head -0`)
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141 and stderr == ""  # before: exit 1, "unexpected BrokenPipeError"
