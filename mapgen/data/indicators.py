"""Curated indicator names that title synthetic statistics (``data/stats/indicators.yaml``).

A synthetic table must read like a statistic ("Unemployment rate (%)"), never like its generator ("Synthetic
lognormal index"). :func:`pick_indicator` draws, seeded, one :class:`Indicator` whose kind matches the table and
whose plausible distributions include the table's; the indicator gives the title, the unit and the value range.
Money and other country-specific figures carry a unit and range per built-in country (``by_country``).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from mapgen.caches import memo
from mapgen.data.statistic import KINDS
from mapgen.resources import data_path
from mapgen.yamlio import safe_load

__all__ = ["Indicator", "indicators", "pick_indicator"]

#: The ends of an indicator's range move inward by up to this fraction of its span (seeded), so two tables of
#: one indicator do not share their exact extremes.
RANGE_JITTER = 0.15


@dataclass(frozen=True)
class Indicator:
    """One indicator as it applies to one country: title (no unit, no year), unit, kind, plausible range."""

    title: str
    unit: str
    kind: str
    low: float
    high: float
    distributions: tuple[str, ...]
    decimals: int | None = None


def _resolve(entry: dict[str, Any], country: str) -> Indicator | None:
    """The entry's indicator for ``country`` (None when it gives no unit/range there)."""
    local = (entry.get("by_country") or {}).get(country, {})
    unit, span = local.get("unit", entry.get("unit")), local.get("range", entry.get("range"))
    if unit is None or span is None:
        return None
    return Indicator(title=str(entry["title"]), unit=str(unit), kind=str(entry["kind"]), low=float(span[0]),
                     high=float(span[1]), distributions=tuple(entry["distributions"]), decimals=entry.get("decimals"))


@memo(1)
def _entries() -> tuple[dict[str, Any], ...]:
    raw = safe_load(data_path("stats", "indicators.yaml").read_text(encoding="utf-8"))
    for entry in raw:
        if entry.get("kind") not in KINDS or not entry.get("title") or not entry.get("distributions"):
            raise ValueError(f"indicators.yaml: entry {entry.get('title')!r} needs a title, kind and distributions")
    return tuple(raw)


def indicators(country: str) -> list[Indicator]:
    """Every indicator that applies to ``country`` (country-neutral ones plus its own ``by_country`` entries)."""
    return [ind for ind in (_resolve(e, country) for e in _entries()) if ind is not None]


def pick_indicator(country: str, kind: str, distribution: str, seed: int) -> tuple[Indicator, float, float]:
    """(indicator, low, high): a seeded choice among the indicators of ``kind`` that look like ``distribution``,
    with its range's ends moved inward by up to :data:`RANGE_JITTER` of the span."""
    fits = [i for i in indicators(country) if i.kind == kind and distribution in i.distributions]
    if not fits:
        raise ValueError(f"no indicator in indicators.yaml fits a {kind} {distribution} table for {country}; "
                         f"add one or pass a title and unit")
    rng = np.random.default_rng([seed, zlib.crc32(country.encode())])
    ind = fits[int(rng.integers(len(fits)))]
    span = ind.high - ind.low
    low, high = ind.low + rng.uniform(0, RANGE_JITTER) * span, ind.high - rng.uniform(0, RANGE_JITTER) * span
    return ind, low, high
