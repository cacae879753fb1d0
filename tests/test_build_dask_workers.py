"""A Dask build's processes die with it (kill -9, SIGTERM, Ctrl-C) and never write after it; one build per folder.

Real processes: ``mapgen build --executor dask`` of a 5-unit config runs in a subprocess whose environment carries
a marker, so every process it started (the LocalCluster's workers, multiprocessing's resource tracker) is found
by the marker even once the build is dead and they would have been re-parented.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import yaml

pytest.importorskip("distributed", reason="the dask executor needs dask.distributed: pip install 'mapgen[dask]'")
psutil = pytest.importorskip("psutil")

from test_build_workers import CONFIG, _digests, _snapshot  # noqa: E402

from mapgen.build import BuildError, build  # noqa: E402
from mapgen.build.executors import LOCK_FILE, folder_lock  # noqa: E402

MARKER = "MAPGEN_TEST_DASK_BUILD"


#: A build long enough that a signal sent once its first unit is done lands mid-build on a fast or a loaded machine.
LONG_CONFIG = CONFIG | {"countries": [{"name": "usa", "maps": 12}, {"name": "india", "maps": 4}]}


def _start_dask_build(tmp_path: Path, plan: dict = CONFIG) -> tuple[subprocess.Popen, Path, Path, str]:
    """A ``--executor dask --workers 2`` build of ``plan`` in its own session (so a Ctrl-C reaches its whole
    process group), returned once its workers have finished a unit, with the marker of its environment."""
    config, out, marker = tmp_path / "orphans.yaml", tmp_path / "out", uuid.uuid4().hex
    config.write_text(yaml.safe_dump(plan))
    parent = subprocess.Popen([sys.executable, "-m", "mapgen", "build", str(config), "-o", str(out), "--executor",
                               "dask", "--workers", "2", "--quiet"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env={**os.environ, MARKER: marker}, start_new_session=True,
                              preexec_fn=_as_in_a_terminal)
    deadline = time.monotonic() + 240
    while not list((out / "units").glob("*.json")):
        assert parent.poll() is None, parent.stderr.read().decode() if parent.stderr else ""
        assert time.monotonic() < deadline, "no unit finished in 240 s"
        time.sleep(0.1)
    assert len(_started_by(marker)) >= 3  # the build and its two workers (at least)
    return parent, config, out, marker


def _as_in_a_terminal() -> None:
    """Ctrl-C's default action, as a build started in a terminal has it: a test run launched in the background
    (``cmd &`` in a script, ``nohup``) hands its children SIGINT ignored, and the build would never see it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _started_by(marker: str) -> list[int]:
    """Live processes (zombies aside) whose environment carries ``marker``."""
    live = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(MARKER) == marker and process.status() != psutil.STATUS_ZOMBIE:
                live.append(process.pid)
        except psutil.Error:
            pass
    return live


def test_kill_9_of_a_dask_build_kills_its_workers_and_resume_is_byte_identical(tmp_path: Path) -> None:
    parent, config, out, marker = _start_dask_build(tmp_path)
    for executor in ("local", "dask"):  # a second build into the folder, by either executor, is refused
        with pytest.raises(BuildError, match=f"being built by another mapgen build \\(pid {parent.pid}\\)"):
            build(config, out, executor=executor, workers=2, progress=False)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    time.sleep(0.5)
    after_death = _snapshot(out)
    time.sleep(4.5)
    assert _started_by(marker) == []  # 5 s after kill -9 of the build no worker (nor any process it started) lives
    assert _snapshot(out) == after_death  # and nothing was written after its death
    assert len(list((out / "units").glob("*.json"))) < 5  # it was killed mid-build
    build(config, out, resume=True, executor="dask", workers=2, progress=False)
    fresh = tmp_path / "fresh"
    build(config, fresh, progress=False)
    assert _digests(out) == _digests(fresh)


@pytest.mark.parametrize(("stop", "exit_code"), [("sigterm", 128 + signal.SIGTERM), ("ctrl-c", 1)])
def test_sigterm_or_ctrl_c_stops_a_dask_build_its_workers_and_releases_the_lock(tmp_path: Path, stop: str,
                                                                               exit_code: int) -> None:
    parent, _, out, marker = _start_dask_build(tmp_path, LONG_CONFIG)
    if stop == "sigterm":
        os.kill(parent.pid, signal.SIGTERM)
    else:  # Ctrl-C in a terminal: SIGINT to the build's whole process group, its workers included
        os.killpg(parent.pid, signal.SIGINT)
    stopped = time.monotonic()
    assert parent.wait(timeout=30) == exit_code
    after_exit = _snapshot(out)
    assert len(list((out / "units").glob("*.json"))) < 16  # stopped mid-build
    time.sleep(max(0.0, 5 - (time.monotonic() - stopped)))
    assert _started_by(marker) == []
    assert _snapshot(out) == after_exit
    assert not (out / LOCK_FILE).exists()
    stderr = parent.stderr.read().decode() if parent.stderr else ""
    assert "Traceback" not in stderr and "distributed." not in stderr, stderr  # the workers die quietly


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_a_dask_or_local_build_into_a_locked_folder_is_refused_before_any_work(tmp_path: Path,
                                                                              executor: str) -> None:
    out = tmp_path / "out"
    with folder_lock(out), pytest.raises(BuildError) as err:
        build(CONFIG, out, executor=executor, workers=2, progress=False)
    assert str(out) in str(err.value) and f"pid {os.getpid()}" in str(err.value)
    assert list(out.iterdir()) == []  # the refused build wrote nothing (and the lock is gone)
