"""Loading atlases: the built-in ones (``usa``, ``india``, ``china``) and user vector files.

Built-in atlases are read from the shipped ``data/atlas/`` files that ``scripts/build_atlas.py`` made from
Natural Earth (display geometry on first use); a user atlas comes from any vector file
(:func:`mapgen.geo.vector_file.load_user_atlas`). The types (:class:`Atlas`, :class:`Position`, :class:`RegionGroup`)
live in :mod:`mapgen.geo.atlas_model` and :mod:`mapgen.geo.gazetteer`, which both loaders import; they are
re-exported here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from mapgen.caches import ObjectCache, ValueCache, memo
from mapgen.geo.atlas_model import DIRECTIONS, Atlas, Position
from mapgen.geo.edition import base_of, derive_edition, is_edition
from mapgen.geo.gazetteer import GroupAlternative, RegionGroup
from mapgen.geo.names import UnknownNameError, closest
from mapgen.geo.published_borders import has_published, load_published
from mapgen.geo.source import AtlasFile, is_atlas_path
from mapgen.resources import data_path
from mapgen.yamlio import load_shipped

if TYPE_CHECKING:
    import geopandas as gpd
    import networkx as nx

__all__ = ["BUILTIN", "DIRECTIONS", "Atlas", "AtlasFile", "Position", "RegionGroup", "as_atlas", "builtin_atlas",
           "list_atlases", "load_atlas", "uncut"]

BUILTIN = ("usa", "india", "china")


# --- loading the built-in atlases -------------------------------------------------------------------------


def load_atlas(
    name: str | Path | AtlasFile,
    exclude: Iterable[str] = (),
    name_field: str | None = None,
    code_field: str | None = None,
) -> Atlas:
    """Load a built-in atlas by name (``usa``, ``india``, ``china``), an edition of one (``india-mapwise``,
    :mod:`mapgen.geo.edition`) or a user vector file by path.

    A path may be a GeoJSON, GeoPackage or shapefile (:func:`mapgen.geo.vector_file.load_user_atlas`; ``name_field``
    and ``code_field`` choose its columns, the name column is detected otherwise). An :class:`AtlasFile`
    (what specs record) is checked against its digest first. ``exclude`` leaves regions out.
    """
    if isinstance(name, AtlasFile):
        name.verify()
        atlas = _fresh_user(name)
    elif (builtin := builtin_atlas(str(name))) is not None:
        atlas = builtin
    elif is_atlas_path(name) or Path(str(name)).suffix:
        atlas = _load_user_path(Path(name), name_field, code_field)
    else:
        raise UnknownNameError(
            "atlas", str(name), closest(str(name), BUILTIN), "mapgen's atlases", BUILTIN,
            fix="or give a GeoJSON / GeoPackage / shapefile path",
        )
    return _cut(atlas, tuple(exclude))


#: Atlases cut by :func:`load_atlas` this process, by (id of the whole atlas, exclusions): (whole, cut).
_CUTS: ObjectCache[Atlas] = ObjectCache("geo.atlas.cuts", maxsize=64)


def _cut(atlas: Atlas, exclude: tuple[str, ...]) -> Atlas:
    """``atlas`` without ``exclude``, made once per process for each whole atlas (held, so its id stays its)."""
    if not exclude:
        return atlas
    return _CUTS.get_or_make(atlas, lambda: atlas.without(exclude), key=exclude)


def builtin_atlas(name: str) -> Atlas | None:
    """A built-in atlas or an edition of one by name, read once per process; None for any other name (a user
    atlas's key, say)."""
    key = name.strip().lower()
    if key in BUILTIN:
        return _load_builtin(key)
    return _load_edition(key) if is_edition(key) else None


def shipped_atlas(name: str) -> Atlas:
    """A built-in atlas by a name known to be one (of :func:`list_atlases`, or MAPWise's countries): as
    :func:`builtin_atlas`, with a KeyError for any other name."""
    atlas = builtin_atlas(name)
    if atlas is None:
        raise KeyError(f"{name!r} is not a built-in atlas")
    return atlas


def as_atlas(atlas: Atlas | str | Path | AtlasFile, exclude: Iterable[str] = ()) -> Atlas:
    """An :class:`Atlas` given to the Python API as itself (returned unchanged) or by name or path
    (:func:`load_atlas`, leaving ``exclude`` out)."""
    return atlas if isinstance(atlas, Atlas) else load_atlas(atlas, exclude=exclude)


def uncut(atlas: Atlas) -> Atlas:
    """The whole built-in atlas a cut one (:meth:`Atlas.without`) was made from, to resolve the names of the
    regions it leaves out; any other atlas itself."""
    return atlas.whole if atlas.whole is not None and atlas.name in BUILTIN else atlas


def _load_user_path(path: Path, name_field: str | None, code_field: str | None) -> Atlas:
    if not path.is_file():
        raise FileNotFoundError(f"Atlas file {str(path)!r} does not exist (and {path.name!r} is not one of "
                                f"mapgen's atlases: {', '.join(BUILTIN)}).")
    return _fresh_user(AtlasFile.of(path, name_field, code_field))


#: User atlases read this process, by file name and content (name, digest, name field, code field; the name
#: gives the atlas its name and title): the Atlas first read of it.
_USER_READS: ValueCache[tuple[str, str, str | None, str | None], Atlas] = ValueCache("geo.atlas.user_reads", 64)
#: The same atlases by place too (folder, then the content key): the Atlas that records that file as its own.
_USER_PLACES: ValueCache[tuple[Path, str, str, str | None, str | None], Atlas] = ValueCache("geo.atlas.user_places", 64)


def _fresh_user(ref: AtlasFile) -> Atlas:
    """The user atlas of ``ref``, whose digest is its file's content now: read once per process for each file
    name and content, so a file changed since is read again, and a copy of a file already read (the build
    folder's, under the same name) is that atlas recording the copy's path, not a second read."""
    content = (ref.path.name, ref.sha256, ref.name_field, ref.code_field)
    place = (ref.path.parent, *content)
    return _USER_PLACES.get_or_make(place, lambda: _placed(_USER_READS.get_or_make(content, lambda: _load_user(ref)), ref))


def _placed(read: Atlas, ref: AtlasFile) -> Atlas:
    """The atlas ``read`` recording ``ref``'s path as its file."""
    return read if read.file is None or read.file.path == ref.path else _moved(read, ref.path)


def _moved(atlas: Atlas, path: Path) -> Atlas:
    """``atlas`` as if read from ``path``, a file of the same name and content (same digest, so the same
    regions, borders and groups): only where it records its file changes."""
    from dataclasses import replace

    assert atlas.file is not None
    return replace(atlas, source=str(path), file=replace(atlas.file, path=path))


def _load_user(ref: AtlasFile) -> Atlas:
    """Read a user atlas file (its digest already known)."""
    from mapgen.geo.vector_file import load_user_atlas

    return load_user_atlas(ref.path, name_field=ref.name_field, code_field=ref.code_field, digest=ref.sha256)


def list_atlases() -> tuple[str, ...]:
    """Names of the built-in atlases."""
    return BUILTIN


@memo(1024)
def _load_builtin(name: str) -> Atlas:
    meta = load_shipped(data_path("atlas", f"regions_{name}.yaml").read_text(encoding="utf-8"))
    facts = json.loads(data_path("atlas", f"{name}.facts.json").read_text(encoding="utf-8"))
    names = {r["code"]: r["name"] for r in meta["regions"]}
    pairs = _border_pairs(name, facts["edges"])
    country_names = facts["foreign_names"]
    foreign = {c: {country_names[a3]: km for a3, km in v.items()} for c, v in facts["foreign_borders"].items()}
    return Atlas(
        name=name,
        title=meta["title"],
        names=names,
        load_geometry=lambda: _builtin_geometry(name, names, facts["crs"]),
        load_bounds=lambda: _builtin_bounds(name, names),
        aliases={r["code"]: tuple(r.get("aliases", ())) for r in meta["regions"]},
        load_graph=lambda: _builtin_graph(name, names, facts["edges"]),
        positions={c: Position(**p) for c, p in facts["regions"].items()},
        foreign=foreign,
        static_groups=tuple(_load_groups(name)),
        region_word=meta.get("region_word", "region"),
        crs=facts["crs"],
        source=facts["source"],
        contested=_contested(name, pairs),
        border_rule=_rule_text(facts.get("border_rule") or {}),
        neighbor_sets=_neighbor_sets(names, pairs),
    )


def _builtin_graph(name: str, names: dict[str, str], edges: list) -> nx.Graph:
    """The land-border graph of a built-in atlas (edge attribute ``km``): the shipped edges, then the overrides.
    Built on first use (:attr:`Atlas.graph`): drawing a map needs only the neighbours, not networkx."""
    import networkx as nx

    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(names)
    graph.add_weighted_edges_from(edges, weight="km")
    _apply_overrides(graph, name)
    return graph


def _border_pairs(name: str, edges: list) -> set[frozenset[str]]:
    """The bordering pairs of :func:`_builtin_graph`'s graph, without building it (the same overrides applied)."""
    pairs = {frozenset(edge[:2]) for edge in edges}
    for item in _overrides(name):
        if "remove_border" in item:
            pairs.remove(frozenset(item["remove_border"]))
        if "add_border" in item:
            pairs.add(frozenset(item["add_border"][:2]))
    return pairs


def _neighbor_sets(names: dict[str, str], pairs: set[frozenset[str]]) -> dict[str, frozenset[str]]:
    """Code → the codes it borders, for every region of ``names``."""
    out: dict[str, set[str]] = {c: set() for c in names}
    for pair in pairs:
        a, b = sorted(pair)
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {c: frozenset(out[c]) for c in names}


def _contested(name: str, pairs: Iterable[frozenset[str]]) -> frozenset[frozenset[str]]:
    """The pairs on which the atlas's borders and its published border list disagree, and its unsure pairs."""
    if not has_published(name):
        return frozenset()
    return load_published(name).contested(pairs)


def _rule_text(rule: Mapping) -> str:
    """The shipped facts' border rule in words."""
    if not rule:
        return ""
    return f"more than {rule['min_km']:g} km of shared boundary (within {rule['buffer_m']:g} m)"


@memo(1024)
def _load_edition(key: str) -> Atlas:
    return derive_edition(key, _load_builtin(base_of(key)))


def _builtin_geometry(name: str, names: dict[str, str], crs: str) -> gpd.GeoDataFrame:
    """The shipped display geometry of a built-in atlas, rows in ``names`` order."""
    import geopandas as gpd

    collection = json.loads(data_path("atlas", f"{name}.geojson").read_text(encoding="utf-8"))
    gdf = gpd.GeoDataFrame.from_features(collection["features"], crs=crs).set_index("code")
    gdf["name"] = [names[c] for c in gdf.index]
    return gdf.loc[list(names), ["name", "geometry"]]


def _builtin_bounds(name: str, names: dict[str, str]) -> tuple[float, float, float, float]:
    """The projected bounds of a built-in atlas's regions, read off the shipped GeoJSON's coordinates (the
    floats :func:`_builtin_geometry`'s ``total_bounds`` gives, without importing geopandas)."""
    collection = json.loads(data_path("atlas", f"{name}.geojson").read_text(encoding="utf-8"))
    lows: list[tuple[float, float]] = []
    highs: list[tuple[float, float]] = []
    for feature in collection["features"]:
        if feature["properties"]["code"] not in names:
            continue
        geometry = feature["geometry"]
        polygons = geometry["coordinates"] if geometry["type"] == "MultiPolygon" else [geometry["coordinates"]]
        for ring in (ring for polygon in polygons for ring in polygon):
            xs, ys = zip(*((p[0], p[1]) for p in ring), strict=True)
            lows.append((min(xs), min(ys)))
            highs.append((max(xs), max(ys)))
    return (float(min(x for x, _ in lows)), float(min(y for _, y in lows)),
            float(max(x for x, _ in highs)), float(max(y for _, y in highs)))


@memo(1024)
def _override_items() -> tuple[dict, ...]:
    """The curated border overrides of every built-in atlas (``data/atlas/overrides.yaml``)."""
    return tuple(load_shipped(data_path("atlas", "overrides.yaml").read_text(encoding="utf-8")) or [])


def _overrides(country: str) -> list[dict]:
    """The border overrides of one built-in atlas, in file order."""
    return [item for item in _override_items() if item["country"] == country]


def _apply_overrides(graph: nx.Graph, country: str) -> None:
    for item in _overrides(country):
        if "remove_border" in item:
            graph.remove_edge(*item["remove_border"])
        if "add_border" in item:
            a, b, km = item["add_border"]
            graph.add_edge(a, b, km=km)


def _load_groups(country: str) -> list[RegionGroup]:
    path = data_path("atlas", f"groups_{country}.yaml")
    if not path.is_file():
        return []
    return [_group_from_record(r) for r in load_shipped(path.read_text(encoding="utf-8")) or []]


def _group_from_record(record: Mapping) -> RegionGroup:
    return RegionGroup(
        name=record["name"],
        members=frozenset(record["members"]),
        aliases=tuple(record.get("aliases") or ()),
        kind=record.get("kind", "region"),
        source=record.get("source", ""),
        note=record.get("note", "") or "",
        alternatives=tuple(GroupAlternative(str(a["name"]), frozenset(a["members"]), str(a.get("source", "")))
                           for a in record.get("alternatives") or ()),
    )
