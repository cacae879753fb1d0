"""Loading atlases: the built-in ones (``usa``, ``india``, ``china``) and user vector files.

Built-in atlases are read from the shipped ``data/atlas/`` files that ``scripts/build_atlas.py`` made from
Natural Earth (display geometry on first use); a user atlas comes from any vector file
(:func:`mapgen.geo.user.load_user_atlas`). The types (:class:`Atlas`, :class:`Position`, :class:`RegionGroup`)
live in :mod:`mapgen.geo.model` and :mod:`mapgen.geo.gazetteer`, which both loaders import; they are
re-exported here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING

import networkx as nx
import yaml

from mapgen.geo.gazetteer import RegionGroup
from mapgen.geo.model import DIRECTIONS, Atlas, Position
from mapgen.geo.names import UnknownNameError, closest
from mapgen.resources import data_path

if TYPE_CHECKING:
    import geopandas as gpd

__all__ = ["BUILTIN", "DIRECTIONS", "Atlas", "Position", "RegionGroup", "list_atlases", "load_atlas"]

BUILTIN = ("usa", "india", "china")


# --- loading the built-in atlases -------------------------------------------------------------------------


def load_atlas(name: str, exclude: Iterable[str] = (), **user_kwargs) -> Atlas:
    """Load a built-in atlas by name (``usa``, ``india``, ``china``) or a user vector file by path.

    ``exclude`` leaves regions out; ``user_kwargs`` (``name_field``, ``code_field``) apply to user files.
    """
    key = str(name).strip().lower()
    if key in BUILTIN:
        atlas = _load_builtin(key)
    elif any(str(name).lower().endswith(ext) for ext in (".geojson", ".json", ".gpkg", ".shp", ".zip")):
        from mapgen.geo.user import load_user_atlas

        atlas = load_user_atlas(name, **user_kwargs)
    else:
        raise UnknownNameError("atlas", str(name), closest(str(name), BUILTIN), "mapgen's atlases")
    exclude = tuple(exclude)
    return atlas.without(exclude) if exclude else atlas


def list_atlases() -> tuple[str, ...]:
    """Names of the built-in atlases."""
    return BUILTIN


@cache
def _load_builtin(name: str) -> Atlas:
    meta = yaml.safe_load(data_path("atlas", f"regions_{name}.yaml").read_text(encoding="utf-8"))
    facts = json.loads(data_path("atlas", f"{name}.facts.json").read_text(encoding="utf-8"))
    names = {r["code"]: r["name"] for r in meta["regions"]}
    graph = nx.Graph()
    graph.add_nodes_from(names)
    graph.add_weighted_edges_from(facts["edges"], weight="km")
    _apply_overrides(graph, name)
    country_names = facts["foreign_names"]
    foreign = {c: {country_names[a3]: km for a3, km in v.items()} for c, v in facts["foreign_borders"].items()}
    return Atlas(
        name=name,
        title=meta["title"],
        names=names,
        load_geometry=lambda: _builtin_geometry(name, names, facts["crs"]),
        aliases={r["code"]: tuple(r.get("aliases", ())) for r in meta["regions"]},
        graph=graph,
        positions={c: Position(**p) for c, p in facts["regions"].items()},
        foreign=foreign,
        static_groups=tuple(_load_groups(name)),
        region_word=meta.get("region_word", "region"),
        crs=facts["crs"],
        source=facts["source"],
    )


def _builtin_geometry(name: str, names: dict[str, str], crs: str) -> gpd.GeoDataFrame:
    """The shipped display geometry of a built-in atlas, rows in ``names`` order."""
    import geopandas as gpd

    collection = json.loads(data_path("atlas", f"{name}.geojson").read_text(encoding="utf-8"))
    gdf = gpd.GeoDataFrame.from_features(collection["features"], crs=crs).set_index("code")
    gdf["name"] = [names[c] for c in gdf.index]
    return gdf.loc[list(names), ["name", "geometry"]]


def _apply_overrides(graph: nx.Graph, country: str) -> None:
    for item in yaml.safe_load(data_path("atlas", "overrides.yaml").read_text(encoding="utf-8")) or []:
        if item["country"] != country:
            continue
        if "remove_border" in item:
            graph.remove_edge(*item["remove_border"])
        if "add_border" in item:
            a, b, km = item["add_border"]
            graph.add_edge(a, b, km=km)


def _load_groups(country: str) -> list[RegionGroup]:
    path = data_path("atlas", f"groups_{country}.yaml")
    if not path.is_file():
        return []
    return [_group_from_record(r) for r in yaml.safe_load(path.read_text(encoding="utf-8")) or []]


def _group_from_record(record: Mapping) -> RegionGroup:
    return RegionGroup(
        name=record["name"],
        members=frozenset(record["members"]),
        aliases=tuple(record.get("aliases") or ()),
        kind=record.get("kind", "region"),
        source=record.get("source", ""),
        note=record.get("note", "") or "",
    )
