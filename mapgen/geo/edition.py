"""Atlas editions: a built-in atlas with its units as another publisher drew them (``data/atlas/editions.yaml``).

An edition is derived from its base atlas and the base's shipped geometry, never from other boundary data:

- ``rename``: base code → the edition's code (the base code stays an alias);
- ``merge``: edition code → base codes whose union it is (borders, foreign borders, areas and extents add up;
  its position is its largest part's centroid);
- ``split``: base code → edition codes, each taking polygons of the base unit (``largest`` or ``rest``);
  ``split_groups`` says which parts a group of a given kind keeps (by default every part);
- facts of merged/split units that need geometry (positions, borders of split parts) come from
  ``<edition>.facts.json``, which ``scripts/build_atlas.py --editions`` measures with :func:`edition_geometry`.

The edition's :attr:`Atlas.name` is its base country (``india``), so region words, aliases and wording keyed by
country keep working; specs record the edition key (``india-mapwise``) as their atlas.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mapgen.caches import memo
from mapgen.geo.atlas_model import Atlas, Position
from mapgen.geo.gazetteer import RegionGroup
from mapgen.resources import data_path
from mapgen.yamlio import safe_load

if TYPE_CHECKING:
    import geopandas as gpd
    import networkx as nx

EDITIONS_FILE = "editions.yaml"


@memo(1024)
def editions() -> dict[str, dict[str, Any]]:
    """Edition key → its rules (``data/atlas/editions.yaml``)."""
    path = data_path("atlas", EDITIONS_FILE)
    return safe_load(path.read_text(encoding="utf-8")) or {} if path.is_file() else {}


def is_edition(name: str) -> bool:
    return str(name).strip().lower() in editions()


def code_map(rules: Mapping[str, Any]) -> dict[str, list[str]]:
    """Base code → the edition codes it becomes (renamed, merged into, or split into)."""
    out: dict[str, list[str]] = {}
    for base, new in (rules.get("rename") or {}).items():
        out[base] = [new]
    for new, bases in (rules.get("merge") or {}).items():
        for base in bases:
            out[base] = [new]
    for base, parts in (rules.get("split") or {}).items():
        out[base] = list(parts)
    return out


def _codes(base: Atlas, mapping: dict[str, list[str]]) -> list[str]:
    return list(dict.fromkeys(new for c in base.codes for new in mapping.get(c, [c])))


def _names(base: Atlas, rules: Mapping[str, Any], mapping: dict[str, list[str]]) -> tuple[dict, dict]:
    names: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    split = rules.get("split") or {}
    for c in base.codes:
        if c in split:
            for new, part in split[c].items():
                names[new] = part["name"]
                aliases[new] = list(part.get("aliases", ()))
            continue
        new = mapping.get(c, [c])[0]
        if new not in names:
            names[new] = base.names[new] if new in base.names else base.names[c]
            aliases.setdefault(new, [])
        aliases[new] += [*(base.aliases.get(c, ())), *([c] if c != new else [])]
        if c != new and base.names[c] != names[new]:
            aliases[new].append(base.names[c])
    return names, {c: tuple(dict.fromkeys(a for a in v if a and a != names[c] and a != c)) for c, v in aliases.items()}


def _graph(base: Atlas, mapping: dict[str, list[str]], split: set[str], facts: Mapping[str, Any]) -> nx.Graph:
    import networkx as nx

    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(_codes(base, mapping))
    for a, b, data in base.graph.edges(data=True):
        if a in split or b in split:
            continue  # borders of split units are measured on their parts (facts)
        (na,), (nb,) = mapping.get(a, [a]), mapping.get(b, [b])
        if na == nb:
            continue
        km = data["km"] + (graph.edges[na, nb]["km"] if graph.has_edge(na, nb) else 0.0)
        graph.add_edge(na, nb, km=round(km, 1))
    for a, b, km in facts.get("edges", []):
        graph.add_edge(a, b, km=km)
    return graph


def _foreign(base: Atlas, mapping: dict[str, list[str]], split: set[str], facts: Mapping[str, Any]) -> dict:
    out: dict[str, dict[str, float]] = {}
    for c, borders in base.foreign.items():
        if c in split:
            continue
        (new,) = mapping.get(c, [c])
        for country, km in borders.items():
            out.setdefault(new, {})[country] = round(out.get(new, {}).get(country, 0.0) + km, 1)
    for c, borders in (facts.get("foreign_borders") or {}).items():
        out[c] = dict(borders)
    return out


def _groups(base: Atlas, rules: Mapping[str, Any], mapping: dict[str, list[str]]) -> tuple[RegionGroup, ...]:
    by_kind = rules.get("split_groups") or {}
    out = []
    for g in base.static_groups:
        members: set[str] = set()
        for c in g.members:
            new = mapping.get(c, [c])
            members.update(by_kind.get(c, {}).get(g.kind, new) if len(new) > 1 else new)
        out.append(RegionGroup(name=g.name, members=frozenset(members), aliases=g.aliases, kind=g.kind,
                               source=g.source, note=g.note))
    return tuple(out)


def _edition_facts(key: str) -> dict[str, Any]:
    path = data_path("atlas", f"{key}.facts.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def base_of(key: str) -> str:
    """The built-in atlas an edition derives from."""
    return str(editions()[key.strip().lower()]["base"])


def derive_edition(key: str, base: Atlas) -> Atlas:
    """The atlas edition ``key`` derived from its ``base`` atlas (see the module docstring)."""
    key = key.strip().lower()
    rules = editions()[key]
    mapping = code_map(rules)
    split = set(rules.get("split") or {})
    facts = _edition_facts(key)
    names, aliases = _names(base, rules, mapping)
    positions = {mapping.get(c, [c])[0]: p for c, p in base.positions.items()
                 if c not in split and len(_bases_of(mapping, mapping.get(c, [c])[0])) == 1}
    positions |= {c: Position(**p) for c, p in (facts.get("regions") or {}).items()}
    graph = _graph(base, mapping, split, facts)
    return Atlas(
        name=base.name,
        title=rules.get("title", base.title),
        names=names,
        load_geometry=lambda: edition_geometry(base, rules, names),
        aliases=aliases,
        load_graph=lambda: graph,
        positions=positions,
        foreign=_foreign(base, mapping, split, facts),
        static_groups=_groups(base, rules, mapping),
        region_word=base.region_word,
        crs=base.crs,
        source=f"{base.source}; edition {key} (mapgen/geo/edition.py)",
        contested=_contested(base, mapping, split),
        border_rule=base.border_rule,
    )


def _contested(base: Atlas, mapping: dict[str, list[str]], split: set[str]) -> frozenset[frozenset[str]]:
    """The base's contested pairs under the edition's codes (pairs of a split unit, or merged into one, drop)."""
    out = set()
    for pair in base.contested:
        if pair & split:
            continue
        news = frozenset(mapping.get(c, [c])[0] for c in pair)
        if len(news) == 2:
            out.add(news)
    return frozenset(out)


def _bases_of(mapping: dict[str, list[str]], new: str) -> list[str]:
    return [b for b, news in mapping.items() if new in news] or [new]


def edition_geometry(base: Atlas, rules: Mapping[str, Any], names: Mapping[str, str]) -> gpd.GeoDataFrame:
    """Display geometry of an edition from its base's: renamed units as they are, merged units dissolved, split
    units cut into their parts (``largest`` polygon / the ``rest``)."""
    import geopandas as gpd
    from shapely.geometry import MultiPolygon
    from shapely.ops import unary_union

    mapping = code_map(rules)
    geoms: dict[str, Any] = {}
    for c, geom in base.gdf.geometry.items():
        news = mapping.get(str(c), [str(c)])
        if len(news) == 1:
            geoms[news[0]] = unary_union([geoms[news[0]], geom]) if news[0] in geoms else geom
            continue
        polys = sorted(getattr(geom, "geoms", [geom]), key=lambda p: p.area, reverse=True)
        for new, part in rules["split"][c].items():
            chosen = polys[:1] if part["parts"] == "largest" else polys[1:]
            geoms[new] = chosen[0] if len(chosen) == 1 else MultiPolygon(chosen)
    codes = list(names)
    gdf = gpd.GeoDataFrame({"code": codes, "name": [names[c] for c in codes]},
                           geometry=[geoms[c] for c in codes], crs=base.crs)
    return gdf.set_index("code")
