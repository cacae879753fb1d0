"""VRSBench tasks on maps: per-region attributes, referring expressions with boxes, captions, task records.

``describe(scene, seed=0, n_referring=8)`` → JSON-ready ``{map_id, width, height, attributes, referring,
captions, size_rule}`` for a *rendered* scene (``render(spec, path).scene``, or a render JSON via
:func:`scene_from_render_json`). Reads only the Scene (ARCHITECTURE.md §1): never imports ``render`` or ``questions``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mapgen.describe.attributes import box_from_100, box_to_100, image_size, region_attributes, size_rule
from mapgen.describe.captions import caption_sentences, captions, short_caption
from mapgen.describe.records import (
    caption_eval_record,
    grounding_eval_records,
    training_records,
    vqa_eval_records,
    write_jsonl,
)
from mapgen.describe.referring import make_context, referring_expressions, run_referring_program, verify
from mapgen.scene import Scene, load_scene

__all__ = [
    "box_from_100",
    "box_to_100",
    "caption_eval_record",
    "caption_sentences",
    "captions",
    "describe",
    "grounding_eval_records",
    "make_context",
    "referring_expressions",
    "region_attributes",
    "run_referring_program",
    "scene_from_render_json",
    "short_caption",
    "training_records",
    "verify",
    "vqa_eval_records",
    "write_jsonl",
]


def describe(scene: Scene, seed: int = 0, n_referring: int = 8) -> dict[str, Any]:
    """Attributes, verified referring expressions and captions of one rendered map (deterministic per seed)."""
    attributes = region_attributes(scene)
    width, height = image_size(scene)
    return {
        "map_id": scene.map_id,
        "width": width,
        "height": height,
        "seed": seed,
        "size_rule": size_rule(scene),
        "attributes": attributes,
        "referring": referring_expressions(scene, attributes, seed=seed, n=n_referring),
        "captions": captions(scene, seed=seed),
    }


def scene_from_render_json(path: str | Path) -> Scene:
    """The Scene of a render's JSON (``map.json`` beside ``map.png``) with its pixel facts merged in."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if "regions" not in data or "render" not in data:
        raise ValueError(f"{path} is not a render JSON (no 'regions'/'render'); render the map first.")
    return load_scene(path)
