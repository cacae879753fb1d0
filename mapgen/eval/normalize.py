"""Normalisation of names, yes/no words, numbers and value ranges before scoring.

Names: :func:`normalize_name` folds case and accents, turns ``&`` into ``and``, drops punctuation, a leading
``the`` and a leading ``state of`` (also ``province``/``region``/``territory of``). :class:`AliasMap` maps every accepted spelling (full name, code, alias) of
an answer item onto one key, so ``"CA"`` and ``"California"`` compare equal.

Ranges (DESIGN.md §6): :func:`parse_range` returns ``(lower, upper)`` floats, ``None`` for an open end:

- units ``k``/``m``/``b``/``t`` (also ``bn``, ``mn``, ``thousand``, ``million``, ``billion``, ``trillion``)
  multiply the number (``1k`` → 1000); a unit written only on the upper bound applies to the lower
  (``1-2M`` → 1e6-2e6);
- ``to``, ``and``, en/em dashes → ``-``; ``between X and Y``/``from X to Y`` → ``X-Y``;
- ``above``/``more than``/``over``/``greater than``/``higher than``/``at least``/``X+``/``X and above`` → ``>X``
  (lower bound, open upper end); ``below``/``less than``/``under``/``lower than``/``at most``/``X and below``
  → ``<X`` (open lower end);
- ``%``, ``$`` and thousands commas are dropped; a minus directly before a digit and not after a digit is a
  sign (``-4.4 - 4.4`` is ``(-4.4, 4.4)``);
- one plain number is the degenerate range ``(x, x)``; two numbers are the two bounds (comparators on either
  side are ignored: ``<0 - >1500`` → ``(0, 1500)``); reversed bounds are swapped.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

Range = tuple[float | None, float | None]

RANGE_REL_TOL = 1e-3
"""Relative tolerance used when comparing range bounds (labels are rounded, e.g. ``1.2M``)."""

RANGE_ABS_TOL = 1e-9

UNIT_SCALE: dict[str, float] = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "mil": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "t": 1e12,
    "tn": 1e12,
    "trillion": 1e12,
}

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


def strip_accents(text: str) -> str:
    """Remove diacritics (``Québec`` → ``Quebec``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_LEADING_WORDS = re.compile(r"^(?:the\s+)?(?:(?:state|province|region|territory)\s+of\s+)?(?:the\s+)?")


_APOSTROPHES = re.compile(r"['’`]")
_PUNCT = re.compile(r"[^\w\s]|_")
_SPACES = re.compile(r"\s+")


def normalize_name(text: str) -> str:
    """Canonical comparison key for a region name, code, colour word or label (cached)."""
    return _normalize_name(text if isinstance(text, str) else str(text))


@lru_cache(maxsize=1 << 16)
def _normalize_name(text: str) -> str:
    s = text.lower() if text.isascii() else strip_accents(text).lower()
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
        norm = _normalize_name
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
        key = _normalize_name(text if isinstance(text, str) else str(text))
        return self.lookup.get(key, key)

    def canonical_set(self, items: Iterable[str]) -> set[str]:
        """Canonical keys of many items (empty strings dropped)."""
        get = self.lookup.get
        out = {get(k, k) for k in map(_normalize_name, map(str, items))}
        out.discard("")
        return out

    def names(self) -> list[str]:
        """Every known spelling (normalised)."""
        return list(self.lookup)


# ---------------------------------------------------------------------------------------------- words


def normalize_yes_no(value: object) -> str | None:
    """``"Yes"``/``"No"`` for a bool or a yes/no-like word, else ``None``."""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    word = normalize_name(str(value))
    if word in _YES:
        return "Yes"
    if word in _NO:
        return "No"
    return None


def number_word(word: str) -> int | None:
    """Value of a number word zero..twenty (``None`` otherwise)."""
    return _NUMBER_WORDS.get(word.lower())


# ---------------------------------------------------------------------------------------------- numbers

_UNIT_RE = r"(?:thousand|million|billion|trillion|bn|mn|mil|tn|k|m|b|t)"
_NUM_RE = r"(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?"
_SIGNED_NUM = rf"(?:(?<![\w.%])-)?{_NUM_RE}"
_NUM_UNIT = re.compile(rf"(?P<num>{_SIGNED_NUM})\s*(?P<unit>{_UNIT_RE})?(?![a-z])")


def clean_numeric_text(text: str) -> str:
    """Lower-case, drop ``$``, ``%``, thousands commas and odd dashes/minus signs."""
    s = strip_accents(str(text)).lower()
    s = s.replace("−", "-").replace("–", " - ").replace("—", " - ").replace("‒", " - ")
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)
    s = s.replace("$", " ").replace("%", " ").replace("€", " ").replace("£", " ")
    return s


def _scaled(num: str, unit: str | None) -> float:
    return float(num) * (UNIT_SCALE[unit] if unit else 1.0)


def parse_number(text: object) -> float | None:
    """The single number in ``text`` with its unit applied (``"1.5k"`` → 1500.0), else ``None``."""
    if isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        return float(text) if math.isfinite(text) else None
    return _parse_number_text(str(text))


@lru_cache(maxsize=1 << 14)
def _parse_number_text(text: str) -> float | None:
    s = clean_numeric_text(text).strip()
    s = re.sub(r"\s+", " ", s)
    m = re.fullmatch(rf"(?P<num>-?{_NUM_RE})\s*(?P<unit>{_UNIT_RE})?\.?", s)
    if not m:
        return None
    return _scaled(m.group("num"), m.group("unit"))


# ---------------------------------------------------------------------------------------------- ranges

_GT_WORDS = r"(?:\b(?:above|over|more than|greater than|higher than|larger than|at least|exceeding)\b|>=|≥|>)"
_LT_WORDS = r"(?:\b(?:below|under|less than|lower than|smaller than|at most)\b|<=|≤|<)"
_NU = rf"{_SIGNED_NUM}\s*{_UNIT_RE}?(?![a-z])"


def normalize_range_text(text: str) -> str:
    """Rewrite range wording into the ``a-b`` / ``>a`` / ``<b`` notation (see module docstring)."""
    s = clean_numeric_text(text)
    s = re.sub(
        rf"({_NU})\s*(?:\+|and (?:above|over|more|higher)|or (?:above|more|higher|greater))", r">\1", s
    )
    s = re.sub(rf"({_NU})\s*(?:and (?:below|under|less|lower)|or (?:below|less|lower|fewer))", r"<\1", s)
    s = re.sub(rf"{_GT_WORDS}\s*", ">", s)
    s = re.sub(rf"{_LT_WORDS}\s*", "<", s)
    s = re.sub(r"\b(?:between|from)\s+", " ", s)
    s = re.sub(r"\s+(?:to|and|till|until|through)\s+", " - ", s)
    return re.sub(r"\s+", " ", s).strip()


_RANGE_PAIR = re.compile(
    rf"(?P<c1>[<>])?\s*(?P<n1>{_SIGNED_NUM})\s*(?P<u1>{_UNIT_RE})?(?![a-z])\s*-\s*"
    rf"(?P<c2>[<>])?\s*(?P<n2>{_SIGNED_NUM})\s*(?P<u2>{_UNIT_RE})?(?![a-z])"
)
_RANGE_OPEN = re.compile(rf"(?P<c>[<>])\s*(?P<n>{_SIGNED_NUM})\s*(?P<u>{_UNIT_RE})?(?![a-z])")


def _pair_from_match(m: re.Match[str]) -> Range:
    u2 = m.group("u2")
    u1 = m.group("u1") or u2
    lo, hi = _scaled(m.group("n1"), u1), _scaled(m.group("n2"), u2)
    return (hi, lo) if lo > hi else (lo, hi)


def _open_from_match(m: re.Match[str]) -> Range:
    value = _scaled(m.group("n"), m.group("u"))
    return (value, None) if m.group("c") == ">" else (None, value)


def find_ranges(text: str) -> list[Range]:
    """Every range mentioned in ``text``, in order (pairs first, then open ends, then bare numbers)."""
    return list(_find_ranges(str(text)))


@lru_cache(maxsize=1 << 14)
def _find_ranges(text: str) -> tuple[Range, ...]:
    s = normalize_range_text(text)
    found: list[tuple[int, Range]] = []
    taken: list[tuple[int, int]] = []
    for m in _RANGE_PAIR.finditer(s):
        found.append((m.start(), _pair_from_match(m)))
        taken.append(m.span())
    for m in _RANGE_OPEN.finditer(s):
        if not any(a <= m.start() < b for a, b in taken):
            found.append((m.start(), _open_from_match(m)))
            taken.append(m.span())
    if not found:
        for m in _NUM_UNIT.finditer(s):
            value = _scaled(m.group("num"), m.group("unit"))
            found.append((m.start(), (value, value)))
    return tuple(r for _, r in sorted(found, key=lambda t: t[0]))


def parse_range(value: object) -> Range | None:
    """``(lower, upper)`` of a range label or phrase; the first range found; ``None`` if there is none.

    Also accepts ``[lower, upper]`` sequences and a single number.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return (float(value), float(value)) if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        if len(value) == 2:
            lo = None if value[0] is None else parse_number(value[0])
            hi = None if value[1] is None else parse_number(value[1])
            if (value[0] is not None and lo is None) or (value[1] is not None and hi is None):
                return parse_range(" - ".join(str(v) for v in value))
            if lo is None and hi is None:
                return None
            return (hi, lo) if lo is not None and hi is not None and lo > hi else (lo, hi)
        if len(value) == 1:
            return parse_range(value[0])
        return None
    ranges = _find_ranges(str(value))
    return ranges[0] if ranges else None


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
