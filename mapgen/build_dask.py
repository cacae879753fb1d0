"""The Dask executor's processes: a LocalCluster whose workers die with the build, or a client of a cluster.

Each worker of the build's own LocalCluster runs :class:`DieWithBuild` before its first unit: it asks Linux to
kill it when the build dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), ignores Ctrl-C (the build stops it) and
exits at once if the build is already gone; each unit checks the build's pid again before it writes
(:func:`mapgen.build_workers.run_for_parent`). The scheduler and the nannies live in the build process itself.
On SIGTERM (exit 143), Ctrl-C or a failing unit the workers are killed before the cluster closes, as the local
pool's are. A cluster given by address (``--scheduler``) is not this build's: its workers are left alone.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any

from distributed import Client, LocalCluster, WorkerPlugin

from mapgen.build_workers import check_parent, die_with_parent, set_death_signal, sigterm_exits


class DieWithBuild(WorkerPlugin):
    """Worker plugin of the build's LocalCluster: the worker dies with the build process ``parent`` and leaves
    Ctrl-C to it."""

    name = "mapgen-die-with-build"

    def __init__(self, parent: int) -> None:
        self.parent = parent

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            die_with_parent(self.parent)
        else:  # a worker whose event loop is not its main thread cannot set signal handlers
            set_death_signal()
            check_parent(self.parent)


@contextlib.contextmanager
def dask_client(workers: int, scheduler: str | None = None) -> Iterator[tuple[Client, int | None]]:
    """A Dask client, yielded with the pid each unit checks before it writes: of the cluster at ``scheduler``
    (pid None: its workers are not this build's), else of a LocalCluster of ``workers`` processes on loopback
    that die with this process. On any exception the local workers are killed before the cluster closes."""
    if scheduler is not None:
        remote = Client(scheduler)
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
            client.register_plugin(DieWithBuild(os.getpid()))
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
