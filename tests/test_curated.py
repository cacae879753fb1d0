"""Curated real statistics: coverage, catalogue completeness, and independent spot facts."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mapgen.data.curated import list_stats, load_curated, region_codes
from mapgen.data.statistic import StatInfo, Statistic
from mapgen.resources import data_path

# The code lists are restated here on purpose (independent of data/stats/regions.yaml).
_USA = "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY"
_INDIA = "AN AP AR AS BR CH CG DH DL GA GJ HR HP JK JH KA KL LA LD MP MH MN ML MZ NL OD PB PY RJ SK TN TS TR UP UK WB"
_CHINA = (
    "AH BJ CQ FJ GD GS GX GZ HA HB HE HI HK HL HN JL JS JX LN MO NM NX QH SC SD SH SN SX TJ TW XJ XZ YN ZJ"
)
CODES = {"usa": _USA.split(), "india": _INDIA.split(), "china": _CHINA.split()}
INDIA_UTS = {"AN", "CH", "DH", "DL", "JK", "LA", "LD", "PY"}
CHINA_SARS_TW = {"HK", "MO", "TW"}

ALL = [(info.country, info.id) for info in list_stats()]


def test_code_lists() -> None:
    assert {k: len(v) for k, v in CODES.items()} == {"usa": 51, "india": 36, "china": 34}
    for country, codes in CODES.items():
        assert region_codes(country) == codes


def test_enough_tables_and_required_ids() -> None:
    for country in CODES:
        infos = list_stats(country)
        assert 6 <= len(infos) <= 9, country
        kinds = {i.kind for i in infos}
        assert kinds == {"absolute", "percent"}, country
    ids = {(i.country, i.id) for i in list_stats()}
    assert {("usa", "population_2020"), ("india", "literacy_2011"), ("china", "gdp_per_capita_2022")} <= ids
    assert len(ids) == len(list_stats())


@pytest.mark.parametrize("country,stat_id", ALL)
def test_catalogue_entry_complete(country: str, stat_id: str) -> None:
    info = next(i for i in list_stats(country) if i.id == stat_id)
    assert isinstance(info, StatInfo)
    assert info.title and info.unit and info.source and info.notes
    assert info.kind in ("absolute", "percent")
    assert info.percent == (info.kind == "percent")
    assert isinstance(info.year, int) and 2000 <= info.year <= 2030
    assert data_path("stats", country, f"{stat_id}.csv").is_file()
    for code in info.missing:  # every region left empty is explained in the notes
        assert code in info.notes or "missing on purpose" in _row_notes(country, stat_id)[code]


def _row_notes(country: str, stat_id: str) -> dict[str, str]:
    import io

    text = data_path("stats", country, f"{stat_id}.csv").read_text(encoding="utf-8")
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    return dict(zip(frame["code"], frame.get("note", pd.Series([""] * len(frame)))))


@pytest.mark.parametrize("country,stat_id", ALL)
def test_table_covers_exactly_its_codes(country: str, stat_id: str) -> None:
    stat = load_curated(country, stat_id)
    assert isinstance(stat, Statistic)
    assert list(stat.values.index) == CODES[country]
    assert stat.values.dtype == float and stat.values.name == stat_id
    assert sorted(stat.missing) == sorted(stat.info.missing)
    # raw CSV: every code exactly once, no extras
    raw = list(_row_notes(country, stat_id))
    assert sorted(raw) == sorted(CODES[country]) and len(raw) == len(set(raw))
    present = stat.present
    assert len(present) >= len(CODES[country]) - 3
    if stat.percent:
        assert present.between(0, 100).all()
    elif stat_id != "population_change_2010_2020":
        assert (present > 0).all()


def test_missing_only_where_expected() -> None:
    missing = {(i.country, i.id): set(i.missing) for i in list_stats() if i.missing}
    for (country, _), codes in missing.items():
        allowed = {"usa": {"DC"}, "india": {"LA"}, "china": CHINA_SARS_TW}[country]
        assert codes <= allowed


def test_cache_is_not_mutable_through_results() -> None:
    a = load_curated("usa", "population_2020")
    a.values.loc["CA"] = -1.0
    b = load_curated("usa", "population_2020")
    assert b.values["CA"] == 39_538_223


def test_unknown_names_raise_with_suggestions() -> None:
    with pytest.raises(ValueError, match="population_2020"):
        load_curated("usa", "populaton_2020")
    with pytest.raises(ValueError, match="india"):
        load_curated("indai", "literacy_2011")
    with pytest.raises(ValueError, match="usa"):
        list_stats("atlantis")


def test_country_name_is_case_insensitive() -> None:
    assert load_curated("USA", "population_2020").country == "usa"


# ---------------------------------------------------------------- independent spot facts
def _v(country: str, stat_id: str) -> pd.Series:
    return load_curated(country, stat_id).values


def test_usa_facts() -> None:
    pop = _v("usa", "population_2020")
    assert pop.idxmax() == "CA" and pop.idxmin() == "WY"
    assert pop.sum() == pytest.approx(331_449_281, rel=0.005)
    assert pop["TX"] == 29_145_505
    assert _v("usa", "population_2010").sum() == pytest.approx(308_745_538, rel=0.005)
    assert _v("usa", "land_area_sq_mi").idxmax() == "AK"
    assert _v("usa", "land_area_sq_mi").idxmin() == "DC"
    dens = _v("usa", "population_density_2020")
    assert dens.idxmax() == "DC" and dens.idxmin() == "AK"
    assert dens.drop("DC").idxmax() == "NJ"
    change = _v("usa", "population_change_2010_2020")
    assert change.idxmax() == "UT" and change.idxmin() == "WV"
    assert set(change[change < 0].index) == {"WV", "MS", "IL"}
    seats = _v("usa", "house_seats_2020")
    assert seats.sum() == 435 and seats["CA"] == 52 and math.isnan(seats["DC"])
    ev = _v("usa", "electoral_votes_2024")
    assert ev.sum() == 538 and ev["DC"] == 3 and ev["TX"] == 40
    water = _v("usa", "water_area_share")
    assert water.idxmax() == "MI"


def test_india_facts() -> None:
    pop = _v("india", "population_2011")
    assert pop.sum() == pytest.approx(1_210_854_977, rel=0.005)
    assert pop.idxmax() == "UP" and pop.idxmin() == "LD"
    assert pop["AP"] + pop["TS"] == 84_580_777
    assert pop["JK"] + pop["LA"] == 12_541_302
    lit = _v("india", "literacy_2011")
    states = lit.drop(list(INDIA_UTS))
    assert states.idxmax() == "KL" and states.idxmin() == "BR"
    assert lit.idxmax() == "KL"
    sex = _v("india", "sex_ratio_2011")
    assert sex.idxmax() == "KL" and sex.idxmin() == "DH"
    area = _v("india", "area_km2")
    assert area.idxmax() == "RJ" and area.idxmin() == "LD"
    dens = _v("india", "population_density_2011")
    assert dens.idxmax() == "DL" and dens.idxmin() == "LA"
    assert dens.drop(list(INDIA_UTS)).idxmax() == "BR"
    urban = _v("india", "urban_share_2011")
    assert urban.idxmax() == "DL"
    assert urban.drop(list(INDIA_UTS)).idxmax() == "GA"
    assert urban.drop(list(INDIA_UTS)).idxmin() == "HP"


def test_china_facts() -> None:
    pop = _v("china", "population_2020")
    mainland = pop.drop(list(CHINA_SARS_TW))
    assert mainland.idxmax() == "GD" and mainland.idxmin() == "XZ"
    assert mainland.sum() == pytest.approx(1_411_778_724, rel=0.005)
    gdp = _v("china", "gdp_per_capita_2022")
    assert gdp.idxmax() in {"BJ", "SH"} and gdp.idxmin() == "GS"
    assert gdp.nlargest(2).index.tolist() == ["BJ", "SH"]
    urban = _v("china", "urbanisation_2020")
    assert urban.idxmax() == "SH" and urban.idxmin() == "XZ"
    old = _v("china", "share_65_plus_2020")
    assert old.idxmax() == "LN" and old.idxmin() == "XZ"
    area = _v("china", "area_km2")
    assert area.idxmax() == "XJ" and area.drop(list(CHINA_SARS_TW)).idxmin() == "SH"
    dens = _v("china", "population_density_2020")
    assert dens.drop(list(CHINA_SARS_TW)).idxmax() == "SH" and dens.idxmin() == "XZ"


def test_statistic_contract() -> None:
    stat = load_curated("india", "literacy_2011")
    assert stat.percent and stat.unit == "%" and stat.year == 2011 and stat.source
    assert stat.missing == ["LA"]
    assert "LA" not in stat.present.index
    doubled = stat.with_values(stat.values * 0.5, title="half")
    assert doubled.title == "half" and doubled.values["KL"] == pytest.approx(47.0)
    assert stat.values["KL"] == pytest.approx(94.0)
    with pytest.raises(ValueError, match="duplicate"):
        Statistic(values=pd.Series([1.0, 2.0], index=["KL", "KL"]), info=stat.info)
