"""Record shards (issue 38 item 1): a build with ``records.per_shard`` writes each task's records to numbered shards
under ``records/`` that the manifest lists; their lines in order are the one file's bytes, and every reader
(``Benchmark``, info, eval, export) reads the sharded folder as the one-file folder. A folder that lists a shard
outside ``records/``, leaves a shard out, loses one or repeats an id across shards is refused, naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import EVAL_BENCH_CONFIG

from mapgen.benchmark import (
    RECORD_SHARDS,
    FolderPathError,
    NotABenchmarkError,
    UnlistedFileError,
    info,
    load_benchmark,
)
from mapgen.build import build
from mapgen.config import BuildConfig
from mapgen.evaluation import run_eval
from mapgen.export import export
from mapgen.files import read_json, sha256_file

PER_SHARD = 7
TASK_FILES = ("questions.jsonl", "captions.jsonl", "grounding.jsonl")


@pytest.fixture(scope="module")
def sharded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real build of the eval benchmark's config with its records in shards of :data:`PER_SHARD`."""
    out = tmp_path_factory.mktemp("shards") / "bench"
    build(EVAL_BENCH_CONFIG | {"records": {"per_shard": PER_SHARD}}, out, progress=False)
    return out


def _copy(folder: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / "copy"))


def _edit_manifest(folder: Path, edit) -> None:  # type: ignore[no-untyped-def]
    manifest = read_json(folder / "manifest.json")
    edit(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_shards_in_order_are_the_one_file(sharded: Path, eval_bench: Path) -> None:
    manifest = read_json(sharded / "manifest.json")
    assert sorted(manifest[RECORD_SHARDS]) == sorted(TASK_FILES)
    for name in TASK_FILES:
        shards = manifest[RECORD_SHARDS][name]
        lines = [(sharded / rel).read_bytes().splitlines(keepends=True) for rel in shards]
        assert b"".join(b"".join(part) for part in lines) == (eval_bench / name).read_bytes()
        assert all(len(part) == PER_SHARD for part in lines[:-1]) and 0 < len(lines[-1]) <= PER_SHARD
        assert shards == [f"records/{Path(name).stem}-{i:05d}.jsonl" for i in range(len(shards))]
        assert all(manifest["files"][rel] == sha256_file(sharded / rel) for rel in shards)
        assert not (sharded / name).exists()
    assert manifest["counts"] == read_json(eval_bench / "manifest.json")["counts"]


def test_a_config_without_shards_dumps_as_before() -> None:
    plain = BuildConfig.model_validate(EVAL_BENCH_CONFIG)
    assert "records" not in plain.model_dump()
    sharded = BuildConfig.model_validate(EVAL_BENCH_CONFIG | {"records": {"per_shard": 3}})
    assert sharded.model_dump()["records"] == {"per_shard": 3} and sharded.digest() != plain.digest()


def test_readers_read_shards_as_the_one_file(sharded: Path, eval_bench: Path) -> None:
    ours, theirs = load_benchmark(sharded, verify="all"), load_benchmark(eval_bench)
    assert ours.question_records == theirs.question_records and len(ours.questions) > 2 * PER_SHARD
    lazy = load_benchmark(sharded, lazy=True)
    for name in TASK_FILES:
        assert list(lazy.iter_records(name)) == theirs.records(name) == ours.records(name)
    assert lazy.task_names == theirs.task_names
    ours_info, theirs_info = info(sharded), info(eval_bench)
    assert ours_info["counts"] == theirs_info["counts"] and ours_info["files_unlisted"] == []


def test_eval_and_export_of_shards(sharded: Path, eval_bench: Path, tmp_path: Path) -> None:
    from mapgen.evaluation import Baseline

    reports = {}
    for bench in (sharded, eval_bench):
        lazy = load_benchmark(bench, verify="records", lazy=True)
        reports[bench] = run_eval(lazy, Baseline("random"), tmp_path / f"eval-{bench.parent.name}", plots=False,
                                  keep_frame=False)
    a, b = (json.loads((tmp_path / f"eval-{b.parent.name}" / "summary.json").read_text()) for b in reports)
    a.pop("benchmark"), b.pop("benchmark")
    assert a == b and reports[sharded].frame.shape == reports[eval_bench].frame.shape
    for bench in (sharded, eval_bench):
        export(bench, "jsonl", tmp_path / f"jsonl-{bench.parent.name}")
    for name in TASK_FILES:
        assert ((tmp_path / f"jsonl-{sharded.parent.name}" / name).read_bytes()
                == (tmp_path / f"jsonl-{eval_bench.parent.name}" / name).read_bytes())


def test_an_unlisted_shard_is_refused(sharded: Path, tmp_path: Path) -> None:
    folder = _copy(sharded, tmp_path)
    (folder / "records" / "questions-99999.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(UnlistedFileError, match="questions-99999.jsonl is not listed"):
        load_benchmark(folder)


def test_a_shard_outside_records_is_refused(sharded: Path, tmp_path: Path) -> None:
    folder = _copy(sharded, tmp_path)
    for bad in ("../outside.jsonl", "maps.jsonl", "records/../../x.jsonl"):
        _edit_manifest(folder, lambda m, bad=bad: m[RECORD_SHARDS]["questions.jsonl"].append(bad))
        with pytest.raises(FolderPathError, match="record_shards.questions.jsonl"):
            load_benchmark(folder)
        _edit_manifest(folder, lambda m: m[RECORD_SHARDS]["questions.jsonl"].pop())
    load_benchmark(folder)  # intact again


def test_a_missing_shard_is_named(sharded: Path, tmp_path: Path) -> None:
    folder = _copy(sharded, tmp_path)
    (folder / "records" / "questions-00001.jsonl").unlink()
    with pytest.raises(NotABenchmarkError, match=r"questions-00001.jsonl is missing .* incomplete"):
        load_benchmark(folder)


def test_an_id_repeated_across_shards_is_named(sharded: Path, tmp_path: Path) -> None:
    folder = _copy(sharded, tmp_path)
    first = (folder / "records" / "questions-00000.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    later = folder / "records" / "questions-00002.jsonl"
    later.write_text(later.read_text(encoding="utf-8") + first[0], encoding="utf-8")
    with pytest.raises(ValueError, match=r"questions-00002.jsonl:\d+: duplicate question_id"):
        load_benchmark(folder)


def test_a_bad_path_in_a_shard_names_the_shard_and_line(sharded: Path, tmp_path: Path) -> None:
    folder = _copy(sharded, tmp_path)
    shard = folder / "records" / "grounding-00001.jsonl"
    lines = shard.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2]) | {"image": "../../etc/passwd"}
    shard.write_text("\n".join([*lines[:2], json.dumps(record), *lines[3:]]) + "\n", encoding="utf-8")
    with pytest.raises(FolderPathError, match=r"records/grounding-00001.jsonl:3: field 'image'"):
        load_benchmark(folder).records("grounding.jsonl")


def test_resume_rewrites_the_same_shards(sharded: Path, tmp_path: Path) -> None:
    folder = _copy(sharded, tmp_path)
    before = {p.name: p.read_bytes() for p in (folder / "records").iterdir()}
    (folder / "records" / "questions-00000.jsonl").write_text("", encoding="utf-8")  # damaged
    (folder / "records" / "questions-00100.jsonl").write_text("", encoding="utf-8")  # left by another attempt
    (folder / "manifest.json").unlink()
    build(EVAL_BENCH_CONFIG | {"records": {"per_shard": PER_SHARD}}, folder, resume=True, progress=False)
    assert {p.name: p.read_bytes() for p in (folder / "records").iterdir()} == before
    assert read_json(folder / "manifest.json") == read_json(sharded / "manifest.json")
