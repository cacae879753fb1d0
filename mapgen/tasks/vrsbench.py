"""What the VRSBench tasks (captions, grounding) share: one description of each rendered image."""

from __future__ import annotations

import time
from typing import Any

from mapgen.tasks.base import ImageContext

NOTES = "describe"


def image_notes(image: ImageContext) -> dict[str, Any]:
    """The image's description (:func:`mapgen.describe.describe`: captions and referring expressions), made once
    per image for every task that asks (timed as the ``describe`` stage)."""
    if NOTES not in image.shared:
        from mapgen.describe import describe

        start = time.perf_counter()
        image.shared[NOTES] = describe(image.scene, seed=image.seed, n_referring=image.config.referring_per_map)
        image.timings["describe"] += time.perf_counter() - start
    notes: dict[str, Any] = image.shared[NOTES]
    return notes


def task_prompt_text(record: dict[str, Any], task: str, text: str) -> str:
    """The export prompt of a caption/grounding record: the task's strategy over ``text``."""
    from mapgen.eval.prompts import render_prompt, task_question

    return render_prompt(task_question(record | {"question": text}, task), task).text
