"""MAPWise's own spellings and typos (``data/mapwise_aliases.yaml``) as extra aliases per country, and the named
groups its questions use that the atlases lack (``data/mapwise_groups.yaml``, each with its source)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mapgen.caches import memo
from mapgen.geo.gazetteer import RegionGroup
from mapgen.geo.names import normalize_name
from mapgen.resources import data_path
from mapgen.yamlio import safe_load


@dataclass(frozen=True)
class MapwiseAliases:
    """Extra spellings: region aliases and group aliases per country, word typos and country adjectives for every
    country."""

    regions: dict[str, dict[str, str]] = field(default_factory=dict)  # country -> normalised alias -> region
    groups: dict[str, dict[str, str]] = field(default_factory=dict)  # country -> normalised alias -> group
    words: dict[str, str] = field(default_factory=dict)  # lower-case typo -> word
    demonyms: dict[str, str] = field(default_factory=dict)  # lower-case adjective -> country ("canadian" -> Canada)
    texts: dict[str, tuple[str, ...]] = field(default_factory=dict)  # normalised alias -> the alias as written

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
    texts: dict[str, tuple[str, ...]] = {}
    for c in countries:
        for kind in ("regions", "groups"):
            for r in (data[c] or {}).get(kind) or ():
                key = normalize_name(r["alias"])
                texts[key] = (*texts.get(key, ()), str(r["alias"]))
    return MapwiseAliases(
        regions={c: _entries((data[c] or {}).get("regions"), "region") for c in countries},
        groups={c: _entries((data[c] or {}).get("groups"), "group") for c in countries},
        words=words,
        demonyms=demonyms,
        texts=texts,
    )


@memo(1024)
def load_aliases(path: str | None = None) -> MapwiseAliases:
    """The shipped alias file (or another file with the same structure)."""
    text = Path(path).read_text(encoding="utf-8") if path else data_path("mapwise_aliases.yaml").read_text(
        encoding="utf-8")
    return aliases_from_data(safe_load(text) or {})


# ---------------------------------------------------------------------------------------------- curated groups

GROUP_KEYS = frozenset({"name", "aliases", "members", "kind", "source", "note"})
"""Keys a curated group of ``data/mapwise_groups.yaml`` may have (``name``, ``members``, ``kind``, ``source``
are required)."""


def groups_from_data(data: dict[str, Any]) -> dict[str, tuple[RegionGroup, ...]]:
    """Country -> its curated MAPWise groups (members as written: base-atlas codes)."""
    return {
        country: tuple(
            RegionGroup(name=str(g["name"]), members=frozenset(str(m) for m in g["members"]),
                        aliases=tuple(str(a) for a in g.get("aliases") or ()), kind=str(g["kind"]),
                        source=" ".join(str(g["source"]).split()), note=" ".join(str(g.get("note", "")).split()))
            for g in records or ()
        )
        for country, records in data.items()
    }


def lint_groups(data: dict[str, Any], codes: dict[str, set[str]]) -> list[str]:
    """Problems of a curated-groups structure: missing or unknown keys, no source, members that are not region
    codes of the country (``codes``: country -> base-atlas codes), a name or alias given twice."""
    problems = []
    for country, records in data.items():
        seen: set[str] = set()
        for g in records or ():
            name = g.get("name", "?") if isinstance(g, dict) else "?"
            if not isinstance(g, dict) or not {"name", "members", "kind", "source"} <= set(g) <= GROUP_KEYS:
                problems.append(f"{country} {name}: keys must be {sorted(GROUP_KEYS)} (name, members, kind, source "
                                "required)")
                continue
            if not str(g["source"]).strip():
                problems.append(f"{country} {name}: no source")
            unknown = sorted(set(map(str, g["members"])) - codes.get(country, set()))
            if unknown or not g["members"]:
                problems.append(f"{country} {name}: members {unknown or '[]'} are not region codes")
            for label in [g["name"], *(g.get("aliases") or ())]:
                key = normalize_name(str(label))
                if key in seen:
                    problems.append(f"{country} {name}: {label!r} listed twice")
                seen.add(key)
    return problems


@memo(1024)
def load_groups(path: str | None = None) -> dict[str, tuple[RegionGroup, ...]]:
    """The shipped curated MAPWise groups (``data/mapwise_groups.yaml``, or another file with its structure)."""
    text = Path(path).read_text(encoding="utf-8") if path else data_path("mapwise_groups.yaml").read_text(
        encoding="utf-8")
    return groups_from_data(safe_load(text) or {})
