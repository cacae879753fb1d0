"""The Atlas object travels with the spec: attached by make_spec, loaded once for a spec read from JSON, never
serialised; the build loads each country's atlas once per process and plans typed choices."""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path

import pytest

import mapgen.geo.atlas as geo_atlas
import mapgen.spec as spec_module
from mapgen.build import UnitChoice, country_atlas, unit_variants
from mapgen.build.plan import plan
from mapgen.config import load_config
from mapgen.geo.atlas import load_atlas, uncut
from mapgen.spec import LegendChoice, Style, load_spec, make_spec, spec_of


@pytest.fixture
def loads(monkeypatch) -> list[object]:
    """Every call of load_atlas (the general loader) from here on."""
    calls: list[object] = []
    real = geo_atlas.load_atlas

    def counting(name, *args, **kwargs):
        calls.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(geo_atlas, "load_atlas", counting)
    monkeypatch.setattr(spec_module, "load_atlas", counting)
    return calls


def test_make_spec_attaches_its_atlas_and_copies_carry_it(loads: list[object]) -> None:
    atlas = load_atlas("china", exclude=("TW",))
    loads.clear()
    spec = make_spec(atlas, "population_2020", exclude=("TW",), map_id="m")
    assert spec.get_atlas() is atlas
    assert spec.with_style(annotated=False).get_atlas() is atlas
    assert loads == []
    assert "attached" not in spec.to_dict()


def test_a_spec_whose_exclusions_differ_from_its_atlas_loads_its_own() -> None:
    whole = load_atlas("china")
    spec = make_spec(load_atlas("china", exclude=("TW",)), "population_2020", map_id="m")
    assert spec.attached is None and spec.get_atlas() is whole  # as before: the spec names no exclusions
    cut = replace(make_spec(whole, "population_2020", map_id="m"), exclude=("TW",))
    assert "TW" not in cut.get_atlas().codes


def test_a_spec_read_from_json_loads_its_atlas_once(tmp_path: Path, loads: list[object]) -> None:
    make_spec("usa", "population_2020", map_id="m").save(tmp_path / "m.json")
    spec = load_spec(tmp_path / "m.json")
    loads.clear()
    first = spec.get_atlas()
    assert spec.get_atlas() is first and spec.with_style(annotated=False).get_atlas() is first
    assert loads == ["usa"]


def test_a_pickled_spec_drops_the_attached_atlas() -> None:
    spec = make_spec("usa", "population_2020", map_id="m")
    copy = pickle.loads(pickle.dumps(spec))
    assert copy == spec and copy.attached is None and copy.get_atlas().codes == spec.get_atlas().codes


def test_cut_atlases_are_made_once_and_know_their_whole() -> None:
    cut = load_atlas("china", exclude=("TW", "HK"))
    assert load_atlas("china", exclude=("TW", "HK")) is cut
    assert cut.exclusions == ("TW", "HK") and uncut(cut) is load_atlas("china")


def test_spec_of_takes_the_choice_whole_as_make_spec_its_keywords() -> None:
    legend = LegendChoice(kind="discrete", classes=4, scheme="equal_interval", colormap="Greens", reverse=True)
    style = Style(background="lightgray", legend_position="left")
    whole = spec_of("india", "population_2011", legend, style, map_id="m")
    keywords = make_spec("india", "population_2011", classes=4, scheme="equal_interval", colormap="Greens",
                         reverse=True, background="lightgray", legend_position="left", map_id="m")
    assert whole == keywords


def test_the_build_plans_typed_choices_and_loads_a_country_once(loads: list[object]) -> None:
    config = load_config({"name": "t", "seed": 1, "countries": [{"name": "china", "maps": 2, "exclude": ["TW"]}]})
    units = plan(config)
    assert all(isinstance(u.choice, UnitChoice) and isinstance(u.choice.style, Style) for u in units)
    loads.clear()
    atlas = country_atlas(config, config.countries[0])
    for unit in units:
        for _, spec in unit_variants(unit, config):
            assert spec.get_atlas() is atlas
    assert len(loads) <= 1
