"""Hugging Face ``datasets`` export: sharded parquet files with an ``Image`` feature holding the PNG bytes.

Layout (one config per task; each split in shards of at most :data:`SHARD_MAPS` maps, as the build split them)::

    DEST/README.md                         dataset card whose YAML header declares the configs and splits
    DEST/vqa/<split>-00000-of-0000N.parquet …
    DEST/<task>/<split>-*.parquet          every other task the build has (caption, grounding, …)
    DEST/vqa_mcq/<split>-*.parquet         (``mcq=True``: multiple-choice twins, columns A-D)

Columns are each task's :attr:`~mapgen.tasks.Task.columns` (:func:`mapgen.export.common.columns`) with ``image`` an ``Image()`` feature (bytes embedded, the
file name kept as its path). A shard is written a row group of whole maps (:data:`ROW_GROUP_ROWS` rows) at a
time, so the export's memory holds one group's rows and PNGs whatever the build's or the shard's size; a group's
columns are dictionary-encoded without a page limit, so a map's PNG is stored once however many questions ask
about it (a 12-questions-per-image build exports at ~1/10 of the size with one copy per row). Load with ``datasets.load_dataset(DEST, "vqa")``, or lazily
with ``load_dataset("parquet", data_files={"train": "DEST/vqa/train-*.parquet"}, streaming=True)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import groupby
from pathlib import Path
from typing import Any

from mapgen.benchmark import QUESTIONS_FILE, Benchmark
from mapgen.export.common import MCQ, ExportError, columns, iter_mcq_records, iter_task_rows
from mapgen.files import atomic_file, write_text_atomic
from mapgen.tasks import get_task


def features(task: str):
    """The ``datasets.Features`` of a task's rows."""
    from datasets import Features, Image, Value

    try:
        from datasets import List
    except ImportError:  # datasets < 4
        from datasets import Sequence as List

    kinds: dict[str, Any] = {
        "mapwise_template": Value("int32"),
        "relative_region": Value("bool"), "hatched": Value("bool"), "annotated": Value("bool"),
        "unique": Value("bool"),
        "box": List(Value("float64")), "box_norm": List(Value("float64")), "box_percent": List(Value("int32")),
        "image": Image(),
    }
    return Features({c: kinds.get(c, Value("string")) for c in columns(task)})


@contextmanager
def quiet_progress() -> Iterator[None]:
    """Silence datasets' progress bars for the block (restoring the caller's setting)."""
    from datasets.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    was = are_progress_bars_disabled()
    disable_progress_bars()
    try:
        yield
    finally:
        if not was:
            enable_progress_bars()


SHARD_MAPS = 200
"""Maps per parquet shard (~20 MB of PNGs at 800×600), written one at a time."""


def shard_name(split: str, index: int = 0, count: int = 1) -> str:
    return f"{split}-{index:05d}-of-{count:05d}.parquet"


def shards(rows: Iterable[dict[str, Any]], maps_per_shard: int) -> Iterator[Iterator[dict[str, Any]]]:
    """``rows`` (in build order) cut into runs covering at most ``maps_per_shard`` maps each, each run streamed
    (read a run through before asking for the next); a map's rows stay in the run of its first row."""
    shard_of: dict[str, int] = {}
    current = 0

    def shard(row: dict[str, Any]) -> int:
        nonlocal current
        if row["map_id"] not in shard_of:
            current = shard_of[row["map_id"]] = len(shard_of) // maps_per_shard
        return current

    return (run for _, run in groupby(rows, key=shard))


ROW_GROUP_ROWS = 100
"""Rows per parquet row group (whole maps: a group closes at the first map boundary past this many rows). Only one
group's rows and PNGs are in memory while a shard is written, whatever the shard's size."""


def row_groups(rows: Iterable[dict[str, Any]], min_rows: int = ROW_GROUP_ROWS) -> Iterator[list[dict[str, Any]]]:
    """``rows`` (in build order, a map's rows together) cut into runs of whole maps of at least ``min_rows``
    rows each (the last may be shorter), one run at a time."""
    run: list[dict[str, Any]] = []
    for r in rows:
        if len(run) >= min_rows and r["map_id"] != run[-1]["map_id"]:
            yield run
            run = []
        run.append(r)
    if run:
        yield run


def write_shard(bench: Benchmark, task: str, rows: Iterable[dict[str, Any]], path: Path,
                group_rows: int = ROW_GROUP_ROWS) -> Path:
    """One parquet shard at ``path`` (``datasets`` features in its schema metadata), written a row group at a
    time (:func:`row_groups` of ``group_rows``): each group's columns are dictionary-encoded without a page
    limit, and a map never spans two groups, so its PNG is stored once however many rows name it."""
    import pyarrow.parquet as pq

    schema = features(task).arrow_schema
    with atomic_file(path) as tmp, pq.ParquetWriter(tmp, schema, use_dictionary=True, compression="zstd",
                                                    dictionary_pagesize_limit=1 << 31) as writer:
        for group in row_groups(rows, group_rows):
            writer.write_table(_table(bench, group, schema), row_group_size=len(group))
    return path


def _table(bench: Benchmark, rows: list[dict[str, Any]], schema: Any) -> Any:
    """The arrow table of some rows under the features' schema (straight from columns: the table
    ``datasets.Dataset.from_list`` makes, without its per-row copies), each map's PNG read once."""
    import pyarrow as pa

    images = {m: bench.image_bytes(m) for m in dict.fromkeys(r["map_id"] for r in rows)}
    data: dict[str, list[Any]] = {c: [r[c] for r in rows] for c in schema.names if c != "image"}
    data["image"] = [{"bytes": images[r["map_id"]], "path": f"{r['map_id']}.png"} for r in rows]
    return pa.Table.from_pydict({c: data[c] for c in schema.names}, schema=schema)


def write_task(bench: Benchmark, task: str, folder: Path, splits: list[str] | None = None,
               maps_per_shard: int = SHARD_MAPS) -> dict[str, list[Path]]:
    """Write each split of ``task`` into ``folder`` as parquet shards; returns split → shard files. Rows are
    streamed from the build: one row group's rows (and PNGs) in memory at a time."""
    try:
        import datasets  # noqa: F401
    except ImportError:
        raise ExportError("The hf export needs the datasets library: pip install 'mapgen[export]'.") from None
    if task == MCQ and not bench.has_records(QUESTIONS_FILE):
        return {}
    maps = _maps_by_split(bench, task)
    out: dict[str, list[Path]] = {}
    for split in splits or bench.splits():
        count = -(-len(maps.get(split, ())) // maps_per_shard)
        rows = (r for r in iter_task_rows(bench, task) if r["split"] == split)
        for i, run in enumerate(shards(rows, maps_per_shard)):
            with quiet_progress():
                path = write_shard(bench, task, run, folder / shard_name(split, i, count))
            out.setdefault(split, []).append(path)
    return out


def _maps_by_split(bench: Benchmark, task: str) -> dict[str, set[str]]:
    """The maps a task's rows name, per split (what the shard count is made from, before any shard is written)."""
    if task == MCQ:
        records: Iterable[dict[str, Any]] = iter_mcq_records(bench)
    else:
        records = get_task(task).iter_records(bench)
    out: dict[str, set[str]] = {}
    for r in records:
        out.setdefault(str(r.get("split") or ""), set()).add(r["map_id"])
    return out


def dataset_card(bench: Benchmark, written: dict[str, dict[str, list[Path]]]) -> str:
    """README.md with the ``configs`` YAML header ``load_dataset(DEST, config)`` reads."""
    import yaml

    configs = []
    for k, (task, splits) in enumerate(written.items()):
        entry: dict[str, Any] = {"config_name": task,
                                 "data_files": [{"split": s, "path": f"{task}/{s}-*.parquet"} for s in splits]}
        if k == 0:
            entry["default"] = True
        configs.append(entry)
    header = yaml.safe_dump({"configs": configs, "tags": ["mapgen", "choropleth", "vqa"]}, sort_keys=False)
    counts = "\n".join(f"- `{t}`: " + ", ".join(f"{s} ({len(p)} shard{'s' * (len(p) > 1)})" for s, p in splits.items())
                       for t, splits in written.items())
    return (f"---\n{header}---\n\n# {bench.name}\n\nChoropleth-map benchmark generated by mapgen "
            f"{bench.manifest.get('mapgen_version', '')} (config digest "
            f"{str(bench.manifest.get('config_digest', ''))[:12]}).\n\nConfigs and splits:\n{counts}\n")


def write(bench: Benchmark, dest: Path, tasks: tuple[str, ...] | None = None, mcq: bool = False,
          maps_per_shard: int = SHARD_MAPS, **_: Any) -> None:
    """Write every task's parquet shards (and the ``vqa_mcq`` config when ``mcq``) and the dataset card."""
    written = {}
    for task in (*(tasks or tuple(bench.task_names)), *((MCQ,) if mcq else ())):
        files = write_task(bench, task, dest / task, maps_per_shard=maps_per_shard)
        if files:
            written[task] = files
    if not written:
        raise ExportError(f"{bench.root} has no task records to export.")
    write_text_atomic(dest / "README.md", dataset_card(bench, written))
