"""The build's processes: worker processes that die with their parent, and one build per folder at a time.

A worker of a ``--workers N`` build asks Linux to kill it when its parent dies (``prctl(PR_SET_PDEATHSIG,
SIGKILL)``), ignores Ctrl-C (the parent stops it) and checks its parent's pid before each unit, so it never
writes into the folder after the build that started it is gone (kill -9, SIGTERM, Ctrl-C). In the parent,
SIGTERM becomes ``SystemExit(143)`` while the pool runs, so the pool's workers are terminated and the folder lock
released on the way out (the workers of a ``--executor dask`` build's own cluster keep the same rules:
:mod:`mapgen.build_dask`). :func:`folder_lock` holds ``fcntl.flock`` on ``.mapgen-build.lock`` in the folder for
the whole build: a second build into the same folder is refused, naming the folder and the holder's pid.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from mapgen.errors import BuildError
from mapgen.files import held_lock

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
