"""Name matching: normalisation of region/group names and 'did you mean' errors."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from mapgen.suggest import MATCHES, close_matches, suggestion


class UnknownNameError(LookupError):
    """A name that matches nothing; ``matches`` holds the closest known names, ``valid`` the names listed when
    none is close (the message is :func:`mapgen.suggest.suggestion`'s), ``fix`` what else to do."""

    def __init__(self, kind: str, name: str, matches: list[str], scope: str = "", valid: Iterable[str] = (),
                 fix: str = "") -> None:
        self.kind, self.name, self.matches, self.valid = kind, name, matches, list(valid)
        where = f" in {scope}" if scope else ""
        tail = f"; {fix}" if fix else ""
        super().__init__(f"Unknown {kind} {name!r}{where}{suggestion(matches, self.valid)}{tail}")

    def __str__(self) -> str:  # LookupError would otherwise repr() the message
        return self.args[0]


class UnknownRegionError(UnknownNameError):
    """Raised for a region name, code or alias that resolves to nothing."""

    def __init__(self, name: str, matches: list[str], scope: str = "", valid: Iterable[str] = ()) -> None:
        super().__init__("region", name, matches, scope, valid)


def normalize_name(name: str) -> str:
    """Case-, accent-, punctuation- and space-insensitive key (``"Jammu & Kashmir"`` → ``"jammuandkashmir"``)."""
    text = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode().lower()
    text = text.replace("&", "and")
    return re.sub(r"[^a-z0-9]+", "", text)


def closest(name: str, candidates: Iterable[str], n: int = MATCHES) -> list[str]:
    """Closest candidate spellings to ``name``, best first (:func:`mapgen.suggest.close_matches` on
    :func:`normalize_name` keys: case-, accent- and punctuation-insensitive)."""
    return close_matches(name, candidates, n, key=normalize_name)


def closest_entries(name: str, spellings: Mapping[str, str], n: int = MATCHES) -> list[str]:
    """:func:`closest` spellings, the best one of each entry only (``spellings``: spelling → its entry's key, so
    ``Texsa`` suggests ``Texas`` and not also its alias ``Tex.``)."""
    best: dict[str, str] = {}
    for spelling in closest(name, spellings, len(spellings)):
        best.setdefault(spellings[spelling], spelling)
    return list(best.values())[:n]


def build_index(entries: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """Map every normalised spelling to its key; raises on a spelling claimed by two keys."""
    index: dict[str, str] = {}
    for key, spellings in entries.items():
        for spelling in spellings:
            norm = normalize_name(spelling)
            if index.get(norm, key) != key:
                raise ValueError(f"Ambiguous name {spelling!r}: used for both {index[norm]} and {key}.")
            index[norm] = key
    return index
