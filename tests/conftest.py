"""Test-session setup shared by every test module."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

# Hermetic Hugging Face caches: `datasets` fingerprints local parquet folders loosely, so a cache left by an
# earlier run (same machine, same relative file names) could be served instead of the files a test just wrote.
os.environ["HF_DATASETS_CACHE"] = tempfile.mkdtemp(prefix="mapgen-hf-datasets-")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Canvases computed by the tests go to a folder of this session, not the user's cache (mapgen.render.canvas_cache).
os.environ.setdefault("MAPGEN_CANVAS_CACHE", tempfile.mkdtemp(prefix="mapgen-canvas-"))


import pytest  # noqa: E402


@pytest.fixture
def fresh_caches():
    """Every process-wide cache emptied before the test and after it (:func:`mapgen.caches.clear_all`), so the
    test neither reads what others left nor leaves what it made under a patch."""
    from mapgen.caches import clear_all

    clear_all()
    yield
    clear_all()


EVAL_BENCH_CONFIG = {
    "name": "tiny-eval",
    "seed": 3,
    "countries": [{"name": "usa", "maps": 2}, {"name": "india", "maps": 1}],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["original", "imaginary", "shuffled", "jumbled"]},
    "questions": {"per_image": 60},
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
}
"""A small benchmark with every answer type, counterfactual set and split, built once per test session (per
xdist worker) by :func:`eval_bench` for the eval, prompt, baseline, export and audit tests."""


@pytest.fixture(scope="session")
def eval_bench(tmp_path_factory):
    """The folder of a real ``mapgen build`` of :data:`EVAL_BENCH_CONFIG` (treat it as read-only)."""
    from mapgen.build import build

    out = tmp_path_factory.mktemp("eval-bench") / "bench"
    build(EVAL_BENCH_CONFIG, out, progress=False)
    return out


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 128 KB tmpfs mounted under ``tmp_path`` (skips without the permission to mount one)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if shutil.which("mount") is None or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs",
                                                        str(mount)], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)
