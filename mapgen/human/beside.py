"""People beside models and baselines on the same questions (MAPWise's Table 3 sets its human row beside each
model): ``mapgen eval BENCH --human REPORT --beside EVAL ...``.

Rows: ``human (majority)`` (the people's majority answers, scored by the run), one row per ``--beside`` folder (any
finished ``mapgen eval`` folder of the same benchmark: a model, ``--baseline random``, ``prior``, ``pixel``, a
predictions file) and ``chance (analytic)`` (plus ``random (empirical)`` when no ``--beside`` folder is the random
baseline). **Every row is restricted to the questions people answered**, whatever its eval scored, so the rows
compare like with like. A source that scored only part of them (``prior`` scores the held-out split only) is also
shown, with every other row, on the questions *every* source scored.

The run's report folder gets ``sources.csv`` (scores in %, one row per subset × source), ``sources.md`` (the
tables and what they are restricted to; the report site shows it first) and ``plots/sources.png``; its
``summary.json`` gets the same figures as fractions under ``beside``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from mapgen.benchmark import EVAL_KIND
from mapgen.eval.report import PAPER_COLUMNS, Bars, markdown_table, paper_table, score_bars, with_variant
from mapgen.files import read_json, require_finished, write_text_atomic

HUMAN = "human (majority)"
CHANCE = "chance (analytic)"
RANDOM_REFERENCE = "random (empirical)"
MAP_TYPES = ("discrete", "continuous", "hatched")
SOURCES_CSV, SOURCES_MD, SOURCES_PLOT = "sources.csv", "sources.md", "sources.png"
NEEDED = ("question_id", "answer_type", "map_type", "main")
"""Columns a ``scores.csv`` must have to be set beside the people."""


class BesideError(ValueError):
    """A ``--beside`` folder that cannot be set beside the human row (the message names the fix)."""


@dataclass(frozen=True)
class Beside:
    """One ``--beside`` source: its label, folder and per-question scores on the questions people answered."""

    label: str
    folder: Path
    frame: pd.DataFrame = field(compare=False, repr=False)


@dataclass
class Subset:
    """One table: its key, title, question ids and the rows (one per source, scores in %)."""

    key: str
    title: str
    ids: list[str]
    rows: pd.DataFrame


def source_label(source: str) -> str:
    """The row label of an eval folder from its ``summary.json`` source (``baseline: prior`` → ``prior``)."""
    kind, _, rest = source.partition(": ")
    if kind == "baseline":
        name = rest.split(",", 1)[0].strip()
        return "pixel oracle" if name == "pixel" else name
    if kind == "model":
        return rest.strip()
    if kind == "predictions":
        return Path(rest.strip()).stem or source
    return source


def _split_spec(spec: str) -> tuple[str | None, Path]:
    """``NAME=DIR`` or ``DIR`` (a folder whose name holds ``=`` is a folder)."""
    if "=" in spec and not Path(spec).is_dir():
        name, _, folder = spec.partition("=")
        return name.strip() or None, Path(folder)
    return None, Path(spec)


def read_beside(spec: str, ids: Sequence[str]) -> Beside:
    """The eval folder ``spec`` (``DIR`` or ``NAME=DIR``) restricted to the questions ``ids``; refuses a folder
    that is no finished eval, scored another form or scored none of ``ids``."""
    name, folder = _split_spec(spec)
    if not folder.is_dir():
        raise BesideError(f"--beside {spec}: no such folder; give an eval folder (`mapgen eval -o`), optionally "
                          "as NAME=FOLDER")
    require_finished(folder, EVAL_KIND, "--beside")
    summary = read_json(folder / "summary.json")
    if (summary.get("form") or "open") != "open":
        raise BesideError(f"--beside {folder} scored the {summary.get('form')} form; people answer the open form: "
                          "give an eval run without --format mcq")
    try:
        frame = pd.read_csv(folder / "scores.csv", dtype={"question_id": str})
    except (OSError, ValueError) as exc:
        raise BesideError(f"--beside {folder}: its scores.csv cannot be read ({exc}); give the folder "
                          "`mapgen eval -o` wrote") from None
    missing = [c for c in NEEDED if c not in frame]
    if missing:
        raise BesideError(f"--beside {folder}: its scores.csv has no {', '.join(missing)} column; give the folder "
                          "`mapgen eval -o` wrote")
    frame = frame[frame["question_id"].isin(set(ids))].reset_index(drop=True)
    if not len(frame):
        raise BesideError(f"--beside {folder} scored none of the {len(ids)} questions people answered: an eval of "
                          "another benchmark, or of a split the kit has no question of?")
    label = name or source_label(str(summary.get("source") or folder.name))
    return Beside(" ".join(label.replace("|", "/").split()), folder, frame)  # one table cell: no "|", one line


def check_labels(beside: Sequence[Beside]) -> None:
    """Refuse two sources of one label (and a source named like the human or chance row)."""
    seen: dict[str, Path] = {}
    for b in beside:
        if b.label in (HUMAN, CHANCE, RANDOM_REFERENCE) or b.label in seen:
            other = seen.get(b.label)
            what = f"{other} and {b.folder}" if other else str(b.folder)
            raise BesideError(f"--beside {what} would both be the row {b.label!r}; name them: --beside NAME=FOLDER")
        seen[b.label] = b.folder


def _row(label: str, frame: pd.DataFrame) -> dict[str, Any]:
    """One source's row in %: count, mean main score, the MAPWise columns, the main score per map type ("-" where
    the source has no such question)."""
    row: dict[str, Any] = {"source": label, "n": int(len(frame)), "Overall": _mean(frame["main"])}
    paper = paper_table(frame).iloc[0] if len(frame) else None
    for title, _, _ in PAPER_COLUMNS:
        row[title] = float(paper[title]) if paper is not None else math.nan
    variants = with_variant(frame)
    for kind in MAP_TYPES:
        row[kind] = _mean(variants.loc[variants["map_variant"] == kind, "main"]) if len(frame) else math.nan
    return row


def _mean(scores: pd.Series) -> float:
    return float(scores.mean()) * 100 if len(scores) else math.nan


def source_frames(human: pd.DataFrame, references: Mapping[str, pd.DataFrame],
                  beside: Sequence[Beside]) -> dict[str, pd.DataFrame]:
    """Every row's per-question frame on the questions of ``human``, by label: human first, then the ``--beside``
    sources, then the references (random's only when no ``--beside`` source is the random baseline)."""
    frames = {HUMAN: human} | {b.label: b.frame for b in beside}
    if "random" not in frames and references.get("random") is not None and len(references["random"]):
        frames[RANDOM_REFERENCE] = references["random"]
    if references.get("chance") is not None and len(references["chance"]):
        frames[CHANCE] = references["chance"]
    answered = set(human["question_id"].astype(str))
    return {label: f[f["question_id"].astype(str).isin(answered)] for label, f in frames.items()}


def subsets(frames: Mapping[str, pd.DataFrame]) -> list[Subset]:
    """The questions people answered (``frames`` of :func:`source_frames`: every source restricted to them); and, when a source scored only part of
    them, the questions every source scored."""
    answered = [str(q) for q in frames[HUMAN]["question_id"]]
    out = [Subset("answered", f"On the {len(answered)} questions people answered", answered,
                  pd.DataFrame([_row(label, f) for label, f in frames.items()]))]
    common = set(answered)
    for f in frames.values():
        common &= set(f["question_id"].astype(str))
    if len(common) < len(answered):
        ids = [q for q in answered if q in common]
        rows = [_row(label, f[f["question_id"].astype(str).isin(common)]) for label, f in frames.items()]
        out.append(Subset("common", f"On the {len(ids)} questions every source scored", ids, pd.DataFrame(rows)))
    return out


def _markdown(parts: list[Subset], n: int, report: Path) -> str:
    titles = ["source", "n", "Overall", *[c[0] for c in PAPER_COLUMNS]]
    lines = ["# Human beside models and baselines", "",
             f"People answered {n} questions (the human report {report}). Every row is scored on those questions "
             "only — a model, baseline or oracle evaluated on the whole benchmark is restricted to them — so the "
             "rows compare like with like. Cells: score in % (`-`: the source has no question of that kind).", ""]
    for part in parts:
        lines += [f"## {part.title}", "", markdown_table(part.rows[titles]), ""]
        short = part.rows[part.rows["n"] < len(part.ids)]
        for _, r in short.iterrows():
            lines.append(f"- {r['source']}: {r['n']} of these {len(part.ids)} questions (its eval scored no others)")
        lines += [*([""] if len(short) else []), f"### {part.title}, by map type (main score)", "",
                  markdown_table(part.rows[["source", "n", *MAP_TYPES]]), ""]
    return "\n".join(lines).rstrip() + "\n"


def _csv(parts: list[Subset]) -> str:
    frame = pd.concat([p.rows.assign(subset=p.key) for p in parts], ignore_index=True)
    frame = frame[["subset", *[c for c in frame.columns if c != "subset"]]]
    return frame.to_csv(index=False, lineterminator="\n", float_format="%.4f")


def _plot(frames: Mapping[str, pd.DataFrame], path: Path, seed: int) -> None:
    """Main score per answer type, one bar per source (in row order), on the questions people answered."""
    joined = pd.concat([f.assign(source=label) for label, f in frames.items()], ignore_index=True)
    bars = score_bars(joined, "source", seed)
    order = [label for label in frames if label in bars.score.columns]
    bars = Bars(bars.score[order], bars.low[order], bars.high[order])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=100)
    bars.score.plot.bar(ax=ax, rot=0, width=0.8, yerr=bars.yerr(), capsize=2, error_kw={"elinewidth": 0.8})
    ax.set_ylim(0, 100)
    ax.set_xlabel("")
    ax.set_ylabel("main score (%), 95 % bootstrap interval")
    ax.set_title("People beside models and baselines on the questions people answered")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None}, pil_kwargs={"compress_level": 6})
    plt.close(fig)


def summary_of(parts: Sequence[Subset]) -> dict[str, Any]:
    """The tables as ``summary.json`` holds them (scores as fractions)."""
    def frac(v: Any) -> Any:
        return None if isinstance(v, float) and math.isnan(v) else v / 100

    return {p.key: {"questions": len(p.ids),
                    "rows": [{k: (v if k in ("source", "n") else frac(v)) for k, v in r.items()}
                             for r in p.rows.to_dict("records")]} for p in parts}


def write_beside(human: pd.DataFrame, references: Mapping[str, pd.DataFrame], beside: Sequence[Beside],
                 report: Path, out: Path | None, plots: bool = True, seed: int = 0) -> dict[str, Any]:
    """The side-by-side tables (into ``out`` when given: ``sources.csv``, ``sources.md``, ``plots/sources.png``);
    returns them for ``summary.json``."""
    frames = source_frames(human, references, beside)
    parts = subsets(frames)
    if out is not None:
        write_text_atomic(out / SOURCES_CSV, _csv(parts))
        write_text_atomic(out / SOURCES_MD, _markdown(parts, len(human), report))
        if plots and len(human):
            (out / "plots").mkdir(parents=True, exist_ok=True)
            _plot(frames, out / "plots" / SOURCES_PLOT, seed)
    return summary_of(parts)
