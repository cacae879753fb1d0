"""The published border lists of the built-in atlases and the pairs on which they and the map disagree.

``data/atlas/borders_<country>.yaml`` lists every region's neighbours and foreign countries as general
references publish them (see the file's header). A pair is *contested* (ARCHITECTURE.md §3) when the atlas's
border graph (overrides applied) and the published list disagree on it, or when the list's compiler was unsure
of it: a reader who knows the geography could dispute an answer that hinges on it, so no question does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mapgen.caches import memo
from mapgen.resources import data_path
from mapgen.yamlio import load_shipped

Pair = frozenset[str]


@dataclass(frozen=True)
class PublishedBorders:
    """One country's published border list (see the data file's header for its fields)."""

    country: str
    source: str
    neighbours: dict[str, tuple[str, ...]]
    foreign: dict[str, tuple[str, ...]]
    differences: dict[Pair, dict[str, Any]]
    unsure: dict[Pair, str]

    @property
    def pairs(self) -> set[Pair]:
        """Every published border as an unordered pair."""
        return {frozenset((a, b)) for a, ns in self.neighbours.items() for b in ns}

    def asymmetric(self) -> list[tuple[str, str]]:
        """``(a, b)`` where ``a`` lists ``b`` but ``b`` does not list ``a``."""
        return sorted((a, b) for a, ns in self.neighbours.items() for b in ns if a not in self.neighbours.get(b, ()))

    def contested(self, atlas_pairs: Iterable[Pair]) -> frozenset[Pair]:
        """The pairs on which ``atlas_pairs`` (the atlas's borders) and this list disagree, and the unsure ones."""
        return frozenset((set(atlas_pairs) ^ self.pairs) | set(self.unsure))


def has_published(country: str) -> bool:
    """Whether ``country`` ships a published border list."""
    return data_path("atlas", f"borders_{country}.yaml").is_file()


@memo(1024)
def load_published(country: str) -> PublishedBorders:
    """The published border list of a built-in atlas."""
    raw = load_shipped(data_path("atlas", f"borders_{country}.yaml").read_text(encoding="utf-8"))
    return PublishedBorders(
        country=raw["country"],
        source=" ".join(raw["source"].split()),
        neighbours={c: tuple(ns or ()) for c, ns in raw["neighbours"].items()},
        foreign={c: tuple(ns or ()) for c, ns in (raw.get("foreign") or {}).items()},
        differences={frozenset(d["pair"]): d for d in raw.get("differences") or []},
        unsure={frozenset(u["pair"]): u["note"] for u in raw.get("unsure") or []},
    )
