"""The executors that run a build's units: this process, a local process pool, or a Dask cluster.

A worker of a ``--workers N`` build asks Linux to kill it when its parent dies (``prctl(PR_SET_PDEATHSIG,
SIGKILL)``), ignores Ctrl-C (the parent stops it) and checks its parent's pid before each unit, so it never
writes into the folder after the build that started it is gone (kill -9, SIGTERM, Ctrl-C). In the parent,
SIGTERM becomes ``SystemExit(143)`` while the pool runs, so the pool's workers are terminated and the folder lock
released on the way out. :func:`folder_lock` holds ``fcntl.flock`` on ``.mapgen-build.lock`` in the folder for
the whole build: a second build into the same folder is refused, naming the folder and the holder's pid.

The Dask executor (``--executor dask``, dask.distributed imported only when it runs): each worker of the build's
own LocalCluster runs the ``DieWithBuild`` plugin before its first unit, with the same rules as a pool worker,
and each unit checks the build's pid again before it writes (:func:`run_for_parent`). The scheduler and the
nannies live in the build process itself. On SIGTERM (exit 143), Ctrl-C or a failing unit the workers are killed
before the cluster closes, as the local pool's are. A cluster given by address (``--scheduler``) is not this
build's: its workers are left alone, and before the first unit the build checks that it has workers, that they
run this mapgen version and that they see the folder. Either way a Dask worker is sent a unit and the folder's
path only and reads the config and its files from the folder (:mod:`mapgen.build.inputs`).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.build.inputs import folder_config
from mapgen.build.unit import Unit, run_unit
from mapgen.caches import memo
from mapgen.config import BuildConfig
from mapgen.errors import BuildError
from mapgen.files import held_lock

if TYPE_CHECKING:
    from distributed import Client, LocalCluster
    from rich.progress import Progress

LOCK_FILE = ".mapgen-build.lock"
_PR_SET_PDEATHSIG = 1
_SIGTERM_EXIT = 128 + signal.SIGTERM


def die_with_parent(parent: int) -> None:
    """Worker initializer: be killed when ``parent`` dies (Linux), leave Ctrl-C to the parent."""
    set_death_signal()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    check_parent(parent)


def set_death_signal() -> None:
    """Ask Linux to SIGKILL this process when the process that started it dies (a no-op elsewhere)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def check_parent(parent: int) -> None:
    """Exit this worker at once (writing nothing) if the build process that started it is gone."""
    if os.getppid() != parent:
        os._exit(1)


def run_for_parent(fn: Callable[..., Any], parent: int, *args: Any, **kwargs: Any) -> Any:
    """Run one unit in a worker, unless the parent build has died (then exit before writing)."""
    check_parent(parent)
    return fn(*args, **kwargs)


def _raise_terminated(signum: int, frame: Any) -> None:
    raise SystemExit(_SIGTERM_EXIT)


@contextlib.contextmanager
def sigterm_exits() -> Iterator[None]:
    """While the pool runs, SIGTERM raises ``SystemExit(143)`` in the main thread, so cleanup code runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and terminate the workers (a unit half done is redone by ``--resume``)."""
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=5)


@contextlib.contextmanager
def worker_pool(workers: int) -> Iterator[tuple[ProcessPoolExecutor, int]]:
    """A process pool whose workers die with this process; yields ``(pool, parent pid)``. On any exception
    (SIGTERM, Ctrl-C, a failing unit) the workers are terminated before it propagates."""
    parent = os.getpid()
    pool = ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent, initargs=(parent,))
    try:
        with sigterm_exits():
            yield pool, parent
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold the build lock of ``folder`` (created if missing) until the block ends; refuse a folder another
    build holds. Without ``fcntl`` (Windows) nothing is locked."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    with held_lock(path, lambda holder: BuildError(
            f"{folder} is being built by another mapgen build ({holder}); wait for it to finish or stop it, or "
            "build into another folder.")):
        yield


@memo(maxsize=1)
def _die_with_build_plugin() -> type:
    """The worker plugin class of the build's LocalCluster (defined on first use: dask.distributed is imported
    only when the Dask executor runs)."""
    from distributed import WorkerPlugin

    class DieWithBuild(WorkerPlugin):
        """The worker dies with the build process ``parent`` and leaves Ctrl-C to it."""

        name = "mapgen-die-with-build"

        def __init__(self, parent: int) -> None:
            self.parent = parent

        def setup(self, worker: Any) -> None:
            if threading.current_thread() is threading.main_thread():
                die_with_parent(self.parent)
            else:  # a worker whose event loop is not its main thread cannot set signal handlers
                set_death_signal()
                check_parent(self.parent)

    return DieWithBuild


@contextlib.contextmanager
def dask_client(workers: int, scheduler: str | None = None) -> Iterator[tuple[Client, int | None]]:
    """A Dask client, yielded with the pid each unit checks before it writes: of the cluster at ``scheduler``
    (pid None: its workers are not this build's), else of a LocalCluster of ``workers`` processes on loopback
    that die with this process. On any exception the local workers are killed before the cluster closes."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            remote = Client(scheduler, timeout=10)
        except OSError as exc:  # distributed raises OSError (TimeoutError included) when nothing answers
            raise BuildError(f"Cannot reach the Dask scheduler at {scheduler} ({exc}); start one with `dask "
                             "scheduler` and pass the address it prints (tcp://host:8786).") from None
        try:
            yield remote, None
        finally:
            remote.close()
        return
    with sigterm_exits():
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
        client: Client | None = None
        pids: list[int] = []
        stopped = False
        try:
            client = Client(cluster)
            client.register_plugin(_die_with_build_plugin()(os.getpid()))
            pids = list(client.run(os.getpid).values())
            yield client, os.getpid()
        except BaseException:
            stopped = True
            _kill(pids)
            raise
        finally:
            _close(client, cluster, quiet=stopped)


def _kill(pids: list[int]) -> None:
    """SIGKILL the build's worker processes (a unit half done has no record: ``--resume`` redoes it)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _close(client: Client | None, cluster: LocalCluster, quiet: bool) -> None:
    """Close the client and its LocalCluster; ``quiet`` (the workers were killed) silences Dask's log of their
    deaths and any error while closing, so a stopped build ends with its own one line."""
    log = logging.getLogger("distributed")
    level = log.level
    if quiet:
        log.setLevel(logging.CRITICAL)
    try:
        with contextlib.suppress(Exception) if quiet else contextlib.nullcontext():
            if client is not None:
                client.close()
            cluster.close()
    finally:
        log.setLevel(level)


# --- running units ---


def run_local(units: list[Unit], config: BuildConfig, out_dir: Path, workers: int = 1, scheduler=None,
              progress: bool = True):
    """Run units in this process (workers=1) or a process pool; yields results as they finish."""
    with progress_bar(len(units), progress) as advance:
        if workers <= 1:
            for unit in units:
                result = run_unit(unit, config, out_dir)
                advance()
                yield result
            return
        from concurrent.futures import as_completed

        preload_worker_modules()
        with worker_pool(workers) as (pool, parent):  # workers die with this process (worker_pool)
            # no list kept: as_completed drops each future once yielded, so the parent never holds every result
            for future in as_completed([pool.submit(run_for_parent, run_unit, parent, unit, config, out_dir)
                                        for unit in units]):
                advance()
                yield future.result()


#: What every unit imports (renderer, engine, legibility vet, class breaks: ~2.5 s of CPU a process).
WORKER_MODULES = ("mapgen.render.mpl_renderer", "mapgen.questions", "mapgen.audit.legibility", "mapgen.tasks.vqa.gold",
                  "mapclassify")


def preload_worker_modules() -> None:
    """Import :data:`WORKER_MODULES` in the parent before its pool forks, so forked workers share them instead of
    each importing them again; nothing where the pool spawns its workers (they would import them anyway)."""
    import importlib
    import multiprocessing

    if multiprocessing.get_start_method() != "fork":
        return
    for name in WORKER_MODULES:
        importlib.import_module(name)


def run_dask(units: list[Unit], config: BuildConfig, out_dir: Path, workers: int = 2, scheduler: str | None = None,
             progress: bool = True):
    """Run units on a Dask cluster (``scheduler`` address) or a LocalCluster on loopback whose workers die with
    this process (:func:`dask_client`). Workers get each unit and the folder's path only: they read the config and
    its files from the folder (:func:`run_in_folder`), so ``config`` is not sent."""
    try:
        from distributed import as_completed
    except ImportError:
        raise BuildError("The dask executor needs dask.distributed: pip install 'mapgen[dask]'.") from None
    folder = str(Path(out_dir).resolve())
    with dask_client(workers, scheduler) as (client, parent):
        if scheduler is not None:
            check_cluster(client, scheduler, folder)
        futures = client.map(run_in_folder, units, out_dir=folder, parent=parent, pure=False)
        with progress_bar(len(units), progress) as advance:
            for future in as_completed(futures):
                advance()
                yield future.result()


def run_in_folder(unit: Unit, out_dir: str, parent: int | None = None) -> dict[str, Any]:
    """A Dask worker's unit: the build's config and inputs read from its folder (:mod:`mapgen.build.inputs`), not
    from the parent's memory; ``parent``: the build's pid to check first (a LocalCluster's worker), else None."""
    if parent is not None:
        check_parent(parent)
    folder = Path(out_dir)
    return run_unit(unit, folder_config(folder), folder)


def worker_view(out_dir: str) -> tuple[str, bool]:
    """What a worker reports before a build: its mapgen version and whether it sees the build folder's marker."""
    from mapgen import __version__
    from mapgen.benchmark import CONFIG_MARKER

    return __version__, (Path(out_dir) / CONFIG_MARKER).is_file()


def check_cluster(client: Client, scheduler: str, folder: str, timeout: float = 60) -> None:
    """Refuse a cluster that cannot build this folder, before any unit runs: no worker within ``timeout``
    seconds, a worker with another mapgen version (its output would differ), or one that cannot see the folder."""
    from mapgen import __version__

    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise BuildError(f"The Dask scheduler at {scheduler} has no workers after {timeout:.0f} s; start some with "
                         f"`dask worker {scheduler}`.") from None
    views = client.run(worker_view, folder)
    other = sorted(f"{addr} (mapgen {v})" for addr, (v, _) in views.items() if v != __version__)
    if other:
        raise BuildError(f"Dask workers run another mapgen than this build's {__version__}: {', '.join(other)}; "
                         "install the same version on every worker and restart them.")
    blind = sorted(addr for addr, (_, seen) in views.items() if not seen)
    if blind:
        raise BuildError(f"Dask workers {', '.join(blind)} cannot see the build folder {folder}: workers read the "
                         "build from it, so put it on a filesystem every worker shares, at the same path.")


class progress_bar:
    """A rich progress bar (maps/s and ETA); silent when disabled."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled = total, enabled and total > 0
        self._progress: Progress | None = None

    def __enter__(self) -> Callable[[], None]:
        if not self.enabled:
            return lambda: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        progress = self._progress = Progress(TextColumn("building"), BarColumn(), MofNCompleteColumn(),
                                             TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                                             transient=False)
        progress.start()
        task = progress.add_task("units", total=self.total, rate="")
        started = time.perf_counter()

        def advance() -> None:
            done = progress.tasks[0].completed + 1
            rate = done / max(1e-9, time.perf_counter() - started)
            progress.update(task, advance=1, rate=f"{rate:.1f} units/s")

        return advance

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
