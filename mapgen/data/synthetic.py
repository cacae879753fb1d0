"""Seeded synthetic statistics with a chosen marginal distribution and spatial autocorrelation.

Method (one seed → one :class:`numpy.random.Generator`, so a table is reproducible per seed):

1. *Spatial pattern*: iid normal scores ε smoothed by a simultaneous autoregressive process along the atlas's
   border graph, z = (I − ρW)⁻¹ ε, with W the row-standardised adjacency matrix and ρ = ``spatial`` (capped at
   :data:`RHO_MAX` so the system stays invertible). Islands (no neighbours) keep their own ε.
2. *Marginal*: n values drawn iid from the chosen distribution, rescaled linearly so they span exactly
   ``[low, high]`` (the shape is kept; an affine map does not change it), rounded to ``decimals``.
3. *Join*: the sorted values are assigned in the rank order of z, so the marginal is exactly the sample of step 2
   and only the arrangement on the map carries the spatial structure.

Titles: a table is titled after a curated indicator (:mod:`mapgen.data.indicators`: "Unemployment rate", unit
"%") drawn with the seed among those of its kind that look like its distribution, and its values span a part of
that indicator's plausible range. The generator's parameters and the word "synthetic" stay in the metadata
(``id``, ``source``, ``notes``), never in the title.

``spatial=0`` is independent (Moran's I ≈ −1/(n−1)); larger values give smoother maps. :func:`morans_i` measures it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import networkx as nx
import numpy as np
import pandas as pd

from mapgen.data.indicators import pick_indicator
from mapgen.data.statistic import KINDS, StatInfo, Statistic
from mapgen.geo.atlas import Atlas, as_atlas

__all__ = ["DISTRIBUTIONS", "RHO_MAX", "default_range", "morans_i", "sar_scores", "synthesize", "weights"]

RHO_MAX = 0.99
#: Default [low, high] per kind when none is given.
DEFAULT_RANGES = {"absolute": (100.0, 100_000.0), "percent": (5.0, 95.0)}


def _uniform(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(0.0, 1.0, n)


def _normal(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.normal(0.0, 1.0, n)


def _lognormal(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.lognormal(0.0, 1.0, n)


def _heavy_tailed(rng: np.random.Generator, n: int) -> np.ndarray:
    """Pareto (Lomax) with tail index 1.2: a few regions dwarf the rest, as with population or GDP."""
    return rng.pareto(1.2, n)


def _bimodal(rng: np.random.Generator, n: int) -> np.ndarray:
    """Equal mixture of N(−2, 0.7) and N(2, 0.7): two well-separated groups of regions."""
    centre = np.where(rng.random(n) < 0.5, -2.0, 2.0)
    return centre + rng.normal(0.0, 0.7, n)


DISTRIBUTIONS: dict[str, Callable[[np.random.Generator, int], np.ndarray]] = {
    "lognormal": _lognormal,
    "uniform": _uniform,
    "normal": _normal,
    "heavy_tailed": _heavy_tailed,
    "bimodal": _bimodal,
}


# --- spatial weights ----------------------------------------------------------------------------------------


def weights(graph: nx.Graph, nodes: list[str]) -> np.ndarray:
    """Row-standardised adjacency matrix of ``nodes`` (rows of islands stay zero)."""
    # types-networkx types weight as str, but None (every edge counts 1) is documented and used here
    adj = nx.to_numpy_array(graph, nodelist=nodes, weight=None)  # type: ignore[call-overload]
    row = adj.sum(axis=1, keepdims=True)
    return np.divide(adj, row, out=np.zeros_like(adj), where=row > 0)


def morans_i(values: pd.Series, graph: nx.Graph) -> float:
    """Moran's I of ``values`` (indexed by node) on ``graph`` with row-standardised weights.

    I = n / S0 · (zᵀWz) / (zᵀz), z = deviations from the mean, S0 = sum of weights (one per non-island row).
    NaN values and nodes missing from the graph are left out. NaN when undefined (constant values, no edges).
    """
    values = values.dropna().astype(float)
    nodes = [str(c) for c in values.index if c in graph]
    z = values.loc[nodes].to_numpy() - values.loc[nodes].mean()
    w = weights(graph, nodes)
    s0, denom = w.sum(), float(z @ z)
    if len(nodes) < 2 or s0 == 0 or denom == 0:
        return math.nan
    return float(len(nodes) / s0 * (z @ w @ z) / denom)


def sar_scores(graph: nx.Graph, nodes: list[str], rho: float, rng: np.random.Generator) -> np.ndarray:
    """z = (I − ρW)⁻¹ ε with ε iid N(0, 1): a spatially autocorrelated score per node."""
    eps = rng.standard_normal(len(nodes))
    if rho == 0:
        return eps
    return np.linalg.solve(np.eye(len(nodes)) - rho * weights(graph, nodes), eps)


# --- the generator ------------------------------------------------------------------------------------------


def default_range(kind: str, low: float | None, high: float | None) -> tuple[float, float]:
    """Fill in ``low``/``high`` from :data:`DEFAULT_RANGES` and validate them."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    d_low, d_high = DEFAULT_RANGES[kind]
    low = d_low if low is None else float(low)
    high = d_high if high is None else float(high)
    if not (math.isfinite(low) and math.isfinite(high)) or low >= high:
        raise ValueError(f"need finite low < high (--low, --high), got low={low}, high={high}; give a smaller --low "
                         "or a larger --high")
    if kind == "percent" and not (low >= 0.0 and high <= 100.0):
        raise ValueError(f"percent tables need 0 <= low < high <= 100, got low={low}, high={high}")
    return low, high


def _default_decimals(kind: str, low: float, high: float) -> int:
    if kind == "percent":
        return 1
    return int(max(0, 2 - math.floor(math.log10(high - low))))


def _rescale(sample: np.ndarray, low: float, high: float) -> np.ndarray:
    span = sample.max() - sample.min()
    if span == 0:
        return np.full_like(sample, (low + high) / 2)
    return low + (sample - sample.min()) / span * (high - low)


def _labels(atlas: Atlas, seed: int, distribution: str, kind: str, title: str | None, unit: str | None,
            low: float | None, high: float | None) -> tuple[str, str, float | None, float | None, int | None]:
    """(title, unit, low, high, decimals): the caller's, else a seeded indicator's (its range when none given)."""
    if title is not None:
        return title, ("%" if kind == "percent" else "") if unit is None else unit, low, high, None
    ind, ind_low, ind_high = pick_indicator(atlas.name, kind, distribution, seed)
    if low is None and high is None:
        low, high = ind_low, ind_high
    return ind.title, ind.unit if unit is None else unit, low, high, ind.decimals


def synthesize(
    atlas: str | Atlas,
    seed: int,
    distribution: str = "lognormal",
    spatial: float = 0.0,
    kind: str = "absolute",
    low: float | None = None,
    high: float | None = None,
    decimals: int | None = None,
    title: str | None = None,
    unit: str | None = None,
    n_missing: int = 0,
    stat_id: str | None = None,
) -> Statistic:
    """A synthetic :class:`Statistic` over every region of ``atlas`` (see the module docstring for the method).

    Without a ``title``, the title, unit, range and rounding come from a seeded curated indicator (values span a
    part of its plausible range unless ``low``/``high`` are given). With a title, ``low``/``high`` default to
    100-100,000 (absolute) or 5-95 (percent) and ``decimals`` to 1 for percent and to about three significant
    digits of the range otherwise. ``n_missing`` regions (chosen by the seed) are left N/A.
    """
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"unknown distribution {distribution!r}; choose one of {', '.join(DISTRIBUTIONS)}")
    if not 0.0 <= spatial <= 1.0:
        raise ValueError(f"spatial must be between 0 (independent) and 1 (smooth), got {spatial}")
    atlas = as_atlas(atlas)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    title, unit, low, high, ind_decimals = _labels(atlas, seed, distribution, kind, title, unit, low, high)
    low, high = default_range(kind, low, high)
    decimals = int(decimals) if decimals is not None else (
        ind_decimals if ind_decimals is not None else _default_decimals(kind, low, high))
    nodes = list(atlas.codes)
    if len(nodes) < 2:
        raise ValueError(f"{atlas.source or atlas.title} has {len(nodes)} region(s); a synthetic statistic needs at "
                         "least 2 (a map compares regions): add regions, or exclude fewer")
    if not 0 <= n_missing <= len(nodes) - 2:
        raise ValueError(f"regions left N/A (--missing, n_missing=) must be between 0 and {len(nodes) - 2} (two "
                         f"regions keep values), got {n_missing}; give at most {len(nodes) - 2}")
    rng = np.random.default_rng(seed)
    scores = sar_scores(atlas.graph, nodes, min(spatial, RHO_MAX), rng)
    sample = np.sort(_rescale(DISTRIBUTIONS[distribution](rng, len(nodes)), low, high))
    values = np.empty(len(nodes))
    values[np.argsort(scores, kind="stable")] = np.round(sample, decimals)
    if n_missing:
        values[rng.choice(len(nodes), size=n_missing, replace=False)] = np.nan
    series = pd.Series(values, index=nodes, dtype=float)
    params = f"seed={seed}, distribution={distribution}, spatial={spatial:g}, range={low:g}-{high:g}"
    info = StatInfo(
        id=stat_id or f"synthetic_{distribution}_{seed}",
        country=atlas.name,
        title=title,
        unit=unit,
        kind=kind,  # type: ignore[arg-type]
        year=None,
        source=f"mapgen synthetic generator ({params})",
        notes=f"Synthetic: fresh values, never published, titled {title!r} ({unit}): " + params,
        missing=tuple(series.index[series.isna()]),
    )
    return Statistic(values=series, info=info)
