"""User tables (CSV / TSV / Parquet / DataFrame) joined to an atlas, and their error messages."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pandas as pd
import pytest

from mapgen.data.user_tables import MissingValueWarning, TableError, load_table, metadata_path, save_table
from mapgen.geo.atlas import load_atlas


def write(tmp_path: Path, text: str, name: str = "t.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_aliases_any_case_and_spacing_join(tmp_path: Path) -> None:
    path = write(tmp_path, "State,Literacy\nOrissa,72.9\nNCT of Delhi,86.2\n  KERALA ,94\nJ & K,67.2\nap,67.0\n")
    stat = load_table(path, "india", kind="percent")
    assert stat.present.to_dict() == {"AP": 67.0, "DL": 86.2, "JK": 67.2, "KL": 94.0, "OD": 72.9}
    assert len(stat.values) == 36 and math.isnan(stat.values["TN"])  # unlisted → explicit N/A
    assert stat.info.title == "Literacy" and stat.unit == "%" and stat.percent
    assert set(stat.info.missing) == set(stat.missing) and "TN" in stat.missing


def test_usa_names_codes_and_explicit_columns(tmp_path: Path) -> None:
    path = write(tmp_path, "id,where,pop,rank\n1,new york,19.6,4\n2,CA,39.5,1\n3,Texas,30.0,2\n")
    stat = load_table(path, "usa", region_col="WHERE", value_col="pop", title="Population", unit="million", year=2023)
    assert stat.values[["NY", "CA", "TX"]].tolist() == [19.6, 39.5, 30.0]
    assert (stat.title, stat.unit, stat.year, stat.kind) == ("Population", "million", 2023, "absolute")
    assert stat.id == "population" and stat.country == "usa" and "t.csv" in stat.source


def test_code_and_name_columns_that_agree_are_fine(tmp_path: Path) -> None:
    path = write(tmp_path, "code,name,value\nGD,Guangdong,1\nSC,Sichuan,2\n")
    assert load_table(path, "china").present.to_dict() == {"GD": 1.0, "SC": 2.0}


def test_dataframe_parquet_and_tsv(tmp_path: Path) -> None:
    frame = pd.DataFrame({"province": ["Guangdong", "sichuan", "Xinjiang"], "gdp": [13.5, 5.9, None]})
    with pytest.warns(MissingValueWarning, match="row 2 XJ"):
        stat = load_table(frame, "china")
    assert stat.values["GD"] == 13.5 and math.isnan(stat.values["XJ"]) and stat.source == "user table"
    tsv = write(tmp_path, "province\tgdp\nGuangdong\t13.5\n", "t.tsv")
    assert load_table(tsv, "china").values["GD"] == 13.5
    pytest.importorskip("pyarrow", reason="Parquet tables need pyarrow (mapgen's [export] extra)")
    frame.to_parquet(tmp_path / "t.parquet")
    with pytest.warns(MissingValueWarning):
        assert load_table(tmp_path / "t.parquet", "china").values.equals(stat.values)


def test_thousands_separators_and_percent_signs(tmp_path: Path) -> None:
    path = write(tmp_path, 'state,value\nCA,"39,538,223"\nTX,−5.5\n')
    assert load_table(path, "usa").values[["CA", "TX"]].tolist() == [39538223.0, -5.5]
    path = write(tmp_path, "state,value\nCA,45%\nTX,50 %\n")
    assert load_table(path, "usa", kind="percent").values[["CA", "TX"]].tolist() == [45.0, 50.0]
    with pytest.raises(TableError, match="trailing % is accepted only with kind='percent'"):
        load_table(path, "usa")


def test_unknown_region_names_row_and_closest_matches(tmp_path: Path) -> None:
    path = write(tmp_path, "state,value\nCalifornia,1\nTexsa,2\n")
    with pytest.raises(TableError, match=r"line 3 of .*Unknown region 'Texsa'.*\(did you mean 'Texas'\?\)"):
        load_table(path, "usa")
    with pytest.raises(TableError, match="Unknown region 'Orisa'.*Orissa"):
        load_table(write(tmp_path, "state,value\nOrisa,1\n"), "india")


def test_duplicates_including_two_spellings(tmp_path: Path) -> None:
    path = write(tmp_path, "state,value\nOdisha,1\nKerala,2\nOrissa,3\n")
    with pytest.raises(TableError, match=r"Duplicate regions.*line 2 'Odisha' and line 4 'Orissa' are both OD"):
        load_table(path, "india")
    with pytest.raises(TableError, match="Duplicate"):
        load_table(write(tmp_path, "state,value\nCA,1\nca,2\n"), "usa")


def test_non_numeric_values_name_rows_and_values(tmp_path: Path) -> None:
    path = write(tmp_path, "state,value\nCA,1\nTX,lots\nNY,TRUE\n")
    with pytest.raises(TableError, match=r"Non-numeric values in column 'value'.*line 3 TX: 'lots'.*line 4 NY: 'TRUE'"):
        load_table(path, "usa")
    with pytest.raises(TableError, match="Non-numeric"):
        load_table(pd.DataFrame({"state": ["CA", "TX"], "value": [1.0, True]}), "usa", value_col="value")


def test_infinite_and_out_of_range_percent(tmp_path: Path) -> None:
    with pytest.raises(TableError, match=r"Infinite values.*line 3 TX: 'inf'"):
        load_table(write(tmp_path, "state,value\nCA,1\nTX,inf\n"), "usa")
    with pytest.raises(TableError, match=r"outside 0-100.*line 2 CA: '101'"):
        load_table(write(tmp_path, "state,value\nCA,101\nTX,50\n"), "usa", kind="percent")
    assert load_table(write(tmp_path, "state,value\nCA,101\n"), "usa").values["CA"] == 101


def test_missing_cells_policy(tmp_path: Path) -> None:
    path = write(tmp_path, "state,value\nCA,1\nTX,\nNY,N/A\n")
    with pytest.warns(MissingValueWarning, match="become N/A: line 3 TX; line 4 NY"):
        stat = load_table(path, "usa")
    assert math.isnan(stat.values["TX"]) and math.isnan(stat.values["NY"]) and stat.values["CA"] == 1
    with pytest.raises(TableError, match="Empty / N/A values.*line 3 TX"):
        load_table(path, "usa", on_missing="error")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_table(path, "usa", on_missing="ignore")
    with pytest.raises(TableError, match="no values at all"):
        load_table(write(tmp_path, "state,value\nCA,\nTX,NA\n"), "usa", on_missing="ignore")


def test_empty_header_only_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="is empty"):
        load_table(write(tmp_path, ""), "usa")
    with pytest.raises(TableError, match="no data rows"):
        load_table(write(tmp_path, "state,value\n"), "usa")
    with pytest.raises(TableError, match="not a readable CSV"):
        load_table(write(tmp_path, 'state,value\nCA,1\nTX,2,3,4\n"NY,5\n'), "usa")
    with pytest.raises(TableError, match="x.parquet is not a Parquet file; save it again as Parquet or give a CSV"):
        load_table(write(tmp_path, "not parquet", "x.parquet"), "usa")
    with pytest.raises(FileNotFoundError):
        load_table(tmp_path / "absent.csv", "usa")


def test_ambiguous_or_absent_columns_are_named(tmp_path: Path) -> None:
    path = write(tmp_path, "state,a,b\nCA,1,2\nTX,3,4\n")
    with pytest.raises(TableError, match=r"Cannot tell which column.*\['a', 'b'\].*value_col="):
        load_table(path, "usa")
    assert load_table(path, "usa", value_col="b").values["TX"] == 4
    with pytest.raises(TableError, match=r"Value column 'c' not in .*\['state', 'a', 'b'\]"):
        load_table(path, "usa", value_col="c")
    path = write(tmp_path, "home,work,value\nCA,TX,1\nNY,WA,2\n")
    with pytest.raises(TableError, match=r"Several columns .*\['home', 'work'\]"):
        load_table(path, "usa")
    with pytest.raises(TableError, match="No column .* holds"):
        load_table(write(tmp_path, "x,y,value\n1,2,3\n"), "usa")


def test_excluded_regions_are_skipped(tmp_path: Path) -> None:
    atlas = load_atlas("china", exclude=["TW"])
    stat = load_table(write(tmp_path, "province,value\nTaiwan,1\nGuangdong,2\n"), atlas)
    assert "TW" not in stat.values.index and stat.values["GD"] == 2


def test_save_table_round_trips_with_sidecar(tmp_path: Path) -> None:
    original = load_table(write(tmp_path, "state,v\nCA,1.5\nTX,0.1\n"), "usa", title="T", unit="u", year=2020)
    path, sidecar = save_table(original, tmp_path / "out.csv")
    assert sidecar == metadata_path(path) and sidecar.name == "out.csv-metadata.json"
    assert path.read_text().splitlines()[:2] == ["code,name,value", "AL,Alabama,"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the sidecar lists the N/A regions: no warning
        back = load_table(path, "usa")
    assert back.info == original.info and back.values.equals(original.values)
    assert not list(tmp_path.glob("*.tmp"))


def test_empty_region_cell_is_named(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="Empty region name at line 3"):
        load_table(write(tmp_path, "state,value\nCA,1\n ,2\nTX,3\n"), "usa", region_col="state")
