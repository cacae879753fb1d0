"""Land-border graph from polygons: shared boundary length after a small buffer (ARCHITECTURE.md §3).

Rule: in an equal-area projection (metres), buffer each polygon by ``buffer_m`` and measure how much of the
other polygon's boundary lies inside the buffer; more than ``min_km`` is a border. Point contacts such as the
Four Corners (~1 km after buffering) are not borders.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import shapely
from shapely.geometry.base import BaseGeometry

BUFFER_M = 500.0
MIN_BORDER_KM = 5.0


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


def border_graph(
    codes: Sequence[str],
    geoms: Sequence[BaseGeometry],
    min_km: float = MIN_BORDER_KM,
    buffer_m: float = BUFFER_M,
) -> nx.Graph:
    """Graph with one node per code and an edge (attribute ``km``) for each border longer than ``min_km``."""
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(codes)
    for (i, j), km in border_lengths(geoms, buffer_m=buffer_m).items():
        if km > min_km:
            graph.add_edge(codes[i], codes[j], km=round(km, 1))
    return graph
