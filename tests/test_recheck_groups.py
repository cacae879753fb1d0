"""The curated MAPWise groups (data/mapwise_groups.yaml): well formed, sourced, real region codes, on the map."""

from __future__ import annotations

import yaml

from mapgen.resources import data_path


def _codes() -> dict[str, set[str]]:
    from mapgen.geo.atlas import load_atlas

    codes = {c: set(load_atlas(c).codes) for c in ("usa", "india", "china")}
    codes["india"] |= set(load_atlas("india-mapwise").codes)  # MAPWise's edition splits DH into DN and DD
    return codes


def _data() -> dict:
    return yaml.safe_load(data_path("mapwise_groups.yaml").read_text(encoding="utf-8"))


def test_curated_groups_lint_clean():
    from mapgen.mapwise.aliases import lint_groups

    assert lint_groups(_data(), _codes()) == []


def test_lint_names_the_problems():
    from mapgen.mapwise.aliases import lint_groups

    bad = {"usa": [{"name": "X", "members": ["ZZ"], "kind": "lake", "source": ""},
                   {"name": "x", "members": ["UT"], "kind": "lake", "source": "s"},
                   {"name": "Y", "members": ["UT"]}]}
    problems = " | ".join(lint_groups(bad, _codes()))
    assert "no source" in problems and "['ZZ']" in problems and "listed twice" in problems and "keys" in problems


def test_every_group_is_sourced():
    from mapgen.mapwise.aliases import load_groups

    groups = load_groups()
    assert {"usa", "india"} <= set(groups)
    assert all(g.source and g.members and g.kind for gs in groups.values() for g in gs)
