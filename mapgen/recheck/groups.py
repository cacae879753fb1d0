"""A map with more named groups: MAPWise's curated groups (:func:`mapgen.mapwise.aliases.load_groups`) and the
groups a question derives (unions, directions from a region, members with data), so the question engine asks
about them like any atlas group."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from mapgen.geo.gazetteer import RegionGroup
from mapgen.geo.names import UnknownNameError
from mapgen.mapwise.aliases import load_groups
from mapgen.scene import Scene


def _on_map(scene: Scene, group: RegionGroup) -> RegionGroup | None:
    """The group with its members as this map codes them (base-atlas codes through the map's gazetteer: India's
    MAPWise edition calls Odisha OR); None when no member is on the map."""
    members = set()
    for code in group.members:
        try:
            members.add(scene.resolve(code))
        except (UnknownNameError, ValueError):
            continue
    return replace(group, members=frozenset(members)) if members else None


def with_groups(scene: Scene, groups: Iterable[RegionGroup]) -> Scene:
    """``scene`` with ``groups`` added (a group whose name the map already has is left out)."""
    have = {g.name for g in scene.groups.values()}
    extra = {g.name: g for g in (_on_map(scene, g) for g in groups) if g is not None and g.name not in have}
    if not extra:
        return scene
    return replace(scene, gazetteer=replace(scene.gazetteer, groups={**scene.groups, **extra}))


def with_mapwise_groups(scene: Scene) -> Scene:
    """``scene`` with the curated MAPWise groups of its country."""
    return with_groups(scene, load_groups().get(scene.country, ()))
