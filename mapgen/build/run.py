"""Build a benchmark folder from a config: check it, plan its units, run them (in parallel), select and write.

The folder's layout, checksums and readers live in :mod:`mapgen.benchmark`. Work units are base maps (all
variants of one map) and counterfactual maps (:mod:`mapgen.build.plan`). A unit's files are written atomically and
its completion record last (:mod:`mapgen.build.unit`), so a crash never leaves a unit that looks complete;
``resume`` reruns only units whose record is missing or whose files fail their hash check. Same config + seed →
same manifest.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mapgen.benchmark import MAPS_DIR, UNITS_DIR
from mapgen.build.executors import folder_lock, run_dask, run_local
from mapgen.build.inputs import copy_inputs
from mapgen.build.plan import Unit, plan, statistic_pool
from mapgen.build.select import Compactor
from mapgen.build.unit import atlas_of, completed
from mapgen.build.write import copy_user_atlases, finalize, prepare_folder, write_build_log
from mapgen.config import BuildConfig, load_config
from mapgen.errors import BuildError
from mapgen.files import DiskFullError
from mapgen.packs import build_templates, copy_packs, missing_texts
from mapgen.tasks import tasks as registered_tasks


@dataclass
class BuildReport:
    """What a build did."""

    out_dir: Path
    manifest: dict[str, Any]
    built: int
    reused: int
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)


def build(
    config: BuildConfig | str | Path | dict,
    out_dir: str | Path,
    workers: int = 1,
    resume: bool = False,
    force: bool = False,
    executor: str = "local",
    scheduler: str | None = None,
    progress: bool = True,
) -> BuildReport:
    """Build the benchmark of ``config`` into ``out_dir`` (see the module doc for the layout)."""
    source = f"{config}: " if isinstance(config, (str, Path)) else ""
    config = config if isinstance(config, BuildConfig) else load_config(config)
    out_dir = Path(out_dir)
    start = time.perf_counter()
    executor = "dask" if scheduler is not None else executor  # a scheduler's address means its Dask cluster
    check_run_options(workers, executor)
    try:
        registered_tasks(config.tasks)  # an unknown task fails here, naming the closest registered ones
    except ValueError as exc:
        raise type(exc)(f"{source}tasks: {exc}") from None
    check_inputs(config)
    for line in missing_texts(config, build_templates(config)[1]):  # the packs lint before anything is written
        warnings.warn(line, stacklevel=2)
    inputs = config.input_digests()  # once: every user file hashed, and the marker and manifest must agree
    digest = config.digest(inputs)
    with folder_lock(out_dir), _resumable(config, out_dir):  # one build per folder at a time (mapgen.build.executors)
        prepare_folder(config, out_dir, resume=resume, force=force, digest=digest, inputs=inputs)
        if resume:
            _drop_partial_writes(out_dir)
        atlases = copy_user_atlases(config, out_dir)
        packs = copy_packs(config, out_dir)
        copy_inputs(config, out_dir)  # what a Dask worker reads instead of the parent's config (build.inputs)
        units = plan(config)
        compact = Compactor(config)  # the parent keeps only what selection reads (mapgen.build.select)
        todo, results = _todo(units, out_dir, resume, compact)
        run = run_local if executor == "local" else run_dask
        for result in run(todo, config, out_dir, workers=workers, scheduler=scheduler, progress=progress):
            results[result["unit_id"]] = compact(result)
        ordered = [results[u.unit_id] for u in units]
        manifest = finalize(config, out_dir, ordered, atlases, packs, digest=digest)
        timings: Counter[str] = Counter()
        for unit in todo:
            timings.update(results[unit.unit_id].get("timings", {}))
        seconds = time.perf_counter() - start
        write_build_log(out_dir, ordered, seconds=seconds, built=len(todo), reused=len(units) - len(todo),
                        workers=workers, executor=executor, timings=timings)
        return BuildReport(out_dir, manifest, len(todo), len(units) - len(todo), seconds, dict(timings))


def _todo(units: list[Unit], out_dir: Path, resume: bool,
          compact: Compactor) -> tuple[list[Unit], dict[str, dict[str, Any]]]:
    """The units to run, and the (compact) results of those a resumed build finished before (by unit id)."""
    results: dict[str, dict[str, Any]] = {}
    todo = []
    for unit in units:
        done = completed(unit, out_dir) if resume else None
        if done is not None:
            results[unit.unit_id] = compact(done)
        else:
            todo.append(unit)
    return todo, results


def _drop_partial_writes(out_dir: Path) -> None:
    """Remove the temporary files of atomic writes a killed worker left half done (``.NAME.PID.tmp`` in the maps
    and units folders; :func:`mapgen.files.write_bytes_atomic`), so a resumed folder holds what a fresh one does."""
    for folder in (MAPS_DIR, UNITS_DIR):
        for path in (out_dir / folder).glob(".*.tmp"):
            path.unlink(missing_ok=True)


@contextlib.contextmanager
def _resumable(config: BuildConfig, out_dir: Path) -> Iterator[None]:
    """A full disk's one line says the finished units are kept and how to finish the build."""
    try:
        yield
    except DiskFullError as exc:
        raise DiskFullError(exc.errno, f"{exc} The maps built so far are kept: once there is room, finish with "
                            f"`mapgen build {config.where} -o {out_dir} --resume`.", exc.filename) from exc


def check_run_options(workers: int, executor: str) -> None:
    """Refuse run options that cannot work, before anything is written."""
    if executor not in ("local", "dask"):
        raise BuildError(f"Unknown executor {executor!r}; use 'local' or 'dask'.")
    if not isinstance(workers, int) or workers < 1:
        raise BuildError(f"--workers must be a whole number of at least 1 (got {workers!r}).")


def check_inputs(config: BuildConfig) -> None:
    """Refuse every statistic, region and atlas problem of ``config`` before anything is written (one BuildError,
    each problem with its fix): each country's atlas loads, its ``exclude`` names known regions and leaves 2 or
    more, it has statistics to draw from and its curated ids exist, and some image variant is drawn."""
    from mapgen.data.curated import list_stats
    from mapgen.geo.names import UnknownNameError
    from mapgen.suggest import did_you_mean

    problems = []
    v = config.variants
    if not (v.annotated or v.unannotated or (v.hatched and "discrete" in config.legend.types)):
        problems.append("variants: no image would be drawn (annotated and unannotated are off, and hatched maps "
                        "need discrete legends); turn one on")
    for i, country in enumerate(config.countries):
        where = f"countries.{i} ({country.name})"
        try:
            atlas = atlas_of(config, country)
            left = len(atlas.without(country.exclude).codes)
            if left < 2:  # a map compares regions
                problems.append(f"{where}.exclude: leaves {left} of its {len(atlas.codes)} regions (a map needs at "
                                "least 2); exclude fewer")
        except UnknownNameError as exc:
            problems.append(f"{where}.exclude: {exc}")
        except (ValueError, OSError) as exc:
            problems.append(f"{where}: {exc}")
        try:
            pool = statistic_pool(config, country)
        except BuildError:
            problems.append(f"{where}.statistics: no statistics to draw from (curated, files and synthetic are all "
                            "empty); name curated tables, add files or set synthetic.count")
            continue
        known = [s.id for s in list_stats(country.key)] if country.builtin else []
        for sid in dict.fromkeys(s["curated"] for s in pool if "curated" in s and s["curated"] not in known):
            problems.append(f"{where}.statistics.curated: unknown statistic {sid!r} for {country.key}"
                            f"{did_you_mean(sid, known)}")
    if problems:
        raise BuildError(f"Invalid build config {config.where}: " + "; ".join(problems))
