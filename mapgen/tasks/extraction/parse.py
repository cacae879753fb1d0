"""Reading a table out of a model's reply (table-extraction task): ``region → cell text`` pairs.

:func:`parse_table` accepts what models return, tried in this order:

1. **JSON** — in a code fence or bare (the first ``{…}``/``[…]`` that decodes; trailing commas and Python
   literals tolerated): an object ``{"Texas": "10-20", …}`` (values may be objects such as
   ``{"class": "10-20"}`` or ``[lo, hi]`` pairs), an object wrapping the table (``{"table": …}``,
   ``{"answer": …}``, ``{"rows": …}``, …), or a list of rows (objects with a region key and a class/value key,
   ``[region, cell]`` pairs, or ``"Texas: 10-20"`` strings).
2. **Markdown table** — rows with ``|``; separator rows skipped; the header (the row before a separator, or a
   first row naming a region column) picks the region column (``Region``/``State``/``Province``/…, else the
   first) and the cell column (class words for discrete maps, value words for continuous ones, else the other).
3. **Lines** — one row per line after bullets (``-``, ``*``, ``•``, ``1.``) and emphasis are stripped, split at
   the first of: a tab, ``:``, ``=``/``→``/``->``, a dash with spaces around it (``Texas – 10–20``), a comma
   (CSV, quotes honoured; further commas stay in the cell, so ``Texas,1,234`` reads ``1,234``), or else a
   space before a cell that is a whole legend label (``Texas 10-20``). A line with several ``Region: cell``
   rows is split at ``;`` and at ``, `` before a ``Name:`` (``Texas: 10-20, Ohio: 20-30``).

Reasoning blocks (``<think>…</think>``) are dropped and an ``<answer>…</answer>`` tag opened first
(:func:`mapgen.eval.wrappers.final_reply`). A JSON object wrapping the table as text (``{"answer": "| Region | Class |\n…"}``) is read as that text.

Chatter around the table is dropped: a row counts only when its cell holds a number/range or an N/A word
(:func:`read_cell`), its region cell starts with a letter, has at most :data:`MAX_REGION_WORDS` words and is not a
chatter word (``Note``, ``Answer``, ``Legend``, …; ``Answer: Texas: 10-20`` is read as ``Texas``). Unicode minus
signs, non-breaking and thin spaces and full-width ``|``/``:`` are normalised first. Cells keep their text
(thousands separators and unicode dashes included); :func:`read_cell` reads them with the legend grammar.
"""

from __future__ import annotations

import ast
import csv
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mapgen.eval.wrappers import final_reply
from mapgen.legend.grammar import NATIVE_NA_WORDS, Range, find_range, parse_label

NA = "N/A"
NA_WORDS = frozenset({
    "n/a", "na", "n.a.", "n.a", "nan", "no data", "missing", "none", "null", "not available", "no data available",
    "unknown", "no value", "not shown", "-", "–", "—", "n/d", *NATIVE_NA_WORDS,
})
"""Cells that say a region has no data (also the N/A keys of maps in other languages: आँकड़े उपलब्ध नहीं, 无数据,
Sin datos)."""
MAX_REGION_WORDS = 6
CHATTER = frozenset({
    "note", "notes", "answer", "final answer", "table", "legend", "source", "total", "summary", "map", "title",
    "unit", "units", "here", "result", "results", "output", "key", "scale", "colour bar", "color bar", "range",
})
"""Region cells that are chatter, not regions."""
REGION_KEYS = ("region", "state", "province", "name", "territory", "district", "ut", "union territory",
               "state/ut", "state or union territory", "state/union territory", "area", "location", "country",
               "state name", "region name", "province name")
CLASS_KEYS = ("class", "legend class", "category", "range", "bin", "legend", "legend range", "class range",
              "group", "label", "value range", "colour class", "color class")
VALUE_KEYS = ("value", "reading", "estimate", "estimated value", "approx value", "approximate value", "amount",
              "number", "data", "val")
WRAPPER_KEYS = ("table", "rows", "data", "answer", "regions", "states", "provinces", "results", "result", "values",
                "classes", "output", "extraction", "map")

_FENCE = re.compile(r"```[\w+-]*[ \t]*\n(.*?)```", re.DOTALL)
_BULLET = re.compile(r"^\s*(?:[-*•+·▪►]|\d{1,3}[.)])\s+")
_EMPHASIS = re.compile(r"\*\*|__|`|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)")
_SEPARATOR_CELL = re.compile(r"^:?-{2,}:?$")
_ARROW = re.compile(r"\s*(?:=>|->|→|=)\s*")
_SPACED_DASH = re.compile(r"\s+[-–—]\s+")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


@dataclass(frozen=True)
class Reading:
    """What a cell says: ``na`` (no data), or a ``range`` ``(low, high)`` (a single number is ``(x, x)``)."""

    na: bool = False
    range: Range | None = None

    @property
    def ok(self) -> bool:
        return self.na or self.range is not None


@dataclass
class ParsedTable:
    """Rows read from a reply, in reply order, and which reader found them."""

    rows: list[tuple[str, str]] = field(default_factory=list)
    format: str = "none"


# ------------------------------------------------------------------------------------------- cells


def clean_text(text: str) -> str:
    """Normalise unicode look-alikes (minus, spaces, full-width bars and colons) and drop emphasis marks."""
    s = str(text).replace("−", "-").replace("\u00a0", " ").replace("\u2009", " ").replace("\u202f", " ")
    s = s.replace("｜", "|").replace("：", ":").replace("\r\n", "\n").replace("\r", "\n")
    return s


def clean_cell(text: Any, trailing: str = ".,;") -> str:
    """A cell as the reader keeps it: emphasis, quotes, surrounding spaces and ``trailing`` punctuation stripped;
    ``None`` → ``N/A``."""
    if text is None:
        return NA
    if isinstance(text, float) and text.is_integer():
        text = int(text)
    s = _EMPHASIS.sub("", clean_text(str(text))).strip()
    for _ in range(2):
        s = s.strip().rstrip(trailing).strip().strip("\"'“”‘’")
    return s.strip()


_APPROX = re.compile(r"^(?:approx(?:imately|\.)?|about|around|roughly|circa|ca\.|~|≈|about)\s*", re.IGNORECASE)


def read_cell(text: str) -> Reading:
    """Read a cell: an N/A word, else the first range or number in it (legend grammar: units, thousands
    separators, unicode dashes, open ends), else nothing."""
    s = _APPROX.sub("", clean_cell(text)).strip()
    if s.lower() in NA_WORDS:
        return Reading(na=True)
    if not s or not re.search(r"\d", s):
        return Reading()
    return Reading(range=find_range(s))


def _strict_label(text: str) -> bool:
    """Whether ``text`` is a whole legend label or N/A word (what a space-separated line must end with)."""
    s = clean_cell(text)
    if s.lower() in NA_WORDS:
        return True
    try:
        parse_label(s)
    except ValueError:
        return False
    return True


def _region_ok(region: str) -> bool:
    words = region.split()
    return (bool(words) and region[0].isalpha() and len(words) <= MAX_REGION_WORDS
            and region.lower().rstrip(":") not in CHATTER)


def _row(region: Any, cell: Any) -> tuple[str, str] | None:
    """A kept row (see the module doc), else None."""
    r, c = clean_cell(region, ",;:"), clean_cell(cell)
    if not _region_ok(r) or not read_cell(c).ok:
        return None
    return r, c


# ------------------------------------------------------------------------------------------- JSON


def _decode(text: str) -> Any:
    for candidate in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return json.loads(candidate)
        except ValueError:
            pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _json_candidates(text: str) -> Iterable[Any]:
    """Decoded JSON values: each fenced block, then the widest ``{…}``/``[…]`` spans of the text."""
    for block in _FENCE.findall(text):
        value = _decode(block.strip())
        if value is not None:
            yield value
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            value = _decode(text[start : end + 1])
            if value is not None:
                yield value


def _pick_key(keys: Iterable[str], wanted: tuple[str, ...]) -> str | None:
    lookup = {str(k).strip().lower(): k for k in keys}
    return next((lookup[w] for w in wanted if w in lookup), None)


def _cell_keys(kind: str | None) -> tuple[str, ...]:
    return VALUE_KEYS + CLASS_KEYS if kind == "continuous" else CLASS_KEYS + VALUE_KEYS


def _scalar(value: Any, kind: str | None) -> Any:
    """A JSON cell as text-ready scalar: ``[lo, hi]`` → ``"lo to hi"``, objects → their class/value field."""
    if isinstance(value, Mapping):
        key = _pick_key(value, _cell_keys(kind))
        return _scalar(value[key], kind) if key is not None else ""
    if isinstance(value, (list, tuple)):
        return " to ".join(str(v) for v in value) if len(value) == 2 else ""
    return value


def _dict_row(item: Mapping[str, Any], kind: str | None) -> tuple[str, str] | None:
    region_key = _pick_key(item, REGION_KEYS)
    cell_key = _pick_key(item, _cell_keys(kind))
    if region_key is None or cell_key is None:
        keys = list(item)
        if len(keys) != 2:
            return None
        region_key, cell_key = keys
    return _row(item[region_key], _scalar(item[cell_key], kind))


def _list_rows(items: list[Any], kind: str | None) -> list[tuple[str, str]]:
    rows: list[tuple[str, str] | None] = []
    for item in items:
        if isinstance(item, Mapping):
            rows.append(_dict_row(item, kind))
        elif isinstance(item, (list, tuple)) and len(item) >= 2:
            rows.append(_row(item[0], _scalar(item[1] if len(item) == 2 else list(item[1:3]), kind)))
        elif isinstance(item, str):
            rows.append(_line_row(item))
    return [r for r in rows if r is not None]


def json_rows(value: Any, kind: str | None = None, depth: int = 0) -> list[tuple[str, str]]:
    """Rows of a decoded JSON reply (see the module doc)."""
    if depth > 3:
        return []
    if isinstance(value, list):
        return _list_rows(value, kind)
    if not isinstance(value, Mapping):
        return []
    wrapper = _pick_key(value, WRAPPER_KEYS)
    if wrapper is not None and isinstance(value[wrapper], (list, Mapping)):
        rows = json_rows(value[wrapper], kind, depth + 1)
        if rows:
            return rows
    if _pick_key(value, REGION_KEYS) is not None and _pick_key(value, _cell_keys(kind)) is not None:
        row = _dict_row(value, kind)
        return [row] if row else []
    cells = [_row(k, _scalar(v, kind)) for k, v in value.items()]
    return [r for r in cells if r is not None]


def _wrapped_text(value: Any) -> str | None:
    """The text of a JSON object that wraps a table written as text (``{"answer": "| Region | ..."}``)."""
    if not isinstance(value, Mapping):
        return None
    key = _pick_key(value, WRAPPER_KEYS)
    text = value.get(key) if key is not None else None
    return text if isinstance(text, str) and text.strip() and not text.lstrip().startswith(("{", "[")) else None


# ------------------------------------------------------------------------------------------- Markdown


def _cells(line: str) -> list[str]:
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") else s
    return [c.strip() for c in s.split("|")]


def _is_separator(cells: list[str]) -> bool:
    return all(_SEPARATOR_CELL.match(c.replace(" ", "")) or not c for c in cells) and any(cells)


def _columns(header: list[str] | None, width: int, kind: str | None) -> tuple[int, int]:
    """(region column, cell column) from the header words (else the first two columns)."""
    names = [clean_cell(h).lower() for h in header] if header else []
    region = next((i for i, h in enumerate(names) if h in REGION_KEYS), 0)
    cell = next((names.index(k) for k in _cell_keys(kind) if k in names and names.index(k) != region), None)
    if cell is None:
        cell = 1 if region == 0 and width > 1 else 0
    return region, cell


def _header_at(rows: list[list[str]], separators: set[int]) -> int | None:
    """Index of the header row: the row before the first separator, else a first row naming a region column."""
    for i in sorted(separators):
        if i > 0:
            return i - 1
    if rows and clean_cell(rows[0][0]).lower() in REGION_KEYS:
        return 0
    return None


def markdown_rows(text: str, kind: str | None = None) -> list[tuple[str, str]]:
    """Rows of the Markdown table(s) in ``text`` (lines holding ``|``)."""
    rows = [_cells(line) for line in text.splitlines() if line.count("|") >= 1 and line.strip()]
    if len(rows) < 2:
        return []
    separators = {i for i, r in enumerate(rows) if _is_separator(r)}
    header = _header_at(rows, separators)
    region, cell = _columns(rows[header] if header is not None else None, max(len(r) for r in rows), kind)
    out = []
    for i, r in enumerate(rows):
        if i in separators or i == header or len(r) <= max(region, cell):
            continue
        row = _row(r[region], r[cell])
        if row is not None:
            out.append(row)
    return out


# ------------------------------------------------------------------------------------------- lines


def _split_line(line: str) -> tuple[str, str] | None:
    """(region, cell) of one line at its first separator (see the module doc)."""
    if "\t" in line:
        region, _, cell = line.partition("\t")
        return region, cell.replace("\t", " ")
    if ":" in line:
        region, _, cell = line.partition(":")
        return region, cell
    for pattern in (_ARROW, _SPACED_DASH):
        m = pattern.search(line)
        if m and m.start() > 0:
            return line[: m.start()], line[m.end() :]
    if "," in line:
        fields = next(csv.reader([line], skipinitialspace=True))
        if len(fields) >= 2:
            return fields[0], ",".join(fields[1:])
    return _split_before_label(line)


def _split_before_label(line: str) -> tuple[str, str] | None:
    """``Texas 10-20``: the shortest digit-free words followed by a whole legend label."""
    words = line.split()
    for i in range(1, len(words)):
        region, cell = " ".join(words[:i]), " ".join(words[i:])
        if re.search(r"\d", region):
            return None
        if _strict_label(cell):
            return region, cell
    return None


def _line_row(line: str, depth: int = 0) -> tuple[str, str] | None:
    s = _EMPHASIS.sub("", _BULLET.sub("", clean_text(line))).strip()
    if not s or s.startswith("```"):
        return None
    parts = _split_line(s)
    if parts is None:
        return None
    region, cell = parts
    if clean_cell(region).lower() in CHATTER and depth == 0:
        return _line_row(cell, depth + 1)
    return _row(region, cell)


_ROW_BREAK = re.compile(r"\s*;\s*|,\s+(?=[^\W\d][^:;,=]*:)")


def _pieces(line: str) -> list[str]:
    """A line holding several ``Region: cell`` rows (``Texas: 10-20; Ohio: 20-30`` or with ``, ``) split into them."""
    if line.count(":") < 2:
        return [line]
    return [p for p in _ROW_BREAK.split(line) if p.strip()]


def line_rows(text: str) -> list[tuple[str, str]]:
    """Rows of ``Region: cell`` / CSV / bullet lines (several ``Region: cell`` rows on one line allowed)."""
    rows = (_line_row(piece) for line in text.splitlines() for piece in _pieces(line))
    return [r for r in rows if r is not None]


# ------------------------------------------------------------------------------------------- entry point


def parse_table(reply: str | None, kind: str | None = None) -> ParsedTable:
    """The table in a model reply (see the module doc). ``kind`` (``discrete``/``continuous``) decides which
    column or key is the cell when a reply gives both a class and a value."""
    if not reply:
        return ParsedTable()
    text = clean_text(final_reply(reply))  # reasoning blocks dropped, an <answer> tag opened
    for value in _json_candidates(text):
        rows = json_rows(value, kind)
        if rows:
            return ParsedTable(rows, "json")
        inner = _wrapped_text(value)
        if inner:
            return parse_table(inner, kind)
    body = "\n".join(line for line in text.splitlines() if not line.strip().startswith("```"))
    rows = markdown_rows(body, kind)
    if rows:
        return ParsedTable(rows, "markdown")
    rows = line_rows(body)
    return ParsedTable(rows, "lines" if rows else "none")
