"""Selection across a build's units: each registered task chooses its records from every unit's candidates."""

from __future__ import annotations

from typing import Any

from mapgen.config import BuildConfig
from mapgen.tasks import Task
from mapgen.tasks import tasks as registered_tasks


def select_records(config: BuildConfig, results: list[dict[str, Any]]) -> list[tuple[Task, list[dict[str, Any]]]]:
    """``(task, its selected records)`` for every registered task, in registry order (a task the config does not
    ask for has no candidates, so selects none)."""
    return [(task, task.select([x for r in results for x in r.get(task.key, [])], config))
            for task in registered_tasks()]
