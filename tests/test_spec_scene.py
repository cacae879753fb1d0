"""MapSpec construction, serialisation, MAPWise import/export, and Scene facts."""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from mapgen import UnknownRegionError
from mapgen.data.statistic import StatInfo, Statistic
from mapgen.scene import build_scene
from mapgen.spec import MapSpec, load_spec, make_spec, spec_from_mapwise, spec_to_mapwise

SHARED = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise"
MAPWISE_FILES = sorted(SHARED.glob("metadata/*.json")) + sorted(SHARED.glob("sample/*/metadata/*.json"))


def stat(values: dict[str, float], kind: str = "absolute", country: str = "usa") -> Statistic:
    info = StatInfo(id="test_stat", country=country, title="Test", unit="", kind=kind, year=2024)
    return Statistic(values=pd.Series(values, dtype=float), info=info)


def test_make_spec_covers_every_region_and_round_trips(tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020", classes=5, scheme="quantiles")
    assert len(spec.values) == 51 and not any(math.isnan(v) for v in spec.values.values())
    path = spec.save(tmp_path / "map.json")
    assert load_spec(path) == spec
    assert json.loads(path.read_text())["map_id"] == spec.map_id


def test_map_id_is_stable_and_content_based() -> None:
    a = make_spec("india", "literacy_2011", classes=4)
    b = make_spec("india", "literacy_2011", classes=4)
    c = make_spec("india", "literacy_2011", classes=5)
    assert a.map_id == b.map_id != c.map_id


def test_missing_values_are_explicit_na() -> None:
    scene = build_scene(make_spec("india", "literacy_2011", classes=4))
    ladakh = scene.regions["LA"]  # the curated table leaves Ladakh empty on purpose
    assert ladakh.missing and ladakh.class_index is None and ladakh.class_label == "N/A"
    assert scene.legend_facts.has_na
    assert ladakh.color == scene.legend.na_color


def test_partial_user_statistic_keeps_unlisted_regions_as_na() -> None:
    spec = make_spec("usa", stat({"California": 3, "texas": 2, "NY": 1}), classes=3, scheme="equal_interval")
    assert spec.values["CA"] == 3 and spec.values["TX"] == 2 and spec.values["NY"] == 1
    assert math.isnan(spec.values["CO"])


def test_unknown_region_in_statistic_names_closest_matches() -> None:
    with pytest.raises(UnknownRegionError, match="California"):
        make_spec("usa", stat({"Californa": 1, "TX": 2, "NY": 3}), classes=3)


def test_hatched_continuous_is_rejected() -> None:
    with pytest.raises(ValueError, match="discrete"):
        make_spec("usa", "population_2020", legend="continuous", hatched=True)


def test_unknown_background_lists_choices() -> None:
    with pytest.raises(ValueError, match="lightsteelblue"):
        make_spec("usa", "population_2020", background="sky")


def test_scene_classes_follow_the_legend_hand_checked() -> None:
    # 1..9 in three equal-interval classes: 1-3.67, 3.67-6.33, 6.33-9.
    values = dict(zip(["WA", "OR", "CA", "NV", "ID", "UT", "AZ", "MT", "WY"], range(1, 10)))
    scene = build_scene(make_spec("usa", stat(values), classes=3, scheme="equal_interval"))
    classes = {c: scene.regions[c].class_index for c in values}
    assert classes == {"WA": 0, "OR": 0, "CA": 0, "NV": 1, "ID": 1, "UT": 1, "AZ": 2, "MT": 2, "WY": 2}
    assert scene.legend_facts.num_classes == 3
    assert scene.legend_facts.evenly_spaced
    assert scene.legend_facts.darkness_increases_with_value
    assert scene.regions["CA"].neighbors == {"OR", "NV", "AZ"}
    assert "West Coast" in scene.regions["CA"].groups


def test_reversed_colormap_flips_darkness() -> None:
    scene = build_scene(make_spec("usa", "population_2020", classes=4, reverse=True))
    assert not scene.legend_facts.darkness_increases_with_value


def test_continuous_scene_has_tick_ranges() -> None:
    scene = build_scene(make_spec("china", "urbanisation_2020", legend="continuous"))
    lf = scene.legend_facts
    assert lf.kind == "continuous" and lf.num_classes == 0
    assert len(lf.ranges) == len(lf.labels) - 1 >= 2
    assert all(r.class_index is None for r in scene.regions.values())


def test_counterfactual_names_resolve_on_the_scene() -> None:
    spec = make_spec("usa", "population_2020", classes=4)
    spec = replace(spec, counterfactual={"kind": "imaginary", "names": {"CA": "Zelora"}, "labels": {"CA": "ZE"}})
    scene = build_scene(spec)
    assert scene.resolve("Zelora") == "CA" and scene.resolve("ZE") == "CA"
    assert scene.spellings("CA") == ["Zelora", "ZE"]


@pytest.mark.skipif(not MAPWISE_FILES, reason="../shared reference material absent")
@pytest.mark.parametrize("path", MAPWISE_FILES, ids=lambda p: p.name)
def test_mapwise_metadata_imports_and_round_trips(path: Path) -> None:
    meta = json.loads(path.read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = spec_from_mapwise(meta)
    assert spec.legend.kind == meta["legend_type"].lower()
    back = spec_to_mapwise(spec)
    for key in meta:
        if key != "data":
            assert back[key] == meta[key], key
    for ours, theirs in zip(back["data"], meta["data"], strict=True):
        assert ours["region"] == theirs["region"]
        for key in ("class", "description", "legend_position"):
            if key in theirs and not (isinstance(theirs[key], float) and math.isnan(theirs[key])):
                assert ours[key] == theirs[key], (theirs["region"], key)
    again = MapSpec.from_dict(json.loads(json.dumps(spec.to_dict())))
    assert again == spec
    scene = build_scene(spec)
    if spec.legend.kind == "discrete":
        labels = {d["region"]: d["description"] for d in meta["data"]}
        for region, label in labels.items():
            assert scene.region(region).class_label == label
