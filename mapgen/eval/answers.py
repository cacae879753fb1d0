"""Reading the answer out of a model's free text.

Order of attempts (the first that yields something wins; never raises):

1. the LAST JSON object carrying an ``"answer"`` key (also inside ```json fences, with single quotes or
   trailing commas, followed by more text, or nested inside another object);
2. a malformed ``{"answer": ...`` (unclosed brace, unquoted items): the text after the key up to ``}`` or the
   end of the line; a response that is only a JSON array (``[["A"], ["B", "C"]]``) is read as the answer;
3. the last ``Final answer: …`` / ``Answer: …`` / ``the answer is …`` line (bullets on the next lines are
   used when the line itself is empty);
4. a type-specific reading of the whole text (see :func:`parse_text`).

Extracted values per answer type: ``binary`` → ``"Yes"``/``"No"``; ``count`` → ``int`` (a non-integral number
stays a ``float``); ``single`` → ``str``; ``list`` → ``list[str]``; ``ranking`` → ``list[list[str]]`` tie groups,
best first; ``range`` → ``(lower, upper)`` floats with ``None`` for an open end.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mapgen.caches import memo
from mapgen.eval.native import find_native_answer_line, native_count, native_yes_no
from mapgen.eval.normalize import normalize_yes_no, number_word, text_cache
from mapgen.legend.grammar import find_range, find_ranges

_DECODER = json.JSONDecoder()
_MISSING = object()


@dataclass(slots=True)
class Extracted:
    """Result of :func:`extract_answer`."""

    value: Any = None
    ok: bool = False
    reason: str = ""
    source: str = ""
    span: str = ""


def _fail(reason: str, source: str = "", span: str = "") -> Extracted:
    return Extracted(value=None, ok=False, reason=reason, source=source, span=span)


# ------------------------------------------------------------------------------------------- JSON


def _balanced_end(text: str, start: int) -> int | None:
    """Index just after the ``}`` matching ``text[start] == "{"``, honouring quoted strings."""
    depth, quote, escaped = 0, "", False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _decode_at(text: str, start: int) -> tuple[Any, int]:
    """Decode the object starting at ``start``; ``(_MISSING, start)`` when it is not one."""
    try:
        return _DECODER.raw_decode(text, start)
    except ValueError:
        pass
    end = _balanced_end(text, start)
    if end is None:
        return _MISSING, start
    try:
        return ast.literal_eval(text[start:end]), end
    except Exception:  # literal_eval raises many kinds (SyntaxError, ValueError, RecursionError, ...)
        return _MISSING, start


def _answer_in(obj: Any) -> Any:
    """The ``answer`` value of ``obj`` (or of its last nested dict that has one), else ``_MISSING``."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(key, str) and key.strip().lower() == "answer":
                return value
        children = list(obj.values())
    elif isinstance(obj, list):
        children = obj
    else:
        return _MISSING
    found = _MISSING
    for child in children:
        value = _answer_in(child)
        if value is not _MISSING:
            found = value
    return found


def find_json_answer(text: str) -> Any:
    """Value of the last JSON/dict literal with an ``answer`` key in ``text``; ``_MISSING`` if none."""
    last_key = text.lower().rfind("answer")
    found, i = _MISSING, text.find("{")
    while 0 <= i < last_key:  # an object starting after the last "answer" cannot hold the key
        obj, end = _decode_at(text, i)
        if obj is _MISSING:
            i = text.find("{", i + 1)
            continue
        value = _answer_in(obj)
        if value is not _MISSING:
            found = value
        i = text.find("{", end)
    return found


_MALFORMED = re.compile(r"""(?:\{\s*|["'])answer["']?\s*:\s*(?P<raw>[^\n}]*)""", re.IGNORECASE)


def find_malformed_answer(text: str) -> str | None:
    """Raw text after the last ``{"answer":`` (for JSON that failed to parse)."""
    matches = list(_MALFORMED.finditer(text))
    if not matches:
        return None
    raw = matches[-1].group("raw").strip().rstrip(",").strip()
    return raw.strip("[]").strip().strip("\"'").strip() or None


# ------------------------------------------------------------------------------------------- lines

_ANSWER_LINE = re.compile(
    r"\b(?:final\s+answer|answer)[ \t]*(?:\*\*|__)?[ \t]*(?:is[ \t]*)?[:：][ \t]*(?:\*\*|__)?(?P<raw>[^\n]*)"
    r"|\bthe\s+(?:final\s+)?answer\s+(?:is|would\s+be)[ \t]*:?[ \t]*(?P<raw2>[^\n]*)",
    re.IGNORECASE,
)


def _following_lines(text: str, pos: int) -> str:
    """Lines after ``pos`` up to the first blank line."""
    out = []
    for line in text[pos:].lstrip("\n").splitlines():
        if not line.strip():
            break
        out.append(line)
    return "\n".join(out)


def find_answer_line(text: str) -> str | None:
    """Text of the last ``Final answer:``/``Answer:``/``the answer is`` statement."""
    matches = list(_ANSWER_LINE.finditer(text))
    if not matches:
        return None
    m = matches[-1]
    raw = (m.group("raw") if m.group("raw") is not None else m.group("raw2")).strip()
    raw = re.sub(r"\*\*|__|`", "", raw).strip()
    return raw or _following_lines(text, m.end()) or None


# ------------------------------------------------------------------------------------------- items

_MARKUP = re.compile(r"\*\*|__|`")
_PAREN = re.compile(r"\([^)]*\)")
_LEAD_CONJ = re.compile(r"^\s*(?:and|or)\s+")
_WS = re.compile(r"\s+")
_ENUM = re.compile(r"^\s*(?:[-*•·+]|\d+\s*[.)]|[a-z]\))\s+", re.IGNORECASE)
_BULLET_LINE = re.compile(r"^\s*(?:[-*•·+]|\d+\s*[.)])\s+\S", re.MULTILINE)
_EMPTY_LIST = re.compile(
    r"^(?:(?:there\s+(?:are|is)\s+)?(?:none(?:\s+of\s.*)?|nothing|n/?a|nan|null|\[\s*\]|"
    r"no\s+(?:such\s+)?(?:states?|regions?|provinces?|countries|districts?|counties|territories|items?|answer)(?:\s.*)?))\.?$",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"^(?:(?:the|these|those)\b[\w\s-]{0,60}?\s|they\s+)?(?:are|is|include|includes|would\s+be)\s*:?\s+(?=\S)",
    re.IGNORECASE,
)


@text_cache
def clean_item(text: str) -> str:
    """One list item without bullets, markdown, quotes, parentheticals or trailing punctuation (cached)."""
    s = _ENUM.sub("", text)
    s = _PAREN.sub(" ", _MARKUP.sub("", s))
    s = _LEAD_CONJ.sub("", s.strip())
    s = s.strip().strip("\"'“”‘’[]{}").strip()
    return _WS.sub(" ", s).rstrip(".;:!?,").strip()


_SEPARATOR = re.compile(r",|;|&|\s(?:and|or|और|तथा|y)\s|[、，；和]")  # + Hindi, Spanish and Chinese separators


@memo(8192)
def has_separator(name: str) -> bool:
    """True for names that list splitting would cut (``Jammu and Kashmir``, ``Dadra & Nagar Haveli``, जम्मू और
    कश्मीर); cached, since every question of a map asks it of the same region names."""
    return _SEPARATOR.search(name) is not None


@memo(4096)
def _protected_names(vocabulary: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Names containing separators, longest first, with their case-insensitive patterns."""
    names = sorted({n for n in vocabulary if has_separator(n)}, key=len, reverse=True)
    return tuple((n, re.compile(re.escape(n), re.IGNORECASE)) for n in names)


def _protect(text: str, vocabulary: Iterable[str]) -> tuple[str, list[str]]:
    """Replace known names that contain separators by placeholders."""
    kept: list[str] = []
    vocab = vocabulary if isinstance(vocabulary, tuple) else tuple(vocabulary)
    for name, pattern in _protected_names(vocab):
        if pattern.search(text):
            text = pattern.sub(f"\x00{len(kept)}\x00", text)
            kept.append(name)
    return text, kept


def _restore(text: str, kept: list[str]) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)


def split_items(text: str, vocabulary: Iterable[str] = ()) -> list[str]:
    """Split on commas, semicolons, newlines, ``&``, lower-case ``and``/``or`` (known names kept whole)."""
    protected, kept = _protect(text, vocabulary)
    parts = re.split(r"[,;\n、，；和]|\s+(?:and/or|and|or|&|और|तथा|y)\s+", protected)
    items = [clean_item(_restore(p, kept)) for p in parts]
    return [i for i in items if i]


def _bullets(text: str) -> list[str]:
    return [clean_item(line) for line in text.splitlines() if _BULLET_LINE.match(line)]


# ------------------------------------------------------------------------------------------- per type

_YES_NO = re.compile(r"\b(yes|no|true|false)\b", re.IGNORECASE)
_YES_OR_NO = re.compile(r"\byes\s*(?:or|/)\s*no\b", re.IGNORECASE)


def _first_or_last(matches: list[re.Match[str]], text: str) -> re.Match[str]:
    """The first match if the text opens with it, else the last (conclusions come at the end)."""
    lead = re.sub(r"^[\s*_#>\"'`:-]+", "", text)
    offset = len(text) - len(lead)
    return matches[0] if matches[0].start() == offset else matches[-1]


def parse_binary(text: str) -> Extracted:
    """Yes/No: a leading yes/no word, else the last one in the text."""
    masked = _YES_OR_NO.sub(lambda m: " " * len(m.group(0)), text)  # an echoed "Yes or no:" is not an answer
    matches = list(_YES_NO.finditer(masked))
    if not matches:
        native = native_yes_no(text)  # हाँ / 是 / sí (mapgen.eval.native)
        return Extracted(value=native, ok=True, span=text) if native else _fail("no yes/no word", span=text)
    value = normalize_yes_no(_first_or_last(matches, text).group(1))
    return Extracted(value=value, ok=True, span=text)


_COUNT_TOKEN = re.compile(
    r"(?<![\w.])(?P<num>-?\d+(?:\.\d+)?)(?!\w|\.\d)|\b(?P<word>zero|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|none)\b"
    r"|\b(?P<no>no)\s+(?:states?|regions?|provinces?|countries|districts?|counties|territories)\b",
    re.IGNORECASE,
)


def _count_value(m: re.Match[str]) -> int | float:
    if m.group("num") is not None:
        number = float(m.group("num"))
        return int(number) if number.is_integer() else number
    if m.group("word") is not None:
        return number_word(m.group("word")) or 0
    return 0


def parse_count(text: str) -> Extracted:
    """A count: a leading integer/number word, else the last one (``no states``/``none`` → 0)."""
    matches = list(_COUNT_TOKEN.finditer(text))
    if not matches:
        native = native_count(text)  # 3个 / 三个 / तीन / tres (mapgen.eval.native)
        return Extracted(value=native, ok=True, span=text) if native is not None else _fail("no number", span=text)
    return Extracted(value=_count_value(_first_or_last(matches, text)), ok=True, span=text)


_IS_X = re.compile(r"\b(?:is|are|would be|will be)\s+(?P<x>[^.;:\n]+?)\s*[.!]?\s*$", re.IGNORECASE)


def parse_single(text: str) -> Extracted:
    """One name/label: the whole (short) text, or ``… is X.`` in the last sentence."""
    sentences = [x for x in re.split(r"(?<=[.!?])\s+|\n+", text.strip()) if x.strip()]
    if not sentences:
        return _fail("no short answer", span=text)
    last = sentences[-1]
    m = _IS_X.search(last) if len(last.split()) >= 4 else None
    if m:
        return Extracted(value=clean_item(m.group("x")), ok=True, span=last)
    s = clean_item(sentences[0])
    if s and len(sentences) == 1 and len(s.split()) <= 10:
        return Extracted(value=s, ok=True, span=text)
    return _fail("no short answer", span=text)


def parse_list(text: str, vocabulary: Iterable[str] = ()) -> Extracted:
    """A list: ``none``-like → ``[]``; bullet lines; else split a one-line answer."""
    s = text.strip()
    if _EMPTY_LIST.match(clean_item(s) or s):
        return Extracted(value=[], ok=True, span=text)
    bullets = _bullets(s)
    if bullets:
        return Extracted(value=bullets, ok=True, span=text)
    if "\n" in s or len(s.split()) > 40 or re.search(r"[.!?]\s+\w", s):
        return _fail("no list found", span=text)
    return Extracted(value=split_items(_drop_lead_in(s), vocabulary), ok=True, span=text)


def _drop_lead_in(text: str) -> str:
    """``The states are A, B and C`` → ``A, B and C`` (only when the lead-in comes before the first comma)."""
    m = _LEAD_IN.match(text)
    return text[m.end() :] if m and "," not in text[: m.end()] else text


_RANK_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:\*\*)?rank\s*(?P<n>\d+)(?:\*\*)?\s*[:.)-]\s*(?P<items>.+)$",
    re.IGNORECASE | re.MULTILINE,
)
_CHAIN = re.compile(r"[^\s<>=]\s*[<>]\s*[^\s<>=]")


def _groups_from_chain(text: str, vocabulary: Iterable[str]) -> list[list[str]] | None:
    """``A > B = C > D`` (``<`` reversed); commas inside a chain also tie."""
    has_gt, has_lt = ">" in text, "<" in text
    if has_gt and has_lt:
        return None
    parts = re.split(r"\s*[<>]=?\s*", text)
    groups = [split_items(p.replace("=", ","), vocabulary) for p in parts]
    groups = [g for g in groups if g]
    return groups[::-1] if has_lt else groups


def _groups_from_sequence(items: list[str], vocabulary: Iterable[str]) -> list[list[str]]:
    """One group per item, ``=`` inside an item making a tie group."""
    groups = [split_items(i.replace("=", ","), vocabulary) if "=" in i else [clean_item(i)] for i in items]
    return [g for g in groups if g and all(g)]


def parse_ranking(text: str, vocabulary: Iterable[str] = ()) -> Extracted:
    """Tie groups best first from ``Rank N:`` lines, a ``>``/``<``/``=`` chain, bullets or a comma list."""
    s = text.strip()
    ranks = list(_RANK_LINE.finditer(s))
    if ranks:
        ordered = sorted(ranks, key=lambda m: int(m.group("n")))
        groups = [split_items(m.group("items").replace("=", ","), vocabulary) for m in ordered]
        return Extracted(value=[g for g in groups if g], ok=True, span=text)
    chains = [line for line in s.splitlines() if _CHAIN.search(line)]
    if chains:
        line = re.sub(r"^.*?:\s*", "", chains[-1]) if ":" in chains[-1] else chains[-1]
        chain = _groups_from_chain(line, vocabulary)
        if chain is None:
            return _fail("ranking mixes > and <", span=line)
        return Extracted(value=chain, ok=True, span=line)
    bullets = [line for line in s.splitlines() if _BULLET_LINE.match(line)]
    if bullets:
        return Extracted(value=_groups_from_sequence(bullets, vocabulary), ok=True, span=text)
    if "\n" in s or re.search(r"[.!?]\s+\w", s):
        return _fail("no ranking found", span=text)
    protected, kept = _protect(s, vocabulary)
    items = [_restore(p, kept) for p in re.split(r"[,;]|\s+(?:then|followed by)\s+", protected)]
    groups = _groups_from_sequence([i for i in items if i.strip()], vocabulary)
    return Extracted(value=groups, ok=bool(groups), reason="" if groups else "empty ranking", span=text)


def parse_range_text(text: str, last: bool = False) -> Extracted:
    """A range: the first one in an answer span, or the last one in running text (``last=True``)."""
    ranges = find_ranges(text)
    if not ranges:
        return _fail("no range", span=text)
    return Extracted(value=ranges[-1] if last else ranges[0], ok=True, span=text)


def parse_text(text: str, answer_type: str, vocabulary: Iterable[str] = (), whole: bool = False) -> Extracted:
    """Read ``text`` as an answer of ``answer_type`` (``whole``: it is the full response, not a span)."""
    if answer_type == "binary":
        return parse_binary(text)
    if answer_type == "count":
        return parse_count(text)
    if answer_type == "single":
        return parse_single(text)
    if answer_type == "list":
        return parse_list(text, vocabulary)
    if answer_type == "ranking":
        return parse_ranking(text, vocabulary)
    if answer_type == "range":
        return parse_range_text(text, last=whole)
    return _fail(f"unknown answer type {answer_type!r}")


# ------------------------------------------------------------------------------------------- JSON values


def _coerce_str_list(value: Sequence[Any]) -> list[str]:
    return [c for c in (clean_item(str(v)) for v in value if v is not None) if c]


def coerce_value(value: Any, answer_type: str, vocabulary: Iterable[str] = ()) -> Extracted:
    """Turn a decoded JSON ``answer`` value into the extracted form for ``answer_type``."""
    if isinstance(value, str):
        return parse_text(value, answer_type, vocabulary)
    if value is None:
        return _fail("answer is null")
    if answer_type == "binary":
        yes_no = normalize_yes_no(value) if isinstance(value, bool) else None
        return Extracted(value=yes_no, ok=True) if yes_no else _fail("not a yes/no value")
    if answer_type == "count":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return Extracted(value=int(value) if float(value).is_integer() else float(value), ok=True)
        return _fail("count is not a number")
    if answer_type == "single":
        items = _coerce_str_list(value) if isinstance(value, (list, tuple)) else [clean_item(str(value))]
        return Extracted(value=", ".join(items), ok=bool(items), reason="" if items else "empty answer")
    if answer_type == "list":
        if isinstance(value, (list, tuple)):
            return Extracted(value=_coerce_str_list(value), ok=True)
        return parse_list(str(value), vocabulary)
    if answer_type == "ranking":
        return _coerce_ranking(value, vocabulary)
    if answer_type == "range":
        rng = find_range(_bounds_of(value) if isinstance(value, dict) else value)
        return Extracted(value=rng, ok=True) if rng else _fail("not a range")
    return _fail(f"unknown answer type {answer_type!r}")


def _bounds_of(value: dict[str, Any]) -> list[Any] | None:
    """``[lower, upper]`` from a ``{"lower"/"min"/"from": …, "upper"/"max"/"to": …}`` dict."""
    keys = {str(k).lower(): v for k, v in value.items()}
    lower = next((keys[k] for k in ("lower", "min", "from", "low") if k in keys), None)
    upper = next((keys[k] for k in ("upper", "max", "to", "high") if k in keys), None)
    return None if lower is None and upper is None else [lower, upper]


def _coerce_ranking(value: Any, vocabulary: Iterable[str]) -> Extracted:
    if not isinstance(value, (list, tuple)):
        return _fail("ranking is not a list")
    groups: list[list[str]] = []
    for entry in value:
        if isinstance(entry, (list, tuple)):
            group = _coerce_str_list(list(entry))
        elif "=" in str(entry):
            group = split_items(str(entry).replace("=", ","), vocabulary)
        else:
            group = _coerce_str_list([entry])
        if group:
            groups.append(group)
    return Extracted(value=groups, ok=bool(groups), reason="" if groups else "empty ranking")


# ------------------------------------------------------------------------------------------- boxes

_BOX_BRACKETS = re.compile(
    r"[\[(]\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,"
    r"\s*(-?\d+(?:\.\d+)?)\s*[\])]"
)
_BOX_ANGLES = re.compile(
    r"\{?\s*<(-?\d+(?:\.\d+)?)>\s*<(-?\d+(?:\.\d+)?)>\s*<(-?\d+(?:\.\d+)?)>"
    r"\s*<(-?\d+(?:\.\d+)?)>"
)


def parse_box(text: str | None) -> tuple[float, float, float, float] | None:
    """The last ``[x1, y1, x2, y2]`` (or ``{<x1><y1><x2><y2>}``) box in ``text``; ``None`` if there is none."""
    if not text:
        return None
    matches = list(_BOX_BRACKETS.finditer(text)) + list(_BOX_ANGLES.finditer(text))
    if not matches:
        return None
    last = max(matches, key=lambda m: m.start())
    x1, y1, x2, y2 = (float(v) for v in last.groups())
    return (x1, y1, x2, y2)


# ------------------------------------------------------------------------------------------- entry point


_FENCE = re.compile(r"^```[a-z]*\s*|\s*```$", re.IGNORECASE)


def _bare_json_list(text: str) -> list[Any] | None:
    """The response when it is nothing but a JSON array (optionally fenced), else ``None``."""
    s = _FENCE.sub("", text.strip())
    if not (s.startswith("[") and s.endswith("]")):
        return None
    try:
        value = json.loads(s)
    except ValueError:
        return None
    return value if isinstance(value, list) else None


#: Where an answer is looked for when the response has no well-formed ``{"answer": ...}``, in order:
#: (source label, finder returning the raw answer or None, parser of that raw answer).
_FALLBACKS: tuple[tuple[str, Callable[[str], Any], Callable[..., Extracted]], ...] = (
    ("json-malformed", find_malformed_answer, parse_text),
    ("json-bare", _bare_json_list, coerce_value),
    ("answer-line", find_answer_line, parse_text),
    ("answer-line", find_native_answer_line, parse_text),  # उत्तर: / 答案是 / respuesta: (mapgen.eval.native)
)


def _extract(text: str, answer_type: str, vocabulary: tuple[str, ...]) -> Extracted:
    value = find_json_answer(text)
    if value is not _MISSING:
        if isinstance(value, str):  # short strings repeat a lot ("Yes", "Texas", "1k-2k"): memoised
            result = _copy(_parse_cached(value, answer_type, vocabulary))
        else:
            result = coerce_value(value, answer_type, vocabulary)
        result.source = "json"
        return result
    for source, find, parse in _FALLBACKS:
        raw = find(text)
        if raw is not None:
            result = parse(raw, answer_type, vocabulary)
            if result.ok:
                result.source = source
                return result
    result = parse_text(text, answer_type, vocabulary, whole=True)
    result.source = "text"
    return result


CACHE_MAX_CHARS = 1000
"""Responses up to this length are memoised (model answers repeat a lot: ``{"answer": "Yes"}``)."""


def _copy(result: Extracted) -> Extracted:
    """A copy whose list values can be changed without touching the memoised one."""
    value = result.value
    if isinstance(value, list):
        value = [list(v) if isinstance(v, list) else v for v in value]
    return Extracted(value, result.ok, result.reason, result.source, result.span)


@memo(1 << 15)
def _parse_cached(text: str, answer_type: str, vocabulary: tuple[str, ...]) -> Extracted:
    return parse_text(text, answer_type, vocabulary)


@memo(1 << 15)
def _extract_cached(text: str, answer_type: str, vocabulary: tuple[str, ...]) -> Extracted:
    return _extract_safe(text, answer_type, vocabulary)


def _extract_safe(text: str, answer_type: str, vocabulary: tuple[str, ...]) -> Extracted:
    try:
        return _extract(text, answer_type, vocabulary)
    except Exception as exc:  # reading an answer must never take an evaluation run down
        return _fail(f"extraction error: {type(exc).__name__}: {exc}")


def extract_answer(text: str | None, answer_type: str, vocabulary: Iterable[str] = ()) -> Extracted:
    """Extract an answer of ``answer_type`` from a model's free text; never raises.

    ``vocabulary``: known names (answers and aliases) that may contain ``and``/commas and must not be split.
    Short responses are memoised per ``(text, answer_type, vocabulary)`` (:data:`CACHE_MAX_CHARS`).
    """
    if text is None:
        return _fail("empty response")
    text = text if isinstance(text, str) else str(text)
    if not text or text.isspace():
        return _fail("empty response")
    vocab = vocabulary if isinstance(vocabulary, tuple) else tuple(vocabulary)
    if len(text) <= CACHE_MAX_CHARS:
        return _copy(_extract_cached(text, answer_type, vocab))
    return _extract_safe(text, answer_type, vocab)
