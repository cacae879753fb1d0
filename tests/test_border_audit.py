"""The border graph against published border lists (data/atlas/borders_<country>.yaml, docs/atlases-and-data.md "Border graph audit")."""

from __future__ import annotations

import pytest
import yaml

from mapgen.geo.atlas import load_atlas
from mapgen.geo.border_audit import audit, load_published
from mapgen.resources import data_path

COUNTRIES = ("usa", "india", "china")


def _names(pairs) -> list[list[str]]:
    return sorted(sorted(p) for p in pairs)


@pytest.mark.parametrize("country", COUNTRIES)
def test_published_list_covers_every_region_and_is_symmetric(country: str) -> None:
    published, atlas = load_published(country), load_atlas(country)
    assert set(published.neighbours) == set(atlas.codes)
    assert published.asymmetric() == []
    assert not set(published.unsure) & published.pairs, "an unsure pair is also listed as a border"
    assert published.source


@pytest.mark.parametrize("country", COUNTRIES)
def test_every_disagreement_is_explained(country: str) -> None:
    """The graph (overrides applied) differs from the published list exactly at the explained pairs."""
    result, published = audit(country), load_published(country)
    explained = {p for p, d in published.differences.items() if "override" not in d}
    assert _names(result.disagreements) == _names(explained)
    assert all(d.get("reason") for d in published.differences.values())


@pytest.mark.parametrize("country", COUNTRIES)
def test_overrides_fix_published_disagreements(country: str) -> None:
    """Every curated override turns a measured pair into the published answer, and is listed as doing so."""
    result, published = audit(country), load_published(country)
    overrides = [o for o in yaml.safe_load(data_path("atlas", "overrides.yaml").read_text()) if o["country"] == country]
    changed = {frozenset(o.get("remove_border") or o["add_border"][:2]) for o in overrides}
    assert _names(result.fixed_by_overrides) == _names(changed)
    assert _names(changed) == _names(p for p, d in published.differences.items() if "override" in d)


@pytest.mark.parametrize("country", COUNTRIES)
def test_foreign_borders_match(country: str) -> None:
    assert audit(country).foreign_disagreements == {}


def test_known_facts_of_the_lists() -> None:
    """A few independently known facts, so a list edited to match the graph would be caught."""
    usa, india, china = (load_published(c) for c in COUNTRIES)
    assert len(usa.neighbours["TN"]) == len(usa.neighbours["MO"]) == 8  # the most of any state
    assert len(india.neighbours["UP"]) == 9
    assert usa.neighbours["AK"] == usa.neighbours["HI"] == ()
    assert china.neighbours["HK"] == china.neighbours["MO"] == ("GD",)
    assert len(china.foreign["XJ"]) == 8
