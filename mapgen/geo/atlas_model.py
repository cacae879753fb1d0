"""Atlas: the regions of one country with codes, names, aliases, display geometry, borders and named groups.

Loading lives in :mod:`mapgen.geo.atlas` (built-in atlases, and user files through :mod:`mapgen.geo.vector_file`);
this module only defines the types both build, so the loaders depend on it and never on each other.

Direction rule (one rule everywhere): a region's *position* is the centroid of its largest polygon, computed in
an equal-area projection and expressed as longitude/latitude. The north-most region of a set has the largest
position latitude, the east-most the largest longitude, and so on. Using the largest part keeps far-flung
islands (Hawaii's chain, the Andamans) from moving a region.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, cast

from mapgen.geo.gazetteer import Gazetteer, RegionGroup, foreign_groups
from mapgen.geo.source import AtlasFile

if TYPE_CHECKING:
    import geopandas as gpd
    import networkx as nx
    from shapely.geometry import Point

DIRECTIONS = ("north", "south", "east", "west")


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


def direction_key(lon: float, lat: float, direction: str) -> float:
    """How far ``direction`` a position lies (larger = further), by the module's position rule."""
    keys = {"north": lat, "south": -lat, "east": lon, "west": -lon}
    if direction not in keys:
        raise ValueError(f"Unknown direction {direction!r}; use one of {', '.join(DIRECTIONS)}.")
    return keys[direction]


class LazyMapping(Mapping[str, tuple[float, float]]):
    """A read-only mapping computed on first use (facts that need the display geometry)."""

    def __init__(self, make: Callable[[], Mapping[str, tuple[float, float]]]) -> None:
        self._make = make
        self._data: Mapping[str, tuple[float, float]] | None = None

    def _get(self) -> Mapping[str, tuple[float, float]]:
        if self._data is None:
            self._data = self._make()
        return self._data

    def __getitem__(self, key: str) -> tuple[float, float]:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


@dataclass
class Atlas:
    """The regions of one country (or a user file) and every geographic fact questions need.

    Names, borders, groups and positions are plain data; the display geometry (:attr:`gdf`) and the border graph
    (:attr:`graph`) are loaded on first use, so looking up names, neighbours and groups never imports geopandas
    or networkx.
    """

    name: str
    title: str
    names: dict[str, str]  # code → full name, in file order (do not mutate)
    load_geometry: Callable[[], gpd.GeoDataFrame] = field(repr=False, compare=False)
    aliases: dict[str, tuple[str, ...]]
    #: Builds the land-border graph (:attr:`graph`) on first use.
    load_graph: Callable[[], nx.Graph] = field(repr=False, compare=False)
    positions: dict[str, Position]
    foreign: dict[str, dict[str, float]] = field(default_factory=dict)  # code -> {country name: km}
    static_groups: tuple[RegionGroup, ...] = ()
    region_word: str = "region"
    crs: str = ""
    source: str = ""
    file: AtlasFile | None = None  # a user atlas: the vector file it was read from (path, digest, fields)
    #: The regions :meth:`without` left out, as they were named (empty for a whole atlas).
    exclusions: tuple[str, ...] = field(default=(), compare=False)
    #: The whole atlas :meth:`without` cut this one from (None for a whole atlas).
    whole: Atlas | None = field(default=None, compare=False, repr=False)
    #: Pairs whose border a reader could dispute (ARCHITECTURE.md §3): the built-in atlases' disagreements with
    #: their published lists, a user atlas's near misses. They are not borders, and no question hinges on them.
    contested: frozenset[frozenset[str]] = field(default=frozenset(), compare=False)
    #: The border rule in words (``more than 5 km of shared boundary …``) and, for a user atlas, the contacts it
    #: left out as ``(a, b, km)``, longest first.
    border_rule: str = field(default="", compare=False)
    dropped_borders: tuple[tuple[str, str, float], ...] = field(default=(), compare=False, repr=False)
    #: The projected bounds of the display geometry read without loading it (a built-in atlas's shipped file);
    #: None: :attr:`bounds` loads the geometry.
    load_bounds: Callable[[], tuple[float, float, float, float]] | None = field(default=None, compare=False, repr=False)
    #: Code → neighbour codes when the loader knows them without building the graph (a built-in atlas, a part of
    #: one); None: read off :attr:`graph`.
    neighbor_sets: Mapping[str, frozenset[str]] | None = field(default=None, compare=False, repr=False)

    def __repr__(self) -> str:
        """One line (the fields hold every name, alias and position: thousands of characters)."""
        source = f", file {self.file.path.name!r}" if self.file is not None else ""
        without = f", without {', '.join(self.exclusions)}" if self.exclusions else ""
        return (f"<Atlas {self.name!r} ({self.title}): {len(self.names)} {self.region_word}s, "
                f"{len(self.static_groups)} named groups{source}{without}>")
    def __post_init__(self) -> None:
        neighbors = self.neighbor_sets
        if neighbors is None:
            neighbors = {c: frozenset(self.graph.neighbors(c)) for c in self.names}
        self.gazetteer = Gazetteer(
            title=self.title,
            names=self.names,
            aliases=self.aliases,
            neighbors={c: neighbors[c] for c in self.names},
            groups={g.name: g for g in (*self.static_groups, *foreign_groups(self.foreign))},
        )

    # --- regions -------------------------------------------------------------------------------------
    @property
    def codes(self) -> tuple[str, ...]:
        """All region codes, in file order."""
        return tuple(self.names)

    @cached_property
    def graph(self) -> nx.Graph:
        """The land-border graph: a node per region, an edge per border with its length in km (``km``); built on
        first use, so looking up names, neighbours and groups never imports networkx."""
        return self.load_graph()

    @cached_property
    def gdf(self) -> gpd.GeoDataFrame:
        """Display geometry indexed by code (columns ``name``, ``geometry``; projected coordinates)."""
        return self.load_geometry()

    @cached_property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(minx, miny, maxx, maxy)`` of the display geometry (projected coordinates, the same floats as
        ``gdf.total_bounds``); a built-in atlas reads them without importing geopandas."""
        if self.load_bounds is None or "gdf" in self.__dict__:
            x1, y1, x2, y2 = (float(v) for v in self.gdf.total_bounds)
            return x1, y1, x2, y2
        return self.load_bounds()

    @cached_property
    def centroids(self) -> Mapping[str, tuple[float, float]]:
        """Code → centroid of the display geometry (projected coordinates), computed on first use."""
        return LazyMapping(lambda: _xy_table(self.gdf.geometry.centroid))

    def name_of(self, code: str) -> str:
        """Full name of a region given by code, name or alias."""
        return self.gazetteer.name_of(code)

    def spellings(self, code: str) -> tuple[str, ...]:
        """Every accepted spelling of a region: name, code, aliases."""
        return self.gazetteer.spellings(code)

    def find(self, name: str) -> str | None:
        """Region code for a code, name or alias, or None (no 'did you mean' search; see :meth:`resolve`)."""
        return self.gazetteer.find(name)

    def resolve(self, name: str) -> str:
        """Region code for a code, name or alias (case/space/accent-insensitive)."""
        return self.gazetteer.resolve(name)

    # --- borders -------------------------------------------------------------------------------------
    def neighbors(self, region: str) -> frozenset[str]:
        """Codes of the regions sharing a land border with ``region``."""
        return self.gazetteer.neighbors[self.resolve(region)]

    def border_km(self, a: str, b: str) -> float:
        """Shared border length in km (0 when they do not border)."""
        data = self.graph.get_edge_data(self.resolve(a), self.resolve(b))
        return float(data["km"]) if data else 0.0

    def contested_with(self, region: str) -> frozenset[str]:
        """Codes of the regions whose border with ``region`` is contested (none of them is a neighbour)."""
        code = self.resolve(region)
        return frozenset(c for pair in self.contested if code in pair for c in pair if c != code)

    def foreign_borders(self, region: str) -> dict[str, float]:
        """Foreign countries a region borders → shared length in km."""
        return dict(self.foreign.get(self.resolve(region), {}))

    @property
    def bordering_countries(self) -> tuple[str, ...]:
        """Every foreign country some region borders."""
        return tuple(sorted({c for v in self.foreign.values() for c in v}))

    # --- groups --------------------------------------------------------------------------------------
    @property
    def groups(self) -> dict[str, RegionGroup]:
        """Named groups (curated + foreign-border groups) by canonical name."""
        return dict(self.gazetteer.groups)

    def group_info(self, name: str) -> RegionGroup:
        """The group called ``name`` (aliases allowed); ``"bordering <region>"`` works for any region."""
        return self.gazetteer.group_info(name)

    def group(self, name: str) -> frozenset[str]:
        """Member codes of a named group."""
        return self.group_info(name).members

    def groups_of(self, region: str) -> frozenset[str]:
        """Canonical names of the curated and foreign-border groups a region belongs to."""
        return self.gazetteer.groups_of(self.resolve(region))

    @cached_property
    def membership(self) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
        """Per region: (neighbours, group names), computed once per atlas (scenes read it)."""
        return {c: (self.gazetteer.neighbors[c], self.gazetteer.groups_of(c)) for c in self.codes}

    # --- directions ----------------------------------------------------------------------------------
    def direction_key(self, region: str, direction: str) -> float:
        """How far ``direction`` a region lies (larger = further), by the module's position rule."""
        pos = self.positions[self.resolve(region)]
        return direction_key(pos.lon, pos.lat, direction)

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
        regions = tuple(regions)
        drop = {self.resolve(r) for r in regions}
        keep = [c for c in self.codes if c not in drop]
        return Atlas(
            name=self.name,
            title=self.title,
            names={c: self.names[c] for c in keep},
            load_geometry=lambda: self.gdf.loc[keep].copy(),
            aliases={c: a for c, a in self.aliases.items() if c in keep},
            load_graph=lambda: self.graph.subgraph(keep).copy(),
            positions={c: p for c, p in self.positions.items() if c in keep},
            foreign={c: v for c, v in self.foreign.items() if c in keep},
            static_groups=tuple(
                g.without(drop)
                for g in self.static_groups
                if g.members - drop
            ),
            region_word=self.region_word,
            crs=self.crs,
            source=self.source,
            file=self.file,
            exclusions=self.exclusions + regions,
            whole=self.whole or self,
            contested=frozenset(p for p in self.contested if not p & drop),
            border_rule=self.border_rule,
            dropped_borders=tuple(d for d in self.dropped_borders if not set(d[:2]) & drop),
            neighbor_sets={c: self.gazetteer.neighbors[c] - drop for c in keep},
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
            **({"contested": sorted(self.contested_with(code))} if self.contested_with(code) else {}),
            "foreign_borders": self.foreign_borders(code),
            "groups": sorted(self.groups_of(code)),
            "position": {"lon": pos.lon, "lat": pos.lat},
            "extent": {"west": pos.west, "south": pos.south, "east": pos.east, "north": pos.north},
            "area_km2": pos.area_km2,
        }


def _xy_table(points: gpd.GeoSeries) -> dict[str, tuple[float, float]]:
    """Code → (x, y) of a series of points indexed by code."""
    return {c: (float(p.x), float(p.y)) for c, p in cast("Iterable[tuple[str, Point]]", points.items())}
