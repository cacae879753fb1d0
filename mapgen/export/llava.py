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

from pathlib import Path
from typing import Any

from mapgen.benchmark import Benchmark
from mapgen.export.common import copy_images
from mapgen.files import write_json_atomic
from mapgen.tasks import get_task


def conversation(record_id: str, image: str, human: str, gpt: str) -> dict[str, Any]:
    return {"id": record_id, "image": image,
            "conversations": [{"from": "human", "value": f"<image>\n{human}"}, {"from": "gpt", "value": gpt}]}


def write(bench: Benchmark, dest: Path, tasks: tuple[str, ...] | None = None, **_: Any) -> None:
    """Write one conversation file per split into ``dest``."""
    tasks = tasks or tuple(bench.tasks)
    images = copy_images(bench, dest, bench.map_ids(tasks))
    by_split: dict[str, list[dict[str, Any]]] = {s: [] for s in bench.splits()}
    for task in map(get_task, tasks):
        for r in task.records(bench):
            human, gpt = task.turn(r, bench)
            by_split.setdefault(r["split"], []).append(conversation(r["question_id"], images[r["map_id"]], human, gpt))
    for split, records in by_split.items():
        if records:
            write_json_atomic(dest / f"llava_{split}.json", records, sort_keys=False, ensure_ascii=False, newline=True)
