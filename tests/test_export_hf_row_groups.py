"""The hf export writes a shard a row group at a time (issue 38 item 3: bounded memory whatever the build's size):
row groups of whole maps, each PNG stored once, rows pulled from the build one group at a time, the same bytes
twice, and never half a file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mapgen.benchmark import load_benchmark
from mapgen.export import hf
from mapgen.export.common import iter_task_rows
from mapgen.files import atomic_file

pq = pytest.importorskip("pyarrow.parquet")
datasets = pytest.importorskip("datasets")


def _rows(eval_bench: Path) -> list[dict[str, Any]]:
    bench = load_benchmark(eval_bench, finished=True, lazy=True)
    return [r for r in iter_task_rows(bench, "vqa") if r["split"] == "test"]


def test_row_groups_hold_whole_maps_and_each_png_once(eval_bench: Path, tmp_path: Path) -> None:
    bench = load_benchmark(eval_bench, finished=True, lazy=True)
    rows = _rows(eval_bench)
    path = hf.write_shard(bench, "vqa", iter(rows), tmp_path / "shard.parquet", group_rows=10)
    shard = pq.ParquetFile(path)
    groups = [shard.read_row_group(i, columns=["map_id"]).column("map_id").to_pylist()
              for i in range(shard.num_row_groups)]
    assert len(groups) > 1 and all(len(g) >= 10 for g in groups[:-1])
    maps = [m for g in groups for m in dict.fromkeys(g)]
    assert len(maps) == len(set(maps))  # no map spans two groups
    assert shard.read().drop(["image"]).to_pylist() == [{k: v for k, v in r.items() if k != "image"} for r in rows]
    png = sum(len(bench.image_bytes(m)) for m in maps)
    assert path.stat().st_size < 1.2 * png < 0.6 * sum(len(bench.image_bytes(r["map_id"])) for r in rows)
    loaded = datasets.load_dataset("parquet", data_files=str(path), split="train")
    assert loaded.features == hf.features("vqa") and loaded[0]["image"].size == (800, 600)


def test_a_shard_pulls_its_rows_one_group_at_a_time(eval_bench: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    bench = load_benchmark(eval_bench, finished=True, lazy=True)
    rows, pulled, seen = _rows(eval_bench), [0], []

    def source() -> Iterator[dict[str, Any]]:
        for r in rows:
            pulled[0] += 1
            yield r

    table = hf._table

    def spy(bench: Any, group: list[dict[str, Any]], schema: Any) -> Any:
        seen.append((len(group), pulled[0]))
        return table(bench, group, schema)

    monkeypatch.setattr(hf, "_table", spy)
    hf.write_shard(bench, "vqa", source(), tmp_path / "shard.parquet", group_rows=10)
    done = 0
    for size, pulled_then in seen:  # a group is written once its rows and at most the next one are read
        done += size
        assert pulled_then <= done + 1
    assert len(seen) > 1 and done == len(rows)


def test_shards_stream_and_keep_maps_whole(eval_bench: Path) -> None:
    rows = _rows(eval_bench)
    runs = [list(run) for run in hf.shards(iter(rows), 2)]
    assert [r for run in runs for r in run] == rows
    assert all(len({r["map_id"] for r in run}) <= 2 for run in runs) and len(runs) > 1
    maps = [m for run in runs for m in {r["map_id"] for r in run}]
    assert len(maps) == len(set(maps))


def test_the_hf_export_writes_the_same_bytes_twice(eval_bench: Path, tmp_path: Path) -> None:
    bench = load_benchmark(eval_bench, finished=True, lazy=True)
    first = hf.write_task(bench, "vqa", tmp_path / "a", maps_per_shard=2)
    second = hf.write_task(bench, "vqa", tmp_path / "b", maps_per_shard=2)
    assert [p.name for s in first.values() for p in s] == [p.name for s in second.values() for p in s]
    assert all(a.read_bytes() == b.read_bytes() for s in first for a, b in zip(first[s], second[s], strict=True))


def test_a_failed_shard_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "out" / "shard.parquet"
    with pytest.raises(RuntimeError), atomic_file(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("the writer failed")
    assert list(target.parent.iterdir()) == []
    with atomic_file(target) as tmp:
        tmp.write_bytes(b"whole")
    assert target.read_bytes() == b"whole" and [p.name for p in target.parent.iterdir()] == ["shard.parquet"]


def test_an_hf_export_on_a_full_disk_names_the_destination(full_disk: Path, eval_bench: Path) -> None:
    from click.testing import CliRunner

    from mapgen.cli import main

    dest = full_disk / "export"
    result = CliRunner().invoke(main, ["export", str(eval_bench), "--format", "hf", "-o", str(dest)])
    message = result.output.strip()
    assert result.exit_code == 1 and len(message.splitlines()) == 1, message
    assert f"cannot write {dest}: no space left" in message
    assert list(full_disk.iterdir()) == []  # no staging folder, no half-written shard
