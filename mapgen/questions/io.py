"""Question files: JSON lines in and out (maps are read with :func:`mapgen.scene.load_scene`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from mapgen.questions.record import Question


def write_jsonl(questions: Iterable[Question], path: str | Path) -> Path:
    """Write questions as JSON lines."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for q in questions:
            fh.write(json.dumps(q.to_dict(), ensure_ascii=False) + "\n")
    return path


def read_jsonl(path: str | Path) -> list[Question]:
    """Read questions written by :func:`write_jsonl`."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [Question.from_dict(json.loads(line)) for line in lines if line.strip()]
