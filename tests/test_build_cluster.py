"""A cluster as a cluster user runs it: ``dask scheduler`` and two ``dask worker`` processes started on their own
(loopback, free ports, another working folder), ``mapgen build --scheduler tcp://…`` against them writes every
file byte-identical to the local executor; workers read the build from its folder, not from the parent."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the cluster build needs dask.distributed: pip install 'mapgen[dask]'")

from helpers import write_grid  # noqa: E402

from mapgen.build import build  # noqa: E402
from mapgen.build.executors import LOCK_FILE, run_in_folder  # noqa: E402
from mapgen.build.inputs import folder_config  # noqa: E402
from mapgen.build.plan import plan  # noqa: E402
from mapgen.config import load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: Fields of a unit record that vary run to run (timings; draws refused depend on what a worker ran before).
VARYING = ("timings", "refusals")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(args: list[str], cwd: Path, log: Path) -> subprocess.Popen:
    """A ``dask`` command in its own session (so its nanny and worker are stopped together), logging to ``log``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the workers import this tree's mapgen
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "dask", *args], cwd=cwd, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def _stop(processes: list[subprocess.Popen]) -> None:
    """SIGTERM each process group started here, SIGKILL what is left 20 s later."""
    for p in processes:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    for p in processes:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a ``dask scheduler`` with two ``dask worker`` processes (one thread each), all on loopback
    and run from a folder of their own; stopped whatever the tests do."""
    from distributed import Client

    where = tmp_path_factory.mktemp("cluster")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes = [_start(["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], where,
                        where / "scheduler.log")]
    try:
        for i in range(2):
            processes.append(_start(["worker", address, "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard",
                                     "--death-timeout", "60", "--local-directory", str(where / f"w{i}")], where,
                                    where / f"worker{i}.log"))
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        _stop(processes)


def _config(root: Path) -> Path:
    """A tiny config whose inputs are files (a user atlas and its statistics table) beside a built-in country."""
    write_grid(root, stem="gridland")
    config = root / "cluster.yaml"
    config.write_text("name: cluster tiny\nseed: 3\ncountries:\n  - name: gridland.geojson\n    maps: 2\n"
                      "    statistics: {curated: [], files: [gridland.csv], synthetic: {count: 0}}\n"
                      "  - name: usa\n    maps: 1\n"
                      "questions: {per_template: 1, per_image: 3, min_per_template: 0}\n"
                      "variants: {hatched: false}\ntasks: [vqa, caption]\n")
    return config


def _files(folder: Path) -> dict[str, str]:
    """sha256 of every file but the build log and the lock; unit records without their run-to-run fields."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if not p.is_file() or p.name in ("build_log.json", LOCK_FILE):
            continue
        data = p.read_bytes()
        if p.parent.name == "units":
            record = json.loads(data)
            data = json.dumps({k: v for k, v in record.items() if k not in VARYING}, sort_keys=True).encode()
        out[p.relative_to(folder).as_posix()] = hashlib.sha256(data).hexdigest()
    return out


def _cli_build(config: Path, out: Path, *extra: str, cwd: Path | None = None) -> str:
    """``mapgen build`` in a subprocess (progress bar on); its stdout and stderr."""
    run = subprocess.run([sys.executable, "-m", "mapgen", "build", str(config), "-o", str(out), *extra], cwd=cwd,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return run.stdout + run.stderr


#: The progress bar's last state: units done of all, the rate and the time left.
BAR = re.compile(r"building .* 3/3 \d+\.\d units/s \d+:\d\d:\d\d")


def test_a_build_on_a_separately_started_cluster_is_byte_identical_to_the_local_one(
        tmp_path: Path, scheduler: str) -> None:
    config = _config(tmp_path / "src")
    assert BAR.search(_cli_build(config, tmp_path / "local"))  # the local executor's progress bar
    elsewhere = tmp_path / "cwd"  # the build runs from another folder than the workers and the config
    elsewhere.mkdir()
    assert BAR.search(_cli_build(config, tmp_path / "cluster", "--scheduler", scheduler, cwd=elsewhere))
    assert (tmp_path / "cluster" / "inputs" / "0" / "gridland.csv").is_file()  # the table the workers read
    assert json.loads((tmp_path / "cluster" / "build_log.json").read_text())["executor"] == "dask"
    assert _files(tmp_path / "cluster") == _files(tmp_path / "local")


def test_a_worker_reads_the_build_from_its_folder_alone(tmp_path: Path) -> None:
    """A unit run from the folder (moved elsewhere, its config's own files gone) writes what the build wrote."""
    config_path = _config(tmp_path / "src")
    units = plan(load_config(config_path))
    build(config_path, tmp_path / "built", progress=False)
    shutil.rmtree(tmp_path / "src")  # the config, its atlas and its table are gone: only the folder is left
    moved = tmp_path / "mounted" / "elsewhere"
    shutil.copytree(tmp_path / "built", moved)
    config = folder_config(moved)
    assert config.resolve_path("gridland.csv") == moved / "inputs" / "0" / "gridland.csv"
    for unit in units:
        before = json.loads((moved / "units" / f"{unit.unit_id}.json").read_text())
        for rel in before["files"]:
            (moved / rel).unlink()
        again = run_in_folder(unit, str(moved))
        assert {k: v for k, v in again.items() if k not in VARYING} == {
            k: v for k, v in before.items() if k not in VARYING}
    assert _files(moved) == _files(tmp_path / "built")


def test_an_address_where_no_scheduler_listens_is_one_line(tmp_path: Path) -> None:
    config = _config(tmp_path / "src")
    run = subprocess.run([sys.executable, "-m", "mapgen", "build", str(config), "-o", str(tmp_path / "out"),
                          "--scheduler", f"tcp://127.0.0.1:{_free_port()}", "--quiet"],
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert "Cannot reach the Dask scheduler at tcp://127.0.0.1:" in run.stderr
    assert "Traceback" not in run.stderr


def test_workers_that_cannot_see_the_folder_are_refused_before_any_unit(tmp_path: Path, scheduler: str) -> None:
    from distributed import Client

    from mapgen.build.executors import check_cluster
    from mapgen.errors import BuildError

    with Client(scheduler, timeout=30) as client, pytest.raises(BuildError) as err:
        check_cluster(client, scheduler, str(tmp_path / "not-shared"))
    assert "cannot see the build folder" in str(err.value) and "shares" in str(err.value)
