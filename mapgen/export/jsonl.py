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

from pathlib import Path
from typing import Any

from mapgen.benchmark import MAPS_FILE, Benchmark
from mapgen.export.common import copy_images, mcq_records
from mapgen.files import write_jsonl_atomic
from mapgen.tasks import tasks


def write(bench: Benchmark, dest: Path, mcq: bool = False, **_: Any) -> None:
    """Write the JSONL layout into ``dest`` (with ``questions_mcq.jsonl`` when ``mcq``)."""
    images = copy_images(bench, dest, bench.map_ids())
    if mcq:
        twins = [r | {"image": images[r["map_id"]]} for r in mcq_records(bench)]
        write_jsonl_atomic(dest / "questions_mcq.jsonl", twins, ensure_ascii=False)
    for task in tasks():
        records = task.records(bench)
        if not records:
            continue
        out = []
        for r in records:
            r = r | {"image": images[r["map_id"]]}
            if "image_id" in r:  # VRSBench eval records name the image twice
                r["image_id"] = r["image"]
            out.append(task.export_record(r, bench))
        write_jsonl_atomic(dest / task.record_file, out, ensure_ascii=False)
    maps = [m | {"image": images[m["map_id"]]} for m in bench.maps if m["map_id"] in images]
    write_jsonl_atomic(dest / MAPS_FILE, maps, ensure_ascii=False)
