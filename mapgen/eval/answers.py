"""Reading the answer out of a model's free text: one pipeline (:func:`extract_answer`), first hit wins, never raises.

0. the reply's wrappers come off (:mod:`mapgen.eval.wrappers`): reasoning blocks (``<think>…</think>``) are
   dropped and the last ``<answer>…</answer>`` tag opened;
1. the LAST JSON object carrying an ``"answer"`` key (:data:`ANSWER_KEYS`; also inside ```json fences, with single
   quotes or trailing commas, followed by more text, or nested inside another object);
2. the last ``\\boxed{…}`` (LaTeX read as text; a denied box, ``not \\boxed{Texas}``, is unparsed);
3. a malformed ``{"answer": ...`` (unclosed brace, unquoted items): the text after the key up to ``}`` or the
   end of the line; a response that is only a JSON array (``[["A"], ["B", "C"]]``) is read as the answer;
4. the last ``Final answer: …`` / ``Answer: …`` / ``the answer is …`` line or ``Final Answer`` heading (the lines
   under it when the line itself is empty), then its Hindi, Chinese and Spanish forms (:mod:`mapgen.eval.native`);
5. a type-specific reading of the whole text (see :func:`parse_text`), then of its last paragraph (and, for one
   value, its last line) when it reasons first.

A reply that denies or contradicts its answer (``Definitely not Yes.``, ``Yes and no``, ``not Texas``, ``Texas or
Ohio``) is unparsed, not guessed (:mod:`mapgen.eval.negation`); exclusions after an answer (``Texas, not Ohio``)
are dropped.

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
from mapgen.eval.native import (
    NONE_WORDS,
    find_native_answer_line,
    lines_after,
    native_count,
    native_open_range,
    native_yes_no,
)
from mapgen.eval.negation import (
    contradicts,
    definite_no,
    denied_after,
    denied_before,
    drop_exclusions,
    is_denial,
)
from mapgen.eval.normalize import normalize_yes_no, number_word, text_cache
from mapgen.eval.wrappers import boxed_span, final_reply, latex_to_text
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


ANSWER_KEYS = frozenset({"answer", "final_answer", "final answer", "finalanswer", "respuesta", "答案", "उत्तर"})
"""JSON keys that hold the answer (compared in lower case)."""


def _answer_in(obj: Any) -> Any:
    """The value of an :data:`ANSWER_KEYS` key of ``obj`` (or of its last nested dict that has one), else
    ``_MISSING``."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(key, str) and key.strip().lower() in ANSWER_KEYS:
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
    i = text.find("{")
    if i < 0:
        return _MISSING
    lower = text.lower()
    last_key = max(lower.rfind("answer"), lower.rfind("respuesta"), text.rfind("答案"), text.rfind("उत्तर"))
    found = _MISSING
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
    r"|\b(?:the|my|our)\s+(?:final\s+)?answer\s+(?:is|would\s+be|will\s+be)[ \t]*:?[ \t]*(?P<raw2>[^\n]*)"
    r"|^[ \t#>*_]*(?:final\s+answer|answer)[ \t*_]*$(?P<raw3>)",
    re.IGNORECASE | re.MULTILINE,
)


def find_answer_line(text: str) -> str | None:
    """Text of the last ``Final answer:``/``Answer:``/``the answer is`` statement or ``Final Answer`` heading."""
    first = text.lower().find("answer")
    if first < 0:
        return None
    start = text.rfind("\n", 0, first) + 1  # the scan starts on the line of the first "answer" (the slow part)
    matches = list(_ANSWER_LINE.finditer(text, start))
    if not matches:
        return None
    m = matches[-1]
    raw = next(g for g in (m.group("raw"), m.group("raw2"), m.group("raw3")) if g is not None).strip()
    raw = _MARKS.sub("", raw).strip()
    return raw or lines_after(text, m.end()) or None


_MARKS = re.compile(r"\*\*|__|`")


# ------------------------------------------------------------------------------------------- items

_MARKUP = re.compile(r"\*\*|__|`|(?<![\w*])[*_](?=\S)|(?<=\S)[*_](?![\w*])")
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
    r"^(?:(?:the|these|those)\b[\w\s-]{0,60}?\s|they\s+)?(?:are|is|include|includes|would\s+be)\s*:?\s+(?=\S)"
    r"|^(?:los|las|el|la|estos|estas)\b[\w\s-]{0,60}?\s(?:son|es|incluyen)\s*:?\s+(?=\S)",
    re.IGNORECASE,
)
_NATIVE_NONE = frozenset(NONE_WORDS)
_ALL_BUT = re.compile(r"^(?:all|every|todos?)\b.*\b(?:except|but|excepto|menos)\b", re.IGNORECASE)


@text_cache
def clean_item(text: str) -> str:
    """One list item without bullets, markdown, quotes, parentheticals or trailing punctuation (cached)."""
    s = _ENUM.sub("", text)
    s = _PAREN.sub(" ", _MARKUP.sub("", s))
    s = _LEAD_CONJ.sub("", s.strip())
    s = s.strip().strip("\"'“”‘’[]{}").strip()
    return _WS.sub(" ", s).rstrip(".;:!?,。；：！？，").strip()


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
    if "\x00" not in text:
        return text
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)


def split_items(text: str, vocabulary: Iterable[str] = ()) -> list[str]:
    """Split on commas, semicolons, newlines, ``&``, lower-case ``and``/``or`` (known names kept whole)."""
    protected, kept = _protect(text, vocabulary)
    parts = re.split(r"[,;\n、，；和]|\s+(?:and/or|and|or|&|और|तथा|y)\s+", protected)
    items = [clean_item(_restore(p, kept)) for p in parts]
    return [i for i in items if i]


_DESCRIPTION = re.compile(r"\s+[–—-]\s+.*$|:\s.*$")


def item_head(line: str) -> str:
    """A bullet line's item without what describes it: ``1. **Oregon** – darkest (40-50)`` → ``Oregon``."""
    return clean_item(_DESCRIPTION.sub("", _ENUM.sub("", line)))


def bullet_block(text: str) -> list[str]:
    """The last run of bullet or numbered lines in ``text`` (blank lines inside it allowed): the bullets of the
    answer, not those of the reasoning before it."""
    runs: list[list[str]] = [[]]
    for line in text.splitlines():
        if _BULLET_LINE.match(line):
            runs[-1].append(line)
        elif line.strip() and runs[-1]:
            runs.append([])
    return next((run for run in reversed(runs) if run), [])


def _bullets(text: str) -> list[str]:
    return [item_head(line) for line in bullet_block(text)]


# ------------------------------------------------------------------------------------------- per type

_YES_NO = re.compile(r"\b(yes|no|true|false|correct|incorrect)\b", re.IGNORECASE)
_YES_OR_NO = re.compile(r"\byes\s*(?:or|/)\s*no\b", re.IGNORECASE)


_LEAD_MARKS = re.compile(r"^[\s*_#>\"'`:-]+")


def _first_or_last(matches: list[re.Match[str]], text: str) -> re.Match[str]:
    """The first match if the text opens with it, else the last (conclusions come at the end)."""
    lead = _LEAD_MARKS.sub("", text)
    offset = len(text) - len(lead)
    return matches[0] if matches[0].start() == offset else matches[-1]


def _sentence_at(text: str, pos: int) -> str:
    """The sentence (or line) of ``text`` holding position ``pos``."""
    start = max(text.rfind(c, 0, pos) for c in ".!?\n。！？।") + 1
    ends = [i for i in (text.find(c, pos) for c in ".!?\n。！？।") if i >= 0]
    return text[start : min(ends) if ends else len(text)]


def parse_binary(text: str) -> Extracted:
    """Yes/No: a leading yes/no word, else the last one in the text; a denied (``not Yes``) or contradictory
    (``Yes and no``) one is unparsed; a bare ``Definitely not.`` is No."""
    masked = _YES_OR_NO.sub(lambda m: " " * len(m.group(0)), text)  # an echoed "Yes or no:" is not an answer
    matches = list(_YES_NO.finditer(masked))
    if not matches:
        if definite_no(text):
            return Extracted(value="No", ok=True, span=text)
        native = native_yes_no(text)  # हाँ / 是 / sí (mapgen.eval.native)
        if native and contradicts(masked):
            return _fail("contradictory answer", span=text)
        return Extracted(value=native, ok=True, span=text) if native else _fail("no yes/no word", span=text)
    m = _first_or_last(matches, text)
    if denied_before(masked, m.start()):
        return _fail("negated answer", span=text)
    if contradicts(_sentence_at(masked, m.start())):
        return _fail("contradictory answer", span=text)
    return Extracted(value=normalize_yes_no(m.group(1)), ok=True, span=text)


_REGION_NOUN = r"(?:states?|regions?|provinces?|countries|districts?|counties|territories|estados?|provincias?|राज्य|प्रांत)"
_COUNT_TOKEN = re.compile(
    r"(?<![\w.\-–])(?P<num>-?\d+(?:\.\d+)?)(?!\w|\.\d|\s*[-–%]\s*\d|\s*%)|\b(?P<word>zero|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|none)\b"
    rf"|\b(?P<no>no)\s+{_REGION_NOUN}\b",
    re.IGNORECASE,
)
_COUNTED = re.compile(rf"\s+(?:such\s+|more\s+)?{_REGION_NOUN}(?!\w)", re.IGNORECASE)
_N = r"(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|dos|tres|cuatro|cinco|seis)"
_COUNT_SPAN = re.compile(r"\b\d+\s*[-–~～]\s*\d+\b")
_COUNT_HEDGE = re.compile(
    rf"\b(?:either\s+)?{_N}\s+(?:or|o)\s+{_N}\b|\b(?:between|entre)\s+{_N}\s+(?:and|y)\s+{_N}\b", re.IGNORECASE
)


def _count_match(matches: list[re.Match[str]], text: str) -> re.Match[str]:
    """The leading count, else the last one followed by a region noun (``3 states``), else the last one."""
    lead = _first_or_last(matches, text)
    if lead is matches[0] and lead is not matches[-1]:
        return lead
    counted = [m for m in matches if m.group("no") or _COUNTED.match(text, m.end())]
    return counted[-1] if counted else matches[-1]


def _count_value(m: re.Match[str]) -> int | float:
    if m.group("num") is not None:
        number = float(m.group("num"))
        return int(number) if number.is_integer() else number
    if m.group("word") is not None:
        return number_word(m.group("word")) or 0
    return 0


def parse_count(text: str) -> Extracted:
    """A count: a leading integer/number word, else the last one (``no states``/``none`` → 0)."""
    if _COUNT_HEDGE.search(text) or (len(text.split()) <= 3 and _COUNT_SPAN.search(text)):  # "3 or 4", "3-4"
        return _fail("more than one answer", span=text)
    matches = list(_COUNT_TOKEN.finditer(text))
    if not matches:
        native = native_count(text)  # 3个 / 三个 / तीन / tres (mapgen.eval.native)
        return Extracted(value=native, ok=True, span=text) if native is not None else _fail("no number", span=text)
    m = _count_match(matches, text)
    if denied_before(text, m.start()):
        return _fail("negated answer", span=text)
    return Extracted(value=_count_value(m), ok=True, span=text)


_IS_X = re.compile(
    r"\b(?:is|are|would be|will be|es|son|sería)\s+(?P<x>(?:[^.;:\n]|(?<=\d)\.(?=\d))+?)\s*[.!]?\s*$"
    r"|^.*(?:是|为)\s*(?P<zh>[^，。,；;：:是为\n]+?)\s*[。.！!]?\s*$"
    r"|(?:राज्य|प्रांत|क्षेत्र)\s+(?P<hi>[^।.\n]+?)\s+हैं?\s*[।.]?\s*$",
    re.IGNORECASE,
)
_SUPERLATIVE = (r"(?:highest|lowest|darkest|lightest|largest|smallest|greatest|most|least|higher|lower|darker"
                r"|lighter|northernmost|southernmost|easternmost|westernmost|second)")
_SUBJECT = re.compile(
    r"(?:^|,\s*)(?P<x>[^,.:;\n]{1,60}?)\s+(?:has|have|is|are|shows|displays)\s+(?:the\s+)?(?:(?:state|province"
    rf"|region|territory|one)\s+(?:with|that\s+has)\s+(?:the\s+)?)?{_SUPERLATIVE}\b"
    r"|^(?P<es>[^,.:;\n]{1,60}?)\s+(?:tiene|es)\s+(?:el|la)\s+(?:\w+\s+)?(?:más|mayor|menor)\b"
    r"|^(?P<zh>[^，。,的\n]{1,12}?)的?(?:数值|值|颜色|数据)?(?:最高|最低|最大|最小|最深|最浅|更高|更低)[。.！!]?$"
    r"|^(?P<hi>[^,।\n]{1,30}?)\s+(?:का|की|के)\s+(?:मान|रंग)\s+सबसे",
    re.IGNORECASE,
)
SENTENCE_WORDS = frozenset((
    "i'm", "i’m", "you", "we", "me", "my", "it", "this", "that", "they", "there", "which", "is", "are", "was",
    "were", "be", "been", "can", "cannot", "can't", "can’t", "could", "would", "should", "please", "sorry", "unable",
    "determine", "know", "think", "seem", "seems", "appear", "appears", "looks", "image", "shows", "has", "have",
    "does", "value",
))  # fmt: skip
"""Words that make a would-be name a sentence (``I cannot determine…``): no region name, legend label or colour
holds one."""
DEGREE_WORDS = frozenset((
    "highest", "lowest", "darkest", "lightest", "largest", "smallest", "greatest", "most", "least", "higher",
    "lower", "darker", "lighter", "northernmost", "southernmost", "easternmost", "westernmost", "second",
))  # fmt: skip
"""Words that make a description after ``the``/``a`` (``the darkest state``; ``Lower Saxony`` stays a name)."""
_WORD = re.compile(r"[\w'’]+")
_REGION_WORDS = frozenset(("states", "provinces", "regions", "territories", "answer", "ones", "estados"))
"""After ``the``/``these``: a description (``the states are …``), not a name (``the State of Uttar Pradesh``)."""


def is_sentence(text: str) -> bool:
    """Whether ``text`` is a sentence or a description rather than a name (:data:`SENTENCE_WORDS`, or a
    :data:`DEGREE_WORDS` word after ``the``/``a`` or alone); set lookups per word, since this runs on every item."""
    words = _WORD.findall(text.lower())
    if not SENTENCE_WORDS.isdisjoint(words):
        return True
    if words and all(w in DEGREE_WORDS for w in words):  # "highest" alone describes, it does not name
        return True
    return any((w in DEGREE_WORDS and words[i - 1] in ("the", "a")) or (w in _REGION_WORDS and words[i - 1] in (
        "the", "these", "those", "such")) for i, w in enumerate(words) if i)


_IT_IS = re.compile(
    r"^(?:(?:it\s+is|it[’']s|that\s+is|that[’']s|es|son|está)\s+)?(?:(?:closer|nearer)\s+to|más\s+cerca(?:no)?\s+(?:de|a)"
    r"|更接近|接近)\s*|^(?:it\s+is|it[’']s|that\s+is|that[’']s|es|son)\s+",
    re.IGNORECASE,
)
_IN_CLASS = re.compile(
    r"^(?:(?:in|within)\s+)?(?:the\s+)?(?P<x>.+?)\s+(?:range|class|category|bin|legend\s+class)$", re.IGNORECASE
)
_CLASS_WORDS = ("range", "class", "category", "bin")
_HEDGE_LEAD = re.compile(
    r"^(?:probably|likely|most\s+likely|possibly|perhaps|i\s+think|i\s+believe|i[’']d\s+say|probablemente|quizás)"
    r"\s*,?\s+",
    re.IGNORECASE,
)
_EITHER_LEAD = re.compile(r"^\W*(?:it\s+(?:is|could\s+be|might\s+be)\s+|it[’']s\s+)?either\s", re.IGNORECASE)
_EITHER = re.compile(r"^(?:either\s+)?[^\d]+?\s+(?:or|and/or|o)\s+[^\d]+$", re.IGNORECASE)


_CONNECTIVE = re.compile(
    r"^(?:so|thus|therefore|hence|overall|finally|clearly|then|and|in\s+conclusion|in\s+summary|por\s+lo\s+tanto"
    r"|así\s+que|entonces|por\s+eso|इसलिए|अतः|तो|因此|所以)(?:\s*[,，]\s*|\s+)",
    re.IGNORECASE,
)
_DASH_REASON = re.compile(r"\s+[—–-]\s+(?P<reason>.+)$")


def _drop_reason(text: str) -> str:
    """``Nevada — it is the only one in the lightest class`` → ``Nevada`` (only when a sentence follows the dash:
    ``10 - 20`` stays whole)."""
    m = _DASH_REASON.search(text)
    return text[: m.start()] if m and is_sentence(m.group("reason")) else text


def _single_value(text: str, vocabulary: Iterable[str]) -> Extracted:
    """A one-name answer from a short span: exclusions dropped (``Texas, not Ohio``) and so is a reason after a
    dash (``**Nevada** — it is the lightest``); a denial, a choice between names (``Texas or Ohio``) or a
    sentence is unparsed."""
    s = clean_item(_IT_IS.sub("", _HEDGE_LEAD.sub("", _drop_reason(drop_exclusions(text.strip()).strip()))))
    if s.lower().endswith(_CLASS_WORDS):
        s = _IN_CLASS.sub(r"\g<x>", s)
    if not s:
        return _fail("no short answer", span=text)
    if is_denial(s) or is_denial(text):
        return _fail("negated answer", span=text)
    known = {v.lower() for v in vocabulary}
    if s.lower() not in known and _EITHER.match(s):
        return _fail("more than one answer", span=text)
    if len(s.split()) > 10 or is_sentence(s):
        return _fail("no short answer", span=text)
    return Extracted(value=s, ok=True, span=text)


def parse_single(text: str, vocabulary: Iterable[str] = ()) -> Extracted:
    """One name/label: the whole (short) text, or ``… is X.`` (``… es X.``, ``…是X。``, ``… राज्य X है।``) in the
    last sentence."""
    sentences = [x for x in re.split(r"(?<=[.!?])\s+|(?<=[。！？।])\s*|\n+", text.strip()) if x.strip()]
    if not sentences:
        return _fail("no short answer", span=text)
    if _EITHER_LEAD.match(sentences[-1]):
        return _fail("more than one answer", span=text)
    last = _CONNECTIVE.sub("", sentences[-1])  # "So Texas has ..." / "इसलिए ..." / "Por lo tanto, ..."
    subject = _SUBJECT.search(last)
    if subject:
        result = _single_value(next(g for g in subject.groups() if g is not None), vocabulary)
        if result.ok:
            return result
    m = _IS_X.search(last) if len(last.split()) >= 4 or not last.isascii() else None
    if m:
        group = next(name for name in ("x", "zh", "hi") if m.group(name) is not None)
        if denied_before(last, m.start(group)):
            return _fail("negated answer", span=text)
        result = _single_value(m.group(group), vocabulary)
        if result.ok or result.reason != "no short answer":
            return result
    if len(sentences) == 1:
        return _single_value(last, vocabulary)
    return _fail("no short answer", span=text)


def _items_result(items: list[str], text: str) -> Extracted:
    """List items as a result; unparsed when one of them only denies (``not Texas``) or is a sentence."""
    if any(is_denial(i) for i in items):
        return _fail("negated answer", span=text)
    if any(is_sentence(i) or len(i.split()) > 10 for i in items):
        return _fail("no list found", span=text)
    return Extracted(value=items, ok=True, span=text)


def _is_empty_list(text: str) -> bool:
    """``None``, ``There are no such states``, ``[]``, ``कोई नहीं``, ``无``, ``Ninguno``."""
    s = clean_item(text) or text.strip()
    return bool(_EMPTY_LIST.match(s)) or s.lower() in _NATIVE_NONE


def parse_list(text: str, vocabulary: Iterable[str] = ()) -> Extracted:
    """A list: ``none``-like → ``[]``; bullet lines; else split a one-line answer (exclusions such as ``but not
    Texas`` dropped; an item that only denies, or ``all states except Texas``, makes it unparsed)."""
    s = text.strip()
    if _is_empty_list(s) or _is_empty_list(_FIRST_SENTENCE.split(s, maxsplit=1)[0]):
        return Extracted(value=[], ok=True, span=text)
    bullets = _bullets(s)
    if bullets:
        return _items_result(bullets, text)
    if "\n" in s or len(s.split()) > 40 or re.search(r"[.!?]\s+\w", s) or _ALL_BUT.match(s):
        return _fail("no list found", span=text)
    items = _items_result(split_items(_drop_lead_in(_CONNECTIVE.sub("", drop_exclusions(s))), vocabulary), text)
    subject = _LIST_SUBJECT.match(s) if not items.ok else None
    return _items_result(split_items(subject.group("x"), vocabulary), text) if subject else items


_FIRST_SENTENCE = re.compile(r"(?<=[.!?])(?:\*\*|__)?\s+")
_LIST_SUBJECT = re.compile(
    r"^(?P<x>[^.:;\n]{1,160}?)\s+(?:are|is|have|has|fall|lie|show|share|belong)\b", re.IGNORECASE
)


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
    """One group per item; names joined in an item (``Ohio = Iowa``, ``Ohio and Iowa (tied)``) are a tie group."""
    groups = [split_items(_DESCRIPTION.sub("", _PAREN.sub(" ", _ENUM.sub("", i))).replace("=", ","), vocabulary)
              for i in items]
    return [g for g in groups if g and all(g)]


_ASCENDING = re.compile(
    r"(?:lowest|smallest|least|lightest|low)\s+to\s+(?:the\s+)?(?:highest|largest|most|darkest|high)|ascending"
    r"|de\s+menor\s+a\s+mayor|从低到高|从小到大|由低到高|कम\s+से\s+(?:अधिक|ज़्यादा)",
    re.IGNORECASE,
)


def _ordered(groups: list[list[str]], text: str) -> list[list[str]]:
    """``groups`` highest first: reversed when ``text`` says it lists them from the lowest."""
    return groups[::-1] if _ASCENDING.search(text) else groups


def parse_ranking(text: str, vocabulary: Iterable[str] = ()) -> Extracted:
    """Tie groups best first from ``Rank N:`` lines, a ``>``/``<``/``=`` chain, bullets or a comma list; a
    ranking with an item that only denies (``not Texas``) is unparsed."""
    result = _ranking(text, vocabulary)
    items = [i for group in result.value for i in group] if result.ok else []
    if any(is_denial(i) for i in items):
        return _fail("negated answer", span=text)
    if any(is_sentence(i) for i in items):
        return _fail("no ranking found", span=text)
    return result


def _ranking(text: str, vocabulary: Iterable[str]) -> Extracted:
    """The first reading of :func:`parse_ranking` that finds the ranking."""
    s = text.strip()
    for reader in (_rank_lines, _chain_line, _bullet_ranking):
        found = reader(s, vocabulary)
        if found is not None:
            return found
    if "\n" in s or re.search(r"[.!?]\s+\w", s):
        return _fail("no ranking found", span=text)
    return _sequence_ranking(s, vocabulary)


def _rank_lines(s: str, vocabulary: Iterable[str]) -> Extracted | None:
    """``Rank 1: A`` / ``Rank 2: B, C`` lines."""
    ranks = sorted(_RANK_LINE.finditer(s), key=lambda m: int(m.group("n")))
    if not ranks:
        return None
    groups = [split_items(m.group("items").replace("=", ","), vocabulary) for m in ranks]
    return Extracted(value=[g for g in groups if g], ok=True, span=s)


_CHAIN_LEAD = re.compile(r"^[^<>]*(?:[:：]|\b(?:is|are|es|would\s+be)\b|是)\s*(?=[^<>]*[<>])", re.IGNORECASE)


def _chain_line(s: str, vocabulary: Iterable[str]) -> Extracted | None:
    """The last ``A > B = C`` (or ``<``) chain line."""
    chains = [line for line in s.splitlines() if _CHAIN.search(line)]
    if not chains:
        return None
    line = _CHAIN_LEAD.sub("", chains[-1])
    chain = _groups_from_chain(line, vocabulary)
    return _fail("ranking mixes > and <", span=line) if chain is None else Extracted(value=chain, ok=True, span=line)


def _bullet_ranking(s: str, vocabulary: Iterable[str]) -> Extracted | None:
    """Bullet or numbered lines, one rank each."""
    bullets = bullet_block(s)
    if not bullets:
        return None
    return Extracted(value=_ordered(_groups_from_sequence(bullets, vocabulary), s), ok=True, span=s)


def _sequence_ranking(s: str, vocabulary: Iterable[str]) -> Extracted:
    """One line ``A, B = C, D`` / ``A, then B`` (after any ``From highest to lowest:`` lead-in)."""
    protected, kept = _protect(re.split(r"[:：]", s)[-1], vocabulary)
    items = [_restore(p, kept) for p in re.split(r"[,;、，；]|\s+(?:then|followed by)\s+", protected)]
    groups = [split_items(i.replace("=", ","), vocabulary) if "=" in i else [clean_item(i)] for i in items]
    groups = [g for g in groups if g and all(g)]
    return Extracted(value=_ordered(groups, s), ok=bool(groups), reason="" if groups else "empty ranking", span=s)


_INTERVAL = re.compile(
    r"[\[(]\s*(?P<lo>-?[\d.,]+\s*%?|-\s*(?:∞|inf(?:inity)?))\s*,\s*(?P<hi>-?[\d.,]+\s*%?|\+?\s*(?:∞|inf(?:inity)?))"
    r"\s*[\])]",
    re.IGNORECASE,
)
_TILDE_DASH = re.compile(r"(?<=\d)\s*[～~〜]\s*(?=\d)")


def _interval_text(m: re.Match[str]) -> str:
    """``[10, 20)`` → ``10-20``; ``[10, ∞)`` → ``≥ 10``; ``(-∞, 5]`` → ``≤ 5``."""
    lo, hi = m.group("lo").strip(), m.group("hi").strip()
    if re.search(r"∞|inf", hi, re.IGNORECASE):
        return f"≥ {lo}"
    if re.search(r"∞|inf", lo, re.IGNORECASE):
        return f"≤ {hi}"
    return f"{lo} - {hi}"


_RANGE_HEDGE = re.compile(r"\b(?:or|either|o)\b|或", re.IGNORECASE)


def parse_range_text(text: str, last: bool = False) -> Extracted:
    """A range: the first one in an answer span, or the last one in running text (``last=True``); interval
    notation (``[10, 20)``), ``10～20`` and open ends in other languages (``50 से अधिक``) read too; in a short reply a
    denied range (``not 10-20``) or a choice of two (``10-20 or 20-30``) is unparsed; exclusions (``20-30, not
    10-20``) are dropped."""
    s = native_open_range(_TILDE_DASH.sub("-", _INTERVAL.sub(_interval_text, drop_exclusions(text))))
    ranges = find_ranges(s)
    if not ranges:
        return _fail("no range", span=text)
    if not last or len(s.split()) <= 8:
        if is_denial(s):
            return _fail("negated answer", span=text)
        if len(set(ranges)) > 1 and _RANGE_HEDGE.search(s):
            return _fail("more than one answer", span=text)
    return Extracted(value=ranges[-1] if last else ranges[0], ok=True, span=text)


def parse_text(text: str, answer_type: str, vocabulary: Iterable[str] = (), whole: bool = False) -> Extracted:
    """Read ``text`` as an answer of ``answer_type`` (``whole``: it is the full response, not a span); LaTeX
    (``$\\text{Texas}$``) is read as its text first."""
    text = latex_to_text(text)
    if answer_type == "binary":
        return parse_binary(text)
    if answer_type == "count":
        return parse_count(text)
    if answer_type == "single":
        return parse_single(text, vocabulary)
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
        value = _named_value(value) if isinstance(value, dict) else value
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


_NAME_KEYS = ("name", "state", "province", "region", "territory", "value", "label", "answer")


def _named_value(value: dict[str, Any]) -> Any:
    """The name in ``{"state": "Colorado"}`` (a name key, else the only value); the dict itself otherwise."""
    keys = {str(k).strip().lower(): v for k, v in value.items()}
    named = next((keys[k] for k in _NAME_KEYS if k in keys), None)
    if named is None and len(keys) == 1:
        named = next(iter(keys.values()))
    return named if isinstance(named, (str, int, float)) else value


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
    """The last ``[x1, y1, x2, y2]`` (or ``{<x1><y1><x2><y2>}``) box in ``text`` outside its reasoning blocks;
    ``None`` if there is none."""
    if not text:
        return None
    text = final_reply(text)
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


def _from_json(value: Any, answer_type: str, vocabulary: tuple[str, ...]) -> Extracted:
    if isinstance(value, str):  # short strings repeat a lot ("Yes", "Texas", "1k-2k"): memoised
        result = _copy(_parse_cached(value, answer_type, vocabulary))
    else:
        result = coerce_value(value, answer_type, vocabulary)
    result.source = "json"
    return result


def _from_box(reply: str, answer_type: str, vocabulary: tuple[str, ...]) -> Extracted | None:
    r"""The answer in the last ``\boxed{}`` of ``reply`` (``None`` without one); a denied box
    (``not \boxed{Texas}``) is unparsed."""
    span = boxed_span(reply, join=answer_type in ("list", "ranking"))
    if span is None:
        return None
    content, start = span
    if denied_before(reply, start) or denied_after(reply, reply.find("}", start) + 1):
        result = _fail("negated answer", span=content)
    else:
        result = parse_text(content, answer_type, vocabulary)
    result.source = "boxed"
    return result


def _conclusion(reply: str, answer_type: str, vocabulary: tuple[str, ...]) -> Extracted | None:
    """The answer in the last paragraph, else the last line (not for lists and rankings, whose last line may be one
    item of many; for one value, not a bullet line), of a reply that reasons first (``None`` when neither holds
    one or the reply is one paragraph)."""
    paragraphs = [p for p in re.split(r"\n\s*\n", reply.strip()) if p.strip()]
    lines = [line for line in reply.strip().splitlines() if line.strip()]
    last_line = lines[-1] if len(lines) > 1 and answer_type not in ("list", "ranking") else ""
    for span in dict.fromkeys((paragraphs[-1] if len(paragraphs) > 1 else "", last_line)):
        if span and (answer_type in ("list", "ranking") or not _BULLET_LINE.match(span)):  # a bullet is one of many
            result = parse_text(span, answer_type, vocabulary)
            if result.ok:
                result.source = "conclusion"
                return result
    return None


def _extract(text: str, answer_type: str, vocabulary: tuple[str, ...]) -> Extracted:
    """The extraction pipeline (see the module doc)."""
    reply = final_reply(text)  # reasoning blocks dropped, the last <answer> tag opened
    if not reply.strip():
        return _fail("empty answer")
    value = find_json_answer(reply)
    if value is not _MISSING:
        return _from_json(value, answer_type, vocabulary)
    boxed = _from_box(reply, answer_type, vocabulary)
    if boxed is not None:
        return boxed
    for source, find, parse in _FALLBACKS:
        raw = find(reply)
        if raw is not None:
            result = parse(raw, answer_type, vocabulary)
            if result.ok or result.reason in _FINAL_REASONS:
                result.source = source
                return result
    result = parse_text(reply, answer_type, vocabulary, whole=True)
    result.source = "text"
    if result.ok or result.reason in _FINAL_REASONS:
        return result
    return _conclusion(reply, answer_type, vocabulary) or result


_FINAL_REASONS = frozenset({"negated answer", "contradictory answer", "more than one answer"})
"""Reasons that make a reply unparsed outright: its answer was found and it denies or hedges."""


def answer_span(text: str) -> str:
    """The part of a reply that states its answer, as text: the JSON ``answer``, else the last box, else the last
    answer line, else the reply without its reasoning and answer tags (for readers of option letters)."""
    reply = final_reply(text)
    value = find_json_answer(reply)
    if value is not _MISSING:
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    box = boxed_span(reply)
    line = find_answer_line(reply) or find_native_answer_line(reply)
    return box[0] if box else line if line is not None else reply


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
