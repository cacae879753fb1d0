"""User atlases from vector files: border graph, codes, bad-input errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mapgen import load_atlas
from mapgen.geo.vector_file import AtlasFileError, load_user_atlas, make_codes


def square(x: float, y: float, size: float = 1.0) -> list:
    return [[[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]]]


def write_collection(path: Path, features: list[tuple[dict, dict | None]]) -> Path:
    path.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "features": [{"type": "Feature", "properties": p, "geometry": g} for p, g in features],
            }
        )
    )
    return path


def grid(tmp_path: Path) -> Path:
    """2×2 grid of 1° squares: North West, North East, South West, South East."""
    cells = {"North West": (10, 11), "North East": (11, 11), "South West": (10, 10), "South East": (11, 10)}
    return write_collection(
        tmp_path / "grid.geojson",
        [({"label": k, "iso": k[0] + k.split()[1][0]}, {"type": "Polygon", "coordinates": square(*xy)})
         for k, xy in cells.items()],
    )


def test_user_atlas_round_trip(tmp_path: Path) -> None:
    atlas = load_atlas(grid(tmp_path), name_field="label", code_field="iso")
    assert set(atlas.codes) == {"NW", "NE", "SW", "SE"}
    assert atlas.neighbors("NW") == {"NE", "SW"}  # the diagonal corner contact is not a border
    assert atlas.neighbors("South East") == {"NE", "SW"}
    assert 100 < atlas.border_km("NW", "NE") < 115  # one degree of latitude ≈ 111 km
    assert atlas.extreme(atlas.codes, "north") in {"NW", "NE"}
    assert atlas.extreme(["NW", "SW"], "south") == "SW"
    assert atlas.extreme(["SW", "SE"], "east") == "SE"
    assert atlas.resolve("north west") == "NW"
    assert atlas.positions["SW"].area_km2 == pytest.approx(12_100, rel=0.02)


def test_user_atlas_generates_codes(tmp_path: Path) -> None:
    atlas = load_atlas(grid(tmp_path), name_field="label")
    assert set(atlas.codes) == {"NW", "NE", "SW", "SE"}
    assert make_codes(["Texas", "Tennessee", "Texas City"]) == ["TE", "TE2", "TC"]


def test_missing_name_field_names_the_columns(tmp_path: Path) -> None:
    with pytest.raises(AtlasFileError, match="label"):
        load_atlas(grid(tmp_path), name_field="NAME")


def test_duplicate_codes_rejected(tmp_path: Path) -> None:
    path = write_collection(
        tmp_path / "dup.geojson",
        [({"name": "A", "c": "X"}, {"type": "Polygon", "coordinates": square(0, 0)}),
         ({"name": "B", "c": "X"}, {"type": "Polygon", "coordinates": square(1, 0)})],
    )
    with pytest.raises(AtlasFileError, match="Duplicate region codes.*X"):
        load_atlas(path, code_field="c")


def test_empty_geometry_rejected_with_feature_named(tmp_path: Path) -> None:
    path = write_collection(
        tmp_path / "empty.geojson",
        [({"name": "Good"}, {"type": "Polygon", "coordinates": square(0, 0)}), ({"name": "Ghost"}, None)],
    )
    with pytest.raises(AtlasFileError, match="Ghost"):
        load_atlas(path)


def test_invalid_geometry_repaired_with_warning(tmp_path: Path) -> None:
    bowtie = {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}
    path = write_collection(
        tmp_path / "bowtie.geojson",
        [({"name": "Bow"}, bowtie), ({"name": "Plain"}, {"type": "Polygon", "coordinates": square(1, 0)})],
    )
    with pytest.warns(UserWarning, match="Bow"):
        atlas = load_atlas(path)
    assert atlas.gdf.geometry.is_valid.all()


def test_malformed_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.geojson"
    path.write_text("{not json")
    with pytest.raises(AtlasFileError, match="Cannot read"):
        load_atlas(path)


def test_regions_touching_across_the_antimeridian_share_a_border(tmp_path: Path) -> None:
    """Squares at 179–180°E and 180–179°W touch along the antimeridian: a border, and the western one (in
    longitude numbers) lies east of the other; a square 1° further west still touches only its neighbour."""
    path = write_collection(tmp_path / "pacific.geojson", [
        ({"name": "Dateline East"}, {"type": "Polygon", "coordinates": square(179, -17)}),
        ({"name": "Dateline West"}, {"type": "Polygon", "coordinates": square(-180, -17)}),
        ({"name": "Inner"}, {"type": "Polygon", "coordinates": square(178, -17)}),
    ])
    atlas = load_atlas(path)
    edges = {frozenset(e) for e in atlas.graph.edges}
    assert edges == {frozenset({"DE", "DW"}), frozenset({"DE", "IN"})}
    assert atlas.graph.edges["DE", "DW"]["km"] > 100  # the full 1° side (~106 km at 17°S), not a point contact
    assert atlas.positions["IN"].lon < atlas.positions["DE"].lon < atlas.positions["DW"].lon
    frame = atlas.gdf
    width = frame.total_bounds[2] - frame.total_bounds[0]
    assert width < 400_000  # three 1° squares side by side (~320 km), not stretched around the globe


def test_the_same_squares_away_from_the_antimeridian_give_the_same_graph(tmp_path: Path) -> None:
    """Metamorphic: shifting the three squares of the antimeridian test by 180° gives the same borders."""
    path = write_collection(tmp_path / "shifted.geojson", [
        ({"name": "Dateline East"}, {"type": "Polygon", "coordinates": square(-1, -17)}),
        ({"name": "Dateline West"}, {"type": "Polygon", "coordinates": square(0, -17)}),
        ({"name": "Inner"}, {"type": "Polygon", "coordinates": square(-2, -17)}),
    ])
    edges = {frozenset(e) for e in load_atlas(path).graph.edges}
    assert edges == {frozenset({"DE", "DW"}), frozenset({"DE", "IN"})}


def test_every_atlas_file_error_names_the_file_and_the_fix(tmp_path: Path) -> None:
    def square(x: float) -> list[list[float]]:
        return [[x, 0], [x + 1, 0], [x + 1, 1], [x, 1], [x, 0]]

    def write(features: list[tuple[object, object]], key: str = "name") -> Path:
        path = tmp_path / "odd.geojson"
        path.write_text(json.dumps({"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {key: name}, "geometry": geometry} for name, geometry in features]}))
        return path

    poly = {"type": "Polygon", "coordinates": [square(0)]}
    cases = [  # (features, name column, words of the message)
        ([("A", poly), ("B", None)], "name", "has empty geometry"),
        ([("A", poly), ("B", {"type": "Point", "coordinates": [3, 0]})], "name", "regions must be polygons"),
        ([("A", poly), ("B", {"type": "Polygon", "coordinates": [square(1)[:3]]})], "name",
         "feature(s) 1 (counting from 0) have a polygon ring that is not closed"),
        ([("A", poly), ("B", poly), ("A", poly)], "name", "'A' (features 0, 2); give every region its own name"),
        ([("A", poly), ("B", poly), ("A", poly)], "Bezeichnung", "'A' (features 0, 2)"),
        ([("A", poly), ("", poly), ("B", poly)], "Bezeichnung", "feature(s) 1 (counting from 0) have no"),
        ([("Solo", poly)], "name", "has only one region ('Solo')"),
        ([("Ward 7", poly), ("WARD 7", poly)], "name", "(case, spacing and accents aside)"),
    ]
    for features, key, words in cases:
        path = write(features, key)
        with pytest.raises(AtlasFileError) as caught:
            load_user_atlas(path)
        assert str(path) in str(caught.value) and words in str(caught.value), caught.value
