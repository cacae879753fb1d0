"""mapgen.files: JSON lines read back with line-numbered errors, atomic folders, links."""

from __future__ import annotations

from pathlib import Path

import pytest

from mapgen.files import (
    FolderNotEmptyError,
    atomic_folder,
    copy_file,
    iter_json_lines,
    iter_jsonl,
    read_json,
    read_jsonl,
    write_json_atomic,
    write_jsonl_atomic,
)


def test_jsonl_round_trip_and_line_numbers(tmp_path: Path) -> None:
    records = [{"b": 1, "a": "é"}, {"c": [1, 2]}]
    path = write_jsonl_atomic(tmp_path / "r.jsonl", records, ensure_ascii=False)
    assert path.read_text(encoding="utf-8") == '{"a": "é", "b": 1}\n{"c": [1, 2]}\n'
    assert read_jsonl(path) == records
    path.write_text('{"a": 1}\n\n{"a": \n[3]\n', encoding="utf-8")
    lines = list(iter_json_lines(path))
    assert [(n, v) for n, v, _ in lines] == [(1, {"a": 1}), (3, None), (4, [3])]
    assert lines[1][2] and lines[0][2] is None
    with pytest.raises(ValueError, match=r"r\.jsonl:3: not valid JSON"):
        list(iter_jsonl(path))
    path.write_text('{"a": 1}\n[3]\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"r\.jsonl:2: expected a JSON object, got list"):
        read_jsonl(path)
    assert read_jsonl(tmp_path / "missing.jsonl", missing_ok=True) == []


def test_json_document_with_newline_and_bad_json(tmp_path: Path) -> None:
    path = write_json_atomic(tmp_path / "d.json", {"b": 1, "a": 2}, sort_keys=False, newline=True)
    assert path.read_text() == '{\n "b": 1,\n "a": 2\n}\n'
    assert read_json(path) == {"b": 1, "a": 2}
    path.write_text("{nope")
    with pytest.raises(ValueError, match=r"d\.json: not valid JSON"):
        read_json(path)
    with pytest.raises(ValueError):
        write_json_atomic(tmp_path / "nan.json", {"x": float("nan")})
    assert not (tmp_path / "nan.json").exists()


def test_atomic_folder_replaces_only_on_success(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with atomic_folder(out) as tmp:
        (tmp / "a.txt").write_text("first")
    assert (out / "a.txt").read_text() == "first"
    with pytest.raises(FolderNotEmptyError), atomic_folder(out):
        pass
    with pytest.raises(RuntimeError), atomic_folder(out, replace=True) as tmp:
        (tmp / "b.txt").write_text("second")
        raise RuntimeError("failed half-way")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temp folder left behind
    assert [p.name for p in out.iterdir()] == ["a.txt"]
    with atomic_folder(out, replace=True) as tmp:
        (tmp / "b.txt").write_text("second")
    assert [p.name for p in out.iterdir()] == ["b.txt"]


def test_copy_file_copies_regular_files_only(tmp_path: Path) -> None:
    import os

    src = tmp_path / "src.bin"
    src.write_bytes(b"\x00\x01")
    dst = tmp_path / "deep" / "dst.bin"
    copy_file(src, dst)
    assert dst.read_bytes() == b"\x00\x01"
    assert os.stat(dst).st_ino != os.stat(src).st_ino and os.stat(src).st_nlink == 1  # a copy, never a hard link
    fifo = tmp_path / "fifo.png"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="fifo.png is not a regular file"):
        copy_file(fifo, tmp_path / "out.png")  # would block forever on open
    assert not (tmp_path / "out.png").exists()
