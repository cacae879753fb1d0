"""The Dask executor on a LocalCluster (loopback, 2 worker processes) builds the same benchmark as the local one."""

from __future__ import annotations

from pathlib import Path

import pytest

from mapgen.build import build

pytest.importorskip("dask.distributed")

TINY = {
    "name": "dask tiny",
    "seed": 11,
    "countries": [{"name": "usa", "maps": 2}],
    "variants": {"hatched": False},
    "questions": {"per_image": 2},
    "tasks": ["vqa"],
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
}


def test_dask_build_matches_local_build(tmp_path: Path) -> None:
    local = build(TINY, tmp_path / "local", progress=False)
    dask = build(TINY, tmp_path / "dask", executor="dask", workers=2, progress=False)
    assert dask.built == local.built == 2
    assert dask.manifest == local.manifest
    assert (tmp_path / "dask" / "questions.jsonl").read_bytes() == (tmp_path / "local" / "questions.jsonl").read_bytes()
