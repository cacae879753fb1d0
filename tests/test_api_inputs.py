"""The Python API takes what people have (#41 item 3): values keyed by names, codes or aliases as a dict or a
pandas Series, with the same "did you mean" errors as a file; one-line reprs of Atlas, MapSpec and Scene."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mapgen.data.user_tables import TableError, load_table
from mapgen.geo.atlas import load_atlas
from mapgen.scene import build_scene
from mapgen.spec import make_spec

KERALA = {"Kerala": 1.0, "Goa": 2.0, "Bihar": 3.0, "Assam": 4.0, "Punjab": 5.0, "Sikkim": 6.0}


def present(values: dict[str, float]) -> dict[str, float]:
    return {k: v for k, v in values.items() if not math.isnan(v)}


@pytest.mark.filterwarnings("ignore")
def test_make_spec_takes_a_dict_of_names() -> None:
    spec = make_spec(load_atlas("india"), KERALA)
    assert present(spec.values) == {"KL": 1.0, "GA": 2.0, "BR": 3.0, "AS": 4.0, "PB": 5.0, "SK": 6.0}


@pytest.mark.filterwarnings("ignore")
def test_make_spec_takes_a_series_of_codes_and_aliases_named_by_its_column() -> None:
    series = pd.Series({"TX": 38.0, "ohio": 15.0, "Calif.": 52.0, "New York": 26.0, "FL": 28.0}, name="seats")
    spec = make_spec("usa", series)
    assert present(spec.values) == {"TX": 38.0, "OH": 15.0, "CA": 52.0, "NY": 26.0, "FL": 28.0}
    assert spec.stat.id == "seats"


@pytest.mark.filterwarnings("ignore")
def test_a_dataframe_column_indexed_by_name_is_a_series() -> None:
    frame = pd.DataFrame({"state": ["Texas", "Ohio", "Utah", "Iowa"], "pop": [29.1, 11.8, 3.3, 3.2]})
    stat = load_table(frame.set_index("state")["pop"], "usa")
    assert present(dict(stat.values)) == {"TX": 29.1, "OH": 11.8, "UT": 3.3, "IA": 3.2}


def test_a_misspelt_name_in_a_dict_gets_the_closest_match() -> None:
    with pytest.raises(TableError, match=r"Unknown region 'Texsa'.*did you mean 'Texas'"):
        make_spec("usa", {"Texsa": 1.0, "Ohio": 2.0})


def test_nan_in_a_series_is_na_with_a_warning_naming_it() -> None:
    with pytest.warns(Warning, match="Ohio|OH"):
        stat = load_table(pd.Series({"Texas": 1.0, "Ohio": float("nan"), "Utah": 3.0}), "usa")
    assert math.isnan(stat.values["OH"])


@pytest.mark.filterwarnings("ignore")
def test_reprs_are_one_short_line() -> None:
    atlas = load_atlas("usa")
    spec = make_spec(atlas, "population_2020")
    for obj, start in ((atlas, "<Atlas 'usa'"), (spec, "<MapSpec 'usa-population_2020"), (build_scene(spec), "<Scene")):
        text = repr(obj)
        assert text.startswith(start) and "\n" not in text and len(text) < 160, text
    assert "51 states" in repr(atlas)
