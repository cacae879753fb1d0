"""The border rule scales with the map; a CRS that cannot be right and region names spelled like computed groups
are refused (docs/atlases-and-data.md "Borders", "Your own country")."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import geopandas as gpd
import pytest
from shapely.geometry import box

from mapgen import load_atlas
from mapgen.geo.adjacency import BorderRule, measure_borders, scaled_rule
from mapgen.geo.border_audit import audit_user
from mapgen.geo.vector_file import AtlasFileError, BorderWarning, load_user_atlas

WARD = 0.04  # degrees: at 50°N a ward is 2.86 km wide and 4.45 km tall


def wards(path: Path, size: float = WARD, crs: str | None = None, origin: tuple[float, float] = (10.0, 50.0),
          names: list[str] | None = None) -> Path:
    """A 3×3 grid of ``size``° wards named Ward 1..9 (row by row from the south-west), optionally declaring a
    GeoJSON ``crs`` member."""
    features = []
    for i in range(9):
        r, c = divmod(i, 3)
        x, y = origin[0] + c * size, origin[1] + r * size
        ring = [[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]]
        features.append({"type": "Feature", "properties": {"name": (names or [])[i] if names else f"Ward {i + 1}"},
                         "geometry": {"type": "Polygon", "coordinates": [ring]}})
    data: dict = {"type": "FeatureCollection", "features": features}
    if crs is not None:
        data["crs"] = {"type": "name", "properties": {"name": crs}}
    path.write_text(json.dumps(data))
    return path


def rook_edges() -> set[frozenset[str]]:
    """The 12 shared edges of a 3×3 grid (corner contacts excluded), as pairs of ward codes."""
    out = set()
    for i in range(9):
        r, c = divmod(i, 3)
        if c < 2:
            out.add(frozenset((f"W{i + 1}", f"W{i + 2}")))
        if r < 2:
            out.add(frozenset((f"W{i + 1}", f"W{i + 4}")))
    return out


def quiet_load(path: Path) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("error", BorderWarning)
        return load_user_atlas(path)


def test_ward_grid_has_its_twelve_borders_and_no_corner_contact(tmp_path: Path) -> None:
    atlas = quiet_load(wards(tmp_path / "wards.geojson"))
    assert {frozenset(e) for e in atlas.graph.edges} == rook_edges()
    assert atlas.neighbors("Ward 5") == {"W2", "W4", "W6", "W8"}
    assert atlas.neighbors("Ward 7") == {"W4", "W8"}  # Ward 7 touches Ward 4 (the silently wrong gold)
    lengths = sorted(d["km"] for *_, d in atlas.graph.edges(data=True))
    assert 2.8 < lengths[0] < 2.95 and 4.4 < lengths[-1] < 4.5
    # the 8 diagonal corner contacts are measured, left out and reported, but are no near misses
    assert len(atlas.dropped_borders) == 8 and all(km < 0.05 for *_, km in atlas.dropped_borders)
    assert atlas.contested == frozenset()
    assert "scaled to the median region width 3.5" in atlas.border_rule
    report = audit_user(atlas)
    assert report.atlas_pairs == 12 and len(report.dropped) == 8 and report.rule == atlas.border_rule


def test_the_fixed_5_km_rule_lost_half_of_the_ward_borders(tmp_path: Path) -> None:
    """What the issue measured: the fixed rule keeps only the 4.45 km edges (6 of 12)."""
    atlas = load_user_atlas(wards(tmp_path / "wards.geojson"))
    geoms = list(atlas.gdf.geometry)
    assert measure_borders(list(atlas.codes), geoms, BorderRule()).graph.number_of_edges() == 6
    rule = scaled_rule(geoms)
    assert rule.min_km == pytest.approx(3.57 / 40, rel=0.02) and rule.buffer_m == pytest.approx(rule.min_km * 100)


@pytest.mark.parametrize("country, edges", [("usa", 107), ("india", 66), ("china", 70)])
def test_the_built_in_atlases_keep_the_5_km_rule(country: str, edges: int) -> None:
    """Their median region widths (230-410 km) put the scaled rule at its caps: the graphs do not change."""
    atlas = load_atlas(country)
    rule = scaled_rule(list(atlas.gdf.geometry))
    assert (rule.min_km, rule.buffer_m) == (5.0, 500.0)
    assert atlas.graph.number_of_edges() == edges


def test_a_near_miss_is_warned_about_and_contested(tmp_path: Path) -> None:
    """Two 1° squares sharing 0.015° of edge (1.7 km): longer than a point contact, shorter than the rule."""
    path = tmp_path / "pair.geojson"
    gpd.GeoDataFrame({"name": ["Alpha", "Beta", "Gamma"]},
                     geometry=[box(0, 0, 1, 1), box(1, 0.985, 2, 1.985), box(0, -1, 1, 0)],
                     crs=4326).to_file(path)
    with pytest.warns(BorderWarning, match=r"'Alpha'–'Beta' \(2\.\d+ km\).*not borders.*no question hinges"):
        atlas = load_user_atlas(path)
    assert atlas.neighbors("Alpha") == {"GA"}
    assert atlas.contested == {frozenset(("AL", "BE"))}
    assert atlas.contested_with("Beta") == {"AL"}
    assert atlas.region_record("Alpha")["contested"] == ["BE"]


# --- a CRS that cannot be right -----------------------------------------------------------------------------


def test_degrees_declared_as_web_mercator_are_refused(tmp_path: Path) -> None:
    path = wards(tmp_path / "wards.geojson", crs="urn:ogc:def:crs:EPSG::3857")
    with pytest.raises(AtlasFileError, match=r"wards\.geojson.*EPSG:3857.*longitude/latitude-sized.*EPSG:4326"):
        load_user_atlas(path)


@pytest.mark.parametrize("written", ["urn:ogc:def:crs:EPSG::999999", "my own projection"])
def test_an_unknown_crs_is_refused(tmp_path: Path, written: str) -> None:
    path = wards(tmp_path / "wards.geojson", crs=written)
    with pytest.raises(AtlasFileError, match=rf"wards\.geojson.*{written!r}.*known CRS"):
        load_user_atlas(path)


def test_an_unreadable_shapefile_prj_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "wards.shp"
    gpd.read_file(wards(tmp_path / "src.geojson")).to_file(path)
    path.with_suffix(".prj").write_text("PROJCS[nonsense")
    with pytest.raises(AtlasFileError, match=r"wards\.shp.*PROJCS\[nonsense.*known CRS"):
        load_user_atlas(path)


def test_projected_extents_off_the_globe_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "far.geojson"
    gpd.GeoDataFrame({"name": ["A", "B"]}, geometry=[box(3e7, 0, 3.1e7, 1e5), box(3.1e7, 0, 3.2e7, 1e5)],
                     crs=3857).to_file(path)
    with pytest.raises(AtlasFileError, match=r"far\.geojson.*EPSG:3857.*outside what that projection can map"):
        load_user_atlas(path)


def test_a_truly_projected_file_keeps_its_borders(tmp_path: Path) -> None:
    path = tmp_path / "wards_3857.geojson"
    gpd.read_file(wards(tmp_path / "src.geojson")).to_crs(3857).to_file(path)
    atlas = quiet_load(path)
    assert {frozenset(e) for e in atlas.graph.edges} == rook_edges()


# --- region names spelled like computed groups --------------------------------------------------------------


@pytest.mark.parametrize("name, group", [
    ("North", "North"), ("the  south", "the south"), ("NORTHERN REGIONS", "northern regions"),
    ("bordering Ward 5", "the regions bordering Ward 5"), ("Bordering  ward 1", "the regions Bordering  ward 1"),
])
def test_a_region_spelled_like_a_computed_group_is_refused(tmp_path: Path, name: str, group: str) -> None:
    names = [f"Ward {i + 1}" for i in range(9)]
    names[8] = name
    path = wards(tmp_path / "wards.geojson", names=names)
    with pytest.raises(AtlasFileError, match=rf"region {name!r} is spelled like the computed group {group!r}.*rename"):
        load_user_atlas(path)


def test_names_that_only_start_like_a_group_word_are_fine(tmp_path: Path) -> None:
    names = ["North Ward", "Northumberland", "Borderland", "Eastleigh", "West End", "Southern Cross",
             "The Northern Part Of Town", "Bordering", "Ward 9"]
    atlas = quiet_load(wards(tmp_path / "wards.geojson", names=names))
    assert len(atlas.codes) == 9 and "North" in atlas.groups


def test_a_user_group_spelled_like_a_region_is_refused(tmp_path: Path) -> None:
    path = wards(tmp_path / "wards.geojson")
    (tmp_path / "wards.groups.yaml").write_text("- {name: Ward 5, members: [Ward 1, Ward 2]}\n")
    with pytest.raises(AtlasFileError, match=r"group 'Ward 5' is spelled like the region 'Ward 5'; rename the group"):
        load_user_atlas(path)
