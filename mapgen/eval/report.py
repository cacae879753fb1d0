"""Report folder: per-question scores, a JSON summary, MAPWise-style Markdown tables and bar plots.

Files written by :func:`write_report` (byte-identical for identical inputs):

- ``scores.csv``: one row per question (ids, grouping attributes, gold answer, extracted answer, flags, every
  metric); list/tuple cells as JSON.
- ``summary.json``: counts (questions, unparsed, missing, unmatched/duplicate predictions, model failures),
  overall score, every metric per answer type (aggregated as the metric declares:
  :func:`~mapgen.eval.metrics.aggregate`), the paper tables as nested dicts with their intervals, plus whatever
  the caller adds (``extra``: each task's summary under its key, run settings). Every score, table cell and
  interval in it is a fraction (0-1: ``acc@0.5`` and ``acc@0.5_ci`` alike); ``tables.md`` and the plots show %.
- ``tables.md``: a *Tasks* overview (:func:`task_table`: VQA, then each task the run scored — count, main
  score, 95 % bootstrap interval, random / prior / chance), then the MAPWise layout — one table per breakdown
  (overall, map type = discrete / continuous / hatched, map style when the questions come from more than one
  (:func:`breakdowns`), annotated, country, relative region, counterfactual set: ``original`` (the control maps of the
  counterfactual study, MAPWise's "Original" row), ``imaginary``, ``shuffled``, ``jumbled``, then ``none`` for
  the ordinary maps), rows the groups, columns Binary Acc,
  Single Recall, Count Acc, Range Acc, List Precision, List Recall, Rank RWP (in %, "-" when a group has no
  question of that type); then the ranking metrics (RWP, MRR, MAP, Spearman, Kendall) like the paper's
  Tables 14-15, each scored task's section (:meth:`mapgen.tasks.Task.section`), and the problems found.
- ``<name>.csv`` per-item tables (``caption_scores``, ``grounding_scores``, …) and ``<name>.jsonl`` per-item
  records, as each task's :class:`~mapgen.tasks.TaskScores` names them.
- ``plots/answer_type.png`` (main score per answer type) and ``plots/by_<breakdown>.png`` (grouped bars:
  answer type × group), each bar with its 95 % bootstrap interval as an error bar (:func:`score_bars`), rendered
  with matplotlib's Agg backend and no timestamp metadata; plus each scored task's plots
  (:meth:`mapgen.tasks.Task.plots`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from mapgen.eval.bootstrap import BOOTSTRAP_SAMPLES, mean_ci, resampled
from mapgen.eval.metrics import METRICS_BY_TYPE, aggregate, mean, metric_info
from mapgen.eval.score import Report
from mapgen.files import write_jsonl_atomic, write_text_atomic


class TaskReport(Protocol):
    """What the report asks of a task (:class:`mapgen.tasks.Task` has it): the key of its summary and its
    *Tasks* row, ``tables.md`` section and plots."""

    @property
    def key(self) -> str: ...

    def overview(self, summary: Mapping[str, Any], seed: int = 0) -> dict[str, Any] | None: ...

    def section(self, summary: Mapping[str, Any]) -> list[str]: ...

    def plots(self, summary: Mapping[str, Any], folder: Path) -> dict[str, Path]: ...

PAPER_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("Binary Acc", "binary", "binary_exact"),
    ("Single Recall", "single", "single_recall"),
    ("Count Acc", "count", "count_exact"),
    ("Range Acc", "range", "range_score"),
    ("List Precision", "list", "list_precision"),
    ("List Recall", "list", "list_recall"),
    ("Rank RWP", "ranking", "ranking_rwp"),
)
"""(column title, answer type, metric) of the MAPWise result tables."""

BREAKDOWNS: dict[str, str] = {
    "map_variant": "Map type",
    "annotated": "Annotated",
    "country": "Country",
    "relative_region": "Relative region",
    "counterfactual": "Counterfactual",
    "difficulty": "Difficulty",
}
"""Frame column → table title; ``map_variant`` is ``hatched`` for hatched maps, else the map type."""

STYLE_BREAKDOWN = ("style", "Style")
"""The by-style table (frame column, title): in a report only when its questions come from more than one map
style (builds with ``variants.styles``; the VQA task adds the ``style`` column)."""


def breakdowns(frame: pd.DataFrame) -> dict[str, str]:
    """The breakdowns of a report of ``frame``: :data:`BREAKDOWNS`, with the style table after the map type
    when the frame holds more than one map style."""
    column, title = STYLE_BREAKDOWN
    if column not in frame or frame[column].nunique(dropna=False) < 2:
        return dict(BREAKDOWNS)
    items = list(BREAKDOWNS.items())
    return dict([items[0], (column, title), *items[1:]])

COUNTERFACTUAL_ORDER: tuple[str, ...] = ("original", "imaginary", "shuffled", "jumbled", "none")
"""Row order of the counterfactual table: MAPWise's Original control first, then the counterfactual sets."""

RANKING_COLUMNS = ("ranking_rwp", "ranking_mrr", "ranking_map", "ranking_spearman", "ranking_kendall")


def with_variant(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame plus ``map_variant`` (discrete / continuous / hatched)."""
    out = frame.copy(deep=False)  # copy-on-write: the frame's columns are shared, not copied
    hatched = out["hatched"].fillna(False).astype(bool) if "hatched" in out else False
    out["map_variant"] = out["map_type"].where(~hatched, "hatched") if len(out) else out.get("map_type")
    return out


def _group_label(value: Any, column: str) -> str:
    if isinstance(value, bool) or column in ("annotated", "relative_region", "hatched"):
        if column == "annotated":
            return "with annotations" if value else "without annotations"
        if column == "relative_region":
            return "relative" if value else "non-relative"
        return "yes" if value else "no"
    return str(value)


REFERENCE_LABELS: dict[str, str] = {"random": "random (empirical)", "chance": "chance (analytic)"}
"""Reference frames a report may carry → the row label they get under each group of every paper table."""


def _paper_row(group: str, g: pd.DataFrame) -> dict[str, Any]:
    row: dict[str, Any] = {"group": group, "n": int(len(g))}
    for title, answer_type, metric in PAPER_COLUMNS:
        sub = g.loc[g["answer_type"] == answer_type, metric]
        row[title] = aggregate(metric, sub) * 100 if len(sub) else math.nan
    return row


PAPER_READS: tuple[str, ...] = ("answer_type", *dict.fromkeys(metric for _, _, metric in PAPER_COLUMNS))
"""The columns a paper table's cell reads (a group's other columns are not copied into it)."""


def _groups(frame: pd.DataFrame, by: str | None) -> dict[Any, pd.DataFrame]:
    frame = with_variant(frame)
    frame = frame[[*([by] if by is not None else []), *(c for c in PAPER_READS if c != by)]]
    return {"all": frame} if by is None else dict(list(frame.groupby(by, sort=True, dropna=False)))


def paper_table(
    frame: pd.DataFrame, by: str | None = None, references: Mapping[str, pd.DataFrame] | None = None
) -> pd.DataFrame:
    """Scores in % per group (rows) and MAPWise column (NaN where a group has no question of the type).

    ``references`` (``{"random": frame, "chance": frame}``, same questions): each group's row is followed by one
    row per reference, labelled ``"<group> · random (empirical)"`` and so on."""
    base = _group_rows(frame, by)  # one frame's groups at a time (a reference frame is as long as the frame)
    refs = {name: _group_rows(ref, by) for name, ref in (references or {}).items()}
    rows = []
    for key, row in base.items():
        label = "all" if by is None else _group_label(key, by)
        rows.append(row | {"group": label})
        for name, ref in refs.items():
            if key in ref:
                rows.append(ref[key] | {"group": f"{label} · {REFERENCE_LABELS.get(name, name)}"})
    return _ordered(pd.DataFrame(rows, columns=["group", "n", *[c[0] for c in PAPER_COLUMNS]]), by)


def _group_rows(frame: pd.DataFrame, by: str | None) -> dict[Any, dict[str, Any]]:
    """:func:`_paper_row` of each group of ``frame`` by its key (the group label left to the caller)."""
    return {key: _paper_row("", g) for key, g in _groups(frame, by).items()}


def bootstrap_ci(metric: str, values: Any, seed: int, key: str, samples: int = BOOTSTRAP_SAMPLES) -> list[float]:
    """95 % percentile bootstrap interval (a fraction) of ``metric``'s aggregate over per-question ``values``,
    resampling questions with replacement; seeded by ``seed`` and the cell's ``key``."""
    import numpy as np

    if not len(values):
        return [math.nan, math.nan]
    if metric_info(metric).aggregation is mean:
        stats = resampled(values, seed, key, lambda rows: np.nanmean(rows, axis=1), samples)
    else:
        stats = resampled(values, seed, key, lambda rows: [aggregate(metric, pd.Series(row)) for row in rows], samples)
    lo, hi = np.nanpercentile(stats, [2.5, 97.5])
    return [float(lo), float(hi)]


def paper_ci(frame: pd.DataFrame, by: str | None = None, seed: int = 0) -> dict[str, dict[str, list[float]]]:
    """``{group: {column title: [low, high]}}``: bootstrap intervals of :func:`paper_table`'s cells."""
    out: dict[str, dict[str, list[float]]] = {}
    for key, g in _groups(frame, by).items():
        label = "all" if by is None else _group_label(key, by)
        cells = {}
        for title, answer_type, metric in PAPER_COLUMNS:
            sub = g.loc[g["answer_type"] == answer_type, metric].dropna()
            if len(sub):
                cells[title] = bootstrap_ci(metric, sub.to_numpy(), seed, f"{by}|{label}|{title}")
        out[label] = cells
    return out


def with_ci(table: pd.DataFrame, cis: Mapping[str, Mapping[str, list[float]]]) -> pd.DataFrame:
    """``table`` with each cell that has an interval written ``value [low, high]``."""
    out = table.astype(object).copy()
    for i, group in enumerate(out["group"]):
        for title, (lo, hi) in cis.get(str(group), {}).items():
            value = out.at[i, title]
            if isinstance(value, float) and not math.isnan(value):
                out.at[i, title] = f"{value:.2f} [{lo * 100:.1f}, {hi * 100:.1f}]"  # the table is in %
    return out


def _ordered(table: pd.DataFrame, by: str | None) -> pd.DataFrame:
    """Counterfactual rows in :data:`COUNTERFACTUAL_ORDER` (unknown sets after them); other tables as they are."""
    if by != "counterfactual" or not len(table):
        return table
    rank = {name: i for i, name in enumerate(COUNTERFACTUAL_ORDER)}
    base = table["group"].map(lambda g: str(g).split(" · ", 1)[0])
    keys = [(rank.get(b, len(rank)), b, i) for i, b in enumerate(base)]
    return table.iloc[sorted(range(len(table)), key=lambda i: keys[i])].reset_index(drop=True)


def ranking_table(frame: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """Ranking metrics in % (RWP, MRR, MAP, Spearman, Kendall) per group, ranking questions only."""
    sub = with_variant(frame[frame["answer_type"] == "ranking"])
    if not len(sub):
        return pd.DataFrame(columns=["group", "n", *RANKING_COLUMNS])
    groups = [("all", sub)] if by is None else list(sub.groupby(by, sort=True, dropna=False))
    rows = [
        {"group": "all" if by is None else _group_label(k, by), "n": int(len(g))}
        | {m: aggregate(m, g[m]) * 100 for m in RANKING_COLUMNS}
        for k, g in groups
    ]
    return _ordered(pd.DataFrame(rows), by)


# ------------------------------------------------------------------------------------------- markdown


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.2f}"
    return str(value)


def markdown_table(df: pd.DataFrame) -> str:
    """A GitHub Markdown table (floats with 2 decimals, NaN as ``-``)."""
    header = "| " + " | ".join(str(c) for c in df.columns) + " |"
    rule = "| " + " | ".join("---" if i == 0 else "---:" for i in range(len(df.columns))) + " |"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def _problems(summary: Mapping[str, Any]) -> list[str]:
    lines = []
    for key, label in (
        ("unparsed", "answers that could not be parsed (scored 0)"),
        ("missing", "questions without a prediction (scored 0)"),
        ("unmatched_predictions", "predictions for unknown question ids (ignored)"),
        ("duplicate_predictions", "duplicate predictions (the last one kept)"),
        ("invalid_prediction_lines", "unreadable prediction lines (skipped)"),
        ("model_failures", "model requests that failed after retries (scored as missing)"),
    ):
        if summary.get(key):
            lines.append(f"- {summary[key]} {label}")
    return lines


def references_of(report: Report) -> Mapping[str, pd.DataFrame]:
    """The random / chance frames a report carries (none for a bare :class:`Report`); read one at a time (a
    streamed run's are made from disk when looked up: :class:`~mapgen.eval.stream.SpooledReferences`)."""
    refs: Mapping[str, pd.DataFrame] = getattr(report, "references", None) or {}
    return refs


def render_markdown(report: Report, summary: Mapping[str, Any], extra: Mapping[str, Any],
                    tasks: Sequence[TaskReport] = ()) -> str:
    """The ``tables.md`` text (with the section of each task of ``tasks`` the run scored)."""
    frame = report.frame
    title = extra.get("title") or "mapgen evaluation"
    out = [f"# {title}", ""]
    score = summary.get("score")
    out.append(
        f"{summary.get('n', 0)} questions, mean score {_cell(float(score) * 100 if score is not None else math.nan)} %."
    )
    out += ["", *(_problems(summary) or ["- no parsing problems, no missing answers"]), ""]
    refs = references_of(report)
    seed = int(extra.get("seed") or 0)
    out += ["## Tasks", "", markdown_table(task_table(report, extra, seed, tasks)), ""]
    out += ["Cells: score in % and its 95 % bootstrap interval (questions resampled, "
            f"{BOOTSTRAP_SAMPLES} times, seed {seed}).", ""]
    for column, label in (("", "Overall"), *breakdowns(frame).items()):
        by = column or None
        table = with_ci(paper_table(frame, by, refs), paper_ci(frame, by, seed))
        out += [f"## {label}" if by is None else f"## By {label.lower()}", "", markdown_table(table), ""]
    ranking = ranking_table(frame)
    if len(ranking):
        out += ["## Ranking metrics (%)", "", markdown_table(ranking_table(frame, "country")), ""]
    for task in tasks:
        if extra.get(task.key):
            out += task.section(extra[task.key])
    failures = extra.get("failures") or []
    if failures:
        out += ["## Model failures", ""]
        out += [f"- `{f['question_id']}`: {f['error']}" for f in failures[:50]]
        if len(failures) > 50:
            out.append(f"- … and {len(failures) - 50} more (see summary.json)")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


TASK_COLUMNS = ("task", "n", "metric", "score", "95 % interval", "random", "prior", "chance")
"""Columns of the overview table of every task the run scored (:func:`task_table`)."""


def interval_text(ci: Sequence[float] | None) -> str:
    """An interval of fractions (:func:`~mapgen.eval.bootstrap.mean_ci`) written in %: ``[41.2, 57.9]``."""
    if not ci or any(x is None or math.isnan(x) for x in ci):
        return "-"
    return f"[{ci[0] * 100:.1f}, {ci[1] * 100:.1f}]"


def percent(value: Any) -> float:
    return math.nan if value is None else float(value) * 100


def _vqa_row(report: Report, seed: int) -> dict[str, Any]:
    frame, refs = report.frame, references_of(report)
    ref = {k: percent(v["main"].mean()) if len(v) else math.nan for k, v in refs.items()}
    return {"task": "VQA", "n": int(len(frame)), "metric": "main score", "score": percent(frame["main"].mean()),
            "95 % interval": interval_text(mean_ci(frame["main"].to_numpy(), seed, "tasks|vqa")),
            "random": ref.get("random", math.nan), "prior": math.nan, "chance": ref.get("chance", math.nan)}


def task_table(report: Report, extra: Mapping[str, Any], seed: int = 0, tasks: Sequence[TaskReport] = ()) -> pd.DataFrame:
    """One row per task the run scored: VQA (mean main score), then each task of ``tasks`` with a summary in
    ``extra`` (its :meth:`~mapgen.tasks.Task.overview`: captions CIDEr ×100, grounding Acc@0.5, gold tables mean
    main score, …); each with its count, 95 % bootstrap interval (items resampled) and baseline scores where
    the task has them ("-" where not)."""
    rows = [_vqa_row(report, seed)] if len(report.frame) else []
    for task in tasks:
        row = task.overview(extra[task.key], seed) if extra.get(task.key) else None
        if row is not None:
            rows.append(row)
    return pd.DataFrame(rows, columns=list(TASK_COLUMNS))


# ------------------------------------------------------------------------------------------- json / csv


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else round(value, 6)
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        return _json_safe(value.item())
    return value


def _table_dict(df: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """A paper table (in %) as ``summary.json`` holds it: fractions, like every score there."""
    return {str(row["group"]): {k: row[k] if k == "n" else row[k] / 100 for k in df.columns if k != "group"}
            for _, row in df.iterrows()}


def build_summary(report: Report, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``summary.json`` content."""
    frame = report.frame
    summary: dict[str, Any] = dict(report.summary())
    per_type = {}
    for answer_type, metrics in METRICS_BY_TYPE.items():
        sub = frame.loc[frame["answer_type"] == answer_type, list(metrics)]  # only the columns aggregated
        if len(sub):
            per_type[answer_type] = {"n": int(len(sub))} | {m: aggregate(m, sub[m]) for m in metrics}
    summary["by_answer_type"] = per_type
    refs = references_of(report)
    summary["tables"] = {"overall": _table_dict(paper_table(frame, None, refs))} | {
        column: _table_dict(paper_table(frame, column, refs)) for column in breakdowns(frame)
    }
    seed = int((extra or {}).get("seed") or 0)
    summary["tables_ci"] = {"overall": paper_ci(frame, None, seed)} | {
        column: paper_ci(frame, column, seed) for column in breakdowns(frame)
    }
    for name, ref in refs.items():
        summary[f"{name}_score"] = float(ref["main"].mean()) if len(ref) else None
    summary.update(dict(extra or {}))
    return _json_safe(summary)


def _csv_cell(value: Any) -> Any:
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value


def csv_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A per-question frame with list/tuple cells JSON-encoded (what ``scores.csv`` holds)."""
    frame = frame.copy()
    for column in ("answer", "extracted"):
        if column in frame:
            frame[column] = frame[column].map(_csv_cell)
    return frame


def scores_frame(report: Report) -> pd.DataFrame:
    """``report.frame`` with list/tuple cells JSON-encoded (what ``scores.csv`` holds)."""
    return csv_frame(report.frame)


def write_scores(report: Report, path: Path) -> Path:
    """``scores.csv``: from ``report.frame``, or chunk by chunk from the report's spool when it has one (the same
    bytes: :mod:`mapgen.eval.stream`)."""
    if report.spool is None:
        scores_frame(report).to_csv(path, index=False, lineterminator="\n")
        return path
    with open(path, "w", encoding="utf-8", newline="") as handle:
        for number, chunk in enumerate(report.spool.frames()):
            csv_frame(chunk).to_csv(handle, header=number == 0, index=False, lineterminator="\n")
    return path


# ------------------------------------------------------------------------------------------- plots


@dataclass
class Bars:
    """A bar chart's data: main score in % (rows: answer types, columns: groups) and its 95 % bootstrap interval."""

    score: pd.DataFrame
    low: pd.DataFrame
    high: pd.DataFrame

    def yerr(self) -> Any:
        """Asymmetric error bars as matplotlib wants them: (columns, 2, rows), distances below and above."""
        import numpy as np

        below = (self.score - self.low).clip(lower=0).to_numpy().T
        above = (self.high - self.score).clip(lower=0).to_numpy().T
        return np.stack([below, above], axis=1)


def score_bars(frame: pd.DataFrame, column: str | None = None, seed: int = 0) -> Bars:
    """Main score per answer type (× group of ``column``) with per-cell bootstrap intervals (questions resampled)."""
    keys = ["answer_type"] if column is None else ["answer_type", column]
    frame = with_variant(frame)[[*keys, "main"]]  # the groups copy only what a bar reads
    cells = {}
    for key, g in frame.groupby(keys, sort=True, dropna=False):
        answer_type, group = (key[0], None) if column is None else key
        label = "score" if column is None else _group_label(group, column)
        lo, hi = (x * 100 for x in mean_ci(g["main"].to_numpy(), seed, f"plot|{column}|{answer_type}|{label}"))
        cells[(answer_type, label)] = (float(g["main"].mean()) * 100, lo, hi)
    index = pd.MultiIndex.from_tuples(list(cells), names=["answer_type", "group"])
    values = pd.DataFrame(list(cells.values()), index=index, columns=["score", "low", "high"])
    wide = {name: values[name].unstack("group") for name in ("score", "low", "high")}
    columns = [c for c in dict.fromkeys(label for _, label in cells)]
    return Bars(*(wide[name][columns] for name in ("score", "low", "high")))


def bar_plot(bars: Bars, title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4), dpi=100)
    bars.score.plot.bar(ax=ax, rot=0, width=0.8, yerr=bars.yerr(), capsize=2, error_kw={"elinewidth": 0.8})
    ax.set_ylim(0, 100)
    ax.set_ylabel("score (%), 95 % bootstrap interval")
    ax.set_title(title)
    if bars.score.shape[1] > 1:
        ax.legend(fontsize=8, loc="upper right")
    elif (legend := ax.get_legend()) is not None:
        legend.remove()
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None}, pil_kwargs={"compress_level": 6})
    plt.close(fig)


def write_plots(report: Report, folder: Path, seed: int = 0) -> list[Path]:
    """Bar charts of the main score per answer type with bootstrap intervals, overall and by each breakdown."""
    frame = report.frame
    folder.mkdir(parents=True, exist_ok=True)
    if not len(frame):
        return []
    written = []
    path = folder / "answer_type.png"
    bar_plot(score_bars(frame, None, seed), "Main score per answer type", path)
    written.append(path)
    for column, label in breakdowns(frame).items():
        path = folder / f"by_{column}.png"
        bar_plot(score_bars(frame, column, seed), f"Main score per answer type by {label.lower()}", path)
        written.append(path)
    return written


# ------------------------------------------------------------------------------------------- entry point


def write_report(
    report: Report,
    out_dir: str | Path,
    extra: Mapping[str, Any] | None = None,
    plots: bool = True,
    item_tables: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    item_records: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    tasks: Sequence[TaskReport] = (),
) -> dict[str, Path]:
    """Write the report folder; returns the paths written by name.

    ``item_tables``: extra per-item CSVs by name (e.g. ``caption_scores``, ``grounding_scores``);
    ``item_records``: extra per-item JSON lines by name; ``tasks``: the tasks whose sections and plots the
    report has (each one the run scored, :class:`~mapgen.tasks.Task`).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    extra = dict(extra or {})
    summary = build_summary(report, extra)
    paths = {"scores": out / "scores.csv", "summary": out / "summary.json", "tables": out / "tables.md"}
    write_scores(report, paths["scores"])
    write_text_atomic(paths["summary"], json.dumps(summary, indent=2, sort_keys=True) + "\n")  # NaN = no data
    write_text_atomic(paths["tables"], render_markdown(report, summary, extra, tasks))
    for name, rows in (item_tables or {}).items():
        if rows:
            path = out / f"{name}.csv"
            pd.DataFrame([{k: _csv_cell(v) for k, v in r.items()} for r in rows]).to_csv(
                path, index=False, lineterminator="\n"
            )
            paths[name] = path
    for name, records in (item_records or {}).items():
        if records:
            paths[name] = write_jsonl_atomic(out / f"{name}.jsonl", records, sort_keys=False, ensure_ascii=False)
    if plots:
        for path in write_plots(report, out / "plots", int(extra.get("seed") or 0)):
            paths[f"plot_{path.stem}"] = path
        for task in tasks:
            if extra.get(task.key):
                paths |= task.plots(extra[task.key], out / "plots")
    return paths
