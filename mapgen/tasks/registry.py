"""The task registry: the one door through which built-in and user tasks become known.

:func:`register_task` adds a :class:`~mapgen.tasks.base.Task` (and its record file to the benchmark folder's
layout); :func:`get_task` finds one by name (a clear error naming the closest names otherwise); :func:`tasks`
lists them in registration order (the built-in ones first: vqa, caption, grounding, extraction). An installed
package can declare tasks under the ``mapgen.tasks`` entry-point group (a :class:`~mapgen.tasks.base.Task`
subclass or instance); they are registered the first time the registry is listed or asked for a name it lacks,
so ``mapgen build`` and build workers find them without an import.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import TypeVar

from mapgen.benchmark import register_record_file, unregister_record_file
from mapgen.suggest import did_you_mean
from mapgen.tasks.base import Task

T = TypeVar("T", bound="Task | type[Task]")
_TASKS: dict[str, Task] = {}
TASKS = MappingProxyType(_TASKS)
"""Every registered task by name (read-only view)."""


ENTRY_POINT_GROUP = "mapgen.tasks"
_entry_points_loaded = False


def load_entry_points() -> list[str]:
    """Register the tasks installed packages declare under :data:`ENTRY_POINT_GROUP` (once per process; a task
    already registered under the same name is kept); returns the names registered."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return []
    _entry_points_loaded = True
    from importlib.metadata import entry_points

    added = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        found = point.load()
        task = found() if isinstance(found, type) else found
        if not isinstance(task, Task):
            raise TypeError(f"entry point {point.name!r} of {ENTRY_POINT_GROUP!r} is not a mapgen Task: {found!r}")
        if task.name not in _TASKS:
            added.append(register_task(task).name)
    return added


class UnknownTaskError(ValueError):
    """A task name no registered task has."""


def register_task(task: T, *, replace: bool = False) -> T:
    """Register ``task`` — a :class:`~mapgen.tasks.base.Task`, or a Task subclass, registered as its instance (so
    ``@register_task`` above the class registers it) — under its name (``replace`` to override one of the same
    name); returns what it was given. The built-in tasks are registered the same way (:data:`mapgen.tasks.BUILT_IN`)."""
    _register(_instance(task), replace)
    return task


def _instance(task: Task | type[Task]) -> Task:
    """``task`` itself, or an instance of the Task subclass ``task``."""
    instance = task() if isinstance(task, type) and issubclass(task, Task) else task
    if not isinstance(instance, Task):
        raise TypeError(f"register_task takes a mapgen Task or a Task subclass, got {task!r}")
    return instance


def _register(task: Task, replace: bool) -> None:
    if not task.name or not task.record_file:
        raise ValueError(f"a task needs a name and a record file, got {task!r}")
    if task.name in _TASKS and not replace:
        raise ValueError(f"a task named {task.name!r} is already registered (pass replace=True to override it)")
    _TASKS[task.name] = task
    register_record_file(task.name, task.record_file)


def unregister_task(name: str) -> None:
    """Forget a registered task (tests and notebooks that registered a toy task)."""
    _TASKS.pop(name, None)
    unregister_record_file(name)


def get_task(name: str) -> Task:
    """The task registered as ``name`` (:class:`UnknownTaskError` naming the closest ones when unknown)."""
    if name not in _TASKS:
        load_entry_points()
    try:
        return _TASKS[name]
    except KeyError:
        raise UnknownTaskError(f"unknown task {name!r}{did_you_mean(name, _TASKS)}") from None


def tasks(names: Iterable[str] | None = None) -> list[Task]:
    """The registered tasks in registration order (only those in ``names`` when given; each checked)."""
    if names is None:
        load_entry_points()
        return list(_TASKS.values())
    wanted = {get_task(n).name for n in names}
    return [t for t in _TASKS.values() if t.name in wanted]


def task_names() -> tuple[str, ...]:
    """Names of every registered task, in registration order."""
    load_entry_points()
    return tuple(_TASKS)
