"""The Statistic: a pandas Series of values by region code plus its metadata.

Every source of statistics (curated real tables, user CSVs, the synthetic generator) returns a
:class:`Statistic`, so everything downstream (legend, scene, questions) sees one shape of data.
Missing regions are explicit: they are present in the index with a NaN value, never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd

from mapgen.errors import listing

Kind = Literal["absolute", "percent"]
KINDS: tuple[str, ...] = ("absolute", "percent")


@dataclass(frozen=True)
class StatInfo:
    """Metadata of one statistic (one row of a catalogue).

    ``kind`` is ``"percent"`` for shares bounded by 0-100 and ``"absolute"`` for everything else
    (counts, areas, densities, money, signed rates of change). ``missing`` lists the region codes left
    empty on purpose; ``notes`` says why and how splits/derivations were made.
    """

    id: str
    country: str
    title: str
    unit: str
    kind: Kind
    year: int | None = None
    source: str = ""
    notes: str = ""
    missing: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        object.__setattr__(self, "missing", tuple(self.missing))

    @property
    def percent(self) -> bool:
        """True for percentage (share) statistics."""
        return self.kind == "percent"

    @property
    def display_title(self) -> str:
        """The title a map prints: ``title``, then ``, year`` and ``(unit)`` unless the title already says them
        ("GDP per capita, 2022 (yuan)"; "Electoral votes, 2024 and 2028 elections" already names its unit)."""
        return with_year_and_unit(self.title, self.year, self.unit)


def with_year_and_unit(title: str, year: Any, unit: str, year_format: str = "{title}, {year}",
                       unit_format: str = "{title} ({unit})") -> str:
    """``title`` with ``year`` and ``unit`` added by the formats, each unless the title already says it."""
    text = title
    if year and str(year) not in text:
        text = year_format.format(title=text, year=year)
    if unit and not shows_unit(text, unit):
        text = unit_format.format(title=text, unit=unit)
    return text


def shows_unit(title: str, unit: str) -> bool:
    """True when ``unit`` appears in ``title`` as a whole word (case-insensitive); "%" anywhere counts."""
    if not unit:
        return False
    return re.search(rf"(?<!\w){re.escape(unit)}(?!\w)", title, re.IGNORECASE) is not None


@dataclass(frozen=True, eq=False)
class Statistic:
    """Values by region code (float Series named after the stat id, NaN = missing) plus metadata."""

    values: pd.Series
    info: StatInfo = field(repr=False)

    def __post_init__(self) -> None:
        values = pd.Series(self.values, dtype=float, copy=True)
        values.index = pd.Index([str(code) for code in values.index], name="code")
        if values.index.has_duplicates:
            dupes = sorted(set(values.index[values.index.duplicated()]))
            raise ValueError(f"duplicate region codes in statistic {self.info.id!r}: {listing(dupes)}; give each "
                             "region one value")
        if np.isinf(values.to_numpy()).any():
            raise ValueError(f"statistic {self.info.id!r} has infinite values")
        values.name = self.info.id
        object.__setattr__(self, "values", values)

    # -- convenience accessors -------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.info.id

    @property
    def country(self) -> str:
        return self.info.country

    @property
    def title(self) -> str:
        return self.info.title

    @property
    def unit(self) -> str:
        return self.info.unit

    @property
    def kind(self) -> Kind:
        return self.info.kind

    @property
    def percent(self) -> bool:
        return self.info.percent

    @property
    def year(self) -> int | None:
        return self.info.year

    @property
    def source(self) -> str:
        return self.info.source

    @property
    def codes(self) -> list[str]:
        """All region codes, including those with missing values."""
        return list(self.values.index)

    @property
    def missing(self) -> list[str]:
        """Region codes whose value is NaN."""
        return list(self.values.index[self.values.isna()])

    @property
    def present(self) -> pd.Series:
        """The non-missing values (a copy)."""
        return self.values.dropna()

    def with_values(self, values: pd.Series, **info_changes: Any) -> Statistic:
        """A new Statistic with other values (e.g. a counterfactual) and optionally changed metadata."""
        info = replace(self.info, **info_changes) if info_changes else self.info
        return Statistic(values=values, info=info)

    def __repr__(self) -> str:
        return (
            f"Statistic({self.info.country}/{self.info.id}: {self.info.title!r}, {self.info.unit}, "
            f"{self.info.kind}, {self.info.year}, n={len(self.values)}, missing={len(self.missing)})"
        )
