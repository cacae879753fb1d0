"""User tables from the command line: ``mapgen render|spec SOURCE --data table.csv`` for shipped and user atlases."""

from __future__ import annotations

import json
import math
from pathlib import Path

from click.testing import CliRunner
from helpers import write_grid

from mapgen.cli import main
from mapgen.data.user_tables import load_table
from mapgen.spec import load_spec


def invoke(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def test_render_a_shipped_country_from_a_user_table(tmp_path: Path) -> None:
    table = tmp_path / "seats.csv"
    table.write_text("State,Seats\nCalifornia,52\ntexas,38\nNY,26\nFlorida,28\nOhio,15\nUtah,4\n")
    code, out = invoke("render", "usa", "--data", table, "--classes", "3", "--title", "House seats",
                       "-o", tmp_path / "out" / "seats.png")
    assert code == 0, out
    spec = load_spec(tmp_path / "out" / "seats.json")
    assert spec.atlas == "usa" and spec.atlas_file is None and spec.title == "House seats"
    assert {c: spec.values[c] for c in ("CA", "TX", "NY", "FL", "OH", "UT")} == {
        "CA": 52.0, "TX": 38.0, "NY": 26.0, "FL": 28.0, "OH": 15.0, "UT": 4.0}
    assert math.isnan(spec.values["WY"])  # left out of the table → explicit N/A
    direct = load_table(table, "usa")
    assert spec.values["CA"] == direct.values["CA"]
    assert (tmp_path / "out" / "seats.png").stat().st_size > 0 and (tmp_path / "out" / "seats.mask.png").exists()


def test_spec_data_for_a_user_atlas_matches_the_table(tmp_path: Path) -> None:
    geo, table = write_grid(tmp_path)
    code, out = invoke("spec", geo, "--data", table, "--legend", "continuous", "-o", tmp_path / "s.json")
    assert code == 0, out
    spec = load_spec(tmp_path / "s.json")
    rows = dict(line.split(",") for line in table.read_text().splitlines()[1:])
    atlas = spec.load_atlas()
    assert {atlas.names[c]: v for c, v in spec.values.items()} == {k: float(v) for k, v in rows.items()}
    # the CLI spec equals the one made in Python from the same files
    printed = json.loads(invoke("spec", geo, "--data", table, "--legend", "continuous")[1])
    assert printed["values"] == json.loads((tmp_path / "s.json").read_text())["values"]


def test_table_errors_are_one_clear_line(tmp_path: Path) -> None:
    geo, table = write_grid(tmp_path)
    bad = tmp_path / "bad.csv"
    bad.write_text("region,value\nCell B2,1\nCell Q7,2\n")
    code, out = invoke("render", geo, "--data", bad, "-o", tmp_path / "m.png")
    assert code == 2 and "Cell Q7" in out and not (tmp_path / "m.png").exists()
    code, out = invoke("render", "usa", "--stat", "population_2020", "--data", table, "-o", tmp_path / "m.png")
    assert code == 2 and "exactly one of --stat" in out
    code, out = invoke("render", geo, "-o", tmp_path / "m.png")
    assert code == 2 and "--data" in out


def test_every_table_error_names_the_table_and_the_fix(tmp_path: Path) -> None:
    cases = {"one.csv": ("region,value\nTexas,3\n", "give the regions at least 2 different values"),
             "hex.csv": ("state|pop\nTexas|0x1F\n", "write plain numbers"),
             "inf.csv": ("state,value\nTexas,inf\nOhio,2\n", "write finite numbers")}
    for name, (text, fix) in cases.items():
        table = tmp_path / name
        table.write_text(text, encoding="utf-8")
        for legend in ("discrete", "continuous"):
            code, out = invoke("render", "usa", "--data", table, "--legend", legend, "-o", tmp_path / "m.png")
            lines = [line for line in out.splitlines() if line.startswith("Error:")]
            assert code == 2 and len(lines) == 1 and str(table) in lines[0], out
            assert fix in lines[0], lines[0]
            assert not (tmp_path / "m.png").exists()
        code, out = invoke("spec", "usa", "--data", table)
        assert code == 2 and str(table) in out, out
