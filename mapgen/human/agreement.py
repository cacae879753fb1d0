"""Agreement between annotators: Fleiss' kappa with a bootstrap interval (a small implementation: statsmodels'
``fleiss_kappa`` is the same formula, but mapgen does not depend on statsmodels).

Fleiss (1971): ``N`` items each rated by the same ``n`` raters into categories; ``n_ij`` raters put item ``i`` in
category ``j``. Per item agreement ``P_i = (Σ_j n_ij² − n) / (n (n − 1))``, observed ``P̄ = mean P_i``; chance
``P_e = Σ_j p_j²`` with ``p_j = Σ_i n_ij / (N n)``; ``κ = (P̄ − P_e) / (1 − P_e)``. Open answers (names, counts,
lists) are categories too: each distinct canonical answer is one, pooled over the items, so chance agreement on
them is small and κ comes close to the observed agreement.

The 95 % interval resamples items with replacement (:data:`KAPPA_SAMPLES` times, seeded), percentile method.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import numpy as np

KAPPA_SAMPLES = 1000
"""Bootstrap resamples of the items for the kappa interval."""


def count_matrix(ratings: Sequence[Sequence[str]]) -> np.ndarray:
    """``N × C`` counts: how many raters put item ``i`` into category ``j`` (categories in sorted order)."""
    categories = sorted({r for item in ratings for r in item})
    index = {c: j for j, c in enumerate(categories)}
    counts = np.zeros((len(ratings), len(categories)), dtype=float)
    for i, item in enumerate(ratings):
        for r in item:
            counts[i, index[r]] += 1
    return counts


def _kappa_from(weights: np.ndarray, counts: np.ndarray, raters: int) -> np.ndarray:
    """κ of each row of ``weights`` (how often each item is drawn) over the items' ``counts``."""
    per_item = ((counts**2).sum(axis=1) - raters) / (raters * (raters - 1))
    total = weights.sum(axis=1, keepdims=True)
    observed = (weights @ per_item) / total[:, 0]
    shares = (weights @ counts) / (total * raters)
    chance = (shares**2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (observed - chance) / (1 - chance)
    return np.where(chance >= 1, np.where(observed >= 1, 1.0, np.nan), kappa)


def fleiss_kappa(ratings: Sequence[Sequence[str]]) -> float:
    """Fleiss' kappa of ``ratings`` (one list of category labels per item, every item rated by the same number
    of raters, at least 2); NaN without items; 1 when every rater gave every item one and the same category."""
    raters = _raters(ratings)
    if not ratings:
        return math.nan
    counts = count_matrix(ratings)
    return float(_kappa_from(np.ones((1, len(ratings))), counts, raters)[0])


def kappa_interval(ratings: Sequence[Sequence[str]], seed: int = 0, key: str = "",
                   samples: int = KAPPA_SAMPLES) -> list[float]:
    """95 % percentile bootstrap interval of :func:`fleiss_kappa` (items resampled, seeded by ``seed`` and
    ``key``); ``[nan, nan]`` without items."""
    raters = _raters(ratings)
    if not ratings:
        return [math.nan, math.nan]
    counts = count_matrix(ratings)
    rng = np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])
    draws = rng.integers(0, len(ratings), size=(samples, len(ratings)))
    weights = np.zeros((samples, len(ratings)))
    np.add.at(weights, (np.arange(samples)[:, None], draws), 1.0)
    lo, hi = np.nanpercentile(_kappa_from(weights, counts, raters), [2.5, 97.5])
    return [float(lo), float(hi)]


def _raters(ratings: Sequence[Sequence[str]]) -> int:
    sizes = {len(item) for item in ratings}
    if len(sizes) > 1:
        raise ValueError(f"Fleiss' kappa needs the same number of raters per item, got {sorted(sizes)}")
    raters = sizes.pop() if sizes else 2
    if raters < 2:
        raise ValueError("Fleiss' kappa needs at least 2 raters per item")
    return raters
