"""Selection across a build's units, in memory that does not grow with the records: the parent keeps of each unit's
result only what selection reads (:class:`Compactor`: each selecting task's declared fields of every candidate,
repeated values shared), each registered task chooses from those, and :mod:`mapgen.build.write` streams the chosen
records from the unit records on disk into the task files."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mapgen.config import BuildConfig
from mapgen.files import dumps_json
from mapgen.tasks import Task, record_id
from mapgen.tasks import tasks as registered_tasks


class Candidate(Mapping[str, Any]):
    """A read-only record holding only a task's :attr:`~mapgen.tasks.Task.selection_fields` (about a tenth of a
    dict's memory: the field index is shared by every candidate of a task)."""

    __slots__ = ("_index", "_values")

    def __init__(self, index: dict[str, int], values: tuple[Any, ...]) -> None:
        self._index, self._values = index, values

    def __getitem__(self, key: str) -> Any:
        try:
            return self._values[self._index[key]]
        except KeyError:
            raise KeyError(key) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


def keeps_all(task: Task) -> bool:
    """Whether a task keeps every candidate (it does not override :meth:`~mapgen.tasks.Task.select`)."""
    return type(task).select is Task.select


@dataclass
class Chosen:
    """A task's selection: every candidate (``ids`` and ``records`` ``None``), the ids of the chosen ones
    (a task with ``selection_fields``), or the chosen records themselves (a task whose select reads whole
    records)."""

    task: Task
    ids: set[str] | None = None
    records: list[dict[str, Any]] | None = None

    def keeps(self, record: Mapping[str, Any]) -> bool:
        """Whether a candidate streamed from a unit record is chosen (only for selections by id or of all)."""
        return self.ids is None or record_id(record) in self.ids


class Compactor:
    """What the parent keeps of a unit's result: its maps, file digests, timings and refusals, and of each task
    that selects its candidates (declared fields only, values shared across units); a task keeping every
    candidate keeps nothing here (its records are streamed from the unit records)."""

    def __init__(self, config: BuildConfig) -> None:
        self.tasks = registered_tasks(config.tasks)
        self._index = {t.key: {f: i for i, f in enumerate(t.selection_fields)} for t in self.tasks
                       if t.selection_fields is not None}
        self._shared: dict[Any, Any] = {}

    def __call__(self, result: dict[str, Any]) -> dict[str, Any]:
        keys = {t.key for t in registered_tasks()}
        kept = {k: v for k, v in result.items() if k not in keys}
        for task in self.tasks:
            records = result.get(task.key) or []
            if keeps_all(task):
                continue
            index = self._index.get(task.key)
            kept[task.key] = records if index is None else [self._candidate(index, r) for r in records]
        return kept

    def _candidate(self, index: dict[str, int], record: Mapping[str, Any]) -> Candidate:
        return Candidate(index, tuple(self._share(field, record.get(field)) for field in index))

    def _share(self, field: str, value: Any) -> Any:
        """One object for every equal value (ids are unique, so kept as they are)."""
        if field in ("question_id", "id"):
            return value
        key = (field, type(value), value) if isinstance(value, (str, int, float, bool, type(None))) else (
            field, type(value), dumps_json(value, indent=None))  # the type: 1, 1.0 and True are equal keys
        return self._shared.setdefault(key, value)


def select_records(config: BuildConfig, results: list[dict[str, Any]]) -> list[Chosen]:
    """Each registered task's selection (:class:`Chosen`) from the units' compact results (:class:`Compactor`),
    in registry order (a task the config does not ask for has no candidates, so selects none)."""
    asked = {t.key for t in registered_tasks(config.tasks)}
    out = []
    for task in registered_tasks():
        if task.key not in asked:
            out.append(Chosen(task, records=[]))
        elif keeps_all(task):
            out.append(Chosen(task))
        else:
            picked = task.select([x for r in results for x in r.get(task.key, [])], config)
            out.append(Chosen(task, ids={record_id(x) for x in picked}) if task.selection_fields is not None
                       else Chosen(task, records=picked))
    return out
