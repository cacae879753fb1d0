"""Words printed on the maps of a non-English build: statistic titles, units and legend words, as data.

One file per language, ``templates/lang/map/<lang>.yaml`` (beside the question texts ``templates/lang/<lang>.yaml``):

- ``statistics``: the title of each curated table (``<country>/<id>`` of ``data/stats/catalog.yaml``);
- ``indicators``: the title of each indicator that titles synthetic tables (``data/stats/indicators.yaml``);
- ``units``: each English unit those use → the language's unit;
- ``title``: how a title takes its year and unit (``"{title}, {year}"``, ``"{title} ({unit})"``; Chinese puts
  the year first, ``"{year}年{title}"``, and full-width brackets);
- ``legend``: the N/A key (``na``) and the format of a range whose bounds are words apart (``range``, e.g.
  ``"{lo} से {hi}"``; the legend grammar reads it back).

Numbers are never translated: legend labels, ticks and answers keep Arabic digits so the legend grammar reads
them. A statistic the file does not name (a user's table) keeps the title it was given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mapgen.caches import memo
from mapgen.data.statistic import StatInfo, with_year_and_unit
from mapgen.resources import template_path
from mapgen.yamlio import safe_load

__all__ = ["MapWords", "lint_map_words", "map_words", "map_words_file"]


@dataclass(frozen=True)
class MapWords:
    """The map words of one language (see the module docstring)."""

    language: str
    na: str
    range_format: str
    year_format: str
    unit_format: str
    statistics: dict[str, str]
    indicators: dict[str, str]
    units: dict[str, str]

    def stat_title(self, info: StatInfo) -> str | None:
        """The title of a statistic in the language (``None`` when the file does not name it)."""
        return self.statistics.get(f"{info.country}/{info.id}", self.indicators.get(info.title))

    def unit(self, unit: str) -> str:
        """A unit in the language; a ValueError naming the file when it has none."""
        if not unit:
            return ""
        if unit not in self.units:
            raise ValueError(f"templates/lang/map/{self.language}.yaml has no translation of the unit {unit!r}; "
                             f"add it under units:")
        return self.units[unit]

    def display_title(self, info: StatInfo) -> str | None:
        """The title a map of ``info`` prints in the language, with year and unit as
        :attr:`StatInfo.display_title` adds them (``None`` when the statistic is not named here)."""
        text = self.stat_title(info)
        if text is None:
            return None
        return with_year_and_unit(text, info.year, self.unit(info.unit), self.year_format, self.unit_format)


def map_words_file(language: str) -> Any:
    """The shipped map-words file of a language."""
    return template_path("lang", "map", f"{language}.yaml")


@memo(1024)
def map_words(language: str) -> MapWords:
    """The map words of ``language`` (a ValueError naming the file when there is none)."""
    path = map_words_file(language)
    if not path.is_file():
        raise ValueError(f"no map words for language {language!r}: add templates/lang/map/{language}.yaml")
    data = safe_load(path.read_text(encoding="utf-8"))
    return MapWords(
        language=language,
        na=str(data["legend"]["na"]),
        range_format=str(data["legend"]["range"]),
        year_format=str(data["title"]["year"]),
        unit_format=str(data["title"]["unit"]),
        statistics={str(k): str(v) for k, v in (data.get("statistics") or {}).items()},
        indicators={str(k): str(v) for k, v in (data.get("indicators") or {}).items()},
        units={str(k): str(v) for k, v in (data.get("units") or {}).items()},
    )


def lint_map_words(language: str) -> list[str]:
    """What the map words of ``language`` lack for its country (the one its region names cover): a title for
    every curated table and every indicator that applies there, every unit they use, the legend words."""
    from mapgen.data.curated import list_stats
    from mapgen.data.indicators import indicators
    from mapgen.geo.languages import native_names

    names = native_names(language)
    if names is None:
        raise ValueError(f"{language!r} has no native region names: its map words are the English defaults")
    words, country = map_words(language), names.country
    problems = [f"no title for the indicator {i.title!r}" for i in indicators(country)
                if i.title not in words.indicators]
    problems += [f"no title for the table {country}/{s.id}" for s in list_stats(country)
                 if f"{country}/{s.id}" not in words.statistics]
    units = sorted({i.unit for i in indicators(country)} | {s.unit for s in list_stats(country)})
    problems += [f"no translation of the unit {u!r}" for u in units if u and u not in words.units]
    if not words.na:
        problems.append("no N/A key (legend.na)")
    if "{lo}" not in words.range_format or "{hi}" not in words.range_format:
        problems.append(f"legend.range {words.range_format!r} needs {{lo}} and {{hi}}")
    return problems
