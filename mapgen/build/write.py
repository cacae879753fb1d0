"""What a build writes into its folder besides the units: the folder's marker, the user atlas copies, the task
record files, the manifest and the build log."""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mapgen import __version__
from mapgen.benchmark import (
    ATLASES_DIR,
    BUILD_LOG_FILE,
    MANIFEST_FILE,
    MAPS_FILE,
    QUESTIONS_FILE,
    RECORD_SHARDS,
    RECORDS_DIR,
    clear_build,
    file_digests,
    read_marker,
    record_files,
    shard_rel,
    unit_record_path,
    write_marker,
)
from mapgen.build.executors import LOCK_FILE
from mapgen.build.select import Chosen, select_records
from mapgen.build.unit import _atlas_path
from mapgen.config import BuildConfig
from mapgen.errors import BuildError
from mapgen.files import (
    JsonlRecords,
    ShardedJsonl,
    read_json,
    remove_path,
    sha256_file,
    write_json_atomic,
    write_jsonl_atomic,
)
from mapgen.tasks import Task


def prepare_folder(config: BuildConfig, out_dir: Path, resume: bool, force: bool, digest: str | None = None,
                   inputs: dict[str, dict[str, str]] | None = None) -> None:
    """Create the folder, or refuse one that holds another config (unless ``force``, which clears it);
    ``digest`` and ``inputs`` are ``config.digest()`` and ``config.input_digests()`` when the caller has them."""
    inputs = config.input_digests() if inputs is None else inputs
    digest = digest or config.digest(inputs)
    marker = read_marker(out_dir)
    if marker is not None:
        held = marker.get("digest")
        if held != digest:
            if not force:
                raise BuildError(_other_build(out_dir, config, marker, inputs))
            clear_build(out_dir)
        elif not resume and not force:
            raise BuildError(f"{out_dir} already holds this build; use --resume to finish or check it, "
                             "or --force to rebuild from scratch.")
        elif force:
            clear_build(out_dir)
    elif out_dir.exists() and any(p.name != LOCK_FILE for p in out_dir.iterdir()) and not force:
        raise BuildError(f"{out_dir} is not empty and holds no mapgen build; choose an empty folder or use --force.")
    out_dir.mkdir(parents=True, exist_ok=True)
    write_marker(out_dir, digest, config.model_dump(), inputs)


def _other_build(out_dir: Path, config: BuildConfig, marker: dict[str, Any], inputs: dict[str, dict[str, str]]) -> str:
    """Why ``out_dir`` holds another build: the files the config names that changed since (when the config
    itself did not), else the config."""
    held = marker.get("inputs")
    if marker.get("config") == json.loads(json.dumps(config.model_dump())) and isinstance(held, dict):
        kinds = {"files": "file", "packs": "template pack", "styles": "style"}
        changed = [f"{kinds.get(kind, kind)} {name}" for kind, files in inputs.items() for name, sha in files.items()
                   if (held.get(kind) or {}).get(name) != sha]
        if changed:
            return (f"{out_dir} was built from another version of {', '.join(changed)} (paths are relative to the "
                    f"folder of {config.where}); put the old version back to --resume, or use another folder or "
                    "--force to rebuild.")
    return (f"{out_dir} holds a build of a different config (digest {str(marker.get('digest'))[:12]}…); use another "
            "folder, or --force to replace it.")


def copy_user_atlases(config: BuildConfig, out_dir: Path) -> dict[str, Any]:
    """Copy each user atlas file (a shapefile's parts, its groups YAML) into ``out_dir/atlases/<key>/``, so the
    folder is self-contained: its map JSONs name the copy relative to themselves. Returns the manifest's
    ``atlases`` section (path relative to the folder, sha256, fields) and the copies' digests."""
    from mapgen.files import write_bytes_atomic
    from mapgen.geo.source import AtlasFile, atlas_files, groups_file

    section, digests = {}, {}
    for country in config.countries:
        if country.builtin:
            continue
        src = config.resolve_path(country.name)
        folder = out_dir / ATLASES_DIR / country.key
        for part in [*atlas_files(src), groups_file(src)]:
            if part.is_file():
                write_bytes_atomic(folder / part.name, part.read_bytes())
                digests[f"{ATLASES_DIR}/{country.key}/{part.name}"] = sha256_file(folder / part.name)
        copy = AtlasFile.of(_atlas_path(config, country, out_dir), country.name_field, country.code_field)
        section[country.key] = copy.record(relative_to=out_dir)
    return {"atlases": section, "files": digests}


def finalize(config: BuildConfig, out_dir: Path, results: list[dict[str, Any]],
             atlases: dict[str, Any] | None = None, packs: dict[str, Any] | None = None,
             digest: str | None = None) -> dict[str, Any]:
    """Write the task files and the manifest (deterministic: sorted keys, no timestamps). ``results``: the units'
    results in plan order, compact (:class:`mapgen.build.select.Compactor`; the records are streamed from the unit
    records on disk). ``atlases`` and ``packs``: the user atlas and template pack copies
    (:func:`copy_user_atlases`, :func:`copy_packs`), recorded with their paths and digests; ``digest``: the
    config's, as the folder's marker holds it."""
    maps = [m for r in results for m in r["maps"]]
    write_jsonl_atomic(out_dir / MAPS_FILE, maps)
    written = write_records(out_dir, [r["unit_id"] for r in results], select_records(config, results),
                            config.records.per_shard)
    files = {rel: digest for r in results for rel, digest in r["files"].items()}
    files |= file_digests(out_dir, record_files())
    files |= file_digests(out_dir, [rel for rels in written.shards.values() for rel in rels])
    atlases = atlases or {"atlases": {}, "files": {}}
    files |= atlases["files"]
    packs = packs or {"packs": {}, "files": {}}
    files |= packs["files"]
    manifest = {
        "name": config.name,
        "mapgen_version": __version__,
        "config_digest": digest or config.digest(),
        "config": config.model_dump(),
        "png": {"compress_level": config.variants.png_compress_level, "filter": "none"},  # mapgen.render.png
        "counts": map_counts(maps) | written.counts,
        "files": dict(sorted(files.items())),
    }
    if written.shards:
        manifest[RECORD_SHARDS] = written.shards
    if atlases["atlases"]:
        manifest["atlases"] = atlases["atlases"]
    if packs["packs"]:
        manifest["packs"] = packs["packs"]
    write_json_atomic(out_dir / MANIFEST_FILE, manifest)
    return manifest


@dataclass
class Written:
    """What :func:`write_records` wrote: the manifest's counts of every task and, when the records are sharded,
    each task file's shards (relative paths, in order; empty otherwise)."""

    counts: dict[str, Any]
    shards: dict[str, list[str]]


def write_records(out_dir: Path, unit_ids: list[str], selected: list[Chosen], per_shard: int = 0) -> Written:
    """Write each task's chosen records, streamed unit by unit from the unit records on disk in plan order, to its
    file or (``per_shard`` > 0) to shards of that many records under ``records/`` (the folder always has the
    questions; another task's records only when it has some); the counts are read back from what was written."""
    _clear_records(out_dir, selected)
    with contextlib.ExitStack() as stack:
        sinks: dict[str, ShardedJsonl] = {}

        def sink(task: Task) -> ShardedJsonl:
            if task.key not in sinks:
                sinks[task.key] = stack.enter_context(_sink(out_dir, task.record_file, per_shard))
            return sinks[task.key]

        for chosen in selected:
            if chosen.records or chosen.task.record_file == QUESTIONS_FILE:
                for record in chosen.records or ():
                    sink(chosen.task)(record)
                sink(chosen.task)
        _stream_chosen(out_dir, unit_ids, [c for c in selected if c.records is None], sink)
    paths = {c.task.key: sinks[c.task.key].paths if c.task.key in sinks else [] for c in selected}
    counts: dict[str, Any] = {}
    for chosen in selected:
        counts |= chosen.task.counts(JsonlRecords(*paths[chosen.task.key]) if chosen.records is None
                                     else chosen.records)
    shards = {c.task.record_file: [p.relative_to(out_dir).as_posix() for p in paths[c.task.key]]
              for c in selected if per_shard and paths[c.task.key]}
    return Written(counts, shards)


def _clear_records(out_dir: Path, selected: list[Chosen]) -> None:
    """Remove what an earlier attempt of a resumed build wrote of the task records (its shards, its files)."""
    remove_path(out_dir / RECORDS_DIR)
    for name in dict.fromkeys(c.task.record_file for c in selected):
        (out_dir / name).unlink(missing_ok=True)


def _stream_chosen(out_dir: Path, unit_ids: list[str], streamed: list[Chosen],
                   sink: Callable[[Task], ShardedJsonl]) -> None:
    """Each streamed selection's chosen records, read unit by unit from the unit records in plan order."""
    for unit_id in unit_ids if streamed else []:
        unit = read_json(unit_record_path(out_dir, unit_id))
        for chosen in streamed:
            for record in unit.get(chosen.task.key) or []:
                if chosen.keeps(record):
                    sink(chosen.task)(record)


def _sink(out_dir: Path, name: str, per_shard: int) -> ShardedJsonl:
    """Where a task's records go: its file (one shard, whatever its size) or numbered shards of ``per_shard``."""
    if not per_shard:
        return ShardedJsonl(lambda _: out_dir / name, 1 << 62)
    return ShardedJsonl(lambda index: out_dir / shard_rel(name, index), per_shard)


def write_build_log(out_dir: Path, results: list[dict[str, Any]], *, seconds: float, built: int, reused: int,
                    workers: int, executor: str, timings: Mapping[str, float]) -> None:
    """The folder's build log: timings per stage and the draws refused (they vary run to run and with what each
    worker ran before, caches, so they are not in the manifest)."""
    write_json_atomic(out_dir / BUILD_LOG_FILE, {"seconds": round(seconds, 2), "built": built, "reused": reused,
                                                 "workers": workers, "executor": executor,
                                                 "stage_seconds": {k: round(v, 2) for k, v in timings.items()},
                                                 "draws_refused_by_reason": refusal_counts(results)})


def refusal_counts(results: list[dict[str, Any]]) -> dict[str, int]:
    """Question draws the engine refused, summed over the units: ``illegible``, ``contested`` and
    ``reading:<axis>`` (a declared reading changed the answer; ``mapgen.questions.readings``)."""
    total: Counter[str] = Counter()
    for r in results:
        total.update(r.get("refusals") or {})
    return dict(sorted(total.items()))


def map_counts(maps: list[dict[str, Any]]) -> dict[str, Any]:
    """The manifest's map counts: in all, and per country, variant and split (each task adds its own)."""

    def tally(key: str) -> dict[str, int]:
        return dict(sorted(Counter(str(m.get(key)) for m in maps).items()))

    return {"maps": len(maps), "maps_by_country": tally("country"), "maps_by_variant": tally("variant"),
            "maps_by_split": tally("split")}
