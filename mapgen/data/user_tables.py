"""User statistics tables: CSV / TSV / Parquet files or DataFrames joined to an atlas.

A table has a *region column* (codes, names or aliases in any case/spacing, resolved with
:meth:`Atlas.resolve`) and a *value column*; both are detected when unambiguous. The result is a
:class:`Statistic` over every atlas code: regions the table does not list are NaN (the explicit N/A class).

Error policy (every problem raises :class:`TableError`, a ``ValueError``, naming rows and values):

- unknown region names (with the closest spellings), duplicate regions (two rows, or two spellings of one region),
  non-numeric, infinite, or (``kind="percent"``) out-of-0-100 values; empty, header-only, or malformed files;
- *explicit* missing cells (empty, ``NA``, ``N/A``, ``-``, ``no data``, …) become N/A. ``on_missing`` decides how
  loudly: ``"warn"`` (default, a :class:`MissingValueWarning` naming the rows), ``"error"`` or ``"ignore"``. Codes
  the sidecar metadata lists as missing on purpose never warn. A table with no value at all is an error.

A table has at most :data:`MAX_COLUMNS` columns (a wider one is refused from its header, before it is parsed: a
choropleth needs two). Error lines name at most a few rows, values or columns and say how many more.

Numbers may carry thousands separators (``1,234,567``) and, in percent tables, a trailing ``%``.
Rows are named ``line N`` for files read as text (line 1 is the header; blank lines and multi-line quoted cells
would shift the count) and ``row <index>`` (the DataFrame index) otherwise.

Sidecar metadata: :func:`save_table` writes ``code,name,value`` plus ``<file>-metadata.json`` (the CSVW naming
convention) holding the :class:`StatInfo`; :func:`load_table` reads that sidecar, when present, for the defaults
of ``title``, ``unit``, ``kind``, ``year``, ``source_note`` and the id.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import warnings
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from mapgen.data.statistic import KINDS, Kind, StatInfo, Statistic
from mapgen.errors import MAX_LISTED, DataError, listing
from mapgen.files import write_text_atomic
from mapgen.geo.atlas import BUILTIN, Atlas, as_atlas, uncut
from mapgen.geo.names import UnknownRegionError
from mapgen.suggest import suggestion

__all__ = [
    "MissingValueWarning",
    "OmittedRegionWarning",
    "TableError",
    "load_table",
    "metadata_path",
    "read_frame",
    "save_table",
    "table_csv",
]

Source = str | Path | pd.DataFrame
#: What :func:`load_table` takes besides a file or a DataFrame: values keyed by region names, codes or aliases.
Values = Mapping[Any, Any] | pd.Series
OnMissing = Literal["warn", "error", "ignore"]

NA_STRINGS = frozenset({"", "na", "n/a", "nan", "none", "null", "-", "–", "—", "no data", "missing", "..", "."})
_THOUSANDS = re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$")
_REGION_NAMES = ("code", "region", "state", "province", "name", "region_code", "region_name", "state_name")
_VALUE_NAMES = ("value", "values", "val")
MAX_COLUMNS = 2000
"""Columns a table may have: a statistics table needs a region and a value column; census-style wide tables have
hundreds. A wider file is refused from its header line, before it is parsed."""
_SIDECAR_KEY = "mapgen_stat"


class TableError(DataError):
    """A user table that cannot become a Statistic; the message names the rows and values at fault (and, raised
    by :func:`load_table`, the table)."""


class MissingValueWarning(UserWarning):
    """Explicit empty / N/A cells in a user table became N/A."""


class OmittedRegionWarning(UserWarning):
    """Regions of the atlas a user table does not list at all became N/A."""


# --- reading ----------------------------------------------------------------------------------------------


def metadata_path(path: str | Path) -> Path:
    """The sidecar metadata file of a table (``synth.csv`` → ``synth.csv-metadata.json``)."""
    path = Path(path)
    return path.with_name(path.name + "-metadata.json")


def read_frame(source: Source, atlas: Atlas | None = None) -> tuple[pd.DataFrame, bool]:
    """Read a table as strings-or-numbers; returns the frame and whether rows are file lines.

    CSV/TSV are read as text (no type guessing, no NA guessing), so codes like ``01`` survive. Given the
    ``atlas``, a text file whose first line is data (a region and a number) is refused as headerless.
    """
    if isinstance(source, pd.DataFrame):
        _refuse_wide(len(source.columns), "the table given")
        frame = source.copy()
        text = False
    else:
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"No such table file: {path}")
        suffix = path.suffix.lower()
        if suffix in (".parquet", ".pq"):
            frame, text = _read_parquet(path), False
        else:
            frame, text = _read_text(path, sep="\t" if suffix in (".tsv", ".tab") else ","), True
    frame.columns = [str(c).strip() for c in frame.columns]
    if text and atlas is not None:
        _require_header(frame, atlas, source)
    if frame.empty:
        raise TableError(f"{_describe(source)} has no data rows (columns: {_columns(frame)}); add one row per "
                         "region under the header (e.g. 'Texas,3').")
    if len(set(frame.columns)) != len(frame.columns):
        raise TableError(f"{_describe(source)} repeats column names: {_columns(frame)}; give each column its "
                         "own name.")
    return frame, text


def _read_text(path: Path, sep: str) -> pd.DataFrame:
    text = decode_table(path).replace("\r\n", "\n").replace("\r", "\n")  # Windows and classic-Mac line ends
    sep = detect_delimiter(text, sep, path)
    _refuse_wide(text.split("\n", 1)[0].count(sep) + 1, path)  # before the csv reader sees a million cells
    _refuse_repeated_header(text, sep, path)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise TableError(f"{path} is empty (no header, no rows); write a header line such as 'region,value' and "
                         "one row per region.") from None
    except pd.errors.ParserError as exc:
        kind = "TSV" if sep == chr(9) else "CSV"
        raise TableError(f"{path} is not a readable {kind} file: {str(exc).strip()}; give every row as many cells "
                         "as the header (quote cells that hold the delimiter).") from None
    return _decimal_commas(frame, path) if sep == ";" else frame


def _refuse_repeated_header(text: str, sep: str, path: Path) -> None:
    """Refuse a header naming one column twice (pandas would rename the second ``value.1`` silently)."""
    header = [cell.strip() for cell in next(csv.reader(io.StringIO(text), delimiter=sep), [])]
    counts = Counter(c for c in header if c)
    repeated = sorted(c for c, n in counts.items() if n > 1)
    if repeated:
        count = counts[repeated[0]]
        times = "two" if count == 2 else str(count)
        raise TableError(f"{path} has {times} columns named {repeated[0]!r}; rename one or give --value-col.")


#: Byte-order marks → the encoding they announce (UTF-32 before UTF-16: its LE mark starts with UTF-16's).
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
         (b"\xfe\xff", "utf-16"), (b"\xef\xbb\xbf", "utf-8-sig"))


def decode_table(path: Path) -> str:
    """A text table's characters: UTF-8 (a BOM allowed), or UTF-16/32 announced by a byte-order mark; any other
    encoding (Latin-1, Windows-1252, UTF-16 without a BOM) is refused with "save it as UTF-8", naming the file,
    the line and the byte."""
    data = path.read_bytes()
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), "utf-8")
    try:
        if encoding == "utf-8" and b"\x00" in data[:4096]:  # valid UTF-8, but no text table holds NUL bytes
            raise UnicodeDecodeError("utf-8", data, data.index(b"\x00"), data.index(b"\x00") + 1, "NUL byte")
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise TableError(_encoding_problem(path, data, exc)) from None


def _encoding_problem(path: Path, data: bytes, exc: UnicodeDecodeError) -> str:
    line = data.count(b"\n", 0, exc.start) + 1
    if data[:200].count(b"\x00") > len(data[:200]) // 4:
        guess, tool = "it looks like UTF-16 without a byte-order mark", "iconv -f utf-16le -t utf-8"
        line = data.count(b"\n\x00", 0, exc.start) + 1
    elif (chinese := _chinese_text(data)) is not None:
        guess, tool = f"it looks like Chinese text in GB18030/GBK: it reads {chinese!r} in that encoding", \
            "iconv -f gb18030 -t utf-8"
    else:
        start = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        shown = data[start:end if end >= 0 else len(data)].decode("cp1252", errors="replace").strip()[:60]
        guess = f"it looks like Latin-1/Windows-1252: line {line} reads {shown!r} in that encoding"
        tool = "iconv -f cp1252 -t utf-8"
    return (f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}; {guess}); save it as UTF-8 "
            f"(e.g. Excel: Save As → 'CSV UTF-8'; {tool}) and try again.")


def _chinese_text(data: bytes) -> str | None:
    """The first Chinese characters of ``data`` when it decodes as GB18030 into mostly CJK text where it is not
    ASCII (a table saved by Chinese Excel or WPS), else None."""
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        return None
    wide = [c for c in text if ord(c) > 127]
    cjk = [c for c in wide if "\u4e00" <= c <= "\u9fff" and _in_gb2312(c)]
    if len(cjk) < 2 or len(cjk) < 0.8 * len(wide):
        return None
    start = text.index(cjk[0])
    return text[start:start + 12].splitlines()[0]


def _in_gb2312(char: str) -> bool:
    """Whether a character is one of GB2312's common hanzi (Latin-1 byte pairs such as 'ür' decode to rare ones)."""
    try:
        char.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


_DELIMITERS = {",": "a comma", ";": "a semicolon", "\t": "a tab", "|": "a vertical bar"}


def detect_delimiter(text: str, sep: str, path: Path) -> str:
    """``sep`` when the header line holds it, else the one other delimiter (``;``, tab, ``|``, ``,``) the
    header and the next lines hold equally often (a warning names it); else ``sep``."""
    lines = [line for line in text.splitlines() if line.strip()][:20]
    if not lines or sep in lines[0]:
        return sep
    counts = {d: lines[0].count(d) for d in _DELIMITERS if d != sep and lines[0].count(d)}
    steady = [d for d, n in counts.items() if all(line.count(d) == n for line in lines[1:])]
    if len(steady) != 1:
        return sep
    found = steady[0]
    warnings.warn(f"{path}: its columns are separated by {_DELIMITERS[found]} ({found!r}), not by "
                  f"{_DELIMITERS[sep]}; read it that way.", stacklevel=4)
    return found


_DECIMAL_COMMA = re.compile(r"^[-+]?\d+,\d+$")
_EUROPEAN_NUMBER = re.compile(r"^[-+]?(\d{1,3}(\.\d{3})+|\d+)(,\d+)?$")


def _decimal_commas(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    """A semicolon table whose numbers use decimal commas (``12,5``) read as decimal points (``1.234,5`` →
    ``1234.5``), with a warning; other tables unchanged."""
    cells = [c for col in frame.columns for c in frame[col] if isinstance(c, str)]
    if not any(_DECIMAL_COMMA.match(c.strip()) for c in cells):
        return frame
    warnings.warn(f"{path}: semicolon-separated with decimal commas (e.g. '12,5'); read ',' as the decimal "
                  "mark and '.' as the thousands separator.", stacklevel=5)

    def convert(cell: Any) -> Any:
        text = cell.strip() if isinstance(cell, str) else cell
        if isinstance(text, str) and _EUROPEAN_NUMBER.match(text):
            return text.replace(".", "").replace(",", ".")
        return cell

    return frame.apply(lambda col: col.map(convert))


def _read_parquet(path: Path) -> pd.DataFrame:
    fix = "save it again as Parquet or give a CSV"
    with path.open("rb") as fh:
        head = fh.read(4)
        fh.seek(max(0, path.stat().st_size - 4))
        tail = fh.read(4)
    if head != b"PAR1" or tail != b"PAR1":  # every Parquet file starts and ends with this magic
        raise TableError(f"{path} is not a Parquet file; {fix}.")
    try:
        import pyarrow.parquet as pq

        _refuse_wide(len(pq.read_schema(path).names), path)  # from the footer, before the columns are read
        return pd.read_parquet(path)
    except TableError:
        raise
    except Exception as exc:  # pyarrow raises several unrelated types for corrupt files
        raise TableError(f"{path} is not a readable Parquet file: {exc}; {fix}.") from None


def _describe(source: Source) -> str:
    if isinstance(source, pd.DataFrame):
        return str(source.attrs.get("described", "the DataFrame"))
    return str(source)


def _row_name(index: Hashable, position: int, text: bool) -> str:
    return f"line {position + 2}" if text else f"row {index}"


def _listing(items: list[str]) -> str:
    return listing(items, sep="; ")


def _columns(frame: pd.DataFrame) -> str:
    """The column names of ``frame`` for an error line (the first few, then how many more)."""
    return f"[{listing(repr(str(c)) for c in frame.columns)}]"


def _refuse_wide(columns: int, where: object) -> None:
    if columns > MAX_COLUMNS:
        raise TableError(f"{where} has {columns:,} columns, more than the {MAX_COLUMNS:,} a table may have; keep "
                         "the region column and the value column (e.g. cut -d, -f1,5 or pandas) and try again.")


# --- column detection -------------------------------------------------------------------------------------


def _is_missing(cell: Any) -> bool:
    if cell is None or (isinstance(cell, float) and math.isnan(cell)) or cell is pd.NA or cell is pd.NaT:
        return True
    return isinstance(cell, str) and cell.strip().lower() in NA_STRINGS


def _resolves(atlas: Atlas, cell: Any) -> str | None:
    """The code a cell names, or None (a plain look-up: no 'did you mean' search)."""
    if _is_missing(cell) or isinstance(cell, (bool, float, np.floating)):
        return None
    return atlas.find(str(cell))


def _region_columns(frame: pd.DataFrame, atlas: Atlas) -> dict[str, list[str | None]]:
    """Columns where at least half of the non-empty cells name a region → their resolved codes."""
    found = {}
    for col in frame.columns:
        cells = [c for c in frame[col] if not _is_missing(c)]
        if not cells:
            continue
        codes = [_resolves(atlas, c) for c in frame[col]]
        if sum(c is not None for c in codes) >= 0.5 * len(cells):
            found[col] = codes
    return found


def _pick_region_col(found: dict[str, list[str | None]], frame: pd.DataFrame, atlas: Atlas, source: Source) -> str:
    if not found:
        text_cols = [c for c in frame.columns if _numeric_share(frame[c]) < 0.5]
        if len(text_cols) == 1:  # the only text column: resolving it reports the unknown names
            return text_cols[0]
        raise TableError(
            f"No column of {_describe(source)} holds {atlas.title} region names or codes; columns: "
            f"{_columns(frame)}. Pass region_col= (--region-col)."
        )
    if len(found) == 1:
        return next(iter(found))
    first, *others = found
    if all(found[o] == found[first] for o in others):  # e.g. code and name columns that agree row by row
        return first
    named = [c for c in found if c.lower() in _REGION_NAMES]
    if len(named) == 1:
        return named[0]
    raise TableError(
        f"Several columns of {_describe(source)} look like region columns: {list(found)} (all columns: "
        f"{_columns(frame)}). Pass region_col= (--region-col)."
    )


def _numeric_share(series: pd.Series) -> float:
    cells = [c for c in series if not _is_missing(c)]
    if not cells:
        return 0.0
    return sum(_parse_number(c) is not None for c in cells) / len(cells)


def _pick_value_col(region_like: set[str], frame: pd.DataFrame, region_col: str, source: Source) -> str:
    candidates = [c for c in frame.columns if c != region_col and c not in region_like]
    named = [c for c in candidates if c.lower() in _VALUE_NAMES]
    if len(named) == 1:
        return named[0]
    if len(candidates) == 1:
        return candidates[0]
    numeric = [c for c in candidates if _numeric_share(frame[c]) >= 0.5]
    if len(numeric) == 1:
        return numeric[0]
    what = "numeric columns" if numeric else "no numeric column"
    raise TableError(
        f"Cannot tell which column of {_describe(source)} holds the values ({what}: {numeric}; all columns: "
        f"{_columns(frame)}). Pass value_col= (--value-col)."
    )


def _check_column(frame: pd.DataFrame, col: str, what: str, source: Source) -> str:
    if col in frame.columns:
        return col
    by_lower = {c.lower(): c for c in frame.columns}
    if col.strip().lower() in by_lower:
        return by_lower[col.strip().lower()]
    raise TableError(f"{what} column {col!r} not in {_describe(source)}; columns: {_columns(frame)}.")


def _require_header(frame: pd.DataFrame, atlas: Atlas, source: Source) -> None:
    """Refuse a file whose first line is data (a region name and a number), not column names."""
    header = list(frame.columns)
    regions = [c for c in header if _resolves(atlas, c) is not None]
    numbers = [c for c in header if _parse_number(c, percent=True) is not None]
    if regions and numbers:
        raise TableError(
            f"The first line of {_describe(source)} looks like data, not column names ({', '.join(header)}); "
            "add a header line such as 'region,value'."
        )


# --- values -----------------------------------------------------------------------------------------------


def _parse_number(cell: Any, percent: bool = False) -> float | None:
    """A float for a number-like cell (``12``, ``1,234.5``, ``45%``), else None. Booleans are not numbers."""
    if isinstance(cell, (bool, np.bool_)):
        return None
    if isinstance(cell, (int, float, np.integer, np.floating)):
        return float(cell)
    text = str(cell).strip().replace("\u2212", "-")
    if text.endswith("%") and percent:
        text = text[:-1].strip()
    if _THOUSANDS.match(text):
        text = text.replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def _shown(cell: Any, limit: int = 40) -> str:
    """A cell as an error line quotes it: its repr, cut to ``limit`` characters (a 20-MB cell stays readable)."""
    text = repr(cell)
    return text if len(text) <= limit else f"{text[:limit - 12]}… ({len(str(cell)):,} characters)"


def _values(frame: pd.DataFrame, value_col: str, codes: list[str], rows: list[str], kind: str) -> tuple[
    dict[str, float], list[str]
]:
    """Parsed values by code and the rows with explicit missing cells; raises on bad cells."""
    out: dict[str, float] = {}
    bad, inf, outside, missing = [], [], [], []
    for cell, code, row in zip(frame[value_col], codes, rows):
        if _is_missing(cell):
            missing.append(row)
            out[code] = math.nan
            continue
        value = _parse_number(cell, percent=kind == "percent")
        if value is None:
            bad.append(f"{row} {code}: {_shown(cell)}")
        elif math.isinf(value):
            inf.append(f"{row} {code}: {_shown(cell)}")
        elif kind == "percent" and not 0.0 <= value <= 100.0:
            outside.append(f"{row} {code}: {_shown(cell)}")
        else:
            out[code] = value
    if bad:
        hint = " (a trailing % is accepted only with kind='percent')" if any("%" in b for b in bad) else ""
        raise TableError(f"Non-numeric values in column {value_col!r}{hint}: {_listing(bad)}; write plain numbers "
                         "(1234.5 or 1,234.5), or leave a cell empty for N/A.")
    if inf:
        raise TableError(f"Infinite values in column {value_col!r}: {_listing(inf)}; write finite numbers, or "
                         "leave a cell empty for N/A.")
    if outside:
        raise TableError(
            f"Percent values outside 0-100 in column {value_col!r}: {_listing(outside)}. "
            "Use kind='absolute' if these are not shares."
        )
    return out, missing


def _resolve_rows(
    frame: pd.DataFrame, region_col: str, atlas: Atlas, rows: list[str], source: Source
) -> tuple[list[str], list[int]]:
    """Resolved code per kept row and the positions kept (rows naming regions the atlas excludes are dropped)."""
    full = uncut(atlas)
    codes: list[str] = []
    keep: list[int] = []
    seen: dict[str, tuple[str, str]] = {}
    duplicates = []
    unknown: list[tuple[str, str]] = []  # (the one-name message, the entry of a list)
    for pos, (cell, row) in enumerate(zip(frame[region_col], rows)):
        if _is_missing(cell) and not (isinstance(cell, str) and cell.strip()):  # "NA" may be a code
            raise TableError(f"Empty region name at {row} of {_describe(source)} (column {region_col!r}); fill it "
                             "in or delete the row.")
        try:
            code = _resolve_name(full, str(cell).strip(), len(unknown))
        except UnknownRegionError as exc:
            unknown.append((f"{row} of {_describe(source)}: {exc}", _unknown_entry(row, str(cell).strip(), exc)))
            continue
        if code not in atlas.codes:
            continue
        if code in seen:
            first_row, first_cell = seen[code]
            duplicates.append(
                f"{first_row} {first_cell!r} and {row} {str(cell).strip()!r} are both {code} ({atlas.name_of(code)})"
            )
        seen.setdefault(code, (row, str(cell).strip()))
        codes.append(code)
        keep.append(pos)
    if len(unknown) == 1:
        raise TableError(unknown[0][0])
    if unknown:
        raise TableError(f"{len(unknown)} unknown {atlas.title} region names in {_describe(source)} (column "
                         f"{region_col!r}): {_listing([entry for _, entry in unknown])}.")
    if duplicates:
        raise TableError(f"Duplicate regions in {_describe(source)}: {_listing(duplicates)}; keep one row per "
                         "region.")
    return codes, keep


def _resolve_name(atlas: Atlas, name: str, unknown_so_far: int) -> str:
    """``atlas.resolve(name)``; once a message has enough unknown names to list, later unknown names skip the
    'did you mean' search (200,000 unknown rows took minutes)."""
    if unknown_so_far < MAX_LISTED:
        return atlas.resolve(name)
    code = atlas.find(name)
    if code is None:
        raise UnknownRegionError(name, [], atlas.title)
    return code


def _unknown_entry(row: str, name: str, exc: UnknownRegionError) -> str:
    """``line 3 'Kalifornia' (did you mean 'California'?)`` for one unknown region name."""
    return f"{row} {name!r}{suggestion(exc.matches, exc.valid)}"


def _report_omitted(atlas: Atlas, codes: list[str], expected: set[str], on_missing: OnMissing,
                    source: Source) -> None:
    """One warning naming every region of the atlas the table leaves out (they become N/A), unless the sidecar
    lists them as missing on purpose or ``on_missing="ignore"``."""
    listed = set(codes)
    omitted = [c for c in atlas.codes if c not in listed and c not in expected]
    if not omitted or on_missing == "ignore":
        return
    names = ", ".join(f"{c} ({atlas.name_of(c)})" for c in omitted)
    warnings.warn(f"{_describe(source)} leaves out {len(omitted)} of {len(atlas.codes)} {atlas.title} regions, "
                  f"drawn as N/A: {names}.", OmittedRegionWarning, stacklevel=3)


# --- metadata ---------------------------------------------------------------------------------------------


def _sidecar(source: Source) -> dict[str, Any]:
    if isinstance(source, pd.DataFrame):
        return {}
    path = metadata_path(source)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TableError(f"Sidecar metadata {path} is not valid JSON: {exc}; fix it or delete it.") from None
    return dict(data.get(_SIDECAR_KEY) or {})


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_") or "user_table"


def _default_unit(kind: str) -> str:
    return "%" if kind == "percent" else ""


def _info(
    atlas: Atlas, source: Source, value_col: str, meta: dict[str, Any], overrides: dict[str, Any]
) -> StatInfo:
    named = overrides["title"] or meta.get("title")
    guess = ColumnTitle(str(named)) if named else column_title(value_col, atlas, source)
    kind = overrides["kind"] or meta.get("kind") or "absolute"
    if kind not in KINDS:
        raise TableError(f"kind must be one of {KINDS}, got {kind!r}; pass one of them (--kind).")
    default_source = "user table" if isinstance(source, pd.DataFrame) else f"user table {Path(source).name}"
    year = overrides["year"] if overrides["year"] is not None else meta.get("year", guess.year)
    unit = overrides["unit"] if overrides["unit"] is not None else meta.get("unit", guess.unit)
    return StatInfo(
        id=overrides["stat_id"] or meta.get("id") or _slug(named or value_col),
        country=atlas.name,
        title=guess.title,
        unit=str(_default_unit(kind) if unit is None else unit),
        kind=cast(Kind, kind),  # checked against KINDS above
        year=None if year is None else int(year),
        source=str(overrides["source_note"] or meta.get("source") or default_source),
        notes=str(meta.get("notes", "")),
    )


# --- readable titles --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnTitle:
    """The title a table's value column gives a map (and the unit and year it implies, when it does)."""

    title: str
    unit: str | None = None
    year: int | None = None


#: Abbreviations of column names spelled out in titles (``pop_2020`` → "Population, 2020").
_WORDS = {"pop": "population", "gdp": "GDP", "avg": "average", "pct": "percent", "perc": "percent",
          "num": "number", "no": "number", "pc": "per capita", "sq": "square", "km": "km", "mi": "miles",
          "hh": "households", "med": "median", "tot": "total", "gdppc": "GDP per capita", "usd": "USD"}
_YEAR = re.compile(r"^(1[89]|20)\d{2}$")


def column_title(column: str, atlas: Atlas, source: Source) -> ColumnTitle:
    """A readable title from a value column's name, never the raw name: the curated statistic of that id
    (its catalogue title, unit and year), else the column's words with abbreviations spelled out and a trailing
    year split off (``pop_2020`` → "Population", year 2020); a generic column (``value``) is titled after the
    file's name."""
    curated = _curated_title(column, atlas)
    if curated is not None:
        return curated
    name = column
    if name.strip().lower() in _VALUE_NAMES and not isinstance(source, pd.DataFrame):
        name = Path(source).stem
    words = [w for w in re.split(r"[_\-\s.]+|(?<=[a-z])(?=[A-Z])", name.strip()) if w]
    year = int(words.pop()) if len(words) > 1 and _YEAR.match(words[-1]) else None
    spelled = [_WORDS.get(w.lower(), w if w.isupper() else w.lower()) for w in words] or ["value"]
    text = " ".join(spelled)
    return ColumnTitle(text[:1].upper() + text[1:], None, year)


def _curated_title(column: str, atlas: Atlas) -> ColumnTitle | None:
    """The catalogue's title, unit and year when the column is named after a curated statistic of the atlas."""
    if atlas.name not in BUILTIN:
        return None
    from mapgen.data.curated import list_stats

    for info in list_stats(atlas.name):
        if info.id == column.strip().lower():
            return ColumnTitle(info.title, info.unit, info.year)
    return None


# --- public API -------------------------------------------------------------------------------------------


def as_frame(values: Values) -> pd.DataFrame:
    """A two-column table (``region``, then the value column: the Series' name or ``value``) of values keyed
    by region names, codes or aliases, read as a table file's rows are."""
    if isinstance(values, pd.Series):
        column = str(values.name) if values.name is not None and str(values.name) != "region" else "value"
        frame = pd.DataFrame({"region": [str(k) for k in values.index], column: list(values.to_numpy())})
        frame.attrs["described"] = "the Series"
    else:
        frame = pd.DataFrame({"region": [str(k) for k in values], "value": list(values.values())})
        frame.attrs["described"] = "the mapping"
    return frame


def load_table(
    source: Source | Values,
    atlas: str | Atlas,
    region_col: str | None = None,
    value_col: str | None = None,
    title: str | None = None,
    unit: str | None = None,
    kind: str | None = None,
    year: int | None = None,
    source_note: str | None = None,
    stat_id: str | None = None,
    on_missing: OnMissing = "warn",
) -> Statistic:
    """Join a user table to an atlas: a :class:`Statistic` over every atlas code (unlisted regions → NaN).

    Metadata arguments left as ``None`` come from the sidecar ``<file>-metadata.json`` when there is one, else
    default to: title = value column name, unit ``""``, kind ``"absolute"``, source = the file name.
    See the module docstring for the error and missing-value policy.
    """
    if on_missing not in ("warn", "error", "ignore"):
        raise ValueError(f"on_missing must be 'warn', 'error' or 'ignore', got {on_missing!r}")
    if isinstance(source, (pd.Series, Mapping)):
        source = as_frame(source)
    atlas = as_atlas(atlas)
    frame, text = read_frame(source, atlas)
    found = _region_columns(frame, atlas) if not (region_col and value_col) else {}
    region_col = (
        _check_column(frame, region_col, "Region", source) if region_col else _pick_region_col(found, frame, atlas, source)
    )
    value_col = (
        _check_column(frame, value_col, "Value", source)
        if value_col
        else _pick_value_col(set(found), frame, region_col, source)
    )
    if value_col == region_col:
        raise TableError(f"The region and value columns are the same ({region_col!r}); pass two different "
                         "columns (--region-col, --value-col).")
    meta = _sidecar(source)
    overrides = {"title": title, "unit": unit, "kind": kind, "year": year, "source_note": source_note,
                 "stat_id": stat_id}
    info = _info(atlas, source, value_col, meta, overrides)
    rows = [_row_name(idx, pos, text) for pos, idx in enumerate(frame.index)]
    codes, keep = _resolve_rows(frame, region_col, atlas, rows, source)
    kept = frame.iloc[keep]
    values, missing_rows = _values(kept, value_col, codes, [rows[p] for p in keep], info.kind)
    check_magnitudes(values, value_col, source)
    if info.kind == "percent":
        refuse_fractions_as_percent(values, kept[value_col], value_col, source)
    _report_missing(values, missing_rows, set(meta.get("missing") or ()), on_missing, value_col, source)
    _report_omitted(atlas, codes, set(meta.get("missing") or ()), on_missing, source)
    series = pd.Series({code: values.get(code, math.nan) for code in atlas.codes}, dtype=float)
    return Statistic(values=series, info=replace(info, missing=tuple(series.index[series.isna()])))


#: Magnitudes a legend can print readably: larger values give legends that run off the page, smaller non-zero
#: ones (subnormal floats among them) 90-digit numbers and classification breaks that collapse.
MAX_MAGNITUDE, MIN_MAGNITUDE = 1e15, 1e-12


def refuse_fractions_as_percent(values: dict[str, float], cells: pd.Series, value_col: str, source: Source) -> None:
    """Refuse a percent table whose values all lie within 0-1 written without a ``%`` sign: they read as
    fractions (0.12 for 12 %), and the map would print "0.12 %"."""
    finite = [v for v in values.values() if math.isfinite(v)]
    signed = any(isinstance(c, str) and c.strip().endswith("%") for c in cells)
    if len(finite) < 2 or signed or not all(0.0 <= v <= 1.0 for v in finite) or not any(finite):
        return
    example = next(f"{c} {v:g}" for c, v in values.items() if math.isfinite(v) and v > 0)
    raise TableError(f"{_describe(source)}: every value in percent column {value_col!r} lies within 0-1 (e.g. "
                     f"{example}), so they look like fractions; multiply the column by 100, or write the cells "
                     "with a % sign (0.12%) if they really are under one percent.")


def check_magnitudes(values: dict[str, float], value_col: str, source: Source) -> None:
    """Refuse values above :data:`MAX_MAGNITUDE` or non-zero below :data:`MIN_MAGNITUDE` in size, naming the
    regions and the factor to rescale by."""
    finite = {c: v for c, v in values.items() if math.isfinite(v)}
    huge = {c: v for c, v in finite.items() if abs(v) > MAX_MAGNITUDE}
    tiny = {c: v for c, v in finite.items() if v != 0 and abs(v) < MIN_MAGNITUDE}
    for found, word, bound in ((huge, "large", f"above {MAX_MAGNITUDE:g}"), (tiny, "small", f"below {MIN_MAGNITUDE:g}")):
        if not found:
            continue
        exponent = math.floor(math.log10(max(abs(v) for v in found.values()) if word == "large"
                                         else min(abs(v) for v in found.values())))
        factor = f"divide by 1e{exponent}" if word == "large" else f"multiply by 1e{-exponent}"
        listed = _listing([f"{c} {v:.3g}" for c, v in found.items()])
        raise TableError(f"{_describe(source)}: values in column {value_col!r} are too {word} to print readably "
                         f"({bound}): {listed}; rescale the column ({factor}) and name the factor in the unit.")


def _report_missing(
    values: dict[str, float],
    missing_rows: list[str],
    expected: set[str],
    on_missing: OnMissing,
    value_col: str,
    source: Source,
) -> None:
    if all(math.isnan(v) for v in values.values()):
        raise TableError(f"Column {value_col!r} of {_describe(source)} has no values at all; fill in the values "
                         "(or pass the column that holds them, --value-col).")
    nan_codes = [c for c, v in values.items() if math.isnan(v)]
    unexpected = [(row, code) for row, code in zip(missing_rows, nan_codes) if code not in expected]
    if not unexpected or on_missing == "ignore":
        return
    listed = _listing([f"{row} {code}" for row, code in unexpected])
    if on_missing == "error":
        raise TableError(
            f"Empty / N/A values in column {value_col!r} of {_describe(source)}: {listed}. "
            "Pass on_missing='warn' or 'ignore' to map them as N/A."
        )
    warnings.warn(
        f"Empty / N/A values in column {value_col!r} of {_describe(source)} become N/A: {listed}.",
        MissingValueWarning,
        stacklevel=3,
    )


def save_table(stat: Statistic, path: str | Path, atlas: str | Atlas | None = None) -> tuple[Path, Path]:
    """Write ``code,name,value`` (NaN as an empty cell) and the sidecar ``<file>-metadata.json``, atomically.

    Returns both paths. :func:`load_table` reads the pair back to an equal Statistic.
    """
    atlas = as_atlas(atlas or stat.country)
    path = Path(path)
    sidecar = metadata_path(path)
    meta = {
        "@context": "http://www.w3.org/ns/csvw",
        "url": path.name,
        "dc:title": stat.title,
        "tableSchema": {
            "columns": [
                {"name": "code", "datatype": "string"},
                {"name": "name", "datatype": "string"},
                {"name": "value", "datatype": "double", "null": ""},
            ]
        },
        _SIDECAR_KEY: asdict(stat.info) | {"missing": list(stat.missing)},
    }
    write_text_atomic(path, table_csv(stat, atlas))
    write_text_atomic(sidecar, json.dumps(meta, indent=1) + "\n")
    return path, sidecar


def table_csv(stat: Statistic, atlas: Atlas) -> str:
    """The ``code,name,value`` CSV text of a statistic (full float precision, NaN as an empty cell)."""
    frame = pd.DataFrame(
        {
            "code": stat.values.index,
            "name": [atlas.names.get(c, c) for c in stat.values.index],
            "value": [None if math.isnan(v) else repr(float(v)) for v in stat.values],
        }
    )
    return frame.to_csv(index=False, lineterminator="\n")
