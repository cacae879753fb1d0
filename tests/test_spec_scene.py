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
from mapgen.mapwise.schema import load_map_spec, spec_from_mapwise, spec_to_mapwise
from mapgen.scene import build_scene
from mapgen.spec import MapSpec, load_spec, make_spec

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


# --- what the Scene carries (its readers never reach into an atlas or a spec) -----------------------------


def test_scene_carries_its_facts_and_no_atlas_or_spec() -> None:
    spec = make_spec("china", "population_density_2020", classes=4).with_style(width=640, height=480)
    scene = build_scene(spec)
    assert not hasattr(scene, "atlas") and not hasattr(scene, "spec")
    assert (scene.region_word, scene.region_words) == ("province", "provinces")
    assert scene.country_title == "China" and (scene.width, scene.height) == (640, 480)
    assert scene.derived == {}
    usa = build_scene(make_spec("usa", "population_2020", classes=4))
    assert (usa.region_word, usa.region_words, usa.country_title) == ("state", "states", "United States")
    assert usa.group("along the Mexico border") == {"AZ", "CA", "NM", "TX"}  # an alias of "bordering Mexico"
    assert "bordering Canada" in usa.groups and usa.groups["bordering Canada"].kind == "foreign_border"
    colorado = usa.group_info("states bordering Colorado")
    assert colorado.kind == "region_border" and colorado.name == "bordering Colorado"
    assert colorado.members == {"WY", "NE", "KS", "OK", "NM", "UT"}
    assert usa.spellings("CA")[:2] == ["California", "CA"] and "Calif." in usa.spellings("CA")
    assert usa.atlas_spellings("DC")[:2] == ("District of Columbia", "DC")


@pytest.mark.skipif(not (SHARED / "metadata" / "india_map100_4C.json").is_file(), reason="../shared absent")
def test_mapwise_derived_regions_are_a_scene_fact() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the map lacks Ladakh: its value is taken from Jammu and Kashmir
        spec = spec_from_mapwise(json.loads((SHARED / "metadata" / "india_map100_4C.json").read_text()))
    scene = build_scene(spec)
    assert scene.derived == {"LA": "JK"} == spec.extra["derived"]
    reduced = scene.without(scene.derived)
    assert "LA" not in reduced.regions and reduced.derived == {}
    assert "LA" not in reduced.regions["HP"].neighbors and "LA" in scene.regions["HP"].neighbors


@pytest.mark.parametrize(
    ("country", "drop"), [("india", ("LA", "TS")), ("usa", ("MI", "TX", "HI")), ("china", ("TW", "GD"))]
)
def test_scene_without_equals_the_map_drawn_without_those_regions(country: str, drop: tuple[str, ...]) -> None:
    from mapgen.questions.engine import generate_questions

    spec = make_spec(country, synthesize_stat(country), classes=4)
    fewer = build_scene(spec).without(drop)
    values = {c: v for c, v in spec.values.items() if c not in drop}
    drawn = build_scene(replace(spec, values=values, exclude=tuple(spec.exclude) + drop))
    assert fewer.to_dict() == drawn.to_dict() and dict(fewer.groups) == dict(drawn.groups)
    assert fewer.legend_facts == drawn.legend_facts
    with pytest.raises(UnknownRegionError):
        fewer.resolve(drop[0])
    ours = [q.question + str(q.answer) for q in generate_questions(fewer, per_template=1, seed=0)]
    assert ours == [q.question + str(q.answer) for q in generate_questions(drawn, per_template=1, seed=0)]


def synthesize_stat(country: str) -> Statistic:
    from mapgen.data.synthetic import synthesize

    return synthesize(country, seed=7, distribution="uniform")


@pytest.mark.parametrize(
    ("country", "group", "question", "description"),
    [
        ("usa", "Great Lakes states", "in the Great Lakes region", "among the Great Lakes states"),
        ("usa", "Northeast", "in the Northeast region", "in the Northeast"),
        ("usa", "Lake Erie", "bordering Lake Erie", "bordering Lake Erie"),
        ("usa", "Gulf Coast", "on the Gulf Coast", "on the Gulf Coast"),
        ("usa", "bordering Canada", "bordering Canada", "bordering Canada"),
        ("india", "Indian Ocean islands", "among the Indian Ocean islands", "among the Indian Ocean islands"),
        ("india", "North India", "in the North India region", "in North India"),
        ("china", "Yellow River provinces", "in the Yellow River region", "among the Yellow River provinces"),
    ],
)
def test_one_group_phrase_rule_worded_per_style(country: str, group: str, question: str, description: str) -> None:
    scene = build_scene(make_spec(country, synthesize_stat(country), classes=4))
    assert scene.group_phrase(group, "question") == question
    assert scene.group_phrase(group, "description") == description


def test_group_phrase_of_a_renamed_neighbour_group() -> None:
    spec = make_spec("usa", "population_2020", classes=4)
    scene = build_scene(replace(spec, counterfactual={"kind": "imaginary", "names": {"CA": "Zelora"}}))
    assert scene.group_phrase("bordering Zelora", "question", kind="region_border") == "bordering Zelora"


def test_building_a_scene_loads_no_geometry() -> None:
    from mapgen.geo.atlas import load_atlas

    atlas = load_atlas("usa", exclude=["HI"])  # a fresh atlas object, geometry not loaded yet
    scene = build_scene(make_spec(atlas, "population_2020", classes=4), atlas)
    assert "gdf" not in atlas.__dict__
    assert scene.centroids["CO"] == pytest.approx(tuple(atlas.gdf.loc["CO", "geometry"].centroid.coords[0]))
    assert scene.without(["CO"]).centroids.keys() == scene.regions.keys() - {"CO"}


#: The legend object of spec files, key order included (specs are saved without sorting keys).
LEGEND_KEYS = ["kind", "classes", "order", "vmin", "vmax", "ticks", "tick_labels", "colormap", "reversed", "colors",
               "percent", "scheme", "na_label", "na_color", "meta", "breaks", "label_scale"]


@pytest.mark.skipif(not MAPWISE_FILES, reason="../shared reference material absent")
def test_spec_files_resave_to_the_same_bytes(tmp_path: Path) -> None:
    # the legend's typed records (labelling, MAPWise provenance) write the "meta" object spec files always had
    specs = [make_spec("usa", "population_2020", classes=4, scheme="natural_breaks")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        specs += [spec_from_mapwise(json.loads(p.read_text())) for p in MAPWISE_FILES[:12]]
    for i, spec in enumerate(specs):
        first = spec.save(tmp_path / f"{i}.json").read_bytes()
        again = load_spec(tmp_path / f"{i}.json").save(tmp_path / f"{i}-again.json").read_bytes()
        assert again == first, spec.map_id
        legend = json.loads(first)["legend"]
        assert list(legend) == LEGEND_KEYS
        meta = legend["meta"]
        assert meta == (spec.legend.meta() if i else {"label_bounds": "data", "open_ends": False,
                                                       "label_style": "auto"})
    assert any(s.legend.mapwise and s.legend.mapwise.class_to_index for s in specs)


@pytest.mark.skipif(not MAPWISE_FILES, reason="../shared reference material absent")
def test_map_files_of_either_schema_load(tmp_path: Path) -> None:
    path = MAPWISE_FILES[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = spec_from_mapwise(json.loads(path.read_text()))
        assert load_map_spec(path) == direct
    with pytest.raises(ValueError, match="load_map_spec"):
        load_spec(path)  # mapgen's own format only
    spec = make_spec("usa", "population_2020", classes=4)
    assert load_map_spec(spec.save(tmp_path / "s.json")) == spec


def test_legend_meta_with_unknown_fields_is_rejected() -> None:
    data = make_spec("usa", "population_2020", classes=4).legend.to_dict()
    data["meta"]["colour_blind_safe"] = True
    with pytest.raises(ValueError, match="unknown legend meta"):
        type(make_spec("usa", "population_2020").legend).from_dict(data)


def test_mapwise_schema_imports_nothing_above_the_spec_floor() -> None:
    import subprocess
    import sys

    code = (
        "import sys, mapgen.mapwise.schema; "
        "print(sorted(m for m in sys.modules if '.'.join(m.split('.')[:2]) in ('mapgen.scene', 'mapgen.questions', "
        "'mapgen.eval', 'mapgen.render', 'mapgen.recheck')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
