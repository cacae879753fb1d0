"""Normalisation of answer names, yes/no words and value ranges before scoring.

Names: :func:`normalize_answer_name` folds case and accents, turns ``&`` into ``and``, drops punctuation, a
leading ``the`` and a leading ``state of`` (also ``province``/``region``/``territory of``), keeping the spaces
between words (unlike :func:`mapgen.geo.names.normalize_name`, the atlas lookup key, which drops them).
:class:`AliasMap` maps every accepted spelling (full name, code, alias) of an answer item onto one key, so
``"CA"`` and ``"California"`` compare equal.

Numbers and ranges are read by the legend grammar (:mod:`mapgen.legend.grammar`: :func:`find_range`,
:func:`parse_number`); this module compares them (:func:`ranges_equal`, :func:`ranges_overlap`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import wraps
from typing import TypeVar

from mapgen.caches import memo
from mapgen.eval.native import NO_WORDS, YES_WORDS
from mapgen.legend.grammar import Range, strip_accents

T = TypeVar("T")


RANGE_REL_TOL = 1e-3
"""Relative tolerance used when comparing range bounds (labels are rounded, e.g. ``1.2M``)."""

RANGE_ABS_TOL = 1e-9

_YES = {"yes", "y", "true", "correct", "right"}
_NO = {"no", "n", "false", "incorrect", "wrong"}

_NUMBER_WORDS: dict[str, int] = {
    w: i
    for i, w in enumerate(
        (
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        )
    )
}
_NUMBER_WORDS["none"] = 0

# ---------------------------------------------------------------------------------------------- names


def text_cache(fn: Callable[[str], T]) -> Callable[[object], T]:
    """Cache a function of one string; other arguments are turned into their ``str`` first."""
    cached = memo(1 << 16)(fn)

    @wraps(fn)
    def call(text: object) -> T:
        return cached(text if isinstance(text, str) else str(text))

    return call


_LEADING_WORDS = re.compile(r"^(?:the\s+)?(?:(?:state|province|region|territory)\s+of\s+)?(?:the\s+)?")


_APOSTROPHES = re.compile(r"['’`]")
_PUNCT = re.compile(r"[^\w\s\u0900-\u0dff]|_")  # Indic vowel signs and viramas are marks, not punctuation
_SPACES = re.compile(r"\s+")


def _strip_latin_accents(text: str) -> str:
    """Accents off Latin letters (``Québec`` -> ``Quebec``); marks of other scripts (Devanagari ि, ं) stay."""
    if not any("\u0900" <= ch <= "\u0dff" for ch in text):
        return strip_accents(text)
    return "".join(strip_accents(ch) if ch < "\u0250" else ch for ch in text)


@text_cache
def normalize_answer_name(text: str) -> str:
    """Canonical comparison key for a region name, code, colour word or label in an answer (cached)."""
    s = text.lower() if text.isascii() else _strip_latin_accents(text).lower()
    s = _APOSTROPHES.sub("", s.replace("&", " and "))
    s = _SPACES.sub(" ", _PUNCT.sub(" ", s)).strip()
    return _LEADING_WORDS.sub("", s, count=1).strip()


@dataclass
class AliasMap:
    """Maps every accepted spelling onto the normalised canonical name it stands for."""

    lookup: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_aliases(cls, aliases: Mapping[str, Iterable[str]] | None, canon: Iterable[str] = ()) -> AliasMap:
        """Build from ``{canonical: [alternatives]}`` plus extra canonical names."""
        norm = normalize_answer_name
        lookup: dict[str, str] = {}
        for name in map(norm, map(str, canon)):
            lookup.setdefault(name, name)
        for name, alts in (aliases or {}).items():
            key = norm(str(name))
            lookup[key] = key
            for alt in map(norm, map(str, alts or ())):
                lookup.setdefault(alt, key)
        return cls(lookup)

    def canonical(self, text: str) -> str:
        """Normalised canonical key of ``text`` (its own normalised form when unknown)."""
        key = normalize_answer_name(text if isinstance(text, str) else str(text))
        return self.lookup.get(key, key)

    def canonical_set(self, items: Iterable[str]) -> set[str]:
        """Canonical keys of many items (empty strings dropped)."""
        get = self.lookup.get
        out = {get(k, k) for k in map(normalize_answer_name, map(str, items))}
        out.discard("")
        return out

    def names(self) -> list[str]:
        """Every known spelling (normalised)."""
        return list(self.lookup)


# ---------------------------------------------------------------------------------------------- words


_NATIVE_YES = frozenset(map(normalize_answer_name, YES_WORDS))
_NATIVE_NO = frozenset(map(normalize_answer_name, NO_WORDS))


def normalize_yes_no(value: object) -> str | None:
    """``"Yes"``/``"No"`` for a bool or a yes/no-like word, else ``None``."""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    word = normalize_answer_name(str(value))
    if word in _YES or word in _NATIVE_YES:
        return "Yes"
    if word in _NO or word in _NATIVE_NO:
        return "No"
    return None


def number_word(word: str) -> int | None:
    """Value of a number word zero..twenty (``None`` otherwise)."""
    return _NUMBER_WORDS.get(word.lower())


# ---------------------------------------------------------------------------------------------- ranges


def _bound_close(a: float | None, b: float | None, rel_tol: float, abs_tol: float) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)


def ranges_equal(a: Range, b: Range, rel_tol: float = RANGE_REL_TOL, abs_tol: float = RANGE_ABS_TOL) -> bool:
    """Both bounds equal (open ends must match; floats compared with a relative tolerance)."""
    return _bound_close(a[0], b[0], rel_tol, abs_tol) and _bound_close(a[1], b[1], rel_tol, abs_tol)


def ranges_overlap(a: Range, b: Range) -> bool:
    """True when the closed intervals share more than a touching endpoint.

    Open ends extend to ±infinity. Two ranges that only touch (``1-2`` and ``2-3``) do not overlap,
    unless one of them is a single value (``2`` overlaps ``1-2``).
    """
    lo = max(-math.inf if a[0] is None else a[0], -math.inf if b[0] is None else b[0])
    hi = min(math.inf if a[1] is None else a[1], math.inf if b[1] is None else b[1])
    if lo < hi:
        return True
    is_point = (a[0] is not None and a[0] == a[1]) or (b[0] is not None and b[0] == b[1])
    return lo == hi and is_point
