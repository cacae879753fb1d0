"""Exports stream a build's records (issue 38 item 3): ``jsonl``, ``hf`` and ``llava`` never read a record file
whole (the lazily loaded benchmark keeps no records after the export), and they write what the records read whole
give: the same rows in the same shards, the same conversation files byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mapgen.benchmark import QUESTIONS_FILE, Benchmark, load_benchmark
from mapgen.export import hf, jsonl, llava
from mapgen.export.common import MCQ, task_rows
from mapgen.files import read_jsonl, write_json_atomic
from mapgen.tasks import get_task


def _lazy(bench: Path) -> Benchmark:
    return load_benchmark(bench, finished=True, lazy=True)


def _holds_no_records(bench: Benchmark) -> bool:
    return "question_records" not in bench.__dict__ and "questions" not in bench.__dict__ and not bench._records


def test_a_lazy_benchmark_reads_questions_on_first_use(eval_bench: Path) -> None:
    eager, lazy = load_benchmark(eval_bench), _lazy(eval_bench)
    assert list(lazy.iter_records(QUESTIONS_FILE)) == eager.question_records and _holds_no_records(lazy)
    assert lazy.task_names == list(eager.tasks) and lazy.map_ids() == eager.map_ids()
    assert _holds_no_records(lazy)
    assert lazy.question_records == eager.question_records and lazy.questions == eager.questions


def test_a_bad_question_line_is_named_when_streamed(eval_bench: Path, tmp_path: Path) -> None:
    copy = tmp_path / "bench"
    shutil.copytree(eval_bench, copy)
    lines = (copy / QUESTIONS_FILE).read_text(encoding="utf-8").splitlines(keepends=True)
    (copy / QUESTIONS_FILE).write_text("".join([*lines[:2], lines[1]]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"questions.jsonl:3: duplicate question_id"):
        list(_lazy(copy).iter_records(QUESTIONS_FILE))


def test_jsonl_export_streams_the_records(eval_bench: Path, tmp_path: Path) -> None:
    bench = _lazy(eval_bench)
    jsonl.write(bench, tmp_path, mcq=True)
    assert _holds_no_records(bench)
    eager = load_benchmark(eval_bench)
    for task in map(get_task, eager.tasks):
        written = read_jsonl(tmp_path / task.record_file)
        assert [r["question_id"] for r in written] == [r["question_id"] for r in task.records(eager)]
    assert read_jsonl(tmp_path / "questions_mcq.jsonl")


def test_llava_export_streams_the_same_bytes(eval_bench: Path, tmp_path: Path) -> None:
    bench = _lazy(eval_bench)
    llava.write(bench, tmp_path / "out")
    assert _holds_no_records(bench)
    eager = load_benchmark(eval_bench)
    for split in eager.splits():
        expected = [llava.conversation(r["question_id"], f"images/{r['map_id']}.png", *task.turn(r, eager))
                    for task in map(get_task, eager.tasks) for r in task.records(eager) if r["split"] == split]
        write_json_atomic(tmp_path / "expected.json", expected, sort_keys=False, ensure_ascii=False, newline=True)
        got = (tmp_path / "out" / f"llava_{split}.json").read_bytes()
        assert got == (tmp_path / "expected.json").read_bytes()


def test_hf_export_streams_shard_by_shard(eval_bench: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    pytest.importorskip("datasets")
    bench = _lazy(eval_bench)
    written = {task: hf.write_task(bench, task, tmp_path / task, maps_per_shard=2) for task in ("vqa", MCQ)}
    assert _holds_no_records(bench)
    eager = load_benchmark(eval_bench)
    for task, by_split in written.items():
        rows = task_rows(eager, task)
        for split, paths in by_split.items():
            assert [p.name for p in paths] == [hf.shard_name(split, i, len(paths)) for i in range(len(paths))]
            tables = [pq.read_table(p).drop(["image"]).to_pylist() for p in paths]
            assert all(len({r["map_id"] for r in t}) <= 2 for t in tables)
            expected = [{k: v for k, v in r.items() if k != "image"} for r in rows if r["split"] == split]
            assert [r for t in tables for r in t] == expected
        assert sum(map(len, by_split.values())) > len(by_split)  # several shards: the cut is exercised
