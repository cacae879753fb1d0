"""Scoring the table-extraction task: a reply (any format :func:`~mapgen.tasks.extraction.parse.parse_table` reads) against
a gold-table record of ``extraction.jsonl`` (:mod:`mapgen.tasks.extraction.gold`).

Regions are matched like VQA answers: :class:`~mapgen.eval.normalize.AliasMap` over each gold row's accepted
spellings (name, code, aliases, drawn label); a region cell that is not a known spelling is tried without its
parenthesis (``Texas (TX)``) and as the parenthesis alone. Rows naming an *omitted* (illegible) region are ignored;
rows naming no region of the map are kept as wrong pairs. When a reply names a region twice, its first row is its
reading (a later, different row still counts against precision).

Discrete and hatched maps (cells are legend classes; a cell is a class when its normalised text equals the label
or, through the legend grammar, its range equals the label's: ``580,000–7,000,000`` is ``580k-7M``; N/A words are
the ``N/A`` class):

- ``class_accuracy`` (main): share of gold rows whose reading is their class (no reading = wrong);
- ``pair_precision`` / ``pair_recall`` / ``pair_f1``: over the sets of (region, class) pairs of reply and gold.

Continuous maps (cells are values; a closed range is read as its midpoint, an open one as no reading):

- ``within_tolerance`` (main): share of gold rows read within the reading tolerance τ (the record's
  ``tolerance`` = 5 % of the bar's span, the questions' tolerance); a gold N/A row is right only when read N/A;
- ``mae_share``: mean over the gold rows *with* a value of ``min(1, |read − gold| / span)``, a missing or N/A
  reading counting 1 (lower is better).

Random baseline (:func:`mapgen.tasks.extraction.baselines.random_reply`, which sees the regions and the legend, never
the gold cells): one row per region with a class drawn uniformly from the legend's classes (``N/A`` among them
when the map has N/A regions), or a value uniform on ``[vmin, vmax]``; rows of illegible regions are ignored by
the scoring. Its analytic chance (:func:`chance`): accuracy = precision = recall = F1 = mean over rows of
``1/|classes|`` (the reply has exactly one pair per gold region, so every pair metric equals the accuracy);
within-tolerance
``= mean(min(v+τ, vmax) − max(v−τ, vmin)) / span`` over valued rows (0 for N/A rows); expected error share
``((v−vmin)² + (vmax−v)²) / (2·span²)`` per valued row.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mapgen.eval.normalize import AliasMap, normalize_answer_name, ranges_equal
from mapgen.legend.grammar import parse_label
from mapgen.tasks.extraction.baselines import prior_replies, random_replies
from mapgen.tasks.extraction.parse import NA, Reading, clean_text, parse_table, read_cell

DISCRETE_METRICS = ("class_accuracy", "pair_precision", "pair_recall", "pair_f1")
CONTINUOUS_METRICS = ("within_tolerance", "mae_share")
MAIN = {"discrete": "class_accuracy", "continuous": "within_tolerance"}
LOWER_IS_BETTER = frozenset({"mae_share"})
_PAREN = re.compile(r"^(.*?)\s*\(([^)]*)\)\s*$")
UNKNOWN = "\x00unknown:"


@dataclass
class TableScore:
    """Score of one reply against one gold table."""

    question_id: str
    map_type: str
    metrics: dict[str, float]
    main: float
    format: str = "none"
    rows_read: int = 0
    unknown_regions: list[str] = field(default_factory=list)
    missing: bool = False

    def as_row(self) -> dict[str, Any]:
        """A flat per-table row for the report."""
        return {"question_id": self.question_id, "map_type": self.map_type, "main": self.main,
                "format": self.format, "rows_read": self.rows_read, "missing": self.missing,
                "unknown_regions": len(self.unknown_regions), **self.metrics}


# ------------------------------------------------------------------------------------------- regions


def region_map(record: Mapping[str, Any]) -> tuple[AliasMap, set[str]]:
    """Alias map over gold and omitted regions, and the canonical keys of the omitted ones."""
    gold = {r["region"]: r.get("accepted", []) for r in record["rows"]}
    omitted = {r["region"]: r.get("accepted", []) for r in record.get("omitted", [])}
    amap = AliasMap.from_aliases(gold | omitted)
    return amap, {amap.canonical(name) for name in omitted}


def region_key(amap: AliasMap, text: str) -> str | None:
    """Canonical key of a region cell, or None when it names no region of the map."""
    candidates = [text]
    m = _PAREN.match(text)
    if m:
        candidates += [m.group(1), m.group(2)]
    for candidate in candidates:
        key = normalize_answer_name(candidate)
        if key in amap.lookup:
            return amap.lookup[key]
    return None


# ------------------------------------------------------------------------------------------- cells


def class_key(record: Mapping[str, Any], cell: str) -> str:
    """The legend class a cell names (its label), ``N/A``, else the cell's normalised text (a wrong class)."""
    reading = read_cell(cell)
    if reading.na:
        return NA
    norm = normalize_answer_name(cell)
    for label in record.get("classes", []):
        if label != NA and normalize_answer_name(label) == norm:
            return label
    if reading.range is not None:
        for label in record.get("classes", []):
            if label != NA and ranges_equal(reading.range, parse_label(label)):
                return label
    return UNKNOWN + norm


def value_of(reading: Reading) -> float | None:
    """The number a continuous cell gives: the value, a closed range's midpoint, else None."""
    if reading.range is None:
        return None
    lo, hi = reading.range
    if lo is None or hi is None:
        return None
    return (lo + hi) / 2


# ------------------------------------------------------------------------------------------- scoring


def reply_rows(record: Mapping[str, Any], reply: str | None) -> tuple[list[tuple[str, str]], list[str], str]:
    """(canonical region, cell) rows of a reply about regions of the map (omitted ones dropped), the region cells
    naming no region of the map, and the format the parser read."""
    parsed = parse_table(reply, record.get("map_type"))
    amap, omitted = region_map(record)
    rows, unknown = [], []
    for region, cell in parsed.rows:
        key = region_key(amap, region)
        if key is None:
            unknown.append(region)
            rows.append((UNKNOWN + normalize_answer_name(region), cell))
        elif key not in omitted:
            rows.append((key, cell))
    return rows, unknown, parsed.format


def _first_readings(rows: Sequence[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, cell in rows:
        out.setdefault(key, cell)
    return out


def _pr(gold: set[Any], pred: set[Any]) -> tuple[float, float, float]:
    if not gold and not pred:
        return 1.0, 1.0, 1.0
    hits = len(gold & pred)
    precision = hits / len(pred) if pred else 0.0
    recall = hits / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def discrete_metrics(record: Mapping[str, Any], rows: Sequence[tuple[str, str]]) -> dict[str, float]:
    """Class accuracy and (region, class) pair precision / recall / F1."""
    amap, _ = region_map(record)
    gold = {amap.canonical(r["region"]): r["class"] for r in record["rows"]}
    pred_pairs = {(key, class_key(record, cell)) for key, cell in rows}
    first = {key: class_key(record, cell) for key, cell in _first_readings(rows).items()}
    accuracy = sum(first.get(k) == c for k, c in gold.items()) / len(gold) if gold else 1.0
    precision, recall, f1 = _pr(set(gold.items()), pred_pairs)
    return {"class_accuracy": accuracy, "pair_precision": precision, "pair_recall": recall, "pair_f1": f1}


def _row_result(gold_value: float | None, cell: str | None, tol: float, span: float) -> tuple[bool, float | None]:
    """(within tolerance, error share or None for a gold N/A row) of one gold row."""
    reading = read_cell(cell) if cell is not None else Reading()
    if gold_value is None:
        return reading.na, None
    value = value_of(reading)
    if value is None:
        return False, 1.0
    error = abs(value - gold_value)
    return error <= tol * (1 + 1e-9), min(1.0, error / span) if span > 0 else float(error > 0)


def continuous_metrics(record: Mapping[str, Any], rows: Sequence[tuple[str, str]]) -> dict[str, float]:
    """Share read within the tolerance and mean absolute error as a share of the bar's span."""
    amap, _ = region_map(record)
    first = _first_readings(rows)
    span, tol = float(record["vmax"]) - float(record["vmin"]), float(record["tolerance"])
    hits, errors = [], []
    for r in record["rows"]:
        ok, error = _row_result(r.get("value"), first.get(amap.canonical(r["region"])), tol, span)
        hits.append(ok)
        if error is not None:
            errors.append(error)
    return {"within_tolerance": sum(hits) / len(hits) if hits else 1.0,
            "mae_share": sum(errors) / len(errors) if errors else 0.0}


def metric_names(map_type: str) -> tuple[str, ...]:
    return DISCRETE_METRICS if map_type == "discrete" else CONTINUOUS_METRICS


def score_table(record: Mapping[str, Any], reply: str | None) -> TableScore:
    """Score one reply (``None`` = missing: every metric at its worst) against one gold-table record."""
    map_type = str(record["map_type"])
    if reply is None:
        worst = {m: (1.0 if m in LOWER_IS_BETTER else 0.0) for m in metric_names(map_type)}
        return TableScore(record["question_id"], map_type, worst, 0.0, missing=True)
    rows, unknown, fmt = reply_rows(record, reply)
    metrics = discrete_metrics(record, rows) if map_type == "discrete" else continuous_metrics(record, rows)
    return TableScore(record["question_id"], map_type, metrics, metrics[MAIN[map_type]], fmt, len(rows), unknown)


def score_tables(records: Iterable[Mapping[str, Any]], texts: Mapping[str, str | None]) -> list[TableScore]:
    """Score every gold table against ``texts[question_id]`` (absent = missing)."""
    return [score_table(r, texts.get(r["question_id"])) for r in records]


def summarize(scores: Sequence[TableScore], by: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Mean of every metric per map type (``hatched`` apart when ``by`` gives the records), plus counts."""
    groups: dict[str, list[TableScore]] = {}
    for i, s in enumerate(scores):
        hatched = bool(by[i].get("hatched")) if by is not None else False
        groups.setdefault("hatched" if hatched else s.map_type, []).append(s)
    out: dict[str, Any] = {"n": len(scores), "missing": sum(s.missing for s in scores),
                           "score": _mean(s.main for s in scores)}
    for name, members in sorted(groups.items()):
        names = metric_names(members[0].map_type)
        out[name] = {"n": len(members)} | {m: _mean(s.metrics[m] for s in members) for m in names}
    return out


# ------------------------------------------------------------------------------------------- readings


READING_STATUSES = ("right", "wrong", "unreadable", "missing")
"""Status of a gold row in :func:`table_readings`: read right, read wrong, its cell not a class or value
(``dark blue``), or not in the reply."""
EXTRA_STATUSES = ("unknown region", "repeat", "unparsed")
"""Status of a reply row that reads no gold row: naming no region of the map, a region's later row, or a line of
the reply that names a region of the map but gave the parser no row (``| Texas | dark blue |``: its cell is no
class, value or N/A word)."""
REPLY_CHARS = 4000
"""Replies longer than this are cut in :func:`table_readings` (the site shows them beside the table)."""


def gold_text(row: Mapping[str, Any]) -> str:
    """A gold row's cell as the readings show it: its class, its value (whole numbers with thousands separators
    from 10,000 up, else 4 significant digits) or ``N/A``."""
    if "class" in row:
        return str(row["class"])
    value = row.get("value")
    if value is None:
        return NA
    return f"{float(value):,.0f}" if abs(float(value)) >= 10_000 else f"{float(value):.4g}"


def _status(record: Mapping[str, Any], row: Mapping[str, Any], cell: str | None) -> str:
    """One of :data:`READING_STATUSES` for a gold row and its first reading (``None``: none)."""
    if cell is None:
        return "missing"
    if record["map_type"] == "discrete":
        key = class_key(record, cell)
        if key == row["class"]:
            return "right"
        return "wrong" if read_cell(cell).ok or not key.startswith(UNKNOWN) else "unreadable"
    reading = read_cell(cell)
    if not reading.na and value_of(reading) is None:
        return "unreadable"
    span, tol = float(record["vmax"]) - float(record["vmin"]), float(record["tolerance"])
    return "right" if _row_result(row.get("value"), cell, tol, span)[0] else "wrong"


def _extra_rows(record: Mapping[str, Any], parsed: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """Parsed reply rows that read no gold row: naming no region of the map, or a gold region already read."""
    amap, omitted = region_map(record)
    seen: set[str] = set()
    extra = []
    for region, cell in parsed:
        key = region_key(amap, region)
        if key is None or key in seen:
            extra.append({"region": region, "read": cell, "status": "unknown region" if key is None else "repeat"})
        elif key not in omitted:
            seen.add(key)
    return extra


_MARKS = re.compile(r"[*_`\"']")


def _spelling_patterns(record: Mapping[str, Any]) -> list[re.Pattern[str]]:
    """Whole-word patterns of every spelling of the map's regions: names case-insensitively, short codes (3
    letters or fewer: ``IN``, ``OR``) only in capitals."""
    drawn = (*record["rows"], *record.get("omitted", ()))
    spellings = {str(s) for r in drawn for s in (r["region"], *r.get("accepted", ()))}
    long = sorted((s for s in spellings if len(s) > 3), key=len, reverse=True)
    short = sorted(s for s in spellings if 0 < len(s) <= 3)
    return [re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, group)) + r")(?!\w)", flags)
            for group, flags in ((long, re.IGNORECASE), (short, 0)) if group]


def unparsed_lines(record: Mapping[str, Any], reply: str | None, rows: Sequence[tuple[str, str]]) -> list[str]:
    """Lines of a Markdown or line-by-line reply that name a region of the map but hold none of the parsed
    ``rows`` (region and cell text both on the line); JSON replies are not split into lines."""
    if not reply or reply.lstrip().startswith(("{", "[")) or "```json" in reply:
        return []
    patterns = _spelling_patterns(record)
    read = [(_MARKS.sub("", region).lower(), _MARKS.sub("", cell).lower()) for region, cell in rows]
    out = []
    for line in clean_text(reply).splitlines():
        flat = _MARKS.sub("", line).lower()
        if any(p.search(line) for p in patterns) and not any(r in flat and c in flat for r, c in read):
            out.append(line.strip())
    return out


def table_readings(record: Mapping[str, Any], reply: str | None) -> dict[str, Any]:
    """The gold table beside the reply's parsed table: per gold row its gold cell, the reply's first reading and
    a status (:data:`READING_STATUSES`), the reply rows reading no gold row (:data:`EXTRA_STATUSES`), the count
    of each status, the table's main score (None when the reply is missing), the reader's format and the reply
    (cut at :data:`REPLY_CHARS`)."""
    rows, _, fmt = reply_rows(record, reply) if reply is not None else ([], [], "none")
    amap, _ = region_map(record)
    first = _first_readings(rows)
    gold_rows = []
    for r in record["rows"]:
        cell = first.get(amap.canonical(r["region"]))
        gold_rows.append({"region": r["region"], "gold": gold_text(r), "read": cell,
                          "status": _status(record, r, cell)})
    parsed = parse_table(reply, record.get("map_type")).rows if reply is not None else []
    extra = _extra_rows(record, parsed)
    extra += [{"region": "", "read": line, "status": "unparsed"} for line in unparsed_lines(record, reply, parsed)]
    counts = {s: sum(g["status"] == s for g in gold_rows) for s in READING_STATUSES}
    counts |= {s: sum(e["status"] == s for e in extra) for s in EXTRA_STATUSES}
    return {"question_id": record["question_id"], "map_id": record.get("map_id"), "map_type": record["map_type"],
            "hatched": bool(record.get("hatched")), "format": fmt, "counts": counts,
            "score": None if reply is None else score_table(record, reply).main, "rows": gold_rows,
            "extra": extra, "reply": None if reply is None else reply[:REPLY_CHARS]}


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else math.nan


# ------------------------------------------------------------------------------------------- baseline, chance


def chance(record: Mapping[str, Any]) -> dict[str, float]:
    """Expected metrics of the random baseline on one gold table (see the module doc)."""
    rows = record["rows"]
    if record["map_type"] == "discrete":
        options = record["classes"]
        p = _mean(1 / len(options) if r["class"] in options else 0.0 for r in rows) if rows else 1.0
        return dict.fromkeys(DISCRETE_METRICS, p)
    lo, hi, tol = float(record["vmin"]), float(record["vmax"]), float(record["tolerance"])
    span = hi - lo
    hit = [0.0 if r.get("value") is None else (min(r["value"] + tol, hi) - max(r["value"] - tol, lo)) / span
           for r in rows]
    err = [((r["value"] - lo) ** 2 + (hi - r["value"]) ** 2) / (2 * span**2) for r in rows if r.get("value") is not None]
    return {"within_tolerance": _mean(hit) if hit else 1.0, "mae_share": _mean(err) if err else 0.0}


def permutation_null(record: Mapping[str, Any], reply: str) -> float:
    """Expected main score of ``reply`` if the table's gold cells were shuffled among its rows: per row, the
    share of rows whose gold the row's reading matches (class equal / value within the tolerance)."""
    rows = record["rows"]
    if not rows:
        return 1.0
    total = 0.0
    for row in rows:  # every gold cell in turn moved onto every row: the mean over the n² placements
        moved = [{**r, **_gold_cell(row)} for r in rows]
        total += score_table({**record, "rows": moved}, reply).main
    return total / len(rows)


def _gold_cell(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"class": row["class"]} if "class" in row else {"value": row.get("value")}


def chance_summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """:func:`summarize`'s layout for the analytic chance of every table."""
    scores = [TableScore(r["question_id"], r["map_type"], c, c[MAIN[r["map_type"]]])
              for r, c in ((r, chance(r)) for r in records)]
    return summarize(scores, records)


# ------------------------------------------------------------------------------------------- report


TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Class acc", "class_accuracy"), ("Pair P", "pair_precision"), ("Pair R", "pair_recall"), ("Pair F1", "pair_f1"),
    ("Within τ", "within_tolerance"), ("MAE (% span)", "mae_share"),
)
"""(column title, metric) of the report's extraction table (in %)."""
REFERENCE_ROWS = {"random": "random (empirical)", "prior": "prior (train split)", "chance": "chance (analytic)"}
"""Reference summaries a run's extraction summary may carry → the row label under each map variant."""


def table_ci(scores: Sequence[TableScore], records: Sequence[Mapping[str, Any]], seed: int = 0
             ) -> dict[str, dict[str, list[float]]]:
    """``{variant: {metric: [low, high]}}``: 95 % bootstrap intervals (fractions, like the means) of the
    per-variant means, tables resampled (:mod:`mapgen.eval.bootstrap`, seeded by ``seed`` and the cell)."""
    from mapgen.eval.bootstrap import mean_ci

    groups: dict[str, list[TableScore]] = {}
    for s, r in zip(scores, records):
        groups.setdefault("hatched" if r.get("hatched") else s.map_type, []).append(s)
    return {variant: {m: mean_ci([s.metrics[m] for s in members], seed, f"extraction|{variant}|{m}")
                      for m in metric_names(members[0].map_type)}
            for variant, members in sorted(groups.items())}


def _score_ci(scores: Sequence[TableScore], seed: int) -> list[float]:
    from mapgen.eval.bootstrap import mean_ci

    return mean_ci([s.main for s in scores], seed, "extraction|score")


def extraction_summary(records: Sequence[Mapping[str, Any]], texts: Mapping[str, str | None],
                       seed: int = 0, train: Sequence[Mapping[str, Any]] = ()
                       ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run's extraction summary (its own scores with their bootstrap intervals, the random baseline's, the
    train-split prior's when ``train`` gold tables are given, and the analytic chance, per map variant) and its
    per-table rows."""
    scores = score_tables(records, texts)
    summary = summarize(scores, records)
    summary["ci"] = table_ci(scores, records, seed)
    summary["score_ci"] = _score_ci(scores, seed)
    random_scores = score_tables(records, random_replies(records, seed))
    summary["random"] = summarize(random_scores, records)
    by_style = style_summary(scores, random_scores, records, seed)
    if by_style:  # builds whose tables come from more than one map style
        summary["by_style"] = by_style
    if train:
        summary["prior"] = summarize(score_tables(records, prior_replies(records, train)), records)
    summary["chance"] = chance_summary(records)
    return summary, [s.as_row() | {"hatched": bool(r.get("hatched"))} for s, r in zip(scores, records)]


def style_summary(scores: Sequence[TableScore], random_scores: Sequence[TableScore],
                  records: Sequence[Mapping[str, Any]], seed: int = 0) -> dict[str, dict[str, Any]]:
    """``{style: {n, score, score_ci, random, chance}}``: the main score per map style (tables resampled for its
    interval) beside the random baseline and the analytic chance on the same tables; empty when the tables come
    from one style (records name their map's ``style``; none is the default look)."""
    from mapgen.benchmark import DEFAULT_STYLE
    from mapgen.eval.bootstrap import mean_ci

    styles = [str(r.get("style") or DEFAULT_STYLE) for r in records]
    if len(set(styles)) < 2:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for style in sorted(set(styles)):
        idx = [i for i, s in enumerate(styles) if s == style]
        main = [scores[i].main for i in idx]
        out[style] = {"n": len(idx), "score": _mean(main), "score_ci": mean_ci(main, seed, f"extraction|style|{style}"),
                      "random": _mean(random_scores[i].main for i in idx),
                      "chance": chance_summary([records[i] for i in idx])["score"]}
    return out


def style_table(summary: Mapping[str, Any]) -> Any:
    """The by-style rows of the report's extraction section (main score in % with its interval, random,
    chance); an empty frame without styles."""
    import pandas as pd

    rows = [{"style": style, "n": cell["n"], "score": _ci_cell(cell["score"] * 100, cell["score_ci"]),
             "random": cell["random"] * 100, "chance": cell["chance"] * 100}
            for style, cell in (summary.get("by_style") or {}).items()]
    return pd.DataFrame(rows, columns=["style", "n", "score", "random", "chance"])


def _ci_cell(value: float, ci: Sequence[float] | None) -> Any:
    """``value`` (in %) written with its interval (fractions, as ``summary.json`` keeps them) in %."""
    if ci is None or math.isnan(value) or any(math.isnan(x) for x in ci):
        return value
    return f"{value:.2f} [{ci[0] * 100:.1f}, {ci[1] * 100:.1f}]"


def extraction_table(summary: Mapping[str, Any], ci: bool = False) -> Any:
    """Rows per map variant (discrete / hatched / continuous), each followed by its reference rows (random,
    prior, chance); columns the metrics in % ("-" where a variant has no such metric). ``ci``: the run's own
    cells written ``value [low, high]`` with their bootstrap intervals."""
    import pandas as pd

    rows = []
    for variant in ("discrete", "hatched", "continuous"):
        for source, label in (("", variant), *((k, f"{variant} · {v}") for k, v in REFERENCE_ROWS.items())):
            part = (summary.get(source) or {}) if source else summary
            cell = part.get(variant)
            if not cell:
                continue
            intervals = (summary.get("ci") or {}).get(variant, {}) if ci and not source else {}
            rows.append({"group": label, "n": cell["n"]}
                        | {title: _ci_cell(cell.get(metric, math.nan) * 100, intervals.get(metric))
                           for title, metric in TABLE_COLUMNS})
    return pd.DataFrame(rows, columns=["group", "n", *(t for t, _ in TABLE_COLUMNS)])
