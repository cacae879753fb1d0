"""Reading maps for the question engine and writing question files (what the CLI calls)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mapgen.questions.record import Question
from mapgen.scene import Scene, build_scene
from mapgen.spec import load_spec


def _legible_flags(data: dict[str, Any]) -> dict[str, bool]:
    """Per-region legibility from a render/scene JSON (``regions: [{code, legible}]``), if present."""
    for holder in (data, data.get("scene") or {}):
        regions = holder.get("regions") if isinstance(holder, dict) else None
        if isinstance(regions, list):
            return {r["code"]: bool(r["legible"]) for r in regions if isinstance(r, dict) and "legible" in r}
    return {}


def load_scene(path: str | Path) -> Scene:
    """Scene of a map JSON (a MapSpec, a render JSON embedding one, or MAPWise metadata); legibility flags
    written by a render are applied when present."""
    scene = build_scene(load_spec(path))
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    flags = _legible_flags(data) if isinstance(data, dict) else {}
    flags = {c: v for c, v in flags.items() if c in scene.regions}
    return scene.with_pixels({}, flags) if flags else scene


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
