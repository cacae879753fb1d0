"""lmms-eval task folder: task YAMLs over exported parquet data, and a ``utils.py`` that scores with mapgen.

Layout::

    DEST/<name>_<task>.yaml       one lmms-eval task per registered task the build has records of, from the
                                  task's ``lmms_eval`` hooks (:class:`mapgen.tasks.LmmsEvalHooks`): VQA scored by
                                  mapgen.eval.score.score, captions by BLEU-4/METEOR/ROUGE-L/CIDEr, grounding by
                                  IoU on 0–100 boxes, gold tables by their task's metrics (see each task's folder)
    DEST/utils.py                 doc_to_visual / doc_to_text / process_results / aggregations: the module
                                  :mod:`mapgen.export.harness.lmms_eval_utils` as shipped, then each task's
                                  ``<task>_data_files`` line
    DEST/data/<task>/<split>-0000i-of-0000n.parquet   the data (Hugging Face parquet, PNG bytes embedded)
    DEST/README.md

Run with ``lmms-eval --include_path DEST --tasks <name>_vqa,<name>_caption,<name>_grounding``. Nothing holds an
absolute path: ``dataset_kwargs.data_files`` is ``!function utils.<task>_data_files``, a dict that ``utils.py``
computes from its own location, so the folder can be moved or copied. The YAML uses lmms-eval's
``!function utils.<name>`` tags (lmms-eval resolves them against the YAML's folder); mapgen must be importable
where lmms-eval runs (``pip install mapgen``; ``mapgen[eval]`` and Java for the caption metrics).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from mapgen.benchmark import Benchmark
from mapgen.export import harness
from mapgen.export.common import ExportError
from mapgen.export.harness import lmms_eval_utils as hooks
from mapgen.export.hf import write_task
from mapgen.files import write_text_atomic
from mapgen.tasks import LmmsEvalHooks, tasks

HOOKS_MODULE = "lmms_eval_utils"
"""The harness module (:mod:`mapgen.export.harness.lmms_eval_utils`) written as ``DEST/utils.py``."""


class Function(str):
    """A value written as lmms-eval's ``!function utils.<name>`` tag."""

    @classmethod
    def of(cls, hook: str) -> Function:
        """The tag naming ``hook``, a function of the hooks module (an unknown name is an export error)."""
        if not callable(getattr(hooks, hook, None)):
            raise ExportError(f"lmms-eval hook {hook!r} is not a function of mapgen.export.harness.{HOOKS_MODULE}; "
                              "name one of its functions in the task's lmms_eval hooks.")
        return cls(f"utils.{hook}")


def _represent_function(dumper: yaml.SafeDumper, value: Function) -> yaml.ScalarNode:
    return dumper.represent_scalar("!function", str(value))


class TaskDumper(yaml.SafeDumper):
    """YAML dumper that writes :class:`Function` values as ``!function`` tags."""


TaskDumper.add_representer(Function, _represent_function)


def dump_task(config: dict[str, Any]) -> str:
    """YAML text of a task config, ``!function`` tags unquoted as lmms-eval's own files write them."""
    text = yaml.dump(config, Dumper=TaskDumper, sort_keys=False, allow_unicode=True)
    return re.sub(r"!function '([\w.]+)'", r"!function \1", text)


def task_slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "mapgen"


def harness_tasks() -> dict[str, LmmsEvalHooks]:
    """Per registered task with lmms-eval hooks, in registry order: its hooks (a task the build lacks is
    skipped by :func:`write`)."""
    return {task.name: task.lmms_eval for task in tasks() if task.lmms_eval is not None}


def task_config(task_name: str, split: str, kind: str) -> dict[str, Any]:
    """The lmms-eval YAML of one task (its data files come from ``utils.<kind>_data_files``)."""
    task = harness_tasks()[kind]
    return {
        "task": task_name,
        "dataset_path": "parquet",
        "dataset_kwargs": {"data_files": Function(f"utils.{kind}_data_files")},
        "test_split": split,
        "output_type": "generate_until",
        "doc_to_visual": Function.of("mapgen_doc_to_visual"),
        "doc_to_text": Function.of(task.text),
        "doc_to_target": task.target,
        "generation_kwargs": {"max_new_tokens": 512, "temperature": 0, "do_sample": False},
        "lmms_eval_specific_kwargs": {"default": {"pre_prompt": "", "post_prompt": ""}},
        "process_results": Function.of(task.results),
        "metric_list": [{"metric": m.name, "aggregation": Function.of(m.aggregation),
                         "higher_is_better": m.higher_is_better} for m in task.metrics],
        "metadata": {"version": 1.0},
    }


def data_files_code(kind: str, files: dict[str, list[Path]], dest: Path) -> str:
    """The ``utils.py`` line defining ``<kind>_data_files`` (split → shard paths) relative to the task folder."""
    body = ", ".join(f"{s!r}: [{', '.join(f'str(HERE / {p.relative_to(dest).as_posix()!r})' for p in paths)}]"
                     for s, paths in files.items())
    return f"{kind}_data_files = {{{body}}}\n"


def pick_split(bench: Benchmark, split: str | None) -> str:
    """The evaluation split: as asked, else ``test`` when the build has one, else the last split."""
    splits = bench.splits()
    if split is not None:
        if split not in splits:
            raise ExportError(f"Split {split!r} is not in the build (splits: {', '.join(splits)}).")
        return split
    return "test" if "test" in splits else splits[-1]


def write(bench: Benchmark, dest: Path, split: str | None = None, name: str | None = None, **_: Any) -> None:
    """Write the task folder into ``dest`` (every path in it is relative to the folder)."""
    split = pick_split(bench, split)
    slug = task_slug(name or bench.name)
    written, utils = [], harness.source(HOOKS_MODULE)
    for kind in harness_tasks():
        if not bench.tasks.get(kind):
            continue
        files = write_task(bench, kind, dest / "data" / kind, splits=[split])
        if split not in files:
            continue
        utils += data_files_code(kind, files, dest)
        write_text_atomic(dest / f"{slug}_{kind}.yaml", dump_task(task_config(f"{slug}_{kind}", split, kind)))
        written.append(f"{slug}_{kind}")
    if not written:
        raise ExportError(f"{bench.root} has no VQA, caption or grounding records in split {split!r}.")
    write_text_atomic(dest / "utils.py", utils)
    write_text_atomic(
        dest / "README.md",
        f"# lmms-eval tasks for {bench.name}\n\nTasks: {', '.join(written)} (split `{split}`).\n\n"
        f"```\nlmms-eval --include_path path/to/this/folder --tasks {','.join(written)} --model ...\n```\n\n"
        "Paths are relative to this folder (utils.py computes the data files from its own location): move or "
        "copy it freely. Where lmms-eval runs, install mapgen (`pip install mapgen`, which utils.py scores "
        "with) and, for the caption metrics, `mapgen[eval]` (pycocoevalcap) and a Java runtime for METEOR.\n")
