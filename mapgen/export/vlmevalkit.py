"""VLMEvalKit export: a benchmark TSV with base64 images and a dataset class file that scores with mapgen.

Layout::

    DEST/<NAME>.tsv            VQA: index, image (base64 PNG; rows of an already-listed map hold that row's index,
                               the VLMEvalKit convention for shared images), question, answer, category (answer
                               type), then mapgen's columns (question_id, map_id, prompt, answer_json, …)
    DEST/<NAME>_CAPTION.tsv    captions (when the build has them): question = the prompt, answer = the caption
    DEST/<NAME>_GROUNDING.tsv  grounding: question = the referring expression, answer = the box on a 0-100 scale,
                               category = unique / non-unique
    DEST/<NAME>_EXTRACTION.tsv gold tables (when the build has them): question = the prompt, answer = the gold
                               table (Markdown), category = discrete / hatched / continuous, ``gold_json`` for scoring
    DEST/<NAME>_MCQ.tsv        (``mcq=True``) the multiple-choice twins: question (without its options, as
                               VLMEvalKit's MCQ datasets add the A, B, C, D columns themselves), A, B, C, D,
                               answer = the gold letter, category = the original answer type
    DEST/mapgen_dataset.py     ``MapgenDataset`` (VQA), ``MapgenCaptionDataset``, ``MapgenGroundingDataset``,
                               ``MapgenMCQDataset``:
                               ``build_prompt`` sends the map and mapgen's prompt, ``evaluate`` scores with mapgen
                               (VQA: :func:`mapgen.eval.score.score`; captions: BLEU/METEOR/ROUGE-L/CIDEr;
                               grounding: Acc@0.5/0.7 and mean IoU); they work without vlmeval too. The
                               module :mod:`mapgen.export.harness.vlmevalkit_dataset` as shipped, named for the
                               export, its extraction class only when the export has gold tables
    DEST/README.md

One split (``test`` by default) per export; ``<NAME>`` is ``MAPGEN_<BENCH>_<SPLIT>`` in upper case. Where
VLMEvalKit runs, install mapgen (``pip install mapgen``; ``mapgen[eval]`` and Java for the caption metrics).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from mapgen.benchmark import Benchmark
from mapgen.export import harness
from mapgen.export.common import ExportError, task_rows
from mapgen.export.lmms_eval import pick_split, task_slug
from mapgen.files import write_text_atomic

DATASET_MODULE = "vlmevalkit_dataset"
"""The harness module (:mod:`mapgen.export.harness.vlmevalkit_dataset`) written as ``DEST/mapgen_dataset.py``."""

NAME_PLACEHOLDER = "MAPGEN_BENCHMARK_SPLIT"
"""The dataset name as the harness module spells it (in its docstring and ``*_NAME`` constants); replaced by
the export's :func:`dataset_name`."""

LEAD_COLUMNS = ("index", "image", "question", "answer", "category")


def dataset_name(bench: Benchmark, split: str) -> str:
    return f"MAPGEN_{task_slug(bench.name)}_{task_slug(split)}".upper()


def _vqa_lead(r: dict[str, Any]) -> dict[str, Any]:
    return {"question": r["question"], "answer": r["answer"], "category": r["answer_type"]}


def _caption_lead(r: dict[str, Any]) -> dict[str, Any]:
    return {"question": r["prompt"], "answer": r["caption"], "category": "caption"}


def _grounding_lead(r: dict[str, Any]) -> dict[str, Any]:
    return {"question": r["expression"], "answer": json.dumps(r["box_percent"]),
            "category": "unique" if r["unique"] else "non-unique"}


def _extraction_lead(r: dict[str, Any]) -> dict[str, Any]:
    return {"question": r["prompt"], "answer": r["answer"], "category": "hatched" if r["hatched"] else r["map_type"]}


def _mcq_lead(r: dict[str, Any]) -> dict[str, Any]:
    from mapgen.eval.mcq import mcq_stem

    return {"question": mcq_stem(r["question"]), "answer": r["answer"], "category": r["original_answer_type"]}


@dataclass(frozen=True)
class VlmTask:
    """One TSV of the export: its file-name suffix, the build task it needs, the columns VLMEvalKit reads first
    (besides index and image) of a row, the section of the dataset module written only with this TSV (``None``:
    its class is always written) and whether only ``mcq=True`` exports write it."""

    suffix: str
    source: str
    lead: Callable[[dict[str, Any]], dict[str, Any]]
    section: str | None = None
    mcq_only: bool = False


TASKS: dict[str, VlmTask] = {
    "vqa": VlmTask("", "vqa", _vqa_lead),
    "caption": VlmTask("_CAPTION", "caption", _caption_lead),
    "grounding": VlmTask("_GROUNDING", "grounding", _grounding_lead),
    "extraction": VlmTask("_EXTRACTION", "extraction", _extraction_lead, section="extraction"),
    "vqa_mcq": VlmTask("_MCQ", "vqa", _mcq_lead, mcq_only=True),
}
"""Per TSV (named by the rows of :func:`mapgen.export.common.task_rows`), in the order the export writes them."""


def tsv_frame(bench: Benchmark, split: str, task: str = "vqa") -> pd.DataFrame:
    """The TSV rows of one split: base64 image on a map's first row, that row's index on the others."""
    rows = [r for r in task_rows(bench, task) if r["split"] == split]
    if not rows:
        raise ExportError(f"{bench.root} has no {task} records in split {split!r}.")
    first: dict[str, int] = {}
    out = []
    for index, r in enumerate(rows):
        if r["map_id"] in first:
            image = str(first[r["map_id"]])
        else:
            first[r["map_id"]] = index
            image = base64.b64encode(bench.image_bytes(r["map_id"])).decode("ascii")
        lead = {"index": index, "image": image} | TASKS[task].lead(r)
        out.append(lead | {k: _cell(v) for k, v in r.items() if k not in LEAD_COLUMNS})
    return pd.DataFrame(out)


def _cell(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def _writes(bench: Benchmark, split: str, task: str, mcq: bool) -> bool:
    """Whether the export writes ``task``'s TSV: the build has the task and rows of it in ``split``."""
    spec = TASKS[task]
    if spec.mcq_only and not mcq:
        return False
    return bool(bench.tasks.get(spec.source)) and any(r["split"] == split for r in task_rows(bench, task))


def dataset_module(name: str, tasks: list[str]) -> str:
    """``mapgen_dataset.py`` for the dataset ``name``: the harness module with the sections of ``tasks``."""
    text = harness.source(DATASET_MODULE)
    keep = {section for t in tasks if (section := TASKS[t].section)}
    return harness.cut(text, keep).replace(NAME_PLACEHOLDER, name)


def write(bench: Benchmark, dest: Path, split: str | None = None, mcq: bool = False, **_: Any) -> None:
    """Write a TSV per task the build has (VQA, captions, grounding, tables; the MCQ form when ``mcq``), the
    dataset classes and a README."""
    split = pick_split(bench, split)
    name = dataset_name(bench, split)
    written = [task for task in TASKS if _writes(bench, split, task, mcq)]
    for task in written:
        tsv_frame(bench, split, task).to_csv(dest / f"{name}{TASKS[task].suffix}.tsv", sep="\t", index=False)
    if not written:
        raise ExportError(f"{bench.root} has no VQA, caption or grounding records in split {split!r}.")
    write_text_atomic(dest / "mapgen_dataset.py", dataset_module(name, written))
    write_text_atomic(
        dest / "README.md",
        f"# VLMEvalKit data for {bench.name} (split `{split}`)\n\n"
        f"- {', '.join(f'`{name}{TASKS[t].suffix}.tsv`' for t in written)}: the TSVs "
        "(index, image base64, question, answer, category, mapgen columns) of VQA, captions and grounding.\n"
        "- `mapgen_dataset.py`: `MapgenDataset`, `MapgenCaptionDataset`, `MapgenGroundingDataset` (build_prompt / "
        "evaluate with mapgen's scoring). See its docstring to register them with VLMEvalKit. Where VLMEvalKit "
        "runs, install mapgen (`pip install mapgen`; `mapgen[eval]` and Java for the caption metrics).\n")
