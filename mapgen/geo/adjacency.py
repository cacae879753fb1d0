"""Land-border graph from polygons: shared boundary length after a small buffer (ARCHITECTURE.md §3).

Rule: in an equal-area projection (metres), buffer each polygon by ``buffer_m`` and measure how much of the
other polygon's boundary lies inside the buffer; more than ``min_km`` is a border. Both follow the map's size
(:func:`scaled_rule`): ``min_km`` is 1/40 and ``buffer_m`` 1/400 of the median region width (the square root
of its area), capped at 5 km and 500 m — the caps are what the built-in atlases (median widths 230–410 km) use,
so their graphs are the 5 km rule's, while a map of 4 km wards counts its 3 km edges. A point contact such as
the Four Corners measures about twice the buffer (1 km there) and stays out; contacts the rule drops are kept in
:attr:`BorderMeasure.dropped`, the longer ones (:attr:`BorderMeasure.near_misses`) for a warning.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import shapely
from shapely.geometry.base import BaseGeometry

BUFFER_M = 500.0
MIN_BORDER_KM = 5.0
#: The border length threshold is the median region width divided by this (capped at MIN_BORDER_KM).
WIDTH_PER_MIN_BORDER = 40.0
#: The buffer is the median region width divided by this (capped at BUFFER_M): a tenth of the threshold.
WIDTH_PER_BUFFER = 400.0
#: A dropped contact longer than this share of the threshold is a near miss (a point contact measures about
#: twice the buffer, 0.2 of the threshold, more where boundaries meet at a sharp angle).
NEAR_MISS_SHARE = 0.4


@dataclass(frozen=True)
class BorderRule:
    """The border rule of one map: a border is more than ``min_km`` of shared boundary within ``buffer_m``."""

    min_km: float = MIN_BORDER_KM
    buffer_m: float = BUFFER_M
    median_width_km: float | None = None  # what the rule was scaled from (None: the fixed rule)

    def describe(self) -> str:
        """The rule in words (``more than 5 km of shared boundary (within 500 m)``, plus what it follows)."""
        text = f"more than {_km(self.min_km)} of shared boundary (within {self.buffer_m:.3g} m)"
        if self.median_width_km is not None:
            text += f", scaled to the median region width {_km(self.median_width_km)}"
        return text

    def to_dict(self) -> dict[str, float | None]:
        return {"min_km": self.min_km, "buffer_m": self.buffer_m, "median_width_km": self.median_width_km}


@dataclass(frozen=True)
class BorderMeasure:
    """A border graph with the rule that made it and the contacts the rule left out, ``(a, b, km)``."""

    graph: nx.Graph
    rule: BorderRule
    dropped: tuple[tuple[str, str, float], ...] = ()

    @property
    def near_misses(self) -> tuple[tuple[str, str, float], ...]:
        """Dropped contacts longer than a point contact (:data:`NEAR_MISS_SHARE` of the threshold)."""
        return tuple(d for d in self.dropped if d[2] >= NEAR_MISS_SHARE * self.rule.min_km)


def _km(x: float) -> str:
    return f"{x:.3g} km"


def scaled_rule(geoms: Sequence[BaseGeometry]) -> BorderRule:
    """The border rule for regions of these sizes (geometries in metres; see the module doc)."""
    widths = [math.sqrt(g.area) / 1000.0 for g in geoms if g.area > 0]
    if not widths:
        return BorderRule()
    width = float(statistics.median(widths))
    return BorderRule(min(MIN_BORDER_KM, width / WIDTH_PER_MIN_BORDER),
                      min(BUFFER_M, width * 1000.0 / WIDTH_PER_BUFFER), round(width, 3))


def shared_border_km(a: BaseGeometry, b: BaseGeometry, buffer_m: float = BUFFER_M) -> float:
    """Length in km of ``b``'s boundary lying within ``buffer_m`` of ``a`` (geometries in metres)."""
    return float(shapely.length(shapely.intersection(b.boundary, a.buffer(buffer_m)))) / 1000.0


def border_lengths(
    geoms: Sequence[BaseGeometry],
    others: Sequence[BaseGeometry] | None = None,
    buffer_m: float = BUFFER_M,
) -> dict[tuple[int, int], float]:
    """Shared border length (km) for every touching pair ``(i, j)``.

    Without ``others``: pairs within ``geoms`` (``i < j``). With ``others``: pairs ``(i in geoms, j in others)``.
    """
    targets = list(geoms if others is None else others)
    tree = shapely.STRtree(targets)
    out: dict[tuple[int, int], float] = {}
    for i, geom in enumerate(geoms):
        buffered = geom.buffer(buffer_m)
        for j in tree.query(buffered, predicate="intersects"):
            j = int(j)
            if others is None and j <= i:
                continue
            length = float(shapely.length(shapely.intersection(targets[j].boundary, buffered))) / 1000.0
            if length > 0:
                out[(i, j)] = length
    return out


def measure_borders(codes: Sequence[str], geoms: Sequence[BaseGeometry], rule: BorderRule | None = None
                    ) -> BorderMeasure:
    """The border graph of ``rule`` (default: :func:`scaled_rule` of the geometries), with what it dropped."""
    rule = rule or scaled_rule(geoms)
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(codes)
    dropped = []
    for (i, j), km in sorted(border_lengths(geoms, buffer_m=rule.buffer_m).items()):
        if km > rule.min_km:
            graph.add_edge(codes[i], codes[j], km=_rounded(km, rule))
        else:
            dropped.append((codes[i], codes[j], round(km, 3)))
    return BorderMeasure(graph, rule, tuple(sorted(dropped, key=lambda d: (-d[2], d[0], d[1]))))


def _rounded(km: float, rule: BorderRule) -> float:
    """Border lengths to 0.1 km (the built-in atlases' files), finer where the rule is finer than 1 km."""
    return round(km, 1) if rule.min_km >= 1.0 else round(km, 3)


def border_graph(
    codes: Sequence[str],
    geoms: Sequence[BaseGeometry],
    min_km: float | None = None,
    buffer_m: float | None = None,
) -> nx.Graph:
    """Graph with one node per code and an edge (attribute ``km``) for each border; the rule is
    :func:`scaled_rule`'s unless ``min_km`` / ``buffer_m`` fix it."""
    rule = scaled_rule(geoms)
    if min_km is not None or buffer_m is not None:
        rule = BorderRule(rule.min_km if min_km is None else min_km, rule.buffer_m if buffer_m is None else buffer_m)
    return measure_borders(codes, geoms, rule).graph
