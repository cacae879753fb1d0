"""The task protocol: what a task (VQA, captions, grounding, table extraction, a user's own) owns.

A task is one object (a subclass of :class:`Task`, registered with :func:`mapgen.tasks.register_task`) that owns

- its **name** (what a config's ``tasks:`` lists) and its **record file** in the benchmark folder;
- its **gold records**, built from each rendered image's Scene (:meth:`Task.gold`, called by the build);
- its **flat export rows** (:attr:`Task.columns`, :meth:`Task.row`) and its training turn (:meth:`Task.turn`);
- its **prompt** and **reply parser** (:meth:`Task.prompt`, :meth:`Task.parse`);
- its **metrics** (:attr:`Task.metrics`: name, aggregation, direction), **baselines** and chance, computed by
  :meth:`Task.score` and :meth:`Task.baseline`;
- its pieces of the eval report (:meth:`Task.overview`, :meth:`Task.section`, :meth:`Task.plots`).

Only :meth:`gold`, :meth:`row`, :meth:`prompt`, :meth:`parse` and :meth:`score` must be written; every other
hook has a default. Build, eval, report and the exporters loop over the registry and never branch on a name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark
    from mapgen.config import BuildConfig
    from mapgen.eval.prompts import Prompt
    from mapgen.render.api import RenderResult
    from mapgen.scene import Scene

Record = dict[str, Any]
Texts = Mapping[str, "str | None"]
"""Replies by record id (``question_id``), ``None`` for a missing one."""


def record_id(record: Mapping[str, Any]) -> str:
    """The id a task record is answered under (``question_id``, else ``id``)."""
    return str(record.get("question_id") or record.get("id") or "")


@dataclass(frozen=True)
class Metric:
    """A metric a task reports: ``aggregation`` ``mean`` (over items) or ``corpus`` (one score over the set),
    and whether a higher value is better."""

    name: str
    aggregation: Literal["mean", "corpus"] = "mean"
    higher_is_better: bool = True


@dataclass
class ImageContext:
    """What a task's :meth:`Task.gold` gets for one rendered image of the build."""

    scene: Scene
    meta: dict[str, Any]
    """``split``, ``variant``, ``country``, ``counterfactual``, ``image`` (+ ``language``): every record carries them."""
    seed: int
    """The build unit's seed."""
    config: BuildConfig
    image: Path
    """The rendered PNG."""
    folder: Path | None = None
    """The build folder (its copies of the config's template packs are read from there)."""
    render: RenderResult | None = None
    """The render in memory (PNG bytes, region-id mask, render record): what the build's audit reads."""
    timings: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    """Seconds per build stage (summed into ``build_log.json``)."""
    shared: dict[str, Any] = field(default_factory=dict)
    """Per-image values tasks share (e.g. one description for captions and grounding)."""


@dataclass(frozen=True)
class EvalScope:
    """What an evaluation run tells each task: the benchmark and the run's options."""

    bench: Benchmark
    split: str | None = None
    limit: int | None = None
    seed: int = 0
    form: str = "open"
    box_scale: str = "percent"
    stream: bool = False
    """Score in bounded memory: a task may then give a frame of only the report's columns, its whole rows in a
    spool (:mod:`mapgen.eval.stream`)."""


@dataclass
class TaskScores:
    """A task's scores in one run: ``summary`` (``summary.json[task.key]``; empty when nothing was scored),
    per-item tables (``<name>.csv``) and records (``<name>.jsonl``) of the report folder. A task whose items
    form the run's per-question frame (VQA) also gives ``frame`` and its reference frames (random, chance)."""

    summary: dict[str, Any] = field(default_factory=dict)
    item_tables: dict[str, list[Record]] = field(default_factory=dict)
    item_records: dict[str, list[Record]] = field(default_factory=dict)
    frame: Any = None
    references: Mapping[str, Any] = field(default_factory=dict)
    unmatched_predictions: Sequence[str] = field(default_factory=list)
    spool: Any = None
    """The frame's whole rows when ``frame`` holds only the report's columns (a streamed run)."""


@dataclass(frozen=True)
class HarnessMetric:
    """One metric of a task's lmms-eval YAML: the key its results hook returns, the name of its aggregation
    hook in the shipped ``utils.py`` and whether a higher value is better."""

    name: str
    aggregation: str
    higher_is_better: bool = True


@dataclass(frozen=True)
class LmmsEvalHooks:
    """A task's rows in an lmms-eval export: the names of its hooks in the shipped ``utils.py``
    (:mod:`mapgen.export.harness.lmms_eval_utils`), its metrics and the column it names as the target."""

    text: str
    results: str
    metrics: tuple[HarnessMetric, ...]
    target: str = "answer"


@dataclass(frozen=True)
class VlmEvalKitTable:
    """A task's TSV in a VLMEvalKit export: its file-name suffix, the columns VLMEvalKit reads first (besides
    index and image) made from a flat row, and the section of the shipped dataset module
    (:mod:`mapgen.export.harness.vlmevalkit_dataset`) written only with this TSV (``None``: always written)."""

    suffix: str
    lead: Callable[[Record], Record]
    section: str | None = None


class Task(ABC):
    """One task of the benchmark (see the module docstring); subclass it and register an instance."""

    name: str
    """The config's name of the task (``tasks: [vqa, <name>]``)."""
    record_file: str
    """The JSON-lines file of its gold records in the benchmark folder."""
    columns: tuple[str, ...]
    """The columns of its flat export rows (:meth:`row`), in order."""
    metrics: tuple[Metric, ...] = ()
    label: str = ""
    """Its title in reports (the name when empty)."""
    noun: str = ""
    """What ``mapgen build`` calls its records (``"gold tables"``); the name when empty."""
    baselines: tuple[str, ...] = ()
    """The baselines :meth:`baseline` answers for."""
    site_field: str = ""
    """The key of its view in each map of the report site's ``data.js`` (none when empty)."""
    lmms_eval: LmmsEvalHooks | None = None
    """Its task in an lmms-eval export (none: the export leaves it out)."""
    vlmevalkit: VlmEvalKitTable | None = None
    """Its TSV in a VLMEvalKit export (none: the export leaves it out)."""

    @property
    def key(self) -> str:
        """The name of its records in unit records, counts, report summaries and record-set names: the record
        file's stem (``captions`` for ``captions.jsonl``)."""
        return Path(self.record_file).stem

    @property
    def title(self) -> str:
        return self.label or self.name

    # --- build ----------------------------------------------------------------------------------------------

    @abstractmethod
    def gold(self, image: ImageContext) -> list[Record]:
        """The gold records of one rendered image (each with ``question_id``, ``map_id`` and ``image.meta``)."""

    selection_fields: tuple[str, ...] | None = None
    """The record fields :meth:`select` reads: the build then keeps only these of each candidate (and
    :meth:`select` gets read-only mappings holding just them; the records it returns are matched back to the full
    ones by :func:`record_id`). ``None``: :meth:`select` gets whole records. Unused when :meth:`select` is not
    overridden (every record is kept, streamed from the units)."""

    def select(self, records: list[Record], config: BuildConfig) -> list[Record]:
        """The records the benchmark keeps of every image's (all of them)."""
        return records

    def counts(self, records: Sequence[Record]) -> dict[str, Any]:
        """The manifest's counts of its records (``{key: n}`` when it has any)."""
        return {self.key: len(records)} if records else {}

    # --- the benchmark folder ------------------------------------------------------------------------------

    def records(self, bench: Benchmark) -> list[Record]:
        """Its gold records in a built folder (build order)."""
        return bench.records(self.record_file)

    def iter_records(self, bench: Benchmark) -> Iterator[Record]:
        """Its gold records one at a time, streamed from the folder (what exporters read, in bounded memory; a
        task overriding :meth:`records` only is read through it)."""
        if type(self).records is not Task.records:
            return iter(self.records(bench))
        return bench.iter_records(self.record_file)

    # --- export --------------------------------------------------------------------------------------------

    @abstractmethod
    def row(self, record: Record, bench: Benchmark) -> Record:
        """A flat export row of one record (:attr:`columns`, one type per column)."""

    def export_record(self, record: Record, bench: Benchmark) -> Record:
        """A record as the JSONL export writes it (as built)."""
        return record

    def turn(self, record: Record, bench: Benchmark) -> tuple[str, str]:
        """One LLaVA training turn ``(human, gpt)``: the record's ``question`` and its ``answer``."""
        return str(record.get("question") or ""), str(record.get("answer") or "")

    # --- eval ----------------------------------------------------------------------------------------------

    @abstractmethod
    def prompt(self, record: Record, bench: Benchmark | None, strategy: str = "direct") -> Prompt:
        """What a model is sent for one record."""

    def prompts(self, scope: EvalScope, strategy: str = "direct") -> list[Prompt]:
        """Every prompt a model run sends for this task."""
        return [self.prompt(r, scope.bench, strategy) for r in self.records(scope.bench)]

    @abstractmethod
    def parse(self, reply: str | None, record: Record | None = None) -> Any:
        """The answer read from a model's reply to ``record`` (``None`` when none can be read)."""

    @abstractmethod
    def score(self, scope: EvalScope, texts: Texts) -> TaskScores:
        """Score the replies to its records (an empty :class:`TaskScores` when none is there)."""

    def baseline(self, scope: EvalScope, name: str) -> Mapping[str, str | None]:
        """A baseline's replies ``{record id: text}`` (none when the task has no such baseline; a mapping that may
        be held on disk, :class:`~mapgen.eval.replies.ReplyStore`)."""
        return {}

    # --- report --------------------------------------------------------------------------------------------

    def overview(self, summary: Mapping[str, Any], seed: int = 0) -> dict[str, Any] | None:
        """Its row of the report's *Tasks* table (``task``, ``n``, ``metric``, ``score`` in %, ``95 % interval``,
        ``random``, ``prior``, ``chance``), ``None`` for none."""
        return None

    def section(self, summary: Mapping[str, Any]) -> list[str]:
        """Its Markdown lines of ``tables.md`` (none by default)."""
        return []

    def plots(self, summary: Mapping[str, Any], folder: Path) -> dict[str, Path]:
        """Its plots in the report's ``plots/`` folder, by name (none by default)."""
        return {}

    def site_view(self, bench: Benchmark, map_ids: Sequence[str], eval_dir: Path | None = None) -> dict[str, Any]:
        """Its view of each map in the report site (``{map_id: value}`` for every id; ``eval_dir``: the run's
        report folder, when the site shows one)."""
        return {}

    def echo(self, summary: Mapping[str, Any]) -> str | None:
        """Its line of ``mapgen eval``'s output (none by default)."""
        return None


class OwnPromptTask(Task):
    """A task whose prompt is the prompt strategy named after it (another strategy named replaces it), and whose
    model runs always send that prompt."""

    def prompt(self, record: Record, bench: Benchmark | None, strategy: str = "direct") -> Prompt:
        from mapgen.eval.prompts import render_prompt, task_question

        chosen = self.name if strategy == "direct" else strategy
        return render_prompt(task_question(record, self.name, bench), chosen, bench=bench)

    def prompts(self, scope: EvalScope, strategy: str = "direct") -> list[Prompt]:
        return [self.prompt(r, scope.bench) for r in self.records(scope.bench)]
