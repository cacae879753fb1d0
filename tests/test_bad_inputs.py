"""Bad user inputs through the CLI: each exits non-zero with one clear line and leaves no file behind.

Atlas files, tables, configs and benchmark folders are made here; every case checks the exit code, that the
message names the problem and the fix, and that the output path was never created.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.geo.vector_file import OverlapWarning


def square(x: float, y: float, size: float = 1.0) -> list:
    return [[[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]]]


def geojson(path: Path, cells: list[tuple[object, list]]) -> Path:
    """A FeatureCollection of polygons with a ``name`` property (``None`` writes a JSON null)."""
    features = [{"type": "Feature", "properties": {"name": name}, "geometry": {"type": "Polygon", "coordinates": ring}}
                for name, ring in cells]
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


def grid_cells(n: int = 3, x0: float = 10.0, y0: float = 10.0, size: float = 1.0) -> list[tuple[object, list]]:
    return [(f"Cell {chr(65 + r)}{c + 1}", square(x0 + c * size, y0 + r * size, size))
            for r in range(n) for c in range(n)]


def table_for(path: Path, cells: list[tuple[object, list]]) -> Path:
    path.write_text("region,value\n" + "".join(f"{name},{i + 1}\n" for i, (name, _) in enumerate(cells)))
    return path


def one_line(args: list, code: int = 2) -> str:
    """Run the CLI; assert the exit code and a single ``Error:`` line with no traceback; return that line."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == code, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def render(tmp_path: Path, geo: Path | str, table: Path) -> list:
    return ["render", geo, "--data", table, "-o", tmp_path / "out" / "map.png"]


# --- tables -----------------------------------------------------------------------------------------------


def test_headerless_table_asks_for_a_header(tmp_path: Path) -> None:
    table = tmp_path / "states.csv"
    table.write_text("Alabama,4.5\nAlaska,3.1\nTexas,7\n")
    line = one_line(render(tmp_path, "usa", table))
    assert "first line" in line and "Alabama" in line and "add a header line" in line
    assert not (tmp_path / "out").exists()


def test_headerless_table_of_a_user_atlas_too(tmp_path: Path) -> None:
    cells = grid_cells()
    geo = geojson(tmp_path / "grid.geojson", cells)
    table = tmp_path / "grid.csv"
    table.write_text("".join(f"{name},{i}\n" for i, (name, _) in enumerate(cells)))
    assert "add a header line" in one_line(render(tmp_path, geo, table))
    assert not (tmp_path / "out").exists()


# --- atlas files ------------------------------------------------------------------------------------------


def test_projected_coordinates_without_crs_name_the_range(tmp_path: Path) -> None:
    cells = grid_cells(x0=500_000, y0=4_000_000, size=10_000)
    geo, table = geojson(tmp_path / "utm.geojson", cells), table_for(tmp_path / "utm.csv", cells)
    line = one_line(render(tmp_path, geo, table))
    assert "x 500000 to 530000" in line and "longitude beyond ±180" in line and "CRS" in line
    assert "CRSError" not in line and not (tmp_path / "out").exists()


def test_latitude_beyond_90_is_named(tmp_path: Path) -> None:
    cells = grid_cells(x0=10, y0=88)
    geo, table = geojson(tmp_path / "pole.geojson", cells), table_for(tmp_path / "pole.csv", cells)
    line = one_line(render(tmp_path, geo, table))
    assert "y 88 to 91" in line and "latitude beyond ±90" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("blank", [None, "", "   "])
def test_null_or_empty_region_name_names_the_feature(tmp_path: Path, blank) -> None:
    cells = grid_cells()
    cells[4] = (blank, cells[4][1])
    geo = geojson(tmp_path / "grid.geojson", cells)
    table = table_for(tmp_path / "grid.csv", [c for c in cells if c[0]])
    line = one_line(render(tmp_path, geo, table))
    assert "feature(s) 4 " in line and "'name'" in line and "give every region a name" in line
    assert "nan" not in line.lower().split() and not (tmp_path / "out").exists()


def test_overlapping_regions_warn_with_the_area(tmp_path: Path) -> None:
    cells = grid_cells(n=2)
    cells.append(("Blob", square(10.5, 10.5, 1.0)))  # overlaps each of the four cells by a quarter degree²
    geo, table = geojson(tmp_path / "ov.geojson", cells), table_for(tmp_path / "ov.csv", cells)
    with pytest.warns(UserWarning, match=r"Regions overlap: 'Cell A1' and 'Blob' by [\d,.]+ km²") as record:
        result = CliRunner().invoke(main, [str(a) for a in render(tmp_path, geo, table)])
    assert result.exit_code == 0, result.output
    message = next(str(w.message) for w in record if "overlap" in str(w.message))
    pairs = message.removeprefix("Regions overlap: ").split("; a point")[0].split("; ")
    assert [p.split(" by ")[0] for p in pairs] == [f"'Cell {c}' and 'Blob'" for c in ("A1", "A2", "B1", "B2")]
    # a quarter of a 1° cell near 11°N: 0.5° × 111.3 km × cos(11°) by 0.5° × 110.6 km ≈ 3,020 km²
    areas = [float(p.split(" by ")[1].removesuffix(" km²").replace(",", "")) for p in pairs]
    assert all(2900 < a < 3150 for a in areas), areas


def test_regions_that_only_touch_do_not_warn(tmp_path: Path) -> None:
    cells = grid_cells()
    geo, table = geojson(tmp_path / "g.geojson", cells), table_for(tmp_path / "g.csv", cells)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OverlapWarning)
        result = CliRunner().invoke(main, [str(a) for a in render(tmp_path, geo, table)])
    assert result.exit_code == 0, result.output


# --- configs ----------------------------------------------------------------------------------------------


def build_error(tmp_path: Path, yaml_text: str) -> str:
    """The one line of ``build`` on a bad config; asserts exit 2 and that no output folder was made."""
    config = tmp_path / "c.yaml"
    config.write_text(yaml_text)
    line = one_line(["build", config, "-o", tmp_path / "out"])
    assert line.startswith(f"Error: Invalid build config {config}: ")
    assert not (tmp_path / "out").exists()
    return line


def test_several_config_problems_are_listed_one_per_line(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("countries:\n  - {name: usa, maps: 1000000000}\nquestions: {per_image: 100000000}\n")
    result = CliRunner().invoke(main, ["build", str(config), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.splitlines()[1:] == [
        "  - countries.0.maps: 1000000000 maps is more than the 100000 a build can hold; split it into several "
        "builds (different seeds) or ask for fewer maps",
        "  - questions.per_image: Input should be less than or equal to 1000",
    ]
    assert not (tmp_path / "out").exists()


def test_a_billion_maps_is_refused_at_once(tmp_path: Path) -> None:
    out = build_error(tmp_path, "countries:\n  - {name: usa, maps: 1000000000}\n")
    assert "countries.0.maps: " in out and "1000000000 maps is more than the 100000" in out


def test_many_countries_together_past_the_map_limit(tmp_path: Path) -> None:
    out = build_error(tmp_path, "countries:\n  - {name: usa, maps: 60000}\n  - {name: india, maps: 60000}\n")
    assert "120000 maps in all" in out


@pytest.mark.parametrize("field", ["per_image", "per_template"])
def test_question_counts_have_an_upper_bound(tmp_path: Path, field: str) -> None:
    out = build_error(tmp_path, f"countries:\n  - {{name: usa, maps: 1}}\nquestions: {{{field}: 10000000}}\n")
    assert f"questions.{field}: " in out and "1000" in out


def test_empty_country_list_is_refused(tmp_path: Path) -> None:
    out = build_error(tmp_path, "countries: []\n")
    assert "no countries" in out and "name: usa" in out


def test_a_bad_statistics_file_no_map_draws_is_still_checked(tmp_path: Path) -> None:
    (tmp_path / "bad.csv").write_text("region,value\nTexas,1\nAtlantis,2\n")
    out = build_error(tmp_path, "countries:\n  - name: usa\n    maps: 1\n"
                                "    statistics: {curated: [population_2020], files: [bad.csv]}\n")
    assert "countries.0.statistics.files.0 (bad.csv)" in out and "Unknown region 'Atlantis'" in out


def test_a_headerless_statistics_file_in_a_config(tmp_path: Path) -> None:
    (tmp_path / "h.csv").write_text("Texas,1\nOhio,2\n")
    out = build_error(tmp_path, "countries:\n  - {name: usa, maps: 1, statistics: {files: [h.csv]}}\n")
    assert "add a header line" in out


# --- eval -------------------------------------------------------------------------------------------------


def test_eval_on_a_folder_that_is_not_a_benchmark(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "cat.txt").write_text("meow")
    line = one_line(["eval", folder, "--baseline", "random", "-o", tmp_path / "report"])
    assert "not a mapgen benchmark" in line and str(folder) in line
    assert not (tmp_path / "report").exists()
