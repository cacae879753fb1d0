"""Audit of a built-in atlas's border graph against published border lists (ARCHITECTURE.md §3).

``data/atlas/borders_<country>.yaml`` lists every region's neighbours and foreign countries as general
references publish them, and explains each pair where the atlas disagrees (a point contact, water the map does not
draw, an override). :func:`audit` compares the measured graph (before and after the curated overrides) with it
and lists the contested pairs (:mod:`mapgen.geo.published_borders`); :func:`audit_user` reports what the border
rule made of a user atlas (the contacts it left out, the near misses it contested).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import networkx as nx

from mapgen.geo.atlas import Atlas, load_atlas
from mapgen.geo.published_borders import Pair, PublishedBorders, load_published
from mapgen.resources import data_path

__all__ = ["BorderAudit", "Pair", "PublishedBorders", "audit", "audit_user", "load_published", "measured_graph"]


@dataclass(frozen=True)
class BorderAudit:
    """The comparison of one atlas with its published list."""

    country: str
    regions: int
    published_pairs: int
    atlas_pairs: int
    disagreements: set[Pair]  # published list vs the final graph (overrides applied)
    raw_disagreements: set[Pair]  # published list vs the measured graph before overrides
    foreign_disagreements: dict[str, tuple[set[str], set[str]]]  # region -> (published only, atlas only)
    contested: frozenset[Pair] = frozenset()  # the atlas's contested pairs (no question hinges on them)
    rule: str = ""  # the border rule in words
    dropped: tuple[tuple[str, str, float], ...] = ()  # a user atlas: contacts the rule left out, (a, b, km)

    @property
    def fixed_by_overrides(self) -> set[Pair]:
        return self.raw_disagreements - self.disagreements


def measured_graph(country: str) -> nx.Graph:
    """The border graph as measured from the geometry, before the curated overrides."""
    facts = json.loads(data_path("atlas", f"{country}.facts.json").read_text(encoding="utf-8"))
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(facts["regions"])
    graph.add_weighted_edges_from(facts["edges"], weight="km")
    return graph


def _pairs(graph: nx.Graph) -> set[Pair]:
    return {frozenset(e) for e in graph.edges}


def audit(country: str) -> BorderAudit:
    """Compare the atlas ``country`` with its published border list (unsure pairs are not compared)."""
    published, atlas = load_published(country), load_atlas(country)
    ignore = set(published.unsure)
    final = _pairs(atlas.graph) - ignore
    raw = _pairs(measured_graph(country)) - ignore
    listed = published.pairs - ignore
    foreign = {}
    for code in atlas.codes:
        pub, got = set(published.foreign.get(code, ())), set(atlas.foreign_borders(code))
        if pub != got:
            foreign[code] = (pub - got, got - pub)
    return BorderAudit(
        country=country,
        regions=len(atlas.codes),
        published_pairs=len(listed),
        atlas_pairs=len(final),
        disagreements=final ^ listed,
        raw_disagreements=raw ^ listed,
        foreign_disagreements=foreign,
        contested=atlas.contested,
        rule=atlas.border_rule,
    )


def audit_user(atlas: Atlas) -> BorderAudit:
    """What the border rule made of a user atlas (no published list to compare): its rule, the contacts it left
    out and the near misses among them, which are contested."""
    return BorderAudit(
        country=atlas.name,
        regions=len(atlas.codes),
        published_pairs=0,
        atlas_pairs=atlas.graph.number_of_edges(),
        disagreements=set(),
        raw_disagreements=set(),
        foreign_disagreements={},
        contested=atlas.contested,
        rule=atlas.border_rule,
        dropped=atlas.dropped_borders,
    )
