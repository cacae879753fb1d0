"""Atlas: the regions of one country with codes, names, aliases, display geometry, borders and named groups.

Built-in atlases (``usa``, ``india``, ``china``) are read from the shipped ``data/atlas/`` files that
``scripts/build_atlas.py`` made from Natural Earth; a user atlas comes from any vector file
(:func:`mapgen.geo.user.load_user_atlas`).

Direction rule (one rule everywhere): a region's *position* is the centroid of its largest polygon, computed in
an equal-area projection and expressed as longitude/latitude. The north-most region of a set has the largest
position latitude, the east-most the largest longitude, and so on. Using the largest part keeps far-flung
islands (Hawaii's chain, the Andamans) from moving a region.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING

import networkx as nx
import yaml

from mapgen.geo.names import UnknownNameError, UnknownRegionError, build_index, closest, normalize_name
from mapgen.resources import data_path

if TYPE_CHECKING:
    import geopandas as gpd

BUILTIN = ("usa", "india", "china")
DIRECTIONS = ("north", "south", "east", "west")
_BORDERING = re.compile(
    r"^(?:states?\s+|provinces?\s+|regions?\s+)?(?:bordering|borders?|along(?:\s+the)?|adjacent\s+to|"
    r"neighbou?ring|neighbou?rs\s+of|sharing\s+a\s+border\s+with)\s+(?:the\s+)?(.+?)(?:\s+border)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RegionGroup:
    """A named set of regions (``"West Coast"``, ``"bordering Canada"``)."""

    name: str
    members: frozenset[str]
    aliases: tuple[str, ...] = ()
    kind: str = "region"
    source: str = ""
    note: str = ""


@dataclass(frozen=True)
class Position:
    """Geographic facts of one region: position (lon/lat, see module doc), extent and area."""

    lon: float
    lat: float
    west: float
    south: float
    east: float
    north: float
    area_km2: float


@dataclass
class Atlas:
    """The regions of one country (or a user file) and every geographic fact questions need.

    Names, borders, groups and positions are plain data; the display geometry (:attr:`gdf`) is loaded on first
    use, so looking up names, neighbours and groups never imports geopandas.
    """

    name: str
    title: str
    names: dict[str, str]  # code → full name, in file order (do not mutate)
    load_geometry: Callable[[], gpd.GeoDataFrame] = field(repr=False, compare=False)
    aliases: dict[str, tuple[str, ...]]
    graph: nx.Graph
    positions: dict[str, Position]
    foreign: dict[str, dict[str, float]] = field(default_factory=dict)  # code -> {country name: km}
    static_groups: tuple[RegionGroup, ...] = ()
    region_word: str = "region"
    crs: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        self._index = build_index({c: (c, n, *self.aliases.get(c, ())) for c, n in self.names.items()})
        self._groups = {g.name: g for g in (*self.static_groups, *self._foreign_groups())}
        self._group_index = build_index({g.name: (g.name, *g.aliases) for g in self._groups.values()})

    # --- regions -------------------------------------------------------------------------------------
    @property
    def codes(self) -> tuple[str, ...]:
        """All region codes, in file order."""
        return tuple(self.names)

    @cached_property
    def gdf(self) -> gpd.GeoDataFrame:
        """Display geometry indexed by code (columns ``name``, ``geometry``; projected coordinates)."""
        return self.load_geometry()

    def name_of(self, code: str) -> str:
        """Full name of a region given by code, name or alias."""
        return self.names[self.resolve(code)]

    def spellings(self, code: str) -> tuple[str, ...]:
        """Every accepted spelling of a region: name, code, aliases."""
        code = self.resolve(code)
        return (self.name_of(code), code, *self.aliases.get(code, ()))

    def resolve(self, name: str) -> str:
        """Region code for a code, name or alias (case/space/accent-insensitive)."""
        code = self._index.get(normalize_name(name))
        if code is None:
            raise UnknownRegionError(str(name), closest(name, self._all_spellings()), self.title)
        return code

    def _all_spellings(self) -> list[str]:
        return [s for c, n in self.names.items() for s in (c, n, *self.aliases.get(c, ()))]

    # --- borders -------------------------------------------------------------------------------------
    def neighbors(self, region: str) -> frozenset[str]:
        """Codes of the regions sharing a land border with ``region``."""
        return frozenset(self.graph.neighbors(self.resolve(region)))

    def border_km(self, a: str, b: str) -> float:
        """Shared border length in km (0 when they do not border)."""
        data = self.graph.get_edge_data(self.resolve(a), self.resolve(b))
        return float(data["km"]) if data else 0.0

    def foreign_borders(self, region: str) -> dict[str, float]:
        """Foreign countries a region borders → shared length in km."""
        return dict(self.foreign.get(self.resolve(region), {}))

    @property
    def bordering_countries(self) -> tuple[str, ...]:
        """Every foreign country some region borders."""
        return tuple(sorted({c for v in self.foreign.values() for c in v}))

    # --- groups --------------------------------------------------------------------------------------
    def _foreign_groups(self) -> list[RegionGroup]:
        return [
            RegionGroup(
                name=f"bordering {country}",
                members=frozenset(c for c, v in self.foreign.items() if country in v),
                aliases=(f"borders {country}", f"along the {country} border", f"{country} border"),
                kind="foreign_border",
                source="derived from Natural Earth geometry (border > 5 km)",
            )
            for country in self.bordering_countries
        ]

    @property
    def groups(self) -> dict[str, RegionGroup]:
        """Named groups (curated + foreign-border groups) by canonical name."""
        return dict(self._groups)

    def group_info(self, name: str) -> RegionGroup:
        """The group called ``name`` (aliases allowed); ``"bordering <region>"`` works for any region."""
        key = self._group_index.get(normalize_name(name))
        if key is not None:
            return self._groups[key]
        match = _BORDERING.match(name.strip())
        if match:
            target = match.group(1)
            key = self._group_index.get(normalize_name(f"bordering {target}"))
            if key is not None:
                return self._groups[key]
            if normalize_name(target) in self._index:
                code = self.resolve(target)
                return RegionGroup(
                    name=f"bordering {self.name_of(code)}",
                    members=self.neighbors(code),
                    kind="region_border",
                    source="derived from the border graph",
                )
        spellings = [s for g in self._groups.values() for s in (g.name, *g.aliases)]
        raise UnknownNameError("region group", name, closest(name, spellings), self.title)

    def group(self, name: str) -> frozenset[str]:
        """Member codes of a named group."""
        return self.group_info(name).members

    def groups_of(self, region: str) -> frozenset[str]:
        """Canonical names of the curated and foreign-border groups a region belongs to."""
        code = self.resolve(region)
        return frozenset(g.name for g in self._groups.values() if code in g.members)

    @cached_property
    def membership(self) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
        """Per region: (neighbours, group names), computed once per atlas (scenes read it)."""
        return {c: (self.neighbors(c), self.groups_of(c)) for c in self.codes}

    # --- directions ----------------------------------------------------------------------------------
    def direction_key(self, region: str, direction: str) -> float:
        """How far ``direction`` a region lies (larger = further), by the module's position rule."""
        pos = self.positions[self.resolve(region)]
        keys = {"north": pos.lat, "south": -pos.lat, "east": pos.lon, "west": -pos.lon}
        if direction not in keys:
            raise ValueError(f"Unknown direction {direction!r}; use one of {', '.join(DIRECTIONS)}.")
        return keys[direction]

    def ranked_by_direction(self, regions: Iterable[str], direction: str) -> list[tuple[str, float]]:
        """Regions sorted furthest-first in ``direction`` with their keys (degrees)."""
        codes = {self.resolve(r) for r in regions}
        return sorted(((c, self.direction_key(c, direction)) for c in codes), key=lambda t: (-t[1], t[0]))

    def extreme(self, regions: Iterable[str], direction: str) -> str:
        """The north-/south-/east-/west-most region of a set."""
        ranked = self.ranked_by_direction(regions, direction)
        if not ranked:
            raise ValueError("extreme() needs at least one region.")
        return ranked[0][0]

    # --- subsets and export --------------------------------------------------------------------------
    def without(self, regions: Iterable[str]) -> Atlas:
        """A copy of the atlas with some regions left out (e.g. China without TW, HK, MO)."""
        drop = {self.resolve(r) for r in regions}
        keep = [c for c in self.codes if c not in drop]
        return Atlas(
            name=self.name,
            title=self.title,
            names={c: self.names[c] for c in keep},
            load_geometry=lambda: self.gdf.loc[keep].copy(),
            aliases={c: a for c, a in self.aliases.items() if c in keep},
            graph=self.graph.subgraph(keep).copy(),
            positions={c: p for c, p in self.positions.items() if c in keep},
            foreign={c: v for c, v in self.foreign.items() if c in keep},
            static_groups=tuple(
                RegionGroup(g.name, g.members - drop, g.aliases, g.kind, g.source, g.note)
                for g in self.static_groups
                if g.members - drop
            ),
            region_word=self.region_word,
            crs=self.crs,
            source=self.source,
        )

    def region_record(self, region: str) -> dict:
        """Everything known about one region as plain data (for ``mapgen atlas show``)."""
        code = self.resolve(region)
        pos = self.positions[code]
        return {
            "code": code,
            "name": self.name_of(code),
            "aliases": list(self.aliases.get(code, ())),
            "neighbors": sorted(self.neighbors(code)),
            "foreign_borders": self.foreign_borders(code),
            "groups": sorted(self.groups_of(code)),
            "position": {"lon": pos.lon, "lat": pos.lat},
            "extent": {"west": pos.west, "south": pos.south, "east": pos.east, "north": pos.north},
            "area_km2": pos.area_km2,
        }


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
