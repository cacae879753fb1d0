"""Atlas facts checked against borders stated independently (ARCHITECTURE.md §3 and common geography)."""

from __future__ import annotations

import time

import pytest

from mapgen import UnknownNameError, UnknownRegionError, load_atlas

USA_BORDERS = {
    "CO": "KS NE NM OK UT WY",  # Four Corners: no AZ
    "UT": "AZ CO ID NV WY",  # Four Corners: no NM
    "AZ": "CA NM NV UT",
    "NM": "AZ CO OK TX",
    "ME": "NH",
    "WA": "ID OR",
    "OR": "CA ID NV WA",
    "CA": "AZ NV OR",
    "NV": "AZ CA ID OR UT",
    "FL": "AL GA",
    "GA": "AL FL NC SC TN",
    "SC": "GA NC",
    "TX": "AR LA NM OK",
    "LA": "AR MS TX",
    "MS": "AL AR LA TN",
    "TN": "AL AR GA KY MO MS NC VA",
    "MO": "AR IA IL KS KY NE OK TN",
    "KY": "IL IN MO OH TN VA WV",
    "WV": "KY MD OH PA VA",
    "VT": "MA NH NY",
    "DC": "MD VA",
    "AK": "",
    "HI": "",
}

INDIA_BORDERS = {
    "MP": "CG GJ MH RJ UP",
    "TS": "AP CG KA MH",  # after the override: no Odisha
    "OD": "AP CG JH WB",
    "KL": "KA PY TN",  # Puducherry's Mahé enclave lies inside Kerala
    "GA": "KA MH",
    "SK": "WB",
    "TR": "AS MZ",
    "MZ": "AS MN TR",
    "ML": "AS",
    "NL": "AR AS MN",
    "AR": "AS NL",
    "MN": "AS MZ NL",
    "DL": "HR UP",
    "CH": "HR PB",
    "BR": "JH UP WB",
    "JH": "BR CG OD UP WB",
    "CG": "AP JH MH MP OD TS UP",
    "GJ": "DH MH MP RJ",
    "RJ": "GJ HR MP PB UP",
    "LA": "HP JK",
    "AN": "",
    "LD": "",
}

CHINA_BORDERS = {
    "SC": "CQ GS GZ QH SN XZ YN",
    "HI": "",
    "TW": "",
    "BJ": "HE TJ",
    "TJ": "BJ HE",
    "SH": "JS ZJ",
    "NX": "GS NM SN",
    "HK": "GD",
    "MO": "GD",
    "XJ": "GS QH XZ",
    "XZ": "QH SC XJ YN",
    "YN": "GX GZ SC XZ",
    "GX": "GD GZ HN YN",
    "HL": "JL NM",
    "JL": "HL LN NM",
    "LN": "HE JL NM",
    "NM": "GS HE HL JL LN NX SN SX",
    "FJ": "GD JX ZJ",
    "ZJ": "AH FJ JS JX SH",
    "JS": "AH SD SH ZJ",
    "SD": "AH HA HE JS",
    "CQ": "GZ HB HN SC SN",
    "SN": "CQ GS HA HB NM NX SC SX",
    "HA": "AH HB HE SD SN SX",
}

FOREIGN = {
    ("usa", "bordering Canada"): "AK ID ME MI MN MT ND NH NY OH PA VT WA",
    ("usa", "bordering Mexico"): "AZ CA NM TX",
    ("india", "bordering Pakistan"): "GJ JK LA PB RJ",
    ("india", "bordering Nepal"): "BR SK UK UP WB",
    ("india", "bordering Bhutan"): "AR AS SK WB",
    ("india", "bordering Bangladesh"): "AS ML MZ TR WB",
    ("india", "bordering Myanmar"): "AR MN MZ NL",
    ("china", "bordering Russia"): "HL JL NM XJ",
    ("china", "bordering Mongolia"): "GS NM XJ",
    ("china", "bordering North Korea"): "JL LN",
    ("china", "bordering Vietnam"): "GX YN",
    ("china", "bordering Kazakhstan"): "XJ",
    ("china", "bordering Nepal"): "XZ",
}


@pytest.mark.parametrize(
    ("country", "code", "expected"),
    [("usa", c, e) for c, e in USA_BORDERS.items()]
    + [("india", c, e) for c, e in INDIA_BORDERS.items()]
    + [("china", c, e) for c, e in CHINA_BORDERS.items()],
)
def test_land_borders(country: str, code: str, expected: str) -> None:
    assert load_atlas(country).neighbors(code) == frozenset(expected.split())


@pytest.mark.parametrize(("key", "expected"), list(FOREIGN.items()))
def test_foreign_border_groups(key: tuple[str, str], expected: str) -> None:
    country, group = key
    assert load_atlas(country).group(group) == frozenset(expected.split())


def test_region_counts_and_codes() -> None:
    assert len(load_atlas("usa").codes) == 51
    india = load_atlas("india")
    assert len(india.codes) == 36
    assert {"TS", "LA", "JK", "DH", "CG", "UK", "OD"} <= set(india.codes)
    china = load_atlas("china")
    assert len(china.codes) == 34
    assert {"TW", "HK", "MO", "GS", "QH", "GX", "CQ", "XZ", "XJ"} <= set(china.codes)


def test_graph_is_symmetric_and_border_lengths_positive() -> None:
    atlas = load_atlas("usa")
    assert atlas.border_km("CO", "WY") == atlas.border_km("WY", "CO") > 300
    assert atlas.border_km("CO", "AZ") == 0.0
    # 107 land borders on the Census lines: no water-only IL-MI or MI-MN, and DE-NJ on the Delaware River.
    assert atlas.graph.number_of_edges() == 107


def test_telangana_override_has_reason() -> None:
    india = load_atlas("india")
    assert "OD" not in india.neighbors("TS") and "TS" not in india.neighbors("OD")


@pytest.mark.parametrize(
    ("country", "name", "code"),
    [
        ("india", "Orissa", "OD"),
        ("india", "orissa ", "OD"),
        ("india", "OR", "OD"),  # the code MAPWise prints
        ("india", "BH", "BR"),
        ("india", "Uttaranchal", "UK"),
        ("india", "Pondicherry", "PY"),
        ("india", "jammu & kashmir", "JK"),
        ("india", "TG", "TS"),
        ("china", "Nei Mongol", "NM"),
        ("china", "Inner Mongolia", "NM"),
        ("china", "Xizang", "XZ"),
        ("china", "Tibet", "XZ"),
        ("china", "Aomen", "MO"),
        ("china", "Macao", "MO"),
        ("china", "Xianggang", "HK"),
        ("china", "CN-44", "GD"),
        ("usa", "washington, d.c.", "DC"),
        ("usa", "co", "CO"),
        ("usa", "New  York", "NY"),
    ],
)
def test_resolve_aliases(country: str, name: str, code: str) -> None:
    assert load_atlas(country).resolve(name) == code


def test_unknown_region_lists_closest_matches() -> None:
    with pytest.raises(UnknownRegionError) as err:
        load_atlas("usa").resolve("Colorodo")
    assert "Colorado" in err.value.matches
    assert "(did you mean 'Colorado'?)" in str(err.value)


def test_unknown_country_and_group() -> None:
    with pytest.raises(UnknownNameError, match="india"):
        load_atlas("indai")
    with pytest.raises(UnknownNameError, match="region group"):
        load_atlas("usa").group("bordering Atlantis")


def test_group_names_are_case_and_space_insensitive() -> None:
    usa = load_atlas("usa")
    assert usa.group("BORDERING   canada") == usa.group("bordering Canada")
    assert usa.group("along the Mexico border") == usa.group("bordering Mexico")
    assert usa.group("bordering Colorado") == usa.neighbors("CO")
    assert usa.group("states bordering Colorado") == usa.neighbors("CO")


def test_direction_rule() -> None:
    usa = load_atlas("usa")
    contiguous = [c for c in usa.codes if c not in ("AK", "HI")]
    assert usa.extreme(contiguous, "north") in {"ND", "MN", "WA"}
    assert usa.extreme(contiguous, "south") == "FL"
    assert usa.extreme(contiguous, "east") == "ME"
    assert usa.extreme(contiguous, "west") == "OR"  # centroid of Oregon lies west of California's
    assert usa.extreme(usa.codes, "north") == "AK"
    assert usa.extreme(["TX", "OK"], "north") == "OK"
    india = load_atlas("india")
    assert india.extreme(india.codes, "north") == "LA"
    assert india.extreme(india.codes, "east") == "AR"
    assert india.extreme(["KL", "TN", "KA"], "south") in {"KL", "TN"}
    china = load_atlas("china")
    assert china.extreme(china.codes, "north") == "HL"
    assert china.extreme(china.codes, "west") == "XJ"
    with pytest.raises(ValueError, match="north"):
        usa.extreme(["CO"], "up")


def test_without_drops_regions() -> None:
    china = load_atlas("china", exclude=["TW", "HK", "MO"])
    assert len(china.codes) == 31
    assert "MO" not in china.neighbors("GD")
    assert len(load_atlas("china").codes) == 34  # the cached atlas is untouched


def test_load_atlas_is_fast_when_warm() -> None:
    load_atlas("china")
    start = time.perf_counter()
    for name in ("usa", "india", "china"):
        load_atlas(name)
    assert time.perf_counter() - start < 0.5


def test_region_record_is_complete() -> None:
    record = load_atlas("india").region_record("Gujarat")
    assert record["code"] == "GJ"
    assert record["foreign_borders"].keys() == {"Pakistan"}
    assert "bordering Pakistan" in record["groups"]
    assert set(record["neighbors"]) == {"DH", "MH", "MP", "RJ"}


def test_gazetteer_without_matches_the_atlas_without() -> None:
    drop = ["TW", "HK", "MO", "XZ"]
    full, fewer = load_atlas("china"), load_atlas("china", exclude=drop)
    cut = full.gazetteer.without(drop)
    assert dict(cut.names) == fewer.names and dict(cut.groups) == dict(fewer.groups)
    assert dict(cut.neighbors) == {c: fewer.neighbors(c) for c in fewer.codes}
    assert "bordering Nepal" not in cut.groups  # only Tibet borders Nepal
    with pytest.raises(UnknownRegionError):
        cut.resolve("Tibet")
    assert fewer.centroids == {c: full.centroids[c] for c in fewer.codes}


def test_user_loader_does_not_import_the_builtin_loader() -> None:
    """atlas.py dispatches to user.py; user.py and the types it builds never import atlas.py (no cycle)."""
    import ast
    import inspect

    import mapgen.geo.atlas_model
    import mapgen.geo.gazetteer
    import mapgen.geo.vector_file

    for module in (mapgen.geo.vector_file, mapgen.geo.atlas_model, mapgen.geo.gazetteer):
        tree = ast.parse(inspect.getsource(module))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert "mapgen.geo.atlas" not in imported, module.__name__
    assert mapgen.geo.vector_file.Atlas is load_atlas("usa").__class__
