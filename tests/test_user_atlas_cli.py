"""A user atlas end to end from the command line: a 4×4 grid of squares as a GeoJSON and a CSV of values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen import load_atlas
from mapgen.cli import main
from mapgen.geo.source import AtlasDigestError
from mapgen.spec import load_spec


def write_grid(folder: Path, n: int = 4, name_key: str = "name", stem: str = "grid") -> tuple[Path, Path]:
    """An n×n grid of 1° squares named ``Cell <row letter><column>`` (row A south) and a CSV of values that rise
    row by row (so the north row holds the largest values)."""
    folder.mkdir(parents=True, exist_ok=True)
    features, rows = [], ["region,value"]
    for r in range(n):
        for c in range(n):
            name = f"Cell {chr(65 + r)}{c + 1}"
            ring = [[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1], [c, r]]
            features.append({"type": "Feature", "properties": {name_key: name, "pop": r * n + c},
                             "geometry": {"type": "Polygon", "coordinates": [ring]}})
            rows.append(f"{name},{(r * n + c) * 3.5 + 1}")
    geo = folder / f"{stem}.geojson"
    geo.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    table = folder / f"{stem}.csv"
    table.write_text("\n".join(rows) + "\n")
    return geo, table


def run(*args: str) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_neighbors_of_an_inner_square_are_its_four_edge_neighbours(tmp_path: Path) -> None:
    geo, _ = write_grid(tmp_path)
    out = run("atlas", "neighbors", geo, "Cell B2").split()
    # B2 touches A2, C2 (south, north), B1, B3 (west, east) along edges; A1, A3, C1, C3 only at corners
    assert sorted(out) == ["CA2", "CB1", "CB3", "CC2"]
    assert load_atlas(geo).border_km("Cell B2", "Cell A1") == 0.0
    shown = json.loads(run("atlas", "show", geo, "--json"))
    assert len(shown["regions"]) == 16 and shown["file"]["sha256"] == load_atlas(geo).file.sha256


def test_render_questions_describe_from_files(tmp_path: Path) -> None:
    geo, table = write_grid(tmp_path / "data")
    out = tmp_path / "out"
    run("render", geo, "--data", table, "-o", out / "map.png")
    record = json.loads((out / "map.json").read_text())
    assert record["spec"]["atlas_file"]["path"] == "../data/grid.geojson"
    run("questions", out / "map.json", "-o", tmp_path / "q.jsonl")
    questions = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    assert questions
    # computed answers: the north-most row holds the largest values, so the highest-valued region is CD4
    spec = load_spec(out / "map.json")
    assert max(spec.values, key=spec.values.get) == "CD4"
    north = [q for q in questions if q["template_id"].startswith("extreme") and "north" in q["question"].lower()]
    for q in north:
        assert q["answer"]  # answered, from the scene
    run("describe", out / "map.json", "-o", tmp_path / "ann.json")
    annotations = json.loads((tmp_path / "ann.json").read_text())
    assert len(annotations["attributes"]) == 16


def test_moved_folder_still_reloads_the_atlas(tmp_path: Path) -> None:
    """Paths are stored relative to the artefact, so moving the data and the maps together keeps them working."""
    geo, table = write_grid(tmp_path / "a" / "data")
    run("render", geo, "--data", table, "-o", tmp_path / "a" / "out" / "map.png")
    (tmp_path / "a").rename(tmp_path / "b")
    run("questions", tmp_path / "b" / "out" / "map.json", "-o", tmp_path / "q.jsonl")
    assert load_spec(tmp_path / "b" / "out" / "map.json").atlas_file.path == (tmp_path / "b" / "data" /
                                                                              "grid.geojson").resolve()


def test_changed_atlas_file_is_refused_naming_the_digest(tmp_path: Path) -> None:
    geo, table = write_grid(tmp_path)
    run("spec", geo, "--data", table, "-o", tmp_path / "spec.json")
    spec = load_spec(tmp_path / "spec.json")
    spec.load_atlas()
    data = json.loads(geo.read_text())
    data["features"][0]["properties"]["name"] = "Cell Renamed"
    geo.write_text(json.dumps(data))
    with pytest.raises(AtlasDigestError, match="digest mismatch"):
        spec.load_atlas()
    result = CliRunner().invoke(main, ["scene", str(tmp_path / "spec.json")])
    assert result.exit_code == 2 and "digest mismatch" in result.output


def test_name_field_detected_or_given(tmp_path: Path) -> None:
    geo, _ = write_grid(tmp_path, name_key="shapeName")
    assert load_atlas(geo).name_of("CB2") == "Cell B2"
    out = run("atlas", "neighbors", geo, "CB2")
    assert out.split() == ["CA2", "CB1", "CB3", "CC2"]
    # with a code field, codes come from the file
    codes = json.loads(run("atlas", "show", geo, "--json", "--code-field", "pop"))
    assert [r["code"] for r in codes["regions"]][:3] == ["0", "1", "2"]


def test_groups_directional_bordering_and_user_yaml(tmp_path: Path) -> None:
    geo, _ = write_grid(tmp_path)
    (tmp_path / "grid.groups.yaml").write_text(
        "- name: Centre\n  members: [Cell B2, Cell B3, CC2, Cell C3]\n  source: hand-made\n")
    atlas = load_atlas(geo)
    assert atlas.group("northern regions") == {"CD1", "CD2", "CD3", "CD4"}
    assert atlas.group("western regions") == {"CA1", "CB1", "CC1", "CD1"}
    assert atlas.group("Centre") == {"CB2", "CB3", "CC2", "CC3"}
    assert atlas.group("bordering Cell A1") == {"CA2", "CB1"}
    assert run("atlas", "group", geo, "Centre").split() == ["CB2", "CB3", "CC2", "CC3"]
