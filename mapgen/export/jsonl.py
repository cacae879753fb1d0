"""JSONL export: the build's task records with image paths relative to DEST, images beside them.

Layout::

    DEST/questions.jsonl     Question records (as in the build) with ``image`` = ``images/<map_id>.png``
    DEST/<task file>         every other task's records the build has, named as in the build (captions.jsonl;
                             grounding.jsonl with ``box_percent`` 0–100 beside pixels and ``box_norm`` 0–1; …)
    DEST/questions_mcq.jsonl the multiple-choice twins of single/range/count/binary questions (``mcq=True``):
                             ``answer`` the gold letter, ``options`` the lettered options in order
    DEST/maps.jsonl          one record per exported image
    DEST/images/<map_id>.png the images (copies, never links)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mapgen.benchmark import MAPS_FILE, Benchmark
from mapgen.export.common import copy_images, iter_mcq_records
from mapgen.files import write_jsonl_atomic
from mapgen.tasks import Task, tasks


def write(bench: Benchmark, dest: Path, mcq: bool = False, **_: Any) -> None:
    """Write the JSONL layout into ``dest`` (with ``questions_mcq.jsonl`` when ``mcq``); records are streamed
    from the build, one at a time."""
    images = copy_images(bench, dest, bench.map_ids())
    if mcq:
        twins = (r | {"image": images[r["map_id"]]} for r in iter_mcq_records(bench))
        write_jsonl_atomic(dest / "questions_mcq.jsonl", twins, ensure_ascii=False)
    for task in tasks():
        if bench.has_records(task.record_file):
            write_jsonl_atomic(dest / task.record_file, _exported(task, bench, images), ensure_ascii=False)
    maps = (m | {"image": images[m["map_id"]]} for m in bench.maps if m["map_id"] in images)
    write_jsonl_atomic(dest / MAPS_FILE, maps, ensure_ascii=False)


def _exported(task: Task, bench: Benchmark, images: dict[str, str]) -> Iterator[dict[str, Any]]:
    """A task's records as exported: the image path relative to DEST (named twice in VRSBench eval records)."""
    for r in task.iter_records(bench):
        r = r | {"image": images[r["map_id"]]}
        if "image_id" in r:
            r["image_id"] = r["image"]
        yield task.export_record(r, bench)
