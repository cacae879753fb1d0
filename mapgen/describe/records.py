"""VRSBench-format task records (ARCHITECTURE.md §7) from annotations made by :func:`mapgen.describe.describe`.

- Eval records: ``{image_id, question, ground_truth, question_id, type}`` plus ``map_id``. Captions:
  ``type = "caption"``, ``ground_truth`` = the detailed caption. Grounding: ``type = "grounding"``, ``question`` =
  the referring expression, ``ground_truth`` = the box as integers on the 0–100 scale (the prompt convention,
  :func:`~mapgen.describe.attributes.box_to_100`), plus ``unique``, ``box`` (pixels, what
  :mod:`mapgen.eval` scores IoU in), ``box_norm`` (0–1), ``width``/``height``. VQA: ``type`` = the VRSBench type,
  given by the caller (each template's ``vqa_type``: ``mapgen.questions.load_templates().vqa_type``).
- Training records (LLaVA): ``{id, image, conversations: [{from: "human", value: "<image>\\n..."},
  {from: "gpt", value: ...}]}``; instructions from ``templates/describe/tasks.yaml``, chosen per seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mapgen.describe.attributes import box_to_100
from mapgen.describe.wording import load_wordings, pick, render_text
from mapgen.files import write_jsonl_atomic


def image_name(annotations: Mapping[str, Any], image: str | None = None) -> str:
    """The image file a record points at (default ``<map_id>.png``)."""
    return image or f"{annotations['map_id']}.png"


def caption_eval_record(annotations: Mapping[str, Any], image: str | None = None) -> dict[str, Any]:
    """The VRSBench caption eval record of one map."""
    return {
        "image_id": image_name(annotations, image),
        "question": load_wordings("tasks")["caption_question"],
        "ground_truth": annotations["captions"]["detailed"],
        "question_id": f"{annotations['map_id']}-cap",
        "type": "caption",
        "map_id": annotations["map_id"],
    }


def grounding_eval_records(annotations: Mapping[str, Any], image: str | None = None) -> list[dict[str, Any]]:
    """VRSBench grounding eval records (one per referring expression)."""
    width, height = annotations["width"], annotations["height"]
    return [
        {
            "image_id": image_name(annotations, image),
            "question": ref["expression"],
            "ground_truth": box_to_100(ref["box"], width, height),
            "question_id": ref["question_id"],
            "type": "grounding",
            "unique": ref["unique"],
            "box": list(ref["box"]),
            "box_norm": list(ref["box_norm"]),
            "width": width,
            "height": height,
            "map_id": annotations["map_id"],
        }
        for ref in annotations["referring"]
    ]


def _q(question: Any) -> dict[str, Any]:
    return dict(question) if isinstance(question, Mapping) else question.to_dict()


def _vqa_record(q: dict[str, Any], image: str | None, vqa_type: Callable[[dict[str, Any]], str] | None) -> dict:
    rec = {
        "image_id": image or f"{q['map_id']}.png",
        "question": q["question"],
        "ground_truth": q["answer"],
        "question_id": q["question_id"],
    }
    if vqa_type is not None:
        rec["type"] = vqa_type(q)
    return rec | {"map_id": q["map_id"]}


def vqa_eval_records(
    questions: Iterable[Any], image: str | None = None, *, vqa_type: Callable[[dict[str, Any]], str]
) -> list[dict[str, Any]]:
    """VRSBench VQA eval records from question records, typed by ``vqa_type`` (a record -> its VQA type)."""
    return [_vqa_record(_q(question), image, vqa_type) for question in questions]


def _conversation(record_id: str, image: str, human: str, gpt: str) -> dict[str, Any]:
    return {
        "id": record_id,
        "image": image,
        "conversations": [{"from": "human", "value": f"<image>\n{human}"}, {"from": "gpt", "value": gpt}],
    }


def training_records(
    annotations: Mapping[str, Any],
    questions: Sequence[Any] = (),
    image: str | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """LLaVA-style training records: detailed caption, short caption, each referring expression, each question."""
    words = load_wordings("tasks")
    rng = random.Random(f"{seed}:{annotations['map_id']}:training")
    img = image_name(annotations, image)
    map_id = annotations["map_id"]
    caps = annotations["captions"]
    out = [
        _conversation(f"{map_id}-cap", img, pick(rng, words["caption_training"]), caps["detailed"]),
        _conversation(f"{map_id}-short", img, pick(rng, words["short_caption_training"]), caps["short"]),
    ]
    for rec in grounding_eval_records(annotations, image):
        human = render_text(pick(rng, words["grounding_training"]), expression=rec["question"])
        gpt = render_text(words["grounding_answer"], box=rec["ground_truth"])
        out.append(_conversation(rec["question_id"], img, human, gpt))
    for rec in (_vqa_record(_q(question), image, None) for question in questions):
        out.append(_conversation(rec["question_id"], img, rec["question"], _answer_text(rec["ground_truth"])))
    return out


def _answer_text(answer: Any) -> str:
    if isinstance(answer, str):
        return answer
    if isinstance(answer, list):
        flat = [", ".join(a) if isinstance(a, list) else str(a) for a in answer]
        return "; ".join(flat) if any(isinstance(a, list) for a in answer) else ", ".join(flat)
    return str(answer)


def write_jsonl(path: str | Path, records: Iterable[Mapping[str, Any]]) -> Path:
    """Write records one JSON object per line (atomically); returns the path."""
    return write_jsonl_atomic(path, records, sort_keys=False, ensure_ascii=False)
