"""JSONL export: the build's task records with image paths relative to DEST, images beside them.

Layout::

    DEST/questions.jsonl     Question records (as in the build) with ``image`` = ``images/<map_id>.png``
    DEST/captions.jsonl      caption records (when the build has them)
    DEST/grounding.jsonl     referring expressions with boxes (pixels, ``box_norm`` 0–1, ``box_percent`` 0–100)
    DEST/maps.jsonl          one record per exported image
    DEST/images/<map_id>.png the images (hard-linked when on the same file system, else copied)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mapgen.export.common import TASK_FILES, Bench, box_percent, copy_images, write_jsonl


def write(bench: Bench, dest: Path, **_: Any) -> None:
    """Write the JSONL layout into ``dest``."""
    images = copy_images(bench, dest, bench.map_ids())
    for task, name in TASK_FILES.items():
        records = bench.tasks.get(task)
        if not records:
            continue
        out = []
        for r in records:
            r = r | {"image": images[r["map_id"]]}
            if "image_id" in r:  # VRSBench eval records name the image twice
                r["image_id"] = r["image"]
            if task == "grounding":
                r["box_percent"] = box_percent(r, bench)
            out.append(r)
        write_jsonl(dest / name, out)
    write_jsonl(dest / "maps.jsonl", [m | {"image": images[m["map_id"]]} for m in bench.maps
                                      if m["map_id"] in images])
