"""MAPWise's own spellings and typos (``data/mapwise_aliases.yaml``) as extra aliases per country."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from mapgen.geo.names import normalize_name
from mapgen.resources import data_path


@dataclass(frozen=True)
class MapwiseAliases:
    """Extra spellings: region aliases and group aliases per country, word typos and country adjectives for every
    country."""

    regions: dict[str, dict[str, str]] = field(default_factory=dict)  # country -> normalised alias -> region
    groups: dict[str, dict[str, str]] = field(default_factory=dict)  # country -> normalised alias -> group
    words: dict[str, str] = field(default_factory=dict)  # lower-case typo -> word
    demonyms: dict[str, str] = field(default_factory=dict)  # lower-case adjective -> country ("canadian" -> Canada)

    def region(self, country: str, text: str) -> str | None:
        """The atlas spelling (code or name) a MAPWise spelling stands for, if listed."""
        return self.regions.get(country, {}).get(normalize_name(text))

    def group(self, country: str, text: str) -> str | None:
        """The atlas group name a MAPWise group phrase stands for, if listed."""
        return self.groups.get(country, {}).get(normalize_name(text))


def _entries(records: list[dict[str, Any]] | None, target: str) -> dict[str, str]:
    return {normalize_name(r["alias"]): str(r[target]) for r in records or ()}


def aliases_from_data(data: dict[str, Any]) -> MapwiseAliases:
    """Build from the YAML structure (``words:`` and ``demonyms:`` lists; per country ``regions:``/``groups:``
    lists)."""
    words = {str(r["alias"]).lower(): str(r["word"]) for r in data.get("words") or ()}
    demonyms = {str(r["adjective"]).lower(): str(r["country"]) for r in data.get("demonyms") or ()}
    countries = [k for k in data if k not in ("words", "demonyms")]
    return MapwiseAliases(
        regions={c: _entries((data[c] or {}).get("regions"), "region") for c in countries},
        groups={c: _entries((data[c] or {}).get("groups"), "group") for c in countries},
        words=words,
        demonyms=demonyms,
    )


@cache
def load_aliases(path: str | None = None) -> MapwiseAliases:
    """The shipped alias file (or another file with the same structure)."""
    text = Path(path).read_text(encoding="utf-8") if path else data_path("mapwise_aliases.yaml").read_text(
        encoding="utf-8")
    return aliases_from_data(yaml.safe_load(text) or {})
