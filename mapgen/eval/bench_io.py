"""Reading a benchmark folder for evaluation.

Layout (only ``questions.jsonl`` is needed for VQA scoring; every other file is optional)::

    bench/questions.jsonl      one Question record per line (the build adds split, variant, counterfactual_set, image)
    bench/maps/<map_id>.png    the image a model is shown (+ <map_id>.json, the MapSpec)
    bench/manifest.json
    bench/captions.jsonl       VRSBench caption task: {image_id|map_id, question_id, ground_truth, ...}
    bench/grounding.jsonl      VRSBench grounding task: {..., question, box [x1, y1, x2, y2] px, unique}

``BENCH`` may also be the path of ``questions.jsonl`` itself (its folder is then the benchmark root).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from mapgen.questions.record import Question

QUESTIONS_FILE = "questions.jsonl"
CAPTIONS_FILE = "captions.jsonl"
GROUNDING_FILE = "grounding.jsonl"
MANIFEST_FILE = "manifest.json"
MAPS_DIR = "maps"


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each non-blank line; ``ValueError`` naming the line on bad JSON."""
    path = Path(path)
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{number}: expected a JSON object, got {type(record).__name__}")
            yield number, record


def _read_optional_jsonl(path: Path) -> list[dict[str, Any]]:
    return [record for _, record in read_jsonl(path)] if path.is_file() else []


def _read_questions(path: Path) -> list[Question]:
    if not path.is_file():
        return []
    questions, seen = [], set()
    for number, record in read_jsonl(path):
        try:
            q = Question.from_dict(record)
        except TypeError as exc:
            raise ValueError(f"{path}:{number}: not a Question record ({exc})") from None
        if q.question_id in seen:
            raise ValueError(f"{path}:{number}: duplicate question_id {q.question_id!r}")
        seen.add(q.question_id)
        questions.append(q)
    return questions


def record_image_id(record: dict[str, Any]) -> str:
    """Map id of a caption/grounding record (``map_id``, else VRSBench's ``image_id`` without extension)."""
    value = record.get("map_id") or record.get("image_id") or ""
    return Path(str(value)).stem if str(value).lower().endswith((".png", ".jpg", ".jpeg")) else str(value)


@dataclass
class Benchmark:
    """A loaded benchmark folder."""

    root: Path
    questions: list[Question]
    map_paths: dict[str, Path] = field(default_factory=dict)
    spec_paths: dict[str, Path] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    captions: list[dict[str, Any]] = field(default_factory=list)
    grounding: list[dict[str, Any]] = field(default_factory=list)

    @cached_property
    def by_id(self) -> dict[str, Question]:
        """Questions by ``question_id``."""
        return {q.question_id: q for q in self.questions}

    @cached_property
    def countries(self) -> list[str]:
        """Countries (atlas names, lower case) the benchmark's questions are about."""
        return sorted({str(q.country).lower() for q in self.questions if q.country})

    def question(self, question_id: str) -> Question:
        """One question (``KeyError`` with a hint when unknown)."""
        try:
            return self.by_id[question_id]
        except KeyError:
            sample = ", ".join(list(self.by_id)[:5])
            raise KeyError(f"no question {question_id!r} in {self.root} (e.g. {sample})") from None

    def image_path(self, map_id: str) -> Path | None:
        """The PNG of ``map_id`` (``None`` when the benchmark has no image for it)."""
        return self.map_paths.get(map_id)

    def spec(self, map_id: str) -> dict[str, Any] | None:
        """The MapSpec JSON of ``map_id`` as a dict (``None`` when absent or unreadable)."""
        path = self.spec_paths.get(map_id)
        if path is None:
            return None
        return _load_spec(path)


_SPEC_CACHE: dict[Path, dict[str, Any] | None] = {}


def _load_spec(path: Path) -> dict[str, Any] | None:
    if path not in _SPEC_CACHE:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            data = None
        _SPEC_CACHE[path] = data if isinstance(data, dict) else None
    return _SPEC_CACHE[path]


def _index_maps(folder: Path) -> tuple[dict[str, Path], dict[str, Path]]:
    images: dict[str, Path] = {}
    specs: dict[str, Path] = {}
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            suffix = path.suffix.lower()
            if suffix in (".png", ".jpg", ".jpeg"):
                images.setdefault(path.stem, path)
            elif suffix == ".json":
                specs[path.stem] = path
    return images, specs


def load_benchmark(path: str | Path) -> Benchmark:
    """Load a benchmark folder (or its ``questions.jsonl``); missing optional files give empty fields."""
    root = Path(path)
    if root.is_file():
        questions_path, root = root, root.parent
    else:
        questions_path = root / QUESTIONS_FILE
    if not root.is_dir():
        raise FileNotFoundError(f"benchmark folder not found: {root}")
    images, specs = _index_maps(root / MAPS_DIR)
    manifest_path = root / MANIFEST_FILE
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    return Benchmark(
        root=root,
        questions=_read_questions(questions_path),
        map_paths=images,
        spec_paths=specs,
        manifest=manifest if isinstance(manifest, dict) else {},
        captions=_read_optional_jsonl(root / CAPTIONS_FILE),
        grounding=_read_optional_jsonl(root / GROUNDING_FILE),
    )
