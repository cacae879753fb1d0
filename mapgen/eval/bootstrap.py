"""95 % percentile bootstrap intervals of mean scores, shared by the eval report's tables and plots and the
task summaries (e.g. the gold tables'): items resampled with replacement :data:`BOOTSTRAP_SAMPLES` times, seeded by the run's
seed and the cell's key (so every cell has its own reproducible draw). Intervals are fractions (0-1), like the
scores they bound in ``summary.json``; tables and plots show both in %.

Memory: the resamples are drawn and reduced a block of rows at a time (:func:`resample_blocks`), so an interval
holds at most ``max(n, BLOCK)`` indices, never ``samples × n``; the draws are those of one ``samples × n`` draw
(numpy's generator yields the same stream however the draw is cut into rows)."""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterator
from typing import Any

BOOTSTRAP_SAMPLES = 200
"""Resamples per report cell for its 95 % bootstrap confidence interval."""

BLOCK = 1 << 18
"""Indices drawn at once by :func:`resample_blocks` (at least one resample's row)."""


def _rng(seed: int, key: str) -> Any:
    import numpy as np

    return np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])


def resample_rows(n: int, seed: int, key: str, samples: int = BOOTSTRAP_SAMPLES) -> Any:
    """``samples`` × ``n`` item indices drawn with replacement, seeded by ``seed`` and the cell's ``key``."""
    return _rng(seed, key).integers(0, n, size=(samples, n))


def resample_blocks(n: int, seed: int, key: str, samples: int = BOOTSTRAP_SAMPLES) -> Iterator[Any]:
    """The rows of :func:`resample_rows` (the same indices), a block of rows at a time."""
    rng, rows = _rng(seed, key), max(1, BLOCK // max(n, 1))
    for start in range(0, samples, rows):
        yield rng.integers(0, n, size=(min(rows, samples - start), n))


def resampled(values: Any, seed: int, key: str, stat: Callable[[Any], Any],
              samples: int = BOOTSTRAP_SAMPLES) -> Any:
    """``stat`` (rows of resampled values → one statistic per row) of every resample of ``values``."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    return np.concatenate([np.asarray(stat(x[idx]), dtype=float) for idx in resample_blocks(len(x), seed, key, samples)])


def mean_ci(values: Any, seed: int, key: str, samples: int = BOOTSTRAP_SAMPLES) -> list[float]:
    """95 % percentile bootstrap interval of the mean of per-item ``values``, in their unit (a score's interval is
    a fraction like the score it bounds, as ``summary.json`` stores both; displays write it in %)."""
    import numpy as np

    if not len(values):
        return [math.nan, math.nan]
    stats = resampled(values, seed, key, lambda rows: np.nanmean(rows, axis=1), samples)
    lo, hi = np.nanpercentile(stats, [2.5, 97.5])
    return [float(lo), float(hi)]
