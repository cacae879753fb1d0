"""A build's workers die with it (kill -9, SIGTERM) and never write after it; one build per folder at a time."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from mapgen.build import BuildError, build
from mapgen.build.executors import LOCK_FILE, folder_lock

psutil = pytest.importorskip("psutil")

CONFIG = {
    "name": "orphans",
    "seed": 5,
    "countries": [{"name": "usa", "maps": 4}, {"name": "india", "maps": 1}],
    "questions": {"per_image": 2},
}


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in folder.rglob("*") if p.is_file()}


def _digests(folder: Path) -> dict[str, str]:
    """Every file's digest but the timings (build log, unit records) and the lock."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name not in ("build_log.json", LOCK_FILE)
            and p.parent.name != "units"}


def _start_build(tmp_path: Path) -> tuple[subprocess.Popen, Path, Path, list]:
    """A ``--workers 2`` build in a subprocess, stopped once its workers have finished a unit; its workers."""
    config, out = tmp_path / "orphans.yaml", tmp_path / "out"
    config.write_text(yaml.safe_dump(CONFIG))
    parent = subprocess.Popen([sys.executable, "-m", "mapgen", "build", str(config), "-o", str(out), "--workers",
                               "2", "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while not list((out / "units").glob("*.json")):
        assert parent.poll() is None, parent.stderr.read() if parent.stderr else ""
        assert time.monotonic() < deadline, "no unit finished in 240 s"
        time.sleep(0.1)
    workers = psutil.Process(parent.pid).children(recursive=True)
    assert len(workers) >= 2
    return parent, config, out, workers


def _alive(workers: list) -> list[int]:
    alive = []
    for worker in workers:
        try:
            if worker.status() != psutil.STATUS_ZOMBIE:
                alive.append(worker.pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def test_kill_9_of_the_build_kills_its_workers_and_resume_is_byte_identical(tmp_path: Path) -> None:
    parent, config, out, workers = _start_build(tmp_path)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    time.sleep(0.5)
    after_death = _snapshot(out)
    time.sleep(4.5)
    assert _alive(workers) == []  # 5 s after kill -9 of the parent no worker lives
    assert _snapshot(out) == after_death  # and nothing was written after its death
    assert len(list((out / "units").glob("*.json"))) < 5  # it was killed mid-build
    build(config, out, resume=True, progress=False)
    fresh = tmp_path / "fresh"
    build(config, fresh, progress=False)
    assert _digests(out) == _digests(fresh)


def test_sigterm_stops_the_workers_and_releases_the_lock(tmp_path: Path) -> None:
    parent, _, out, workers = _start_build(tmp_path)
    os.kill(parent.pid, signal.SIGTERM)
    assert parent.wait(timeout=30) == 128 + signal.SIGTERM
    time.sleep(1)
    assert _alive(workers) == []
    assert not (out / LOCK_FILE).exists()


def test_a_second_build_into_a_folder_being_built_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with folder_lock(out), pytest.raises(BuildError) as err:
        build(CONFIG, out, progress=False)
    assert str(out) in str(err.value) and f"pid {os.getpid()}" in str(err.value)
    assert not (out / LOCK_FILE).exists()  # released on exit
    assert list(out.iterdir()) == []  # the refused build wrote nothing
    with folder_lock(out):  # and the folder can be locked again
        assert (out / LOCK_FILE).read_text() == str(os.getpid())
