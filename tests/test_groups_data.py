"""Checks on the curated named region groups in data/atlas/groups_<country>.yaml."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import pytest
import yaml

from mapgen.resources import data_path

_CODE_LISTS = {
    "usa": "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY "
    "NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY",
    "india": "AN AP AR AS BR CH CG DH DL GA GJ HR HP JK JH KA KL LA LD MP MH MN ML MZ NL OD PB PY RJ SK TN TS TR "
    "UP UK WB",
    "china": "AH BJ CQ FJ GD GS GX GZ HA HB HE HI HK HL HN JL JS JX LN MO NM NX QH SC SD SH SN SX TJ TW XJ XZ YN "
    "ZJ",
}
CODES = {country: set(codes.split()) for country, codes in _CODE_LISTS.items()}
COUNTRIES = sorted(CODES)
REQUIRED_KEYS = {"name", "members", "kind", "source"}
ALLOWED_KEYS = REQUIRED_KEYS | {"aliases", "note", "alternatives"}


def loader_key(text: str) -> str:
    """The loader's matching rule: case- and space-insensitive."""
    return re.sub(r"\s+", "", text.lower())


def norm(text: str) -> str:
    """Stricter: also ignores hyphens and punctuation ("North-East" == "Northeast")."""
    return re.sub(r"[^0-9a-z]+", "", text.lower())


@cache
def load(country: str) -> tuple[dict, ...]:
    text = data_path("atlas", f"groups_{country}.yaml").read_text(encoding="utf-8")
    groups = yaml.safe_load(text)
    assert isinstance(groups, list)
    return tuple(groups)


def group(country: str, name: str) -> set[str]:
    """Members of the group called `name` (or having `name` as an alias)."""
    key = norm(name)
    for g in load(country):
        if key == norm(g["name"]) or key in {norm(a) for a in g.get("aliases") or []}:
            return set(g["members"])
    raise KeyError(f"{country}: no group {name!r}")


def assert_partition(universe: set[str], parts: dict[str, set[str]]) -> None:
    counts = Counter(code for members in parts.values() for code in members)
    assert {c for c, n in counts.items() if n > 1} == set(), "regions in more than one part"
    assert set(counts) == universe, (
        f"missing {sorted(universe - set(counts))}, extra {sorted(set(counts) - universe)}"
    )


# --- structure -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("country", COUNTRIES)
def test_entries_well_formed(country):
    groups = load(country)
    assert len(groups) >= 15
    for g in groups:
        assert isinstance(g, dict), g
        assert REQUIRED_KEYS <= set(g) <= ALLOWED_KEYS, g.get("name")
        for key in ("name", "kind", "source"):
            assert isinstance(g[key], str) and g[key].strip(), (g.get("name"), key)
        assert isinstance(g.get("aliases") or [], list)
        assert all(isinstance(a, str) and a.strip() for a in g.get("aliases") or [])
        assert isinstance(g["members"], list) and g["members"], g["name"]
        assert all(isinstance(m, str) for m in g["members"]), g["name"]
        if "note" in g:
            assert isinstance(g["note"], str) and g["note"].strip()


@pytest.mark.parametrize("country", COUNTRIES)
def test_member_codes_valid_and_unique(country):
    for g in load(country):
        members = g["members"]
        assert set(members) <= CODES[country], (g["name"], sorted(set(members) - CODES[country]))
        assert len(members) == len(set(members)), (g["name"], "duplicate member")


@pytest.mark.parametrize("country", COUNTRIES)
def test_names_and_aliases_unique(country):
    """No label twice (loader rule); across groups not even up to hyphens/punctuation.

    Within one group, spelling variants that differ only by hyphens ("North-East region" and "Northeast
    region") are allowed, since the loader's case/space-insensitive match would not merge them.
    """
    exact: set[str] = set()
    loose: dict[str, str] = {}
    for g in load(country):
        for label in [g["name"], *(g.get("aliases") or [])]:
            assert norm(label), (g["name"], label)
            assert loader_key(label) not in exact, f"{country}: {label!r} listed twice"
            exact.add(loader_key(label))
            owner = loose.setdefault(norm(label), g["name"])
            assert owner == g["name"], f"{country}: {label!r} of {g['name']!r} clashes with {owner!r}"


@pytest.mark.parametrize("country", COUNTRIES)
def test_no_bordering_country_groups(country):
    """'bordering <country>' groups come from geometry, never from these files."""
    water = ("sea", "lake", "ocean", "gulf", "bay", "river")
    for g in load(country):
        for label in [g["name"], *(g.get("aliases") or [])]:
            words = label.lower()
            if "border" in words:
                assert any(w in words for w in water), (g["name"], label)


# --- partitions ------------------------------------------------------------------------------------------

USA_DIVISIONS = {
    "Northeast": ["New England", "Middle Atlantic"],
    "Midwest": ["East North Central", "West North Central"],
    "South": ["South Atlantic", "East South Central", "West South Central"],
    "West": ["Mountain", "Pacific"],
}


def test_usa_census_regions_partition():
    assert_partition(CODES["usa"], {r: group("usa", r) for r in USA_DIVISIONS})


def test_usa_census_divisions_partition_and_nest():
    divisions = [d for ds in USA_DIVISIONS.values() for d in ds]
    assert_partition(CODES["usa"], {d: group("usa", d) for d in divisions})
    for region, ds in USA_DIVISIONS.items():
        assert group("usa", region) == set().union(*(group("usa", d) for d in ds)), region


def test_usa_census_exact_membership():
    assert group("usa", "New England") == {"CT", "ME", "MA", "NH", "RI", "VT"}
    assert group("usa", "Middle Atlantic") == {"NJ", "NY", "PA"}
    assert group("usa", "South Atlantic") == {"DE", "DC", "FL", "GA", "MD", "NC", "SC", "VA", "WV"}
    assert group("usa", "Mountain") == {"AZ", "CO", "ID", "MT", "NV", "NM", "UT", "WY"}
    assert group("usa", "West North Central") == {"IA", "KS", "MN", "MO", "NE", "ND", "SD"}


CHINA_SIX = [
    "Northeast China",
    "North China",
    "East China",
    "South-Central China",
    "Southwest China",
    "Northwest China",
]
CHINA_MAINLAND = CODES["china"] - {"TW", "HK", "MO"}


def test_china_six_regions_cover_mainland_once():
    parts = {r: group("china", r) & CHINA_MAINLAND for r in CHINA_SIX}
    assert_partition(CHINA_MAINLAND, parts)
    assert len(CHINA_MAINLAND) == 31
    # TW, HK, MO: each placed at most once (TW in East China, HK and MO in South-Central China).
    counts = Counter(c for r in CHINA_SIX for c in group("china", r) if c not in CHINA_MAINLAND)
    assert counts == Counter({"TW": 1, "HK": 1, "MO": 1})
    assert {"HK", "MO"} <= group("china", "South-Central China")
    assert "TW" in group("china", "East China")


def test_china_southeast_is_the_curated_three():
    """"Southeast China" (MAPWise asks about "the south east region") as Wikivoyage defines it."""
    assert group("china", "Southeast China") == {"FJ", "GD", "HI"} == group("china", "South-East")


def test_china_seven_region_split():
    assert group("china", "South China") | group("china", "Central China") == group(
        "china", "South-Central China"
    )
    assert not group("china", "South China") & group("china", "Central China")


INDIA_COUNCILS = [
    "Northern Zonal Council",
    "Central Zonal Council",
    "Eastern Zonal Council",
    "Western Zonal Council",
    "Southern Zonal Council",
    "North Eastern Council",
]


def test_india_councils_cover_all_but_island_uts():
    """Exception: AN and LD belong to no council (special invitees to the Southern Zonal Council)."""
    parts = {c: group("india", c) for c in INDIA_COUNCILS}
    parts["island UTs (no council)"] = group("india", "Indian Ocean islands")
    assert parts["island UTs (no council)"] == {"AN", "LD"}
    assert_partition(CODES["india"], parts)


# --- independent membership facts ------------------------------------------------------------------------

FACTS = [
    # (country, group, code, expected membership)
    ("usa", "West Coast", "OR", True),
    ("usa", "West Coast", "AK", False),
    ("usa", "Pacific coast", "HI", True),
    ("usa", "Gulf Coast", "TX", True),
    ("usa", "Gulf Coast", "GA", False),
    ("usa", "Southeast", "TX", False),
    ("usa", "East Coast", "FL", True),
    ("usa", "East Coast", "PA", False),
    ("usa", "East Coast", "VT", False),
    ("usa", "Lake Huron", "MI", True),
    ("usa", "Lake Superior", "MN", True),
    ("usa", "Lake Superior", "IL", False),
    ("usa", "Lake Erie", "PA", True),
    ("usa", "Lake Erie", "MI", True),
    ("usa", "Lake Erie", "IN", False),
    ("usa", "Lake Michigan", "IN", True),
    ("usa", "Lake Ontario", "PA", False),
    ("usa", "Great Lakes states", "MN", True),
    ("usa", "Appalachian states", "MS", True),
    ("usa", "Northeast", "MD", False),
    ("usa", "South", "DC", True),
    ("usa", "Sun Belt", "MO", False),
    ("usa", "Great Plains", "IA", False),
    ("india", "Bay of Bengal coast", "OD", True),
    ("india", "Arabian Sea coast", "GJ", True),
    ("india", "Arabian Sea coast", "LD", True),
    ("india", "West Coast", "GA", True),
    ("india", "East Coast", "TS", False),
    ("india", "Coastal states", "TS", False),
    ("india", "Northeast India", "SK", True),
    ("india", "Seven Sisters", "SK", False),
    ("india", "Himalayan states", "LA", True),
    ("india", "Southern Zonal Council", "TS", True),
    ("india", "Northern Zonal Council", "LA", True),
    ("india", "Central Zonal Council", "UK", True),
    ("india", "Ganga river states", "JH", True),
    ("china", "Yellow Sea coast", "SD", True),
    ("china", "Yellow Sea coast", "HE", False),
    ("china", "Bohai Sea coast", "TJ", True),
    ("china", "East China Sea coast", "ZJ", True),
    ("china", "East China Sea coast", "JS", False),
    ("china", "South China Sea coast", "HI", True),
    ("china", "South China Sea coast", "GX", True),
    ("china", "Coastal provinces", "BJ", False),
    ("china", "North China", "NM", True),
    ("china", "Northwest China", "SN", True),
    ("china", "Southwest China", "CQ", True),
    ("china", "East China", "JX", True),
    ("china", "Central China", "HN", True),
    ("china", "Yangtze River provinces", "XZ", True),
    ("china", "Yangtze River provinces", "HA", False),
    ("china", "Yellow River provinces", "SC", True),
    ("china", "Yellow River provinces", "HE", False),
    ("china", "Tibetan Plateau", "QH", True),
]


@pytest.mark.parametrize(("country", "name", "code", "expected"), FACTS)
def test_membership_fact(country, name, code, expected):
    assert (code in group(country, name)) is expected


def test_coast_groups_consistent():
    # India: sea coasts are the mainland coasts plus the island UT lying in that sea.
    assert group("india", "Arabian Sea coast") == group("india", "West Coast") | {"LD"}
    assert group("india", "Bay of Bengal coast") == group("india", "East Coast") | {"AN"}
    assert group("india", "Coastal states") == group("india", "Arabian Sea coast") | group(
        "india", "Bay of Bengal coast"
    )
    # China: every sea-coast member is coastal, and every coastal division is on some sea.
    seas = ["Bohai Sea coast", "Yellow Sea coast", "East China Sea coast", "South China Sea coast"]
    assert set().union(*(group("china", s) for s in seas)) == group("china", "Coastal provinces")
    # USA: the Pacific coast is the West Coast plus AK and HI; every Gulf state but FL is off the East Coast.
    assert group("usa", "Pacific coast") == group("usa", "West Coast") | {"AK", "HI"}
    assert group("usa", "Gulf Coast") & group("usa", "East Coast") == {"FL"}
    lakes = ["Lake Superior", "Lake Michigan", "Lake Huron", "Lake Erie", "Lake Ontario"]
    assert set().union(*(group("usa", lk) for lk in lakes)) == group("usa", "Great Lakes states")


def test_required_groups_resolve():
    required = {
        "usa": [
            "West Coast",
            "East Coast",
            "Atlantic coast",
            "Gulf Coast",
            "Great Lakes states",
            "Northeast",
            "Southeast",
            "Midwest",
            "Southwest",
            "Pacific Northwest",
            "Great Plains",
            "Mountain states",
            "Sun Belt",
            "Appalachian states",
            "New England",
            "Mid-Atlantic",
            "Pacific coast",
            "Deep South",
        ],
        "india": [
            "West Coast",
            "East Coast",
            "North-East region",
            "Himalayan states",
            "Arabian Sea coast",
            "Bay of Bengal coast",
            "Indian Ocean islands",
            "North India",
            "South India",
            "Central India",
            "East India",
            "West India",
            "Central Zone",
            "Eastern Zone",
        ],
        "china": [
            "Northeast",
            "North China",
            "East China",
            "South-Central China",
            "Southwest",
            "Northwest",
            "South China",
            "Central China",
            "coastal provinces",
            "South China Sea coast",
            "East China Sea coast",
            "Yellow Sea coast",
            "Bohai Sea coast",
            "Tibetan Plateau",
            "Yangtze River provinces",
            "Yellow River provinces",
            "region surrounding Shanghai",
        ],
    }
    for country, names in required.items():
        for name in names:
            assert group(country, name), (country, name)
