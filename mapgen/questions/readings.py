"""Declared readings: the facts and words a person may take more than one way, as data.

A *reading axis* (``direction``, ``superlative``, ``outlier``, ``majority``, ``mean``, ``percent``, …) names the
reading mapgen's definitions take (its ``default``) and the other readings a reader may take, each with its
source or reason. Alternative memberships of a named group (``Great Plains``: the 10-state province or the
5-state narrow usage) are readings too, on the axis ``group`` (keys ``group:<name>``): an atlas declares them in
its groups file (``alternatives:``), a pack in its ``readings.yaml``.

Question functions ask the :class:`~mapgen.questions.reading.Reading` which reading is in force
(:meth:`~mapgen.questions.reading.Reading.meaning`); that records the axis as consulted. The engine keeps a
question only when its answer is the same under every alternative of every axis its program consulted, unless
the template's wording names one reading (``reads_as: {axis: reading}``); a refusal is an ``Unaskable`` of kind
``reading`` whose reason starts ``reading:<axis>``.

The one door: :func:`load_readings_file` (a ``readings.yaml``; mapgen's own is ``templates/readings.yaml``,
loaded by the same function) and :func:`declare_axis` / :func:`declare_group_alternative` from Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mapgen.geo.gazetteer import GroupAlternative
from mapgen.resources import template_path

#: The axis of alternative group memberships; a group's consulted key is ``group:<group name>``.
GROUP_AXIS = "group"
#: The file of mapgen's own axes (``templates/readings.yaml``).
BUILTIN_FILE = "readings.yaml"


@dataclass(frozen=True)
class ReadingChoice:
    """One reading of an axis: its name, where it comes from, and why a reader may take it."""

    name: str
    source: str
    reason: str = ""


@dataclass(frozen=True)
class Axis:
    """A fact or word with more than one reading: mapgen's (``default``) and a reader's (``alternatives``)."""

    name: str
    default: ReadingChoice
    alternatives: tuple[ReadingChoice, ...]
    words: tuple[str, ...] = ()
    origin: str = ""  # the file that declared it

    @property
    def names(self) -> tuple[str, ...]:
        """Every reading's name, the default first."""
        return (self.default.name, *(a.name for a in self.alternatives))


_AXES: dict[str, Axis] = {}
_GROUPS: dict[tuple[str, str], tuple[GroupAlternative, ...]] = {}  # (country, group name) -> declared by packs
_LOADED: set[str] = set()


class ReadingsError(ValueError):
    """A readings file or declaration that cannot be used (the message names the problem and the fix)."""


def declare_axis(axis: Axis) -> None:
    """Declare a reading axis (the same axis declared again is kept; another with its name is refused)."""
    if axis.name == GROUP_AXIS:
        raise ReadingsError(f"axis {GROUP_AXIS!r} is reserved for group memberships; declare them under 'groups:'")
    old = _AXES.get(axis.name)
    if old is not None and (old.default, old.alternatives) != (axis.default, axis.alternatives):
        raise ReadingsError(f"axis {axis.name!r} is already declared differently (by {old.origin or 'mapgen'}); "
                            "give yours another name")
    _AXES.setdefault(axis.name, axis)


def declare_group_alternative(country: str, group: str, alternative: GroupAlternative) -> None:
    """Declare another membership of the named group ``group`` of atlas ``country`` (a pack's door; an atlas
    declares its own in its groups file)."""
    known = _GROUPS.get((country, group), ())
    if alternative.name not in {a.name for a in known}:
        _GROUPS[(country, group)] = (*known, alternative)


def axes() -> Mapping[str, Axis]:
    """Every declared axis by name (mapgen's own loaded on first use)."""
    _builtin()
    return _AXES


def axis(name: str) -> Axis:
    """The axis ``name`` (a ReadingsError names the declared ones when unknown)."""
    found = axes().get(name)
    if found is None:
        raise ReadingsError(f"unknown reading axis {name!r}; declared: {', '.join(sorted(_AXES)) or 'none'}")
    return found


def default_of(name: str) -> str:
    """The name of mapgen's reading of axis ``name``."""
    return axis(name).default.name


def group_alternatives(country: str, groups: Mapping[str, Any]) -> dict[str, dict[str, frozenset[str]]]:
    """Alternative memberships by group name (the atlas's ``alternatives`` and those packs declared for
    ``country``), each as alternative name -> members; groups without any are left out."""
    _builtin()
    out: dict[str, dict[str, frozenset[str]]] = {}
    for g in groups.values():
        alts = (*getattr(g, "alternatives", ()), *_GROUPS.get((country, g.name), ()))
        if alts:
            out[g.name] = {a.name: frozenset(a.members) for a in alts}
    return out


def axis_of(key: str) -> str:
    """The axis of a consulted key (``group:Great Plains`` -> ``group``)."""
    return GROUP_AXIS if key.startswith(GROUP_AXIS + ":") else key


def load_readings_file(path: str | Path) -> list[str]:
    """Declare the axes and group alternatives of a ``readings.yaml`` (once per file); the problems found, one
    line each (nothing is declared from a file with problems)."""
    path = Path(path)
    key = str(path.resolve())
    if key in _LOADED:
        return []
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        return [f"cannot read it: {type(exc).__name__}"]
    problems, parsed, groups = _parse(data, str(path))
    if problems:
        return problems
    for a in parsed:
        try:
            declare_axis(a)
        except ReadingsError as exc:
            problems.append(str(exc))
    for country, group, alt in groups:
        declare_group_alternative(country, group, alt)
    _LOADED.add(key)
    return problems


FILE_KEYS = {"axes", "groups"}
AXIS_KEYS = {"words", "default", "alternatives"}
CHOICE_KEYS = {"name", "source", "reason"}


def _parse(data: Any, origin: str) -> tuple[list[str], list[Axis], list[tuple[str, str, GroupAlternative]]]:
    if not isinstance(data, dict) or set(data) - FILE_KEYS:
        return [f"a readings file is a mapping with the keys {sorted(FILE_KEYS)}"], [], []
    problems: list[str] = []
    parsed: list[Axis] = []
    for name, rec in (data.get("axes") or {}).items():
        made, problem = _axis(str(name), rec, origin)
        if made is None:
            problems.append(problem)
        else:
            parsed.append(made)
    groups: list[tuple[str, str, GroupAlternative]] = []
    for country, by_group in (data.get("groups") or {}).items():
        for group, alts in (by_group or {}).items():
            for a in alts or ():
                if not isinstance(a, dict) or not a.get("name") or not a.get("members"):
                    problems.append(f"groups.{country}.{group}: each alternative needs a 'name' and 'members'")
                    continue
                members = frozenset(map(str, a["members"]))
                groups.append((str(country), str(group), GroupAlternative(str(a["name"]), members, str(a.get("source", "")))))
    return problems, parsed, groups


def _axis(name: str, rec: Any, origin: str) -> tuple[Axis | None, str]:
    """One axis record, or None and the problem."""
    if not isinstance(rec, dict) or set(rec) - AXIS_KEYS or "default" not in rec or not rec.get("alternatives"):
        return None, f"axis {name!r}: needs 'default' and a list of 'alternatives' (keys {sorted(AXIS_KEYS)})"
    choices = [rec["default"], *rec["alternatives"]]
    if any(not isinstance(c, dict) or set(c) - CHOICE_KEYS or not c.get("name") or not c.get("source") for c in choices):
        return None, f"axis {name!r}: each reading needs a 'name' and a 'source' (and may give a 'reason')"
    made = [ReadingChoice(str(c["name"]), _line(c["source"]), _line(c.get("reason", ""))) for c in choices]
    return Axis(name, made[0], tuple(made[1:]), tuple(str(w) for w in rec.get("words") or ()), origin), ""


def _line(text: Any) -> str:
    return " ".join(str(text).split())


def _builtin() -> None:
    if not _AXES:
        problems = load_readings_file(builtin_file())
        if problems:
            raise ReadingsError(f"{builtin_file()}: " + "; ".join(problems))


def builtin_file() -> Path:
    """mapgen's own readings file (``templates/readings.yaml``)."""
    return Path(str(template_path(BUILTIN_FILE)))
