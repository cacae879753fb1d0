"""Region names in other languages: ``data/atlas/names_<language>.yaml`` (one file per language).

A names file covers one built-in country: the canonical name of every region in the language (used in question
texts and as the canonical answer), other accepted spellings, short map labels (Chinese one-character 简称),
the names of the neighbouring countries (for "bordering <country>" groups) and of the curated groups. Each file's
header cites its sources. English names stay in ``regions_<country>.yaml``; ``en`` needs no file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mapgen.caches import memo
from mapgen.resources import data_path
from mapgen.yamlio import safe_load

#: Languages questions can be asked in (code -> name); ``en`` is the atlases' own language.
LANGUAGES: dict[str, str] = {"en": "English", "hi": "Hindi", "zh": "Chinese (Simplified)", "es": "Spanish"}
DEFAULT_LANGUAGE = "en"
_BORDERING = "bordering "


class LanguageError(ValueError):
    """A language that is unknown or has no names for a country (the message names the choices)."""


@dataclass(frozen=True)
class NativeNames:
    """One country's names in one language (see the module docstring)."""

    language: str
    country: str
    names: dict[str, str]
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    countries: dict[str, str] = field(default_factory=dict)
    groups: dict[str, str] = field(default_factory=dict)

    def name(self, code: str) -> str:
        """The region's canonical name in the language."""
        return self.names[code]

    def spellings(self, code: str) -> tuple[str, ...]:
        """The canonical name and every accepted native spelling."""
        return (self.names[code], *self.aliases.get(code, ()))

    def label(self, code: str) -> str | None:
        """A short label for the map (``None`` when the language has none for this region)."""
        return self.labels.get(code)

    def group(self, name: str) -> str:
        """The native name of a curated group or of a ``bordering <country>`` group's country."""
        if name in self.groups:
            return self.groups[name]
        if name.startswith(_BORDERING) and name[len(_BORDERING):] in self.countries:
            return self.countries[name[len(_BORDERING):]]
        raise LanguageError(f"names_{self.language}.yaml has no {LANGUAGES[self.language]} name for the group "
                            f"{name!r} of {self.country}; add it under 'groups:' or 'countries:'")

    def missing(self, codes: list[str], groups: list[str]) -> list[str]:
        """Regions and groups of an atlas this file does not name (empty when it covers them all)."""
        out = [f"region {c}" for c in codes if c not in self.names]
        for g in groups:
            try:
                self.group(g)
            except LanguageError:
                out.append(f"group {g!r}")
        return out


def names_file(language: str) -> Any:
    """The shipped names file of a language."""
    return data_path("atlas", f"names_{language}.yaml")


def check_language(language: str) -> str:
    """``language`` if it is one of :data:`LANGUAGES`, else a :class:`LanguageError` naming the choices."""
    if language not in LANGUAGES:
        raise LanguageError(f"unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
    return language


@memo(1024)
def native_names(language: str) -> NativeNames | None:
    """The names file of ``language`` (``None`` for English)."""
    if check_language(language) == DEFAULT_LANGUAGE:
        return None
    data = safe_load(names_file(language).read_text(encoding="utf-8"))
    return NativeNames(
        language=language,
        country=str(data["country"]),
        names={str(k): str(v) for k, v in data["names"].items()},
        aliases={str(k): tuple(map(str, v)) for k, v in (data.get("aliases") or {}).items()},
        labels={str(k): str(v) for k, v in (data.get("labels") or {}).items()},
        countries={str(k): str(v) for k, v in (data.get("countries") or {}).items()},
        groups={str(k): str(v) for k, v in (data.get("groups") or {}).items()},
    )


def names_for(language: str, country: str) -> NativeNames | None:
    """The names of ``country`` in ``language`` (``None`` for English); a :class:`LanguageError` when the
    language has no names for that country."""
    names = native_names(language)
    if names is not None and names.country != country:
        raise LanguageError(f"language {language!r} ({LANGUAGES[language]}) has region names for "
                            f"{names.country} only, not {country}; use language: en for {country}")
    return names


def languages_for(country: str) -> list[str]:
    """The languages a built-in country can be asked in."""
    return [lang for lang in LANGUAGES
            if lang == DEFAULT_LANGUAGE or ((names := native_names(lang)) is not None and names.country == country)]
