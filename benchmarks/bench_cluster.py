"""Parallel efficiency of a build at 1, 2 and 4 workers, by executor (issue 38 item 4).

    python benchmarks/bench_cluster.py                      # train config cut to 30 maps a country
    python benchmarks/bench_cluster.py --maps 10 --workers 1 2 --modes local scheduler
    python benchmarks/bench_cluster.py --maps 20 --serial   # the parent's serial stage (selection + writing)

Each build runs as ``python -m mapgen build`` in a subprocess, so its CPU time is that of the whole process tree
(user + system of every finished child, as GNU time counts it). Modes: ``local`` (``--workers N``: a process pool),
``dask`` (``--executor dask --workers N``: the build's own LocalCluster) and ``scheduler`` (``dask scheduler`` and
N ``dask worker`` processes of one thread started beforehand, ``--scheduler tcp://…``; their CPU, start-up
included, is counted once they are stopped). Last, ``--resume`` of a finished folder: every unit reused, so its
wall time bounds the build's serial part (plan, unit checks, selection, writing) from above. Prints one markdown
table row per build, with the load average of the machine (2 cores shared with other work: read wall times
with it).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def train_cut(maps: int) -> dict:
    """``configs/train.yaml`` with ``maps`` maps a country (everything else as shipped)."""
    config = yaml.safe_load((ROOT / "configs" / "train.yaml").read_text())
    for country in config["countries"]:
        country["maps"] = maps
    config["name"] = f"train-{maps}"
    return config


def children_cpu() -> float:
    """User + system CPU seconds of this process's finished children (and theirs, when waited for)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def cluster(workers: int, where: Path) -> Iterator[str]:
    """A ``dask scheduler`` and ``workers`` ``dask worker`` processes (one thread each) on loopback, stopped on
    exit; yields the scheduler's address once every worker has joined."""
    from distributed import Client

    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    args = [["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]]
    args += [["worker", address, "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "60",
              "--local-directory", str(where / f"w{i}")] for i in range(workers)]
    processes = []
    try:
        for a in args:
            processes.append(subprocess.Popen([sys.executable, "-m", "dask", *a], cwd=where, env=ENV,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                              start_new_session=True))
        with Client(address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=180)
        yield address
    finally:
        for p in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in processes:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def run_build(config: Path, out: Path, extra: list[str]) -> float:
    """Run one build; its wall seconds."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mapgen", "build", str(config), "-o", str(out), "--quiet", *extra],
                   env=ENV, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def measure(mode: str, workers: int, config: Path, tmp: Path) -> dict:
    """Wall and whole-tree CPU of one build in ``mode`` with ``workers`` workers."""
    out = tmp / f"{mode}-{workers}"
    load = os.getloadavg()[0]
    cpu = children_cpu()
    if mode == "scheduler":
        with cluster(workers, tmp) as address:
            wall = run_build(config, out, ["--scheduler", address])
    else:
        wall = run_build(config, out, ["--workers", str(workers)] + (["--executor", "dask"] if mode == "dask" else []))
    cpu = children_cpu() - cpu
    questions = json.loads((out / "manifest.json").read_text())["counts"]["questions"]
    return {"mode": mode, "workers": workers, "wall": wall, "cpu": cpu, "questions": questions,
            "load": (load + os.getloadavg()[0]) / 2, "out": out}


def serial(maps: int, workers: int) -> None:
    """Time the parent's last stage (:func:`mapgen.build.write.finalize`: selection across the units, writing the
    record files and the manifest) inside a real build, in CPU seconds of this process."""
    from mapgen.build import build, run

    spent: list[float] = []
    finalize = run.finalize

    def timed(*args, **kwargs):
        start = time.process_time()
        try:
            return finalize(*args, **kwargs)
        finally:
            spent.append(time.process_time() - start)

    run.finalize = timed
    with tempfile.TemporaryDirectory() as tmp:
        parent = time.process_time()
        report = build(train_cut(maps), Path(tmp) / "bench", workers=workers, progress=False)
        parent = time.process_time() - parent
    questions = report.manifest["counts"]["questions"]
    print(f"finalize (in the parent, serial): {spent[0]:.2f} CPU s for {questions:,} questions, "
          f"{1e6 * spent[0] / questions:.0f} µs a question; the parent's CPU in all (plan, checks, receiving "
          f"the units' results, finalize) {parent:.1f} s; whole build {report.seconds:.1f} s wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--maps", type=int, default=30, help="maps a country of the train config")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--modes", nargs="+", default=["local", "dask", "scheduler"],
                        choices=["local", "dask", "scheduler"])
    parser.add_argument("--keep", type=Path, help="build into this folder and keep the builds")
    parser.add_argument("--serial", action="store_true", help="time the parent's serial stage instead")
    args = parser.parse_args()
    if args.serial:
        serial(args.maps, max(args.workers))
        return
    with tempfile.TemporaryDirectory() as name:
        tmp = args.keep or Path(name)
        tmp.mkdir(parents=True, exist_ok=True)
        config = tmp / f"train-{args.maps}.yaml"
        config.write_text(yaml.safe_dump(train_cut(args.maps)))
        print("| executor | workers | wall s | CPU s (tree) | questions | CPU ms / question | speed-up | efficiency "
              "| load avg |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        rows = []
        for mode in args.modes:
            base = None
            for workers in args.workers:
                r = measure(mode, workers, config, tmp)
                rows.append(r)
                base = base or r["wall"] * r["workers"]
                speedup = base / r["wall"]
                print(f"| {mode} | {workers} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['questions']:,} | "
                      f"{1000 * r['cpu'] / r['questions']:.2f} | {speedup:.2f} | {speedup / workers:.2f} | "
                      f"{r['load']:.1f} |", flush=True)
        digests = {f"{r['mode']} {r['workers']}": hashlib.sha256((r["out"] / "questions.jsonl").read_bytes())
                   .hexdigest()[:12] for r in rows}
        same = len(set(digests.values())) == 1
        print(f"questions.jsonl identical across all {len(rows)} builds: {same}" + ("" if same else f" {digests}"))
        last = rows[-1]
        start = time.perf_counter()
        run_build(config, last["out"], ["--resume", "--workers", "1"])
        print(f"serial part (--resume of a finished folder, every unit reused): {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
