"""Gazetteer: the names of one atlas — region names, codes and aliases, neighbours and named groups — without
geometry. The :class:`~mapgen.geo.atlas_model.Atlas` builds one; a :class:`~mapgen.scene.Scene` carries it, so both
resolve names and groups by the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mapgen.geo.names import (
    UnknownNameError,
    UnknownRegionError,
    build_index,
    closest_entries,
    normalize_name,
)

_BORDERING = re.compile(
    r"^(?:states?\s+|provinces?\s+|regions?\s+)?(?:bordering|borders?|along(?:\s+the)?|adjacent\s+to|"
    r"neighbou?ring|neighbou?rs\s+of|sharing\s+a\s+border\s+with)\s+(?:the\s+)?(.+?)(?:\s+border)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GroupAlternative:
    """Another membership a reader may take for a named group (a documented narrower or broader usage): a
    declared reading (``mapgen.questions.readings``); no question's answer may hinge on it."""

    name: str
    members: frozenset[str]
    source: str = ""

    def without(self, drop: frozenset[str] | set[str]) -> GroupAlternative:
        """The alternative with some regions left out."""
        return GroupAlternative(self.name, self.members - drop, self.source)


@dataclass(frozen=True)
class RegionGroup:
    """A named set of regions (``"West Coast"``, ``"bordering Canada"``)."""

    name: str
    members: frozenset[str]
    aliases: tuple[str, ...] = ()
    kind: str = "region"
    source: str = ""
    note: str = ""
    alternatives: tuple[GroupAlternative, ...] = ()

    def without(self, drop: frozenset[str] | set[str]) -> RegionGroup:
        """The group with some regions left out (its alternatives too)."""
        return RegionGroup(self.name, self.members - drop, self.aliases, self.kind, self.source, self.note,
                           tuple(a.without(drop) for a in self.alternatives))


def foreign_groups(foreign: Mapping[str, Mapping[str, float]]) -> list[RegionGroup]:
    """One ``bordering <country>`` group per foreign country some region borders (countries sorted)."""
    countries = sorted({c for v in foreign.values() for c in v})
    return [
        RegionGroup(
            name=f"bordering {country}",
            members=frozenset(c for c, v in foreign.items() if country in v),
            aliases=(f"borders {country}", f"along the {country} border", f"{country} border"),
            kind="foreign_border",
            source="derived from Natural Earth geometry (border > 5 km)",
        )
        for country in countries
    ]


@dataclass(frozen=True)
class Gazetteer:
    """Names, aliases, neighbours and named groups of one atlas (do not mutate the mappings)."""

    title: str
    names: Mapping[str, str]  # code -> full name, atlas order
    aliases: Mapping[str, tuple[str, ...]]
    neighbors: Mapping[str, frozenset[str]]
    groups: Mapping[str, RegionGroup]  # canonical name -> group (curated, then foreign borders)
    index: dict[str, str] = field(init=False, repr=False, compare=False)
    group_index: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        spellings = {c: (c, n, *self.aliases.get(c, ())) for c, n in self.names.items()}
        object.__setattr__(self, "index", build_index(spellings))
        named = {g.name: (g.name, *g.aliases) for g in self.groups.values()}
        object.__setattr__(self, "group_index", build_index(named))

    # --- regions -------------------------------------------------------------------------------------
    def find(self, name: str) -> str | None:
        """Region code for a code, name or alias (case/space/accent-insensitive), or None: a plain look-up,
        without the 'did you mean' search :meth:`resolve` makes for an unknown name."""
        return self.index.get(normalize_name(name))

    def resolve(self, name: str) -> str:
        """Region code for a code, name or alias (case/space/accent-insensitive)."""
        code = self.find(name)
        if code is None:
            raise UnknownRegionError(str(name), closest_entries(name, self._all_spellings()), self.title,
                                     self.names.values())
        return code

    def _all_spellings(self) -> dict[str, str]:
        """Every spelling of a region (code, name, aliases) → its code."""
        return {s: c for c, n in self.names.items() for s in (c, n, *self.aliases.get(c, ()))}

    def name_of(self, code: str) -> str:
        """Full name of a region given by code, name or alias."""
        return self.names[self.resolve(code)]

    def spellings(self, code: str) -> tuple[str, ...]:
        """Every accepted spelling of a region: name, code, aliases."""
        code = self.resolve(code)
        return (self.names[code], code, *self.aliases.get(code, ()))

    # --- groups --------------------------------------------------------------------------------------
    def group_info(self, name: str) -> RegionGroup:
        """The group called ``name`` (aliases allowed); ``"bordering <region>"`` works for any region."""
        key = self.group_index.get(normalize_name(name))
        if key is not None:
            return self.groups[key]
        match = _BORDERING.match(name.strip())
        if match:
            target = match.group(1)
            key = self.group_index.get(normalize_name(f"bordering {target}"))
            if key is not None:
                return self.groups[key]
            if normalize_name(target) in self.index:
                code = self.resolve(target)
                return RegionGroup(
                    name=f"bordering {self.names[code]}",
                    members=self.neighbors[code],
                    kind="region_border",
                    source="derived from the border graph",
                )
        spellings = {s: g.name for g in self.groups.values() for s in (g.name, *g.aliases)}
        raise UnknownNameError("region group", name, closest_entries(name, spellings), self.title,
                              [g.name for g in self.groups.values()])

    def groups_of(self, code: str) -> frozenset[str]:
        """Canonical names of the named groups a region belongs to."""
        return frozenset(g.name for g in self.groups.values() if code in g.members)

    def without(self, codes: Iterable[str]) -> Gazetteer:
        """The gazetteer with some regions left out (groups left empty disappear)."""
        drop = frozenset(codes)
        groups = {}
        for g in self.groups.values():
            if g.members - drop:
                groups[g.name] = g.without(drop)
        return Gazetteer(
            title=self.title,
            names={c: n for c, n in self.names.items() if c not in drop},
            aliases={c: a for c, a in self.aliases.items() if c not in drop},
            neighbors={c: n - drop for c, n in self.neighbors.items() if c not in drop},
            groups=groups,
        )
