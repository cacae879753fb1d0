"""The table-extraction task's pieces of the eval report: its *Tasks* row, its ``tables.md`` section, its plot
(``plots/extraction.png``: main score per map variant with its interval, beside the references) and its line of
``mapgen eval``'s output."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mapgen.eval.report import Bars, bar_plot, interval_text, markdown_table, percent
from mapgen.files import read_jsonl
from mapgen.tasks.extraction.scores import extraction_table, style_table, table_readings

PLOT = "extraction.png"
READINGS_FILE = "extraction_readings.jsonl"
"""The per-table records of a report folder: each gold table beside the reply's parsed table
(:func:`~mapgen.tasks.extraction.scores.table_readings`)."""
TABLE_SOURCES = (("random", "random"), ("prior", "prior (train)"), ("chance", "chance"))


def overview_row(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The *Tasks* table's row: mean main score, its interval, random / prior / chance."""
    ref = {k: percent((summary.get(k) or {}).get("score")) for k in ("random", "prior", "chance")}
    return {"task": "Table extraction", "n": int(summary.get("n", 0)),
            "metric": "class accuracy / within τ", "score": percent(summary.get("score")),
            "95 % interval": interval_text(summary.get("score_ci")), **ref}


def section(summary: Mapping[str, Any]) -> list[str]:
    """The ``tables.md`` section: cells per map variant with their intervals, then the reference rows; then,
    for tables from more than one map style, the main score per style."""
    lines = ["## Table extraction (%)", "", "Main metric: class accuracy (discrete, hatched) or share read within "
             "the tolerance (continuous); cells of the run with their 95 % bootstrap interval (tables "
             "resampled).", "", markdown_table(extraction_table(summary, ci=True)), ""]
    if summary.get("by_style"):
        lines += ["### Table extraction by style (%)", "", markdown_table(style_table(summary)), ""]
    return lines


def extraction_bars(summary: Mapping[str, Any]) -> Bars:
    """Main extraction score per map variant (rows) for the run (with its bootstrap interval) and each reference
    it carries (random, prior, chance: no interval)."""
    import pandas as pd

    variants = [v for v in ("discrete", "hatched", "continuous") if summary.get(v)]
    main = {v: "within_tolerance" if v == "continuous" else "class_accuracy" for v in variants}
    score = {"run": [summary[v][main[v]] * 100 for v in variants]}
    cis = [(summary.get("ci") or {}).get(v, {}).get(main[v]) for v in variants]
    low = {"run": [ci[0] * 100 if ci else x for ci, x in zip(cis, score["run"])]}
    high = {"run": [ci[1] * 100 if ci else x for ci, x in zip(cis, score["run"])]}
    for key, label in TABLE_SOURCES:
        if summary.get(key):
            score[label] = low[label] = high[label] = [
                (summary[key].get(v) or {}).get(main[v], math.nan) * 100 for v in variants]
    index = pd.Index(variants, name="variant")
    return Bars(*(pd.DataFrame(d, index=index) for d in (score, low, high)))


def write_plot(summary: Mapping[str, Any], folder: Path) -> Path:
    """``plots/extraction.png``: the run's main extraction score per map variant beside its references."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / PLOT
    bar_plot(extraction_bars(summary), "Table extraction: class accuracy / share within τ", path)
    return path


def echo_line(tables: Mapping[str, Any]) -> str:
    """``mapgen eval``'s line for the task."""
    prior = f", train-split prior {tables['prior']['score']:.4f}" if tables.get("prior") else ""
    return (f"{tables['n']} gold tables, extraction score {tables['score']:.4f} "
            f"(random {tables['random']['score']:.4f}{prior}, "
            f"analytic chance {tables['chance']['score']:.4f}); missing {tables['missing']}")


def eval_readings(eval_dir: Path) -> dict[str, dict[str, Any]]:
    """Per map id, its gold table beside the model's parsed table, from an eval report folder (none when the run
    scored no tables)."""
    return {str(r["map_id"]): r for r in read_jsonl(eval_dir / READINGS_FILE, missing_ok=True)}


def site_table(record: dict[str, Any] | None, reading: dict[str, Any] | None) -> dict[str, Any] | None:
    """The report site's table view of one map: the eval's readings, else its gold table alone (``scored``
    False)."""
    if reading is not None:
        return reading | {"scored": True}
    if record is None:
        return None
    return table_readings(record, None) | {"scored": False, "counts": None}
