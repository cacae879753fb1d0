"""Build a benchmark folder from a config: plan work units, run them (in parallel), write manifest and task files.

The folder's layout, checksums and writers live in :mod:`mapgen.benchmark`.

Work units are base maps (all variants of one map) and counterfactual maps. A unit's files are written
atomically and its completion record last, so a crash never leaves a unit that looks complete; ``resume`` reruns
only units whose record is missing or whose files fail their hash check. Same config + seed → same manifest.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from mapgen import __version__
from mapgen.benchmark import (
    ATLASES_DIR,
    BUILD_LOG_FILE,
    MANIFEST_FILE,
    MAPS_FILE,
    QUESTIONS_FILE,
    RECORD_FILES,
    TASK_FILES,
    NotABenchmarkError,
    clear_build,
    failing_checksums,
    file_digests,
    image_path,
    image_rel,
    read_manifest,
    read_marker,
    verified_unit_record,
    write_marker,
    write_unit_record,
)
from mapgen.config import BuildConfig, load_config
from mapgen.errors import BuildError
from mapgen.files import sha256_file, write_json_atomic, write_jsonl_atomic


@dataclass(frozen=True)
class Unit:
    """One unit of work: a base map with its variants, or one counterfactual map."""

    unit_id: str
    country: str
    index: int
    split: str
    choice: dict[str, Any]
    seed: int
    cf_kind: str | None = None


# --- planning -----------------------------------------------------------------------------------------------


def plan(config: BuildConfig) -> list[Unit]:
    """Every unit of the build, deterministic in the config and seed."""
    units: list[Unit] = []
    base: dict[tuple[str, int], Unit] = {}
    for ci, country in enumerate(config.countries):
        splits = assign_splits(country.maps, config.split.ratios, [config.seed, ci, 99])
        pool = statistic_pool(config, country)
        for i in range(country.maps):
            rng = np.random.default_rng([config.seed, ci, i])
            unit = Unit(
                unit_id=f"{country.key}-{i:04d}",
                country=country.key,
                index=i,
                split=splits[i],
                choice=map_choice(config, rng, i, pool, splits[i]),
                seed=int(rng.integers(2**31)),
            )
            units.append(unit)
            base[(country.key, i)] = unit
    cf = config.counterfactual
    for i in range(cf.maps):
        src = base[(config.country(cf.country).key, i)]
        for kind in cf.kinds:
            units.append(replace(src, unit_id=f"cf-{src.unit_id}-{kind}", cf_kind=kind))
    return units


def assign_splits(n: int, ratios: dict[str, float], seed: list[int]) -> list[str]:
    """Split labels for ``n`` maps by ratio, over a seeded permutation (whole maps, never parts)."""
    order = np.random.default_rng(seed).permutation(n)
    labels = [""] * n
    names = list(ratios)
    bounds = np.cumsum([ratios[k] for k in names]) * n
    for rank, idx in enumerate(order):
        labels[idx] = names[min(int(np.searchsorted(bounds, rank, side="right")), len(names) - 1)]
    return labels


def statistic_pool(config: BuildConfig, country) -> list[dict[str, Any]]:
    """Statistic sources a country's maps cycle through: curated ids, user files, synthetic recipes."""
    from mapgen.data.curated import list_stats

    sources = country.statistics
    if sources.curated == "all":
        curated = [s.id for s in list_stats(country.key)] if country.builtin else []
    else:
        curated = list(sources.curated)
    pool: list[dict[str, Any]] = [{"curated": s} for s in curated] + [{"file": f} for f in sources.files]
    syn = sources.synthetic
    for k in range(syn.count):
        pool.append({"synthetic": {
            "distribution": syn.distributions[k % len(syn.distributions)],
            "spatial": syn.spatial[k % len(syn.spatial)],
            "kind": syn.kinds[k % len(syn.kinds)],
            "seed": config.seed * 100_003 + k,
        }})
    if not pool:
        raise BuildError(f"{country.name}: no statistics to draw from (curated, files and synthetic are all empty).")
    return pool


def map_choice(config: BuildConfig, rng: np.random.Generator, i: int, pool: list, split: str) -> dict[str, Any]:
    """Legend, style and statistic choices of map ``i`` (legend types alternate; the rest is seeded)."""
    legend, variants = config.legend, config.variants
    colormaps = split_colormaps(config)[split]
    choice = {
        "statistic": pool[i % len(pool)],
        "legend": legend.types[i % len(legend.types)],
        "classes": int(rng.choice(legend.classes)),
        "scheme": str(rng.choice(legend.schemes)),
        "order": str(rng.choice(legend.orders)),
        "colormap": str(rng.choice(colormaps)),
        "reverse": bool(rng.random() < variants.reverse_share),
        "background": str(rng.choice(variants.backgrounds)),
        "legend_position": str(rng.choice(variants.legend_positions)),
        "renderer": str(rng.choice(variants.renderers)),
    }
    backgrounds = variants.backgrounds
    if variants.styles != ["default"]:  # drawn last: configs without styles draw every map as before
        choice["style"] = str(rng.choice(variants.styles))
        page = style_background(choice["style"])
        if page:
            choice["background"], backgrounds = page, [page]
    return legible_colours(choice, rng, colormaps, backgrounds)


def style_background(name: str) -> str | None:
    """The background a map style sets (None: the config's backgrounds apply)."""
    from mapgen.render.style import load_style

    return load_style(name).page.background


def legible_colours(choice: dict[str, Any], rng: np.random.Generator, colormaps: list[str],
                    backgrounds: list[str]) -> dict[str, Any]:
    """``choice`` with a colormap and background that pass the legibility rule (mapgen.legend.colors): the
    drawn pair when it passes, else another background for the same colormap, else another passing pair."""
    from mapgen.legend import combination_collision
    from mapgen.spec import background_color

    k = choice["classes"] if choice["legend"] == "discrete" else None
    ok = [(c, b) for c in colormaps for b in backgrounds
          if combination_collision(c, choice["reverse"], k, background_color(b)) is None]
    if (choice["colormap"], choice["background"]) in ok:
        return choice
    same = [pair for pair in ok if pair[0] == choice["colormap"]]
    if not (same or ok):
        hit = combination_collision(choice["colormap"], choice["reverse"], k, background_color(choice["background"]))
        raise BuildError(f"no colormap/background pair of variants passes the legibility rule for "
                         f"{k or 'a colour bar'} classes (e.g. {choice['colormap']} on {choice['background']}: "
                         f"{hit.describe() if hit else ''}); add a background such as white or a colormap such "
                         f"as viridis.")
    pick = same or ok
    colormap, background = pick[int(rng.integers(len(pick)))]
    return choice | {"colormap": colormap, "background": background}


def split_colormaps(config: BuildConfig) -> dict[str, list[str]]:
    """Colormaps each split may use (disjoint sets when ``split.disjoint_colormaps``, like MapQA-R)."""
    names, cmaps = list(config.split.ratios), config.variants.colormaps
    if not config.split.disjoint_colormaps:
        return {n: list(cmaps) for n in names}
    return {n: cmaps[k :: len(names)] for k, n in enumerate(names)}


# --- running one unit ---------------------------------------------------------------------------------------


def base_spec(unit: Unit, config: BuildConfig, out_dir: Path | None = None):
    """The MapSpec of a unit's base map (a user atlas is read from its copy in ``out_dir`` when given)."""
    from mapgen.geo.atlas import load_atlas
    from mapgen.spec import localised, make_spec

    country = config.country(unit.country)
    atlas = load_atlas(atlas_source(config, country, out_dir), exclude=country.exclude)
    ch = unit.choice
    stat = load_statistic(ch["statistic"], atlas, unit, config)
    v = config.variants
    page = {"background": ch["background"], "legend_position": ch["legend_position"], "width": v.width,
            "height": v.height} | style_fields(ch.get("style"), atlas.name)
    spec = make_spec(
        atlas, stat, legend=ch["legend"], classes=ch["classes"], scheme=ch["scheme"], order=ch["order"],
        colormap=ch["colormap"], reverse=ch["reverse"], map_id=unit.unit_id, seed=unit.seed,
        exclude=tuple(country.exclude), renderer=ch["renderer"], png_compress_level=v.png_compress_level, **page,
    )
    if country.language == "en" and country.labels == "codes":
        return spec
    return localised(spec.with_style(language=country.language, label_mode=country.labels))


def style_fields(name: str | None, country: str) -> dict[str, Any]:
    """The spec style fields a map style sets for a country (none without a style or for the default)."""
    if not name:
        return {}
    from mapgen.render.style import load_style

    return load_style(name).spec_defaults(country)


def atlas_source(config: BuildConfig, country, out_dir: Path | None = None):
    """What :func:`~mapgen.geo.atlas.load_atlas` reads for a country: a built-in name, or the user file (its
    copy in the build folder ``out_dir`` when given, see :func:`copy_user_atlases`) with digest and fields."""
    from mapgen.geo.source import AtlasFile

    if country.builtin:
        return country.key
    path = config.resolve_path(country.name)
    if out_dir is not None:
        path = Path(out_dir) / ATLASES_DIR / country.key / path.name
    return AtlasFile.of(path, country.name_field, country.code_field)


def copy_user_atlases(config: BuildConfig, out_dir: Path) -> dict[str, Any]:
    """Copy each user atlas file (a shapefile's parts, its groups YAML) into ``out_dir/atlases/<key>/``, so the
    folder is self-contained: its map JSONs name the copy relative to themselves. Returns the manifest's
    ``atlases`` section (path relative to the folder, sha256, fields) and the copies' digests."""
    from mapgen.files import write_bytes_atomic
    from mapgen.geo.source import atlas_files, groups_file

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
        section[country.key] = atlas_source(config, country, out_dir).record(relative_to=out_dir)
    return {"atlases": section, "files": digests}


def load_statistic(source: dict[str, Any], atlas, unit: Unit, config: BuildConfig | None = None):
    """A Statistic from a pool entry (a table file's path is relative to the config file)."""
    if "curated" in source:
        from mapgen.data.curated import load_curated

        return load_curated(atlas.name, source["curated"])
    if "file" in source:
        from mapgen.data.user import load_table

        return load_table(config.resolve_path(source["file"]) if config else source["file"], atlas)
    from mapgen.data.synthetic import synthesize

    syn = source["synthetic"]
    return synthesize(atlas, seed=syn["seed"], distribution=syn["distribution"], spatial=syn["spatial"],
                      kind=syn["kind"])


def unit_variants(unit: Unit, config: BuildConfig, out_dir: Path | None = None) -> list[tuple[str, Any]]:
    """(variant name, spec) pairs a unit renders."""
    from mapgen.legend import HATCHES
    from mapgen.spec import make_hatched

    spec = base_spec(unit, config, out_dir)
    if unit.cf_kind is not None:
        from mapgen.counterfactual import make_counterfactual, original_control

        annotated = spec.with_style(annotated=True)
        cf = original_control(annotated) if unit.cf_kind == "original" else make_counterfactual(
            annotated, unit.cf_kind, unit.seed)
        return [(unit.cf_kind, replace(cf, map_id=unit.unit_id))]
    out = []
    v = config.variants
    fits = labels_fit(spec)
    if v.annotated and fits:
        out.append(("annotated", spec.with_style(annotated=True)))
    if v.unannotated or (v.annotated and not fits):
        out.append(("unannotated", spec.with_style(annotated=False)))
    if v.hatched and spec.legend.kind == "discrete" and spec.legend.k <= len(HATCHES):
        out.append(("hatched", make_hatched(spec.with_style(annotated=fits))))
    return [(name, replace(s, map_id=f"{unit.unit_id}-{name}")) for name, s in out]


#: Most region labels a map carries as callouts beside the land (the built-in atlases need at most 16); an atlas
#: needing more is drawn unannotated, since its labels cannot fit legibly.
MAX_CALLOUTS = 30


def labels_fit(spec, atlas=None) -> bool:
    """Whether the labels of ``spec``'s atlas fit on its page: at most :data:`MAX_CALLOUTS` regions too small for
    their label inside (the renderer's label plan, computed once per atlas and layout)."""
    from mapgen.render.api import get_canvas

    canvas = get_canvas(atlas or spec.load_atlas(), spec.style)
    return sum(place.kind == "callout" for place in canvas.places.values()) <= MAX_CALLOUTS


def run_unit(unit: Unit, config: BuildConfig, out_dir: Path) -> dict[str, Any]:
    """Render every variant of a unit, generate its questions and task records; write its completion record."""
    from mapgen.audit.legibility import vet
    from mapgen.render import render

    timings: Counter[str] = Counter()
    result: dict[str, Any] = {"unit_id": unit.unit_id, "maps": [], "questions": [], "captions": [],
                              "grounding": [], "extraction": [], "files": {}}
    for variant, spec in unit_variants(unit, config, out_dir):
        start = time.perf_counter()
        rendered = render(spec, image_path(out_dir, spec.map_id), vet=vet)
        timings["render"] += time.perf_counter() - start
        meta = {"split": unit.split, "variant": variant, "country": unit.country,
                "counterfactual": unit.cf_kind, "image": image_rel(spec.map_id)}
        if spec.style.language != "en":  # English builds' records stay as they were
            meta["language"] = spec.style.language
        if spec.style.look != "default":  # builds without styles: records as they were
            meta["style"] = spec.style.look
        result["maps"].append({"map_id": spec.map_id, "unit_id": unit.unit_id, "map_type": spec.legend.kind,
                               "hatched": spec.legend.hatched, "annotated": spec.style.annotated,
                               "statistic": spec.stat.id, "title": spec.title, **meta})
        for path in (rendered.image, rendered.mask, rendered.json):
            result["files"][str(path.relative_to(out_dir))] = sha256_file(path)
        if "vqa" in config.tasks and config.questions.per_image:
            start = time.perf_counter()
            questions = unit_questions(rendered.scene, unit, config, meta)
            timings["questions"] += time.perf_counter() - start
            if config.audit != "off":
                start = time.perf_counter()
                questions = audit_questions(rendered.image, questions, config.audit)
                timings["audit"] += time.perf_counter() - start
            result["questions"] += questions
        if {"caption", "grounding"} & set(config.tasks):
            start = time.perf_counter()
            captions, grounding = unit_descriptions(rendered.scene, unit, config, meta)
            result["captions"] += captions
            result["grounding"] += grounding
            timings["describe"] += time.perf_counter() - start
        if "extraction" in config.tasks:
            result["extraction"].append(unit_table(rendered.scene, meta))
    result["timings"] = dict(timings)
    write_unit_record(out_dir, unit.unit_id, result)
    return result


def unit_questions(scene, unit: Unit, config: BuildConfig, meta: dict[str, Any]) -> list[dict[str, Any]]:
    """Candidate questions for one image: every template the engine can ask there (``per_template`` each, twice
    as many for yes/no templates so both answers can be offered; parameters searched with the unit's seed).
    :func:`balance_set` chooses ``per_image`` of them per image."""
    from mapgen.questions import instantiate, load_templates

    q = config.questions
    templates = load_templates() if q.templates == "all" else [load_templates().get(t) for t in q.templates]
    questions = []
    for t in templates:
        n = q.per_template * (2 if t.answer_type == "binary" else 1)
        questions += instantiate(t, scene, n, seed=unit.seed, max_answer_share=q.max_answer_share)
    records = []
    for question in questions:
        record = question.to_dict()
        record.update({k: v for k, v in meta.items() if k != "counterfactual"})
        record["counterfactual"] = meta["counterfactual"] if meta["counterfactual"] != "original" else None
        record["counterfactual_set"] = meta["counterfactual"]
        records.append(record)
    return records


def audit_questions(image: Path, records: list[dict[str, Any]], mode: str) -> list[dict[str, Any]]:
    """Pixel-oracle audit of one image's questions: ``flag`` adds an ``audit`` field, ``drop`` keeps only the
    questions the oracle recovers from the image."""
    from mapgen.audit.audit import audit_map, audit_question
    from mapgen.questions import load_templates

    if not records:
        return records
    map_audit, templates = audit_map(image), load_templates()
    kept = []
    for record in records:
        row = audit_question(record, map_audit, templates)
        if mode == "drop" and not row["recoverable"]:
            continue
        if mode == "flag":
            record = record | {"audit": {"recoverable": row["recoverable"], "reasons": row["reasons"],
                                         "flags": row["flags"]}}
        kept.append(record)
    return kept


def unit_descriptions(scene, unit: Unit, config: BuildConfig, meta: dict[str, Any]):
    """VRSBench caption and grounding eval records for one image (computed by :mod:`mapgen.describe`)."""
    from mapgen.describe import describe
    from mapgen.describe.records import caption_eval_record, grounding_eval_records

    notes = describe(scene, seed=unit.seed, n_referring=config.referring_per_map)
    image = meta["image"]
    captions, grounding = [], []
    if "caption" in config.tasks:
        record = caption_eval_record(notes, image) | meta
        captions.append(record | {"short_caption": notes["captions"]["short"]})
    if "grounding" in config.tasks:
        referring = {r["question_id"]: r for r in notes["referring"]}
        for record in grounding_eval_records(notes, image):
            ref = referring[record["question_id"]]
            grounding.append(record | meta | {"target_code": ref["target_code"], "expression_type": ref["type"],
                                              "program": ref["program"]})
    return captions, grounding


def unit_table(scene, meta: dict[str, Any]) -> dict[str, Any]:
    """The gold table of one image (table-extraction task, :mod:`mapgen.describe.table`)."""
    from mapgen.describe.table import gold_table

    return gold_table(scene) | {"image_id": meta["image"]} | meta


# --- files and hashes ---------------------------------------------------------------------------------------


def completed(unit: Unit, out_dir: Path) -> dict[str, Any] | None:
    """The unit's completion record if it exists and every file it lists has its recorded hash."""
    return verified_unit_record(out_dir, unit.unit_id)


# --- the build ----------------------------------------------------------------------------------------------


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
    config = config if isinstance(config, BuildConfig) else load_config(config)
    out_dir = Path(out_dir)
    start = time.perf_counter()
    check_run_options(workers, executor)
    prepare_folder(config, out_dir, resume=resume, force=force)
    atlases = copy_user_atlases(config, out_dir)
    units = plan(config)
    results: dict[str, dict[str, Any]] = {}
    todo = []
    for unit in units:
        done = completed(unit, out_dir) if resume else None
        if done is not None:
            results[unit.unit_id] = done
        else:
            todo.append(unit)
    run = run_local if executor == "local" else run_dask
    for result in run(todo, config, out_dir, workers=workers, scheduler=scheduler, progress=progress):
        results[result["unit_id"]] = result
    ordered = [results[u.unit_id] for u in units]
    manifest = finalize(config, out_dir, ordered, atlases)
    timings: Counter[str] = Counter()
    for unit in todo:
        timings.update(results[unit.unit_id].get("timings", {}))
    seconds = time.perf_counter() - start
    write_json_atomic(out_dir / BUILD_LOG_FILE, {"seconds": round(seconds, 2), "built": len(todo),
                                                    "reused": len(units) - len(todo), "workers": workers,
                                                    "executor": executor,
                                                    "stage_seconds": {k: round(v, 2) for k, v in timings.items()}})
    return BuildReport(out_dir, manifest, len(todo), len(units) - len(todo), seconds, dict(timings))


def check_run_options(workers: int, executor: str) -> None:
    """Refuse run options that cannot work, before anything is written."""
    if executor not in ("local", "dask"):
        raise BuildError(f"Unknown executor {executor!r}; use 'local' or 'dask'.")
    if not isinstance(workers, int) or workers < 1:
        raise BuildError(f"--workers must be a whole number of at least 1 (got {workers!r}).")


def prepare_folder(config: BuildConfig, out_dir: Path, resume: bool, force: bool) -> None:
    """Create the folder, or refuse one that holds another config (unless ``force``, which clears it)."""
    marker = read_marker(out_dir)
    if marker is not None:
        held = marker.get("digest")
        if held != config.digest():
            if not force:
                raise BuildError(
                    f"{out_dir} holds a build of a different config (digest {held[:12]}…); use another folder, "
                    "or --force to replace it."
                )
            clear_build(out_dir)
        elif not resume and not force:
            raise BuildError(f"{out_dir} already holds this build; use --resume to finish or check it, "
                             "or --force to rebuild from scratch.")
        elif force:
            clear_build(out_dir)
    elif out_dir.exists() and any(out_dir.iterdir()) and not force:
        raise BuildError(f"{out_dir} is not empty and holds no mapgen build; choose an empty folder or use --force.")
    out_dir.mkdir(parents=True, exist_ok=True)
    write_marker(out_dir, config.digest(), config.model_dump())


def run_local(units: list[Unit], config: BuildConfig, out_dir: Path, workers: int = 1, scheduler=None,
              progress: bool = True):
    """Run units in this process (workers=1) or a process pool; yields results as they finish."""
    with progress_bar(len(units), progress) as advance:
        if workers <= 1:
            for unit in units:
                result = run_unit(unit, config, out_dir)
                advance()
                yield result
            return
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(run_unit, unit, config, out_dir) for unit in units]
            for future in as_completed(futures):
                advance()
                yield future.result()


def run_dask(units: list[Unit], config: BuildConfig, out_dir: Path, workers: int = 2, scheduler: str | None = None,
             progress: bool = True):
    """Run units on a Dask cluster (``scheduler`` address) or a LocalCluster on loopback."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise BuildError("The dask executor needs dask.distributed: pip install 'mapgen[dask]'.") from None
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
    client = Client(scheduler or cluster)
    try:
        futures = client.map(run_unit, units, config=config, out_dir=out_dir, pure=False)
        with progress_bar(len(units), progress) as advance:
            for future in as_completed(futures):
                advance()
                yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


class progress_bar:
    """A rich progress bar (maps/s and ETA); silent when disabled."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled = total, enabled and total > 0
        self._progress = None

    def __enter__(self) -> Callable[[], None]:
        if not self.enabled:
            return lambda: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(TextColumn("building"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), transient=False)
        self._progress.start()
        task = self._progress.add_task("units", total=self.total, rate="")
        started = time.perf_counter()

        def advance() -> None:
            done = self._progress.tasks[0].completed + 1
            rate = done / max(1e-9, time.perf_counter() - started)
            self._progress.update(task, advance=1, rate=f"{rate:.1f} units/s")

        return advance

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()


def finalize(config: BuildConfig, out_dir: Path, results: list[dict[str, Any]],
             atlases: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write the task files and the manifest (deterministic: sorted keys, no timestamps). ``atlases``: the
    user atlas copies (:func:`copy_user_atlases`), recorded with their paths and digests."""
    maps = [m for r in results for m in r["maps"]]
    questions = balance_set([q for r in results for q in r["questions"]], config)
    captions = [c for r in results for c in r["captions"]]
    grounding = [g for r in results for g in r["grounding"]]
    tables = [t for r in results for t in r.get("extraction", [])]
    write_jsonl_atomic(out_dir / MAPS_FILE, maps)
    write_jsonl_atomic(out_dir / QUESTIONS_FILE, questions)
    for task, records in (("caption", captions), ("grounding", grounding), ("extraction", tables)):
        if records:
            write_jsonl_atomic(out_dir / TASK_FILES[task], records)
    files = {rel: digest for r in results for rel, digest in r["files"].items()}
    files |= file_digests(out_dir, RECORD_FILES)
    atlases = atlases or {"atlases": {}, "files": {}}
    files |= atlases["files"]
    manifest = {
        "name": config.name,
        "mapgen_version": __version__,
        "config_digest": config.digest(),
        "config": config.model_dump(),
        "png": {"compress_level": config.variants.png_compress_level, "strategy": "zlib RLE"},
        "counts": counts(maps, questions, captions, grounding) | ({"extraction": len(tables)} if tables else {}),
        "files": dict(sorted(files.items())),
    }
    if atlases["atlases"]:
        manifest["atlases"] = atlases["atlases"]
    write_json_atomic(out_dir / MANIFEST_FILE, manifest)
    return manifest


def balance_set(records: list[dict[str, Any]], config: BuildConfig) -> list[dict[str, Any]]:
    """The benchmark's questions chosen from every image's candidates, per split
    (:func:`mapgen.questions.selection.select_questions`: at most ``per_image`` per image, every template at
    least ``min_per_template`` times per country where its candidates allow, answers balanced, empty lists and
    zero counts rare); order kept."""
    from mapgen.questions.selection import SelectionRules, select_questions

    q = config.questions
    rules = SelectionRules(per_image=q.per_image, min_per_template=q.min_per_template,
                           max_answer_share=q.max_answer_share, max_empty_share=q.max_empty_share,
                           max_zero_share=q.max_zero_share)
    kept: set[str] = set()
    for split in sorted({r["split"] for r in records}):
        subset = [r for r in records if r["split"] == split]
        kept |= {r["question_id"] for r in select_questions(subset, rules, seed=config.seed)}
    return [r for r in records if r["question_id"] in kept]


def counts(maps, questions, captions, grounding) -> dict[str, Any]:
    """Counts per country, variant, split, map type, template and answer type."""

    def tally(records, key):
        return dict(sorted(Counter(str(r.get(key)) for r in records).items()))

    return {
        "maps": len(maps),
        "questions": len(questions),
        "captions": len(captions),
        "grounding": len(grounding),
        "maps_by_country": tally(maps, "country"),
        "maps_by_variant": tally(maps, "variant"),
        "maps_by_split": tally(maps, "split"),
        "questions_by_country": tally(questions, "country"),
        "questions_by_variant": tally(questions, "variant"),
        "questions_by_split": tally(questions, "split"),
        "questions_by_map_type": tally(questions, "map_type"),
        "questions_by_answer_type": tally(questions, "answer_type"),
        "questions_by_template": tally(questions, "mapwise_template"),
    }


def info(out_dir: str | Path) -> dict[str, Any]:
    """Summary of a build folder (counts and checksum status) for ``mapgen info``."""
    try:
        manifest = read_manifest(out_dir)
    except NotABenchmarkError:
        raise BuildError(f"{out_dir} has no manifest.json: not a finished mapgen build "
                         "(try `mapgen build --resume`).") from None
    return {"name": manifest["name"], "mapgen_version": manifest["mapgen_version"], "counts": manifest["counts"],
            "files": len(manifest["files"]), "files_failing_checksum": failing_checksums(out_dir, manifest["files"])}


