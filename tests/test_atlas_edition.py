"""India as MAPWise drew it (atlas edition ``india-mapwise``): derived from mapgen's own India atlas.

Expected facts are stated from the base atlas's files and MAPWise's released metadata, not from the edition code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mapgen.geo.atlas import load_atlas

REPO = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "repo-sample" / "dataset"
MAPWISE_CODES = {"BR": "BH", "CG": "CT", "UK": "UT", "OD": "OR", "ML": "ME", "MZ": "MI", "PY": "PD"}


@pytest.fixture(scope="module")
def atlases():
    return load_atlas("india"), load_atlas("india-mapwise")


def test_units_and_codes(atlases) -> None:
    base, ed = atlases
    expected = ({MAPWISE_CODES.get(c, c) for c in base.codes} - {"LA", "DH"}) | {"DN", "DD"}
    assert set(ed.codes) == expected and len(ed.codes) == 36
    assert ed.name == "india" and ed.region_word == base.region_word
    assert ed.resolve("Ladakh") == "JK" and ed.resolve("BR") == "BH" and ed.resolve("Daman & Diu") == "DD"
    assert ed.names["DN"] == "Dadra and Nagar Haveli"


@pytest.mark.skipif(not REPO.is_dir(), reason="MAPWise's repository slice not available")
def test_mapwise_metadata_codes_are_the_editions_codes(atlases) -> None:
    _, ed = atlases
    codes = set()
    for path in (REPO / "india" / "metadata").glob("*.json"):
        codes |= {r["region"] for r in json.loads(path.read_text())["data"]}
    assert codes == set(ed.codes)


def test_jammu_and_kashmir_whole(atlases) -> None:
    base, ed = atlases
    assert ed.neighbors("JK") == {MAPWISE_CODES.get(c, c) for c in (base.neighbors("JK") | base.neighbors("LA"))} - {
        "JK", "LA"}
    assert ed.border_km("JK", "HP") == pytest.approx(base.border_km("JK", "HP") + base.border_km("LA", "HP"), abs=0.2)
    pos = ed.positions["JK"]
    assert pos.area_km2 == pytest.approx(base.positions["JK"].area_km2 + base.positions["LA"].area_km2, abs=0.2)
    assert pos.east == base.positions["LA"].east and pos.west == base.positions["JK"].west
    for country in ("Pakistan", "China"):
        want = base.foreign.get("JK", {}).get(country, 0) + base.foreign.get("LA", {}).get(country, 0)
        assert ed.foreign["JK"].get(country, 0) == pytest.approx(want, abs=0.2)


def test_dadra_nagar_haveli_and_daman_diu_apart(atlases) -> None:
    base, ed = atlases
    gdf, old = ed.gdf, base.gdf
    assert gdf.geometry["DN"].area + gdf.geometry["DD"].area == pytest.approx(old.geometry["DH"].area, rel=1e-9)
    assert not gdf.geometry["DN"].intersects(gdf.geometry["DD"])
    assert 450 < gdf.geometry["DN"].area / 1e6 < 560  # official 491 km²; the simplified polygon 515
    assert ed.positions["DD"].west < 71.0  # Diu, off Saurashtra, is part of Daman and Diu
    assert ed.neighbors("DN") == {"GJ", "MH"} and ed.neighbors("DD") == {"GJ"}
    assert base.neighbors("DH") == {"GJ", "MH"}
    groups = {g.name: g.members for g in ed.static_groups}
    assert "DD" in groups["West Coast"] and "DN" not in groups["West Coast"]  # DN is landlocked
    assert {"DN", "DD"} <= groups["West India"]
    assert set(ed.gdf.index) == set(ed.codes)
