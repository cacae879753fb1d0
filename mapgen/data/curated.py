"""Curated real statistics shipped in ``data/stats/`` (package ``mapgen._data``).

Layout: ``data/stats/catalog.yaml`` (one entry per table), the built-in atlases (the region codes
each country's tables cover) and ``data/stats/<country>/<stat_id>.csv`` with columns ``code,value[,note]``.
An empty ``value`` means "missing on purpose" (listed under ``missing`` in the catalogue) and loads as NaN.

>>> stat = load_curated("usa", "population_2020")
>>> stat.values["CA"], stat.unit, stat.percent
(39538223.0, 'people', False)
"""

from __future__ import annotations

import io

import pandas as pd

from mapgen.caches import memo
from mapgen.data.statistic import StatInfo, Statistic
from mapgen.resources import data_path
from mapgen.suggest import did_you_mean
from mapgen.yamlio import load_shipped

__all__ = ["StatInfo", "Statistic", "countries", "list_stats", "load_curated", "region_codes"]

_REQUIRED = ("id", "country", "title", "unit", "kind", "year", "source")


def _suggest(what: str, given: str, valid: list[str]) -> ValueError:
    return ValueError(f"unknown {what} {given!r}{did_you_mean(given, valid)}")


class _Regions(dict):
    """Region codes per country, each read from its built-in atlas (the one source of codes) when first asked
    for, once per process: a render of one country does not load the other atlases."""

    def __missing__(self, country: str) -> tuple[str, ...]:
        from mapgen.geo.atlas import shipped_atlas

        if country not in self.names:
            raise KeyError(country)
        self[country] = shipped_atlas(country).codes
        return self[country]

    @property
    def names(self) -> tuple[str, ...]:
        from mapgen.geo.atlas import list_atlases

        return tuple(list_atlases())

    def __iter__(self):
        return iter(self.names)

    def __contains__(self, country: object) -> bool:
        return country in self.names


@memo(1024)
def _regions() -> _Regions:
    """Region codes per country (:class:`_Regions`: read lazily)."""
    return _Regions()


@memo(1)
def _catalog() -> tuple[StatInfo, ...]:
    raw = load_shipped(data_path("stats", "catalog.yaml").read_text(encoding="utf-8"))
    infos = []
    for entry in raw:
        absent = [k for k in _REQUIRED if entry.get(k) in (None, "")]
        if absent:
            raise ValueError(f"catalog entry {entry.get('id')!r} lacks {absent}")
        infos.append(
            StatInfo(
                id=str(entry["id"]),
                country=str(entry["country"]),
                title=str(entry["title"]),
                unit=str(entry["unit"]),
                kind=entry["kind"],
                year=int(entry["year"]),
                source=str(entry["source"]),
                notes=str(entry.get("notes", "")),
                missing=tuple(entry.get("missing") or ()),
            )
        )
    return tuple(infos)


def _norm_country(country: str) -> str:
    key = country.strip().lower()
    valid = list(_regions())
    if key not in valid:
        raise _suggest("country", country, valid)
    return key


def countries() -> list[str]:
    """Countries with curated tables (``usa``, ``india``, ``china``)."""
    return list(_regions())


def region_codes(country: str) -> list[str]:
    """The region codes every curated table of ``country`` covers, in catalogue order."""
    return list(_regions()[_norm_country(country)])


def list_stats(country: str | None = None) -> list[StatInfo]:
    """Metadata of all curated tables, optionally for one country."""
    if country is None:
        return list(_catalog())
    key = _norm_country(country)
    return [info for info in _catalog() if info.country == key]


def _info(country: str, stat_id: str) -> StatInfo:
    key = _norm_country(country)
    by_id = {info.id: info for info in list_stats(key)}
    if stat_id not in by_id:
        raise _suggest(f"statistic for {key}", stat_id, sorted(by_id))
    return by_id[stat_id]


@memo(1024)
def _read_values(country: str, stat_id: str) -> pd.Series:
    info = _info(country, stat_id)
    text = data_path("stats", country, f"{stat_id}.csv").read_text(encoding="utf-8")
    frame = pd.read_csv(
        io.StringIO(text), dtype={"code": str}, keep_default_na=False, na_values={"value": [""]}
    )
    if list(frame.columns[:2]) != ["code", "value"]:
        raise ValueError(
            f"{country}/{stat_id}.csv: first columns must be code,value; got {list(frame.columns)}"
        )
    codes = list(frame["code"].str.strip())
    expected = _regions()[country]
    extra, absent = sorted(set(codes) - set(expected)), sorted(set(expected) - set(codes))
    if extra or absent or len(codes) != len(set(codes)):
        raise ValueError(
            f"{country}/{stat_id}.csv: extra codes {extra}, missing rows {absent}, or duplicates"
        )
    values = pd.Series(pd.to_numeric(frame["value"]).to_numpy(dtype=float), index=codes)
    values = values.reindex(list(expected))
    nan_codes = set(values.index[values.isna()])
    if nan_codes != set(info.missing):
        raise ValueError(
            f"{country}/{stat_id}.csv: empty values {sorted(nan_codes)} differ from the catalogue's "
            f"missing list {sorted(info.missing)}"
        )
    values.name = stat_id
    values.index.name = "code"
    return values


def load_curated(country: str, stat_id: str) -> Statistic:
    """Load one curated table as a :class:`Statistic` (values indexed by region code, NaN = missing on purpose).

    Raises ``ValueError`` naming close matches and the valid choices for an unknown country or stat id.
    """
    info = _info(country, stat_id)
    return Statistic(values=_read_values(info.country, info.id).copy(), info=info)
