"""Writing and reading files safely: the one place for atomic writes, JSON lines and checksums.

Every writer puts the bytes in a temp file beside the target and renames it into place, so a reader (or a crash)
never sees half a file. Every module that writes output goes through here; the benchmark folder's layout is owned
by :mod:`mapgen.benchmark`, which uses these primitives.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temp file renamed into place (parents created); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_name(path)
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write UTF-8 text atomically."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def dumps_json(data: Any, *, indent: int | None = 1, sort_keys: bool = True, ensure_ascii: bool = True) -> str:
    """JSON text as mapgen writes it (no NaN: a NaN in output is a bug, never a silent ``NaN`` token)."""
    return json.dumps(data, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii, allow_nan=False)


def write_json_atomic(path: str | Path, data: Any, *, indent: int | None = 1, sort_keys: bool = True,
                      ensure_ascii: bool = True) -> Path:
    """Write one JSON document atomically (deterministic bytes: sorted keys by default)."""
    return write_text_atomic(path, dumps_json(data, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii))


def jsonl_text(records: Iterable[Mapping[str, Any]], *, sort_keys: bool = True, ensure_ascii: bool = True) -> str:
    """JSON lines: one compact object per line, each ending in a newline."""
    return "".join(dumps_json(dict(r), indent=None, sort_keys=sort_keys, ensure_ascii=ensure_ascii) + "\n"
                   for r in records)


def write_jsonl_atomic(path: str | Path, records: Iterable[Mapping[str, Any]], *, sort_keys: bool = True,
                       ensure_ascii: bool = True) -> Path:
    """Write records as JSON lines atomically."""
    return write_text_atomic(path, jsonl_text(records, sort_keys=sort_keys, ensure_ascii=ensure_ascii))


def write_files_atomic(files: Mapping[Path, bytes]) -> None:
    """Write several files all-or-nothing: every file goes to a temp name first, then all are renamed into place;
    on any failure the temps and the files already renamed are removed."""
    temps: list[tuple[Path, Path]] = []
    done: list[Path] = []
    try:
        for path, data in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = _temp_name(path)
            tmp.write_bytes(data)
            temps.append((tmp, path))
        for tmp, path in temps:
            tmp.replace(path)
            done.append(path)
    except BaseException:
        for path in done:
            path.unlink(missing_ok=True)
        raise
    finally:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each non-blank line; ``ValueError`` naming the file and line on bad JSON or
    a line that is not a JSON object."""
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


def read_jsonl(path: str | Path, missing_ok: bool = False) -> list[dict[str, Any]]:
    """Every record of a JSON-lines file (``[]`` for a missing file when ``missing_ok``)."""
    path = Path(path)
    if missing_ok and not path.is_file():
        return []
    return [record for _, record in iter_jsonl(path)]
