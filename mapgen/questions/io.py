"""Question files: JSON lines in and out (maps are read with :func:`mapgen.scene.load_scene`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from mapgen.files import read_jsonl as read_records
from mapgen.files import write_jsonl_atomic
from mapgen.questions.record import Question


def write_jsonl(questions: Iterable[Question], path: str | Path) -> Path:
    """Write questions as JSON lines."""
    return write_jsonl_atomic(path, (q.to_dict() for q in questions), sort_keys=False, ensure_ascii=False)


def read_jsonl(path: str | Path) -> list[Question]:
    """Read questions written by :func:`write_jsonl`."""
    return [Question.from_dict(record) for record in read_records(path)]
