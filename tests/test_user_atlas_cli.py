"""A user atlas end to end from the command line: a 4×4 grid of squares as a GeoJSON and a CSV of values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import write_grid

from mapgen import load_atlas
from mapgen.cli import main
from mapgen.geo.source import AtlasDigestError
from mapgen.spec import load_spec


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
    # the groups file beside the geometry is part of the atlas: adding one after the spec was made is refused too
    geo, table = write_grid(tmp_path / "other")
    run("spec", geo, "--data", table, "-o", tmp_path / "spec2.json")
    (tmp_path / "other" / "grid.groups.yaml").write_text("- {name: Pair, members: [CB2, CB3]}\n")
    with pytest.raises(AtlasDigestError, match="digest mismatch"):
        load_spec(tmp_path / "spec2.json").load_atlas()


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
    assert atlas.group("northern regions") == atlas.group("North") == {"CD1", "CD2", "CD3", "CD4"}
    assert atlas.group("western regions") == {"CA1", "CB1", "CC1", "CD1"}
    assert atlas.group("South") == {"CA1", "CA2", "CA3", "CA4"} and atlas.group("East") == {"CA4", "CB4", "CC4", "CD4"}
    # a 3-wide grid: the middle row sits on neither third line, so it is in neither group
    small = load_atlas(write_grid(tmp_path / "three", n=3)[0])
    assert small.group("North") == {"CC1", "CC2", "CC3"} and "CB2" not in small.group("South")
    assert atlas.group("Centre") == {"CB2", "CB3", "CC2", "CC3"}
    assert atlas.group("bordering Cell A1") == {"CA2", "CB1"}
    assert run("atlas", "group", geo, "Centre").split() == ["CB2", "CB3", "CC2", "CC3"]


def write_gridland_config(root: Path) -> Path:
    """The issue's config shape: a user atlas and a table, paths relative to the config file."""
    geo, table = write_grid(root / "regions", stem="gridland")
    table.rename(root / "gridland.csv")
    config = root / "grid.yaml"
    config.write_text(
        "name: gridland\nseed: 3\n"
        "countries:\n"
        "  - name: regions/gridland.geojson\n"
        "    maps: 3\n"
        "    statistics: {curated: [], files: [gridland.csv], synthetic: {count: 2}}\n"
        "counterfactual: {country: gridland, maps: 1, kinds: [original, shuffled]}\n"
        "questions: {per_template: 1, per_image: 6}\n"
    )
    return config


def test_build_from_a_config_with_a_user_atlas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mapgen.questions import ask, load_templates
    from mapgen.scene import load_scene

    config = write_gridland_config(tmp_path / "project")
    monkeypatch.chdir(tmp_path)  # paths resolve against the config file, not the working folder
    run("build", config, "-o", "bench", "--workers", "1")
    bench = tmp_path / "bench"
    manifest = json.loads((bench / "manifest.json").read_text())
    maps = [json.loads(line) for line in (bench / "maps.jsonl").read_text().splitlines()]
    assert {m["country"] for m in maps} == {"gridland"}
    assert len({m["unit_id"] for m in maps if not m["counterfactual"]}) == 3
    assert sorted(m["counterfactual"] for m in maps if m["counterfactual"]) == ["original", "shuffled"]
    record = manifest["atlases"]["gridland"]
    assert record["path"] == "atlases/gridland/gridland.geojson"
    assert record["sha256"] == load_atlas(config.parent / "regions" / "gridland.geojson").file.sha256
    assert manifest["files"]["atlases/gridland/gridland.geojson"] == record["sha256"]
    stats = {m["statistic"] for m in maps}
    assert len(stats) == 3 and any(s.startswith("synthetic") for s in stats)
    # every question re-asked on its map (reloaded from the folder's own atlas copy) gives the recorded answer
    templates = load_templates()
    questions = [json.loads(line) for line in (bench / "questions.jsonl").read_text().splitlines()]
    assert questions
    for q in questions:
        scene = load_scene(bench / "maps" / f"{q['map_id']}.json")
        again = ask(templates.get(q["template_id"]), scene, q["params"], q["text_variant"])
        assert again.answer == q["answer"] and again.question == q["question"]
    # the folder is self-contained: moved elsewhere, it still reloads; a changed atlas copy is refused
    moved = tmp_path / "elsewhere" / "bench"
    moved.parent.mkdir()
    bench.rename(moved)
    first = sorted((moved / "maps").glob("gridland-0000-*.json"))[0]
    load_scene(first)
    run("audit", moved, "-o", tmp_path / "audit")  # the pixel oracle reloads the atlas of every map
    assert (tmp_path / "audit" / "predictions.jsonl").is_file()
    copy = moved / "atlases" / "gridland" / "gridland.geojson"
    copy.write_text(copy.read_text().replace("Cell A1", "Cell Z9"))
    with pytest.raises(AtlasDigestError, match="digest mismatch"):
        load_scene(first)


def test_build_config_errors_name_the_files(tmp_path: Path) -> None:
    from mapgen.config import ConfigError, load_config

    config = write_gridland_config(tmp_path)
    (tmp_path / "gridland.csv").unlink()
    with pytest.raises(ConfigError, match="gridland.csv"):
        load_config(config)
    bad = tmp_path / "bad.yaml"
    bad.write_text("countries:\n  - {name: atlantis, maps: 1}\n  - {name: regions/gridland.geojson, maps: 1, "
                   "statistics: {curated: [population]}}\n")
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    assert "atlantis" in str(err.value) and "no curated tables" in str(err.value)


def test_config_digest_follows_the_atlas_content(tmp_path: Path) -> None:
    from mapgen.config import load_config

    config = write_gridland_config(tmp_path)
    before = load_config(config).digest()
    geo = tmp_path / "regions" / "gridland.geojson"
    geo.write_text(geo.read_text().replace("Cell A1", "Cell Z9"))
    table = tmp_path / "gridland.csv"
    table.write_text(table.read_text().replace("Cell A1", "Cell Z9"))  # the table must still match the atlas
    assert load_config(config).digest() != before


def test_a_user_coast_group_makes_regions_coastal_and_its_absence_is_noted(tmp_path: Path) -> None:
    geo, table = write_grid(tmp_path / "data")
    run("render", geo, "--data", table, "-o", tmp_path / "plain" / "map.png")
    plain = CliRunner().invoke(main, ["describe", str(tmp_path / "plain" / "map.json"), "-o",
                                      str(tmp_path / "plain.json")])
    assert plain.exit_code == 0 and "no coast or sea group" in plain.output
    assert not any(a["coastal"] for a in json.loads((tmp_path / "plain.json").read_text())["attributes"])
    (tmp_path / "data" / "grid.groups.yaml").write_text(
        "- {name: South Coast, kind: coast, members: [Cell A1, Cell A2, Cell A3, Cell A4]}\n")
    run("render", geo, "--data", table, "-o", tmp_path / "coast" / "map.png")
    coast = CliRunner().invoke(main, ["describe", str(tmp_path / "coast" / "map.json"), "-o",
                                      str(tmp_path / "coast.json")])
    assert coast.exit_code == 0 and "no coast" not in coast.output
    attributes = json.loads((tmp_path / "coast.json").read_text())["attributes"]
    assert {a["code"] for a in attributes if a["coastal"]} == {"CA1", "CA2", "CA3", "CA4"}


def test_geopackage_and_shapefile_give_the_same_atlas(tmp_path: Path) -> None:
    import geopandas as gpd

    geo, table = write_grid(tmp_path)
    frame = gpd.read_file(geo)
    frame.to_file(tmp_path / "grid.gpkg", driver="GPKG")
    frame.to_file(tmp_path / "grid.shp")
    reference = load_atlas(geo)
    for path in (tmp_path / "grid.gpkg", tmp_path / "grid.shp"):
        other = load_atlas(path)
        assert other.names == reference.names
        assert sorted(map(sorted, other.graph.edges())) == sorted(map(sorted, reference.graph.edges()))
        assert run("atlas", "neighbors", path, "Cell B2").split() == ["CA2", "CB1", "CB3", "CC2"]
    run("render", tmp_path / "grid.shp", "--data", table, "-o", tmp_path / "out" / "shp.png")
    spec = load_spec(tmp_path / "out" / "shp.json")
    spec.load_atlas()
    dbf = tmp_path / "grid.dbf"  # a shapefile's digest covers its sidecars: a changed .dbf is refused
    frame.assign(name=[n.upper() for n in frame["name"]]).to_file(tmp_path / "grid.shp")
    assert dbf.is_file()
    with pytest.raises(AtlasDigestError):
        spec.load_atlas()
