"""The grammar of legend numbers and labels: writing them and reading them back.

One vocabulary (units :data:`UNIT_SCALE`, N/A words, comparison words) serves three uses:

- **writing** legend labels and values (:func:`format_ranges`, :func:`format_range`, :func:`format_value`):
  labels of one legend share one rounding: the fewest decimals (starting from two significant digits of the
  legend's spread, 0 for integer bounds) at which all labels are distinct, no range collapses to one number and
  (with ``distinct_adjacent``) adjacent ranges do not print the same boundary;
- **reading a legend label** strictly (:func:`parse_label`): the whole label must be one range or number, else
  ``ValueError`` — the questions and MAPWise import read legend labels this way;
- **finding ranges in free text** leniently (:func:`find_ranges`, :func:`find_range`, :func:`parse_number`):
  model answers and MAPWise ground truths, where the first range mentioned counts and nothing raises.

Answer wording (ARCHITECTURE.md §6), read by :func:`find_range`:

- units ``k``/``m``/``b``/``t`` (also ``bn``, ``mn``, ``thousand``, ``million``, ``billion``, ``trillion``)
  multiply the number (``1k`` → 1000); a unit written only on the upper bound applies to the lower when that
  keeps lower <= upper (``1-2M`` → 1e6-2e6, ``670-8.7k`` → 670-8700), as in legend labels;
- ``to``, ``and``, en/em dashes → ``-``; ``between X and Y``/``from X to Y`` → ``X-Y``; between two numbers also
  the range words of maps in other languages (:data:`NATIVE_RANGE_WORDS`: ``-4 से 4``, ``-4至4``, ``-4 a 4``,
  ``10 y 20``), and their N/A keys are N/A words (:data:`NATIVE_NA_WORDS`);
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
from collections.abc import Sequence
from dataclasses import dataclass

from mapgen.caches import memo

Range = tuple[float | None, float | None]

LABEL_STYLES: tuple[str, ...] = ("auto", "plain", "compact", "spaced")
NA_LABEL = "N/A"

#: Unit words and the factor they multiply a number by (one table for writing and reading).
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
_UNIT_RE = "(?:" + "|".join(sorted(UNIT_SCALE, key=lambda u: (-len(u), u))) + ")"

#: Range words of the other map languages (``templates/lang/map/<lang>.yaml`` ``legend.range``), read between two
#: numbers: Hindi से ("10 से 20"), Chinese 至/到 ("10至20"), Spanish a ("-4 a 4"), and "and" words (और, 和, y)
#: as English reads "and". Numbers stay Arabic digits in every language (tests/test_lang_map.py checks that each
#: language's legend words are in this vocabulary).
NATIVE_RANGE_WORDS: tuple[str, ...] = ("से", "至", "到", "a", "y", "और", "和")
#: N/A words of the other map languages (their ``legend.na`` and common variants), lower-case.
NATIVE_NA_WORDS: tuple[str, ...] = ("आँकड़े उपलब्ध नहीं", "उपलब्ध नहीं", "कोई आँकड़ा नहीं", "无数据", "暂无数据",
                                    "数据缺失", "sin datos", "no disponible", "n/d")

# ============================================================================================ writing

_SUFFIXES = ((12, "T"), (9, "B"), (6, "M"), (3, "k"))


def _fmt_number(x: float, decimals: int, style: str, percent: bool) -> str:
    """One number; ``decimals`` may be negative in compact style (rounding quantum 10**-decimals)."""
    ax = abs(x)
    if style == "compact":
        if ax > 0:  # at least two significant digits per number
            decimals = max(decimals, 1 - math.floor(math.log10(ax)))
        ax = abs(round(x, decimals))
        power, suffix = next(((p, u) for p, u in _SUFFIXES if ax >= 10**p), (0, ""))
        s = f"{ax / 10**power:,.{max(0, decimals + power)}f}"
        if "." in s:
            s = s.rstrip("0").rstrip(".")
        s += suffix
    else:
        s = f"{ax:,.{max(0, decimals)}f}"
    sign = "-" if x < 0 and not re.fullmatch(r"[0.,]+", s) else ""  # never "-0"
    return sign + s + ("%" if percent else "")


def resolve_style(style: str, numbers: Sequence[float]) -> str:
    """The concrete label style for ``style`` (``auto``: compact from a million up, else plain)."""
    if style not in LABEL_STYLES:
        raise ValueError(f"unknown label style {style!r}; choose one of {list(LABEL_STYLES)}")
    if style == "auto":
        big = max((abs(x) for x in numbers), default=0.0)
        return "compact" if big >= 1e6 else "plain"
    return style


#: The range word of English labels (only between negative bounds: ``-4 to 4``; see :func:`reword_range`).
RANGE_WORD = "to"


def _join(lo: str, hi: str, style: str, negative: bool) -> str:
    if negative:
        return f"{lo} {RANGE_WORD} {hi}"
    return f"{lo} - {hi}" if style == "spaced" else f"{lo}-{hi}"


def join_range(lo: str, hi: str, style: str = "plain") -> str:
    """Two printed bounds as one range, the way every legend label joins them: ``lo to hi`` when either is
    negative (``-3.20 to 18.37``), else ``lo-hi`` (``lo - hi`` in the ``spaced`` style)."""
    return _join(lo, hi, style, lo.startswith("-") or hi.startswith("-"))


def _start_decimals(numbers: Sequence[float]) -> int:
    """Two significant digits of the spread of ``numbers``; never more than 0 decimals for integers."""
    finite = [x for x in numbers if x is not None]
    if not finite:
        return 0
    spread = max(finite) - min(finite)
    if spread <= 0:
        spread = max(abs(x) for x in finite) or 1.0
    d = 1 - math.floor(math.log10(spread))
    return min(d, 0) if all(float(x).is_integer() for x in finite) else d


def _range_label(lo: float | None, hi: float | None, dec: int, style: str, percent: bool) -> tuple[str, bool]:
    """(label of one range, whether its two bounds print the same) at ``dec`` decimals."""
    if lo is None:
        if hi is None:
            raise ValueError("a range needs at least one bound")
        return f"<{_fmt_number(hi, dec, style, percent)}", False
    if hi is None:
        return f">{_fmt_number(lo, dec, style, percent)}", False
    slo, shi = _fmt_number(lo, dec, style, percent), _fmt_number(hi, dec, style, percent)
    if lo == hi:
        return slo, False
    return _join(slo, shi, style, lo < 0 or hi < 0), slo == shi


def _adjacent_clash(bounds: Sequence[Range], dec: int, style: str, percent: bool) -> bool:
    """True when the upper bound of a range and the lower bound of the next print as the same number."""
    for (_, hi), (lo, _) in zip(bounds[:-1], bounds[1:], strict=True):
        if hi is None or lo is None or hi >= lo:
            continue
        if _fmt_number(hi, dec, style, percent) == _fmt_number(lo, dec, style, percent):
            return True
    return False


def format_ranges(
    bounds: Sequence[Range],
    percent: bool = False,
    style: str = "auto",
    distinct_adjacent: bool = False,
    decimals: int | None = None,
) -> list[str]:
    """Labels for ranges ``(lower, upper)`` (display units, ascending) sharing one rounding.

    ``None`` as lower gives ``<upper``, as upper ``>lower``; ``lower == upper`` prints one number. Decimals: the
    fewest at which labels are distinct and no range collapses; ``distinct_adjacent`` also requires the upper
    bound of one range and the lower bound of the next to print differently (data-based bounds).
    ``decimals`` overrides the starting number of decimals (it is still raised until labels are distinct).
    """
    nums = [x for pair in bounds for x in pair if x is not None]
    for x in nums:
        if not math.isfinite(x):
            raise ValueError(f"range bounds must be finite numbers, got {x!r}")
    st = resolve_style(style, nums)
    d = _start_decimals(nums) if decimals is None else decimals
    labels: list[str] = []
    for dec in range(d if st == "compact" else max(0, d), 16):
        made = [_range_label(lo, hi, dec, st, percent) for lo, hi in bounds]
        labels = [label for label, _ in made]
        collapsed = any(c for _, c in made) or (distinct_adjacent and _adjacent_clash(bounds, dec, st, percent))
        if not collapsed and len(set(labels)) == len(labels):
            return labels
    return labels


def format_range(lower: float | None, upper: float | None, percent: bool = False, style: str = "auto") -> str:
    """Label one range the way published maps print it: ``14-150``, ``1.2M-3.4M``, ``10%-20%``, ``>0.55``."""
    return format_ranges([(lower, upper)], percent=percent, style=style)[0]


def format_value(
    value: float, percent: bool = False, style: str = "auto", decimals: int | None = None
) -> str:
    """Format a single number like a legend bound (tick labels, answers)."""
    st = resolve_style(style, [value])
    d = _start_decimals([value]) if decimals is None else decimals
    return _fmt_number(value, d if st == "compact" else max(0, d), st, percent)


_WORDED_RANGE = re.compile(rf"(\S+) {RANGE_WORD} (\S+)")


def reword_range(label: str, range_format: str) -> str:
    """``label`` with its English range word in another language's format (``"-4 to 4"`` with ``"{lo} से {hi}"``
    → ``"-4 से 4"``); labels without one (``10-20``, ``>5``) are returned unchanged. The numbers are kept as
    printed, so :func:`parse_label` reads both forms equal."""
    m = _WORDED_RANGE.fullmatch(label)
    return range_format.format(lo=m.group(1), hi=m.group(2)) if m else label


# ============================================================================================ legend labels

_NUM = rf"[-+]?\s*[$€£₹¥]?\s*[-+]?\s*(?:\d[\d,]*(?:\.\d+)?|\.\d+)\s*{_UNIT_RE}?\s*%?"
#: Words a legend (or an answer) uses for "no value"; a region code or name must never be one of them.
NA_WORDS = frozenset({"n/a", "na", "nan", "no data", "missing", "none", "null", "not available", "-", "",
                      *NATIVE_NA_WORDS})
_LOW_OPEN = r"(?:>=|>|≥|over|above|more than|greater than|at least|from)"
_HIGH_OPEN = r"(?:<=|<|≤|under|below|less than|fewer than|up to|at most)"
_LOW_OPEN_SUFFIX = (
    r"(?:\+|and above|and over|or more|and more|or above|and up|and higher|or greater|or higher)"
)
_HIGH_OPEN_SUFFIX = r"(?:and below|or less|and under|or below|and lower|or lower|or fewer)"
_SEP = rf"(?:-|–|—|to|and|through|until|{'|'.join(NATIVE_RANGE_WORDS)})"
_FLAGS = re.IGNORECASE
_LABEL_LOW = (re.compile(rf"{_LOW_OPEN}\s*({_NUM})", _FLAGS), re.compile(rf"({_NUM})\s*{_LOW_OPEN_SUFFIX}", _FLAGS))
_LABEL_HIGH = (
    re.compile(rf"{_HIGH_OPEN}\s*({_NUM})", _FLAGS),
    re.compile(rf"({_NUM})\s*{_HIGH_OPEN_SUFFIX}", _FLAGS),
)
_LABEL_PAIR = re.compile(rf"(?:between\s+|from\s+)?({_NUM})\s*{_SEP}\s*({_NUM})", _FLAGS)
_LABEL_ONE = re.compile(rf"({_NUM})", _FLAGS)


def _label_number(tok: str) -> tuple[float, float | None]:
    """(number, unit multiplier or None) of one number token of a label."""
    t = tok.strip()
    neg = t.count("-") % 2 == 1
    m = re.search(r"(\d[\d,]*(?:\.\d+)?|\.\d+)\s*([a-zA-Z]*)", t)
    if not m:
        raise ValueError(f"no number in {tok!r}")
    x = float(m.group(1).replace(",", ""))
    unit = m.group(2).lower()
    return (-x if neg else x), (UNIT_SCALE.get(unit) if unit else None)


def _scaled_token(tok: str) -> float:
    x, mult = _label_number(tok)
    return x * (mult or 1.0)


def _first_fullmatch(patterns: Sequence[re.Pattern[str]], s: str) -> re.Match[str] | None:
    return next((m for m in (p.fullmatch(s) for p in patterns) if m), None)


def _pair(lo: float, lo_mult: float | None, hi: float, hi_mult: float | None) -> tuple[float, float]:
    """(lower, upper) of two numbers and their units; a unit written only on the upper bound applies to the
    lower one when that keeps lower <= upper (``1-2k`` → 1000-2000, ``670-8.7k`` → 670-8700)."""
    hi_v = hi * (hi_mult or 1.0)
    if lo_mult is None and hi_mult is not None and lo * hi_mult <= hi_v:
        return lo * hi_mult, hi_v
    return lo * (lo_mult or 1.0), hi_v


def _label_pair(m: re.Match[str]) -> Range:
    return _pair(*_label_number(m.group(1)), *_label_number(m.group(2)))


def parse_label(label: str) -> Range:
    """Read a legend label into ``(lower, upper)`` as printed (``"10%"`` → 10.0; ``k/M/B/T`` expanded).

    Open ends give ``None`` (``">0.55"`` → ``(0.55, None)``); ``"N/A"`` gives ``(None, None)``; a single number
    gives ``(x, x)``. A unit only on the upper bound applies to the lower one when that keeps lower <= upper
    (``"1-2k"`` → 1000–2000, ``"500-1k"`` → 500–1000). Unreadable text raises ValueError. Cached.
    """
    if not isinstance(label, str):
        raise ValueError(f"label must be a string, got {label!r}")
    return _parse_label(label)


def _clean_label(label: str) -> str:
    """A label with its minus signs and spaces made plain."""
    return label.strip().replace("−", "-").replace("\u2009", " ").replace("\xa0", " ")


@memo(4096)
def _parse_label(label: str) -> Range:
    s = _clean_label(label)
    if s.lower() in NA_WORDS:
        return None, None
    m = _first_fullmatch(_LABEL_LOW, s)
    if m:
        return _scaled_token(m.group(1)), None
    m = _first_fullmatch(_LABEL_HIGH, s)
    if m:
        return None, _scaled_token(m.group(1))
    m = _LABEL_PAIR.fullmatch(s)
    if m:
        return _label_pair(m)
    m = _LABEL_ONE.fullmatch(s)
    if m:
        x = _scaled_token(m.group(1))
        return x, x
    raise ValueError(f"cannot read legend label {label!r}")


@dataclass(frozen=True)
class PrintedNumber:
    """One number of a legend label as printed: ``text`` (sign, unit, ``%`` kept: ``"7.1M"``, ``"-3.20"``),
    ``value`` (display units, unit applied) and ``quantum``, the step of its last printed digit in display
    units (``0.1e6`` for ``"7.1M"``, ``0.01`` for ``"-3.20"``): the printed number stands for any value within
    half a quantum of it."""

    text: str
    value: float
    quantum: float


def printed_numbers(label: str) -> tuple[PrintedNumber | None, PrintedNumber | None]:
    """The lower and upper numbers of a legend label as it prints them (None for an open end or no number;
    the same number twice for a one-number label). A unit written only on the upper bound is written on the lower
    one too when :func:`parse_label` applies it there (``"100-150k"`` → ``"100k"``, ``"150k"``). Raises
    ValueError on text :func:`parse_label` cannot read."""
    lo, hi = parse_label(label)
    lo_token, hi_token = _label_tokens(_clean_label(label))
    upper = None if hi is None or hi_token is None else _printed(hi_token, hi, "")
    parts = _NUMBER_PARTS.search(hi_token or "")
    lower = None if lo is None or lo_token is None else _printed(lo_token, lo, parts[4] if parts else "")
    return lower, upper


#: Digits (with the decimals as group 2 or 3) and the unit letters after them, in one printed number.
_NUMBER_PARTS = re.compile(r"(\d[\d,]*(?:\.(\d+))?|\.(\d+))\s*([a-zA-Z]*)")


def _label_tokens(s: str) -> tuple[str | None, str | None]:
    """The lower and upper number tokens of a cleaned label (the patterns and order of :func:`parse_label`)."""
    if s.lower() in NA_WORDS:
        return None, None
    m = _first_fullmatch(_LABEL_LOW, s)
    if m:
        return m.group(1), None
    m = _first_fullmatch(_LABEL_HIGH, s)
    if m:
        return None, m.group(1)
    m = _LABEL_PAIR.fullmatch(s)
    if m:
        return m.group(1), m.group(2)
    m = _LABEL_ONE.fullmatch(s)
    return (m.group(1), m.group(1)) if m else (None, None)


def _printed(token: str, value: float, upper_unit: str) -> PrintedNumber:
    """A number token as printed; ``upper_unit`` (the upper bound's unit) is written on when :func:`parse_label`
    applied it to this unit-less token."""
    text = re.sub(r"\s+", "", token.strip())
    m = _NUMBER_PARTS.search(text)
    if m is None:
        raise ValueError(f"no number in {token!r}")
    own = float(m.group(1).replace(",", ""))
    factor = abs(value) / own if own else UNIT_SCALE.get(m.group(4).lower(), 1.0)
    if upper_unit and not m.group(4) and not math.isclose(factor, 1.0):
        text = text[: m.end(1)] + upper_unit + text[m.end(1):]
    decimals = len(m.group(2) or m.group(3) or "")
    return PrintedNumber(text, value, 10.0**-decimals * factor)


# ============================================================================================ free text


def strip_accents(text: str) -> str:
    """Remove diacritics (``Québec`` → ``Quebec``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_NUM_RE = r"(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?"
#: A minus is a sign unless it follows a digit, a point, % or a letter (``x-4`` is a range); letters of the
#: scripts written without spaces before numbers (Devanagari, CJK: ``答案是-4至4``) do not count.
_SIGNED_NUM = rf"(?:(?<![.%])(?<![^\W\u0900-\u097F\u3000-\u9FFF])-)?{_NUM_RE}"
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


@memo(1 << 14)
def _parse_number_text(text: str) -> float | None:
    s = clean_numeric_text(text).strip()
    s = re.sub(r"\s+", " ", s)
    m = re.fullmatch(rf"(?P<num>-?{_NUM_RE})\s*(?P<unit>{_UNIT_RE})?\.?", s)
    if not m:
        return None
    return _scaled(m.group("num"), m.group("unit"))


_GT_WORDS = r"(?:\b(?:above|over|more than|greater than|higher than|larger than|at least|exceeding)\b|>=|≥|>)"
_LT_WORDS = r"(?:\b(?:below|under|less than|lower than|smaller than|at most)\b|<=|≤|<)"
_NU = rf"{_SIGNED_NUM}\s*{_UNIT_RE}?(?![a-z])"


#: A native range word between two numbers (only there: Spanish "a"/"y" are also ordinary words).
_NATIVE_BETWEEN = re.compile(rf"(?<=[\d%])\s*(?:{'|'.join(NATIVE_RANGE_WORDS)})\s*(?=[-+]?[$€£₹¥]?\d)")


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
    s = _NATIVE_BETWEEN.sub(" - ", s)
    return re.sub(r"\s+", " ", s).strip()


_RANGE_PAIR = re.compile(
    rf"(?P<c1>[<>])?\s*(?P<n1>{_SIGNED_NUM})\s*(?P<u1>{_UNIT_RE})?(?![a-z])\s*-\s*"
    rf"(?P<c2>[<>])?\s*(?P<n2>{_SIGNED_NUM})\s*(?P<u2>{_UNIT_RE})?(?![a-z])"
)
_RANGE_OPEN = re.compile(rf"(?P<c>[<>])\s*(?P<n>{_SIGNED_NUM})\s*(?P<u>{_UNIT_RE})?(?![a-z])")


def _unit(unit: str | None) -> float | None:
    return UNIT_SCALE[unit] if unit else None


def _pair_from_match(m: re.Match[str]) -> Range:
    lo, hi = _pair(float(m.group("n1")), _unit(m.group("u1")), float(m.group("n2")), _unit(m.group("u2")))
    return (hi, lo) if lo > hi else (lo, hi)


def _open_from_match(m: re.Match[str]) -> Range:
    value = _scaled(m.group("n"), m.group("u"))
    return (value, None) if m.group("c") == ">" else (None, value)


def find_ranges(text: str) -> list[Range]:
    """Every range mentioned in ``text``, in order (pairs first, then open ends, then bare numbers)."""
    return list(_find_ranges(str(text)))


@memo(1 << 14)
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


def _bound(value: object) -> tuple[float | None, bool]:
    """(number, readable) of one bound of a ``[lower, upper]`` pair (``None`` is an open end)."""
    if value is None:
        return None, True
    number = parse_number(value)
    return number, number is not None


def _pair_range(pair: Sequence[object]) -> Range | None:
    (lo, lo_ok), (hi, hi_ok) = _bound(pair[0]), _bound(pair[1])
    if not (lo_ok and hi_ok):
        return find_range(" - ".join(str(v) for v in pair))
    if lo is None and hi is None:
        return None
    return (hi, lo) if lo is not None and hi is not None and lo > hi else (lo, hi)


def find_range(value: object) -> Range | None:
    """``(lower, upper)`` of a range label or phrase; the first range found; ``None`` if there is none.

    Also accepts ``[lower, upper]`` sequences and a single number.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return (float(value), float(value)) if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        if len(value) == 2:
            return _pair_range(value)
        return find_range(value[0]) if len(value) == 1 else None
    ranges = _find_ranges(str(value))
    return ranges[0] if ranges else None
