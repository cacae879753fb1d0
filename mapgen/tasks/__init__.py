"""Tasks as plugins: one folder per task, one registry that build, eval, report and export loop over.

A task is a :class:`Task` subclass (see :mod:`mapgen.tasks.base` for what it owns) registered with
:func:`register_task`; the built-in ones — :mod:`~mapgen.tasks.vqa`, :mod:`~mapgen.tasks.caption`,
:mod:`~mapgen.tasks.grounding`, :mod:`~mapgen.tasks.extraction` — are registered through the same door when
this package is imported (:data:`BUILT_IN`). A config names the tasks to build (``tasks: [vqa, caption, …]``); a user task is one module
that defines and registers its task (``@register_task`` above the class, or ``register_task(MyTask())``), imported
before the build or the evaluation runs — or declared by an installed package under the ``mapgen.tasks``
entry-point group, which the registry loads on first use.
"""

from __future__ import annotations

from mapgen.tasks.base import (
    EvalScope,
    HarnessMetric,
    ImageContext,
    LmmsEvalHooks,
    Metric,
    Record,
    Task,
    TaskScores,
    Texts,
    VlmEvalKitTable,
    record_id,
)
from mapgen.tasks.caption import CaptionTask
from mapgen.tasks.extraction import ExtractionTask
from mapgen.tasks.grounding import GroundingTask
from mapgen.tasks.registry import (
    TASKS,
    UnknownTaskError,
    get_task,
    load_entry_points,
    register_task,
    task_names,
    tasks,
    unregister_task,
)
from mapgen.tasks.vqa import VqaTask

for _task in (VqaTask, CaptionTask, GroundingTask, ExtractionTask):  # registered as a user's task is
    register_task(_task)
BUILT_IN: tuple[Task, ...] = tuple(TASKS.values())
"""The built-in tasks in their order (the order of reports, exports and manifests)."""

__all__ = [
    "BUILT_IN", "TASKS", "EvalScope", "HarnessMetric", "ImageContext", "LmmsEvalHooks", "Metric", "Record", "Task", "TaskScores", "Texts", "UnknownTaskError",
    "get_task", "load_entry_points", "record_id", "register_task", "task_names", "tasks", "unregister_task", "VlmEvalKitTable",
]
