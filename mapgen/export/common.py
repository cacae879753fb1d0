"""What every exporter shares: flat rows per task, the multiple-choice twins, images (the build folder is read
with :func:`mapgen.benchmark.load_benchmark`).

Rows are flat records with one type per column (what parquet, TSV and Croissant need): each task of
:mod:`mapgen.tasks` gives its columns (:attr:`~mapgen.tasks.Task.columns`) and rows (:meth:`~mapgen.tasks.Task.row`);
``vqa_mcq`` rows are the multiple-choice twins of the VQA rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mapgen.benchmark import Benchmark
from mapgen.files import copy_file
from mapgen.tasks import get_task
from mapgen.tasks.rows import dumps
from mapgen.tasks.vqa.rows import COLUMNS as QUESTION_COLUMNS
from mapgen.tasks.vqa.rows import answer_text, question_from_row, question_record, question_row

__all__ = ["MCQ", "ExportError", "answer_text", "columns", "copy_images", "iter_mcq_records", "iter_task_rows",
           "mcq_records", "mcq_row", "question_from_row", "question_record", "question_row", "task_rows"]

MCQ = "vqa_mcq"
MCQ_LETTERS: tuple[str, ...] = ("A", "B", "C", "D")
MCQ_COLUMNS: tuple[str, ...] = (*QUESTION_COLUMNS, "original_answer_type", "options", *MCQ_LETTERS)
"""The multiple-choice rows: a question row whose answer is the gold letter, the options as a JSON list and one
column per letter (empty when a question has fewer options, e.g. Yes/No)."""


def columns(task: str) -> tuple[str, ...]:
    """The columns of a task's rows (``vqa_mcq``: the multiple-choice twins')."""
    return MCQ_COLUMNS if task == MCQ else get_task(task).columns


class ExportError(ValueError):
    """An export that cannot proceed (not a build folder, occupied destination, unknown format)."""


# --- flat rows ----------------------------------------------------------------------------------------------


def mcq_records(bench: Benchmark, seed: int = 0) -> list[dict[str, Any]]:
    """The multiple-choice twins (:mod:`mapgen.eval.mcq`) of the single, range, count and binary questions, as
    question records plus ``options`` and ``original_answer_type``."""
    return list(iter_mcq_records(bench, seed))


def iter_mcq_records(bench: Benchmark, seed: int = 0) -> Iterator[dict[str, Any]]:
    """:func:`mcq_records` one at a time (the questions streamed from the folder)."""
    from mapgen.eval.baselines import facts_lookup
    from mapgen.eval.mcq import MCQ_TYPES, make_choice, mcq_question
    from mapgen.questions.record import Question

    current, facts = "", facts_lookup(bench.spec)
    for record in get_task("vqa").iter_records(bench):
        if record["answer_type"] not in MCQ_TYPES:
            continue
        q = Question.from_dict(question_record(record))
        if q.map_id != current:  # questions come map by map: one map's facts held at a time
            current, facts = q.map_id, facts_lookup(lambda map_id: bench.spec(map_id, keep=False))
        choice = make_choice(q, facts(q.map_id), k=len(MCQ_LETTERS), seed=seed)
        twin = mcq_question(q, choice).to_dict()
        yield (record | {k: twin[k] for k in ("question", "answer", "answer_type", "accepted_answers", "bounds",
                                              "tags")}
               | {"options": list(choice.options), "original_answer_type": record["answer_type"]})


def mcq_row(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    """A flat row for one multiple-choice record (see :data:`MCQ_COLUMNS`)."""
    options = list(record["options"])
    letters = {letter: options[i] if i < len(options) else "" for i, letter in enumerate(MCQ_LETTERS)}
    row = question_row(record, bench) | {"original_answer_type": record["original_answer_type"],
                                         "options": dumps(options)}
    return row | letters


def task_rows(bench: Benchmark, task: str) -> list[dict[str, Any]]:
    """Flat rows of one task, in build order (``vqa_mcq``: the multiple-choice twins)."""
    return list(iter_task_rows(bench, task))


def iter_task_rows(bench: Benchmark, task: str) -> Iterator[dict[str, Any]]:
    """:func:`task_rows` one at a time (the records streamed from the folder)."""
    if task == MCQ:
        return (mcq_row(r, bench) for r in iter_mcq_records(bench))
    found = get_task(task)
    return (found.row(r, bench) for r in found.iter_records(bench))

# --- images -------------------------------------------------------------------------------------------------


def copy_images(bench: Benchmark, dest: Path, map_ids: list[str], folder: str = "images") -> dict[str, str]:
    """Place each map's PNG at ``dest/folder/<map_id>.png``; returns map_id → path relative to ``dest``."""
    out = {}
    for map_id in map_ids:
        rel = f"{folder}/{map_id}.png"
        copy_file(image_file(bench, map_id), dest / rel)
        out[map_id] = rel
    return out


def image_file(bench: Benchmark, map_id: str) -> Path:
    """The image of a map an export lists (an :class:`ExportError` when the benchmark has none)."""
    path = bench.image_path(map_id)
    if path is None:
        raise ExportError(f"map {map_id} has no image in {bench.root}")
    return path
