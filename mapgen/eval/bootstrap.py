"""95 % percentile bootstrap intervals of mean scores, shared by the eval report's tables and plots and the
task summaries (e.g. the gold tables'): items resampled with replacement :data:`BOOTSTRAP_SAMPLES` times, seeded by the run's
seed and the cell's key (so every cell has its own reproducible draw). Intervals are fractions (0-1), like the
scores they bound in ``summary.json``; tables and plots show both in %."""

from __future__ import annotations

import math
import zlib
from typing import Any

BOOTSTRAP_SAMPLES = 200
"""Resamples per report cell for its 95 % bootstrap confidence interval."""


def resample_rows(n: int, seed: int, key: str, samples: int = BOOTSTRAP_SAMPLES) -> Any:
    """``samples`` × ``n`` item indices drawn with replacement, seeded by ``seed`` and the cell's ``key``."""
    import numpy as np

    rng = np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])
    return rng.integers(0, n, size=(samples, n))


def mean_ci(values: Any, seed: int, key: str, samples: int = BOOTSTRAP_SAMPLES) -> list[float]:
    """95 % percentile bootstrap interval of the mean of per-item ``values``, in their unit (a score's interval is
    a fraction like the score it bounds, as ``summary.json`` stores both; displays write it in %)."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    if not len(x):
        return [math.nan, math.nan]
    lo, hi = np.nanpercentile(np.nanmean(x[resample_rows(len(x), seed, key, samples)], axis=1), [2.5, 97.5])
    return [float(lo), float(hi)]
