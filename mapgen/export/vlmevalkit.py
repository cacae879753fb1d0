"""VLMEvalKit export: a benchmark TSV with base64 images and a dataset class file that scores with mapgen.

Layout::

    DEST/<NAME><SUFFIX>.tsv    one TSV per registered task the build has records of, from the task's
                               ``vlmevalkit`` table (:class:`mapgen.tasks.VlmEvalKitTable`): index, image (base64
                               PNG; rows of an already-listed map hold that row's index, the VLMEvalKit convention
                               for shared images), question, answer, category, then the task's flat-row columns.
                               VQA (no suffix): the question, answer and answer type; ``_CAPTION``: the prompt and
                               caption; ``_GROUNDING``: the referring expression and its 0-100 box; gold tables
                               (see their task's folder)
    DEST/<NAME>_MCQ.tsv        (``mcq=True``) the multiple-choice twins: question (without its options, as
                               VLMEvalKit's MCQ datasets add the A, B, C, D columns themselves), A, B, C, D,
                               answer = the gold letter, category = the original answer type
    DEST/mapgen_dataset.py     ``MapgenDataset`` (VQA), ``MapgenCaptionDataset``, ``MapgenGroundingDataset``,
                               ``MapgenMCQDataset``:
                               ``build_prompt`` sends the map and mapgen's prompt, ``evaluate`` scores with mapgen
                               (VQA: :func:`mapgen.eval.score.score`; captions: BLEU/METEOR/ROUGE-L/CIDEr;
                               grounding: Acc@0.5/0.7 and mean IoU); they work without vlmeval too. The
                               module :mod:`mapgen.export.harness.vlmevalkit_dataset` as shipped, named for the
                               export, with a task's optional section only when its TSV is written
    DEST/README.md

One split (``test`` by default) per export; ``<NAME>`` is ``MAPGEN_<BENCH>_<SPLIT>`` in upper case. Where
VLMEvalKit runs, install mapgen (``pip install mapgen``; ``mapgen[eval]`` and Java for the caption metrics).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pandas as pd

from mapgen.benchmark import Benchmark
from mapgen.export import harness
from mapgen.export.common import ExportError, task_rows
from mapgen.export.lmms_eval import pick_split, task_slug
from mapgen.files import write_text_atomic
from mapgen.tasks import VlmEvalKitTable, tasks

DATASET_MODULE = "vlmevalkit_dataset"
"""The harness module (:mod:`mapgen.export.harness.vlmevalkit_dataset`) written as ``DEST/mapgen_dataset.py``."""

NAME_PLACEHOLDER = "MAPGEN_BENCHMARK_SPLIT"
"""The dataset name as the harness module spells it (in its docstring and ``*_NAME`` constants); replaced by
the export's :func:`dataset_name`."""

LEAD_COLUMNS = ("index", "image", "question", "answer", "category")


def dataset_name(bench: Benchmark, split: str) -> str:
    return f"MAPGEN_{task_slug(bench.name)}_{task_slug(split)}".upper()


def _mcq_lead(r: dict[str, Any]) -> dict[str, Any]:
    from mapgen.eval.mcq import mcq_stem

    return {"question": mcq_stem(r["question"]), "answer": r["answer"], "category": r["original_answer_type"]}


MCQ = "vqa_mcq"
"""The multiple-choice twins of the VQA task's questions (``mcq=True``): rows of
:func:`mapgen.export.common.task_rows` ``(bench, "vqa_mcq")``, written after every task's TSV."""
MCQ_TABLE = VlmEvalKitTable("_MCQ", _mcq_lead)


def tables(mcq: bool = True) -> dict[str, tuple[str, VlmEvalKitTable]]:
    """Per TSV, in the order the export writes them: the task it needs and its table (every registered task
    with a ``vlmevalkit`` table, then the multiple-choice twins when ``mcq``)."""
    out = {t.name: (t.name, t.vlmevalkit) for t in tasks() if t.vlmevalkit is not None}
    return out | ({MCQ: ("vqa", MCQ_TABLE)} if mcq else {})


def tsv_frame(bench: Benchmark, split: str, task: str = "vqa") -> pd.DataFrame:
    """The TSV rows of one split: base64 image on a map's first row, that row's index on the others."""
    rows = split_rows(bench, split, task)
    if not rows:
        raise ExportError(f"{bench.root} has no {task} records in split {split!r}.")
    return _frame(bench, rows, tables()[task][1])


def split_rows(bench: Benchmark, split: str, task: str) -> list[dict[str, Any]]:
    """The flat rows of ``task`` (a TSV name of :func:`tables`) in ``split``, in build order."""
    return [r for r in task_rows(bench, task) if r["split"] == split]


def _frame(bench: Benchmark, rows: list[dict[str, Any]], table: VlmEvalKitTable) -> pd.DataFrame:
    first: dict[str, int] = {}
    out = []
    for index, r in enumerate(rows):
        if r["map_id"] in first:
            image = str(first[r["map_id"]])
        else:
            first[r["map_id"]] = index
            image = base64.b64encode(bench.image_bytes(r["map_id"])).decode("ascii")
        lead = {"index": index, "image": image} | table.lead(r)
        out.append(lead | {k: _cell(v) for k, v in r.items() if k not in LEAD_COLUMNS})
    return pd.DataFrame(out)


def _cell(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def dataset_module(name: str, written: list[str]) -> str:
    """``mapgen_dataset.py`` for the dataset ``name``: the harness module with the sections of the TSVs ``written``."""
    text = harness.source(DATASET_MODULE)
    chosen = tables()
    keep = {section for t in written if (section := chosen[t][1].section)}
    return harness.cut(text, keep).replace(NAME_PLACEHOLDER, name)


def write(bench: Benchmark, dest: Path, split: str | None = None, mcq: bool = False, **_: Any) -> None:
    """Write a TSV per task the build has (VQA, captions, grounding, tables; the MCQ form when ``mcq``), the
    dataset classes and a README."""
    split = pick_split(bench, split)
    name = dataset_name(bench, split)
    chosen = tables(mcq)
    rows = {task: split_rows(bench, split, task) for task, (source, _) in chosen.items() if bench.tasks.get(source)}
    written = [task for task in chosen if rows.get(task)]
    for task in written:
        frame = _frame(bench, rows[task], chosen[task][1])
        frame.to_csv(dest / f"{name}{chosen[task][1].suffix}.tsv", sep="\t", index=False)
    if not written:
        raise ExportError(f"{bench.root} has no VQA, caption or grounding records in split {split!r}.")
    write_text_atomic(dest / "mapgen_dataset.py", dataset_module(name, written))
    write_text_atomic(
        dest / "README.md",
        f"# VLMEvalKit data for {bench.name} (split `{split}`)\n\n"
        f"- {', '.join(f'`{name}{chosen[t][1].suffix}.tsv`' for t in written)}: the TSVs "
        "(index, image base64, question, answer, category, mapgen columns) of VQA, captions and grounding.\n"
        "- `mapgen_dataset.py`: `MapgenDataset`, `MapgenCaptionDataset`, `MapgenGroundingDataset` (build_prompt / "
        "evaluate with mapgen's scoring). See its docstring to register them with VLMEvalKit. Where VLMEvalKit "
        "runs, install mapgen (`pip install mapgen`; `mapgen[eval]` and Java for the caption metrics).\n")
