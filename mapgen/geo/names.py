"""Name matching: normalisation of region/group names and 'did you mean' errors."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping


class UnknownNameError(LookupError):
    """A name that matches nothing; ``matches`` holds the closest known names."""

    def __init__(self, kind: str, name: str, matches: list[str], scope: str = "") -> None:
        self.kind, self.name, self.matches = kind, name, matches
        where = f" in {scope}" if scope else ""
        hint = f" Did you mean: {', '.join(matches)}?" if matches else ""
        super().__init__(f"Unknown {kind} {name!r}{where}.{hint}")

    def __str__(self) -> str:  # LookupError would otherwise repr() the message
        return self.args[0]


class UnknownRegionError(UnknownNameError):
    """Raised for a region name, code or alias that resolves to nothing."""

    def __init__(self, name: str, matches: list[str], scope: str = "") -> None:
        super().__init__("region", name, matches, scope)


def normalize_name(name: str) -> str:
    """Case-, accent-, punctuation- and space-insensitive key (``"Jammu & Kashmir"`` → ``"jammuandkashmir"``)."""
    text = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode().lower()
    text = text.replace("&", "and")
    return re.sub(r"[^a-z0-9]+", "", text)


def closest(name: str, candidates: Iterable[str], n: int = 5) -> list[str]:
    """Closest candidate spellings to ``name`` (by normalised similarity), best first."""
    pool = {normalize_name(c): c for c in candidates}
    keys = difflib.get_close_matches(normalize_name(name), list(pool), n=n, cutoff=0.5)
    return [pool[k] for k in keys]


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
