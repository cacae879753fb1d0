"""LLaVA training conversations (VRSBench's training layout) for every task of the build.

Layout::

    DEST/llava_<split>.json      a JSON list per split of {id, image, conversations: [human, gpt]}
    DEST/images/<map_id>.png     the images (``image`` paths are relative to DEST)

Turns: VQA ``"<image>\\n<question>"`` → the answer as text (lists comma-separated, rankings ``A > B = C``);
captions ``"<image>\\n[caption] Describe this map in detail."`` → the caption; grounding
``"<image>\\n[refer] give me the location of <p>expression</p>"`` → ``{<x1><y1><x2><y2>}`` with integers on a
0–100 scale of the image width and height (VRSBench convention); every other task its own turn
(:meth:`mapgen.tasks.Task.turn`; the table-reading task ``"<image>\n[table] <the record's instruction>"`` → the gold
table as Markdown).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from mapgen.benchmark import Benchmark
from mapgen.export.common import copy_images
from mapgen.files import write_json_list_atomic
from mapgen.tasks import get_task


def conversation(record_id: str, image: str, human: str, gpt: str) -> dict[str, Any]:
    return {"id": record_id, "image": image,
            "conversations": [{"from": "human", "value": f"<image>\n{human}"}, {"from": "gpt", "value": gpt}]}


def write(bench: Benchmark, dest: Path, tasks: tuple[str, ...] | None = None, **_: Any) -> None:
    """Write one conversation file per split into ``dest``, streamed (one pass over each task's records per
    split; no file for a split without records)."""
    tasks = tasks or tuple(bench.task_names)
    images = copy_images(bench, dest, bench.map_ids(tasks))
    records = (r for t in tasks for r in get_task(t).iter_records(bench))
    splits = list(dict.fromkeys(chain(bench.splits(), (r["split"] for r in records))))  # no list of every record
    for split in splits:
        turns = _conversations(bench, tasks, split, images)
        first = next(turns, None)
        if first is not None:
            write_json_list_atomic(dest / f"llava_{split}.json", chain([first], turns), sort_keys=False,
                                   ensure_ascii=False, newline=True)


def _conversations(bench: Benchmark, tasks: tuple[str, ...], split: str,
                   images: dict[str, str]) -> Iterator[dict[str, Any]]:
    """The conversations of one split: every task's records in turn, in build order."""
    for task in map(get_task, tasks):
        for r in task.iter_records(bench):
            if r["split"] == split:
                human, gpt = task.turn(r, bench)
                yield conversation(r["question_id"], images[r["map_id"]], human, gpt)
