"""Build a benchmark folder from a config: plan work units, run them (in parallel), write manifest and task files.

The folder's layout, checksums and writers live in :mod:`mapgen.benchmark`.

Work units are base maps (all variants of one map) and counterfactual maps. A unit's files are written
atomically and its completion record last, so a crash never leaves a unit that looks complete; ``resume`` reruns
only units whose record is missing or whose files fail their hash check. Same config + seed → same manifest.
"""

from __future__ import annotations

import contextlib
import json
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from mapgen import __version__
from mapgen.benchmark import (
    ATLASES_DIR,
    BUILD_LOG_FILE,
    MANIFEST_FILE,
    MAPS_FILE,
    QUESTIONS_FILE,
    NotABenchmarkError,
    check_listed_paths,
    clear_build,
    failing_checksums,
    file_digests,
    image_path,
    image_rel,
    read_manifest,
    read_marker,
    record_files,
    unlisted_files,
    verified_unit_record,
    write_marker,
    write_unit_record,
)
from mapgen.build_packs import build_templates, copy_packs, missing_texts
from mapgen.build_workers import LOCK_FILE, folder_lock, run_for_parent, worker_pool
from mapgen.caches import ValueCache
from mapgen.config import BuildConfig, CounterfactualKind, load_config
from mapgen.errors import BuildError
from mapgen.files import DiskFullError, sha256_file, write_json_atomic, write_jsonl_atomic
from mapgen.render.label_fit import labels_fit
from mapgen.tasks import ImageContext
from mapgen.tasks import tasks as registered_tasks

if TYPE_CHECKING:
    from rich.progress import Progress

if TYPE_CHECKING:
    from mapgen.config import CountryConfig
    from mapgen.geo.atlas import Atlas
    from mapgen.legend.model import LegendOrder
    from mapgen.spec import LegendChoice, MapSpec, Style

#: A statistic pool entry: ``{"curated": id}``, ``{"file": path}`` or ``{"synthetic": recipe}``.
StatisticSource = dict[str, Any]


@dataclass(frozen=True)
class UnitChoice:
    """What the plan chose for a unit's map: its statistic, how its legend is made and how it is drawn."""

    statistic: StatisticSource
    legend: LegendChoice
    style: Style
    look: str | None = None
    """The map style drawn from ``variants.styles`` (None: the default look; its page fields are applied per
    country when the spec is made, :func:`style_fields`)."""


@dataclass(frozen=True)
class Unit:
    """One unit of work: a base map with its variants, or one counterfactual map."""

    unit_id: str
    country: str
    index: int
    split: str
    choice: UnitChoice
    seed: int
    cf_kind: CounterfactualKind | None = None


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


def map_choice(config: BuildConfig, rng: np.random.Generator, i: int, pool: list[StatisticSource],
               split: str) -> UnitChoice:
    """Legend, style and statistic choices of map ``i`` (legend types alternate; the rest is seeded)."""
    from mapgen.spec import LegendChoice, Style

    legend, variants = config.legend, config.variants
    colormaps = split_colormaps(config)[split]
    statistic = pool[i % len(pool)]
    drawn = LegendChoice(
        kind=legend.types[i % len(legend.types)],
        classes=int(rng.choice(legend.classes)),
        scheme=str(rng.choice(legend.schemes)),
        order=cast("LegendOrder", str(rng.choice(legend.orders))),  # one of the config's validated orders
        colormap=str(rng.choice(colormaps)),
        reverse=bool(rng.random() < variants.reverse_share),
    )
    background = str(rng.choice(variants.backgrounds))
    legend_position = str(rng.choice(variants.legend_positions))
    renderer = str(rng.choice(variants.renderers))
    backgrounds, look = variants.backgrounds, None
    if variants.styles != ["default"]:  # drawn last: configs without styles draw every map as before
        look = str(rng.choice(variants.styles))
        page = style_background(look, config.style_file(look))
        if page:
            background, backgrounds = page, [page]
    drawn, background = legible_colours(drawn, background, rng, colormaps, backgrounds)
    drawn = replace(drawn, scale=drawn_scale(legend, drawn, rng))
    size = variants.size or (800, 600)  # a config that states no size: base_spec sizes the page by its shape
    style = Style(renderer=renderer, background=background, legend_position=legend_position,
                  png_compress_level=variants.png_compress_level, width=size[0], height=size[1])
    return UnitChoice(statistic, drawn, style, look)


def drawn_scale(legend: Any, drawn: LegendChoice, rng: np.random.Generator) -> Any:
    """The colour-bar scale of a continuous map (``legend.scales``, drawn last: configs without scales draw every
    map as before; None for a linear bar without a midpoint)."""
    from mapgen.legend import ScaleOptions

    if drawn.kind != "continuous" or (legend.scales == ["linear"] and legend.midpoint is None):
        return None
    scale = str(rng.choice(legend.scales)) if legend.scales != ["linear"] else "linear"
    clip = tuple(float(v) for v in legend.clip) if scale == "clip" else None
    return ScaleOptions(scale, clip, None if scale == "log" else legend.midpoint)  # type: ignore[arg-type]


def style_background(name: str, path: Path | None = None) -> str | None:
    """The background a map style sets (None: the config's backgrounds apply); ``path``: its file."""
    from mapgen.render.style import load_style

    return load_style(name, path=path).page.background


def legible_colours(legend: LegendChoice, background: str, rng: np.random.Generator, colormaps: list[str],
                    backgrounds: list[str]) -> tuple[LegendChoice, str]:
    """``legend`` and ``background`` with a colormap and background that pass the legibility rule
    (mapgen.legend.colors): the drawn pair when it passes, else another background for the same colormap, else
    another passing pair."""
    from mapgen.legend import combination_collision
    from mapgen.spec import background_color

    k = legend.classes if legend.kind == "discrete" else None
    ok = [(c, b) for c in colormaps for b in backgrounds
          if combination_collision(c, legend.reverse, k, background_color(b)) is None]
    if (legend.colormap, background) in ok:
        return legend, background
    same = [pair for pair in ok if pair[0] == legend.colormap]
    if not (same or ok):
        hit = combination_collision(legend.colormap, legend.reverse, k, background_color(background))
        raise BuildError(f"no colormap/background pair of variants passes the legibility rule for "
                         f"{k or 'a colour bar'} classes (e.g. {legend.colormap} on {background}: "
                         f"{hit.describe() if hit else ''}); add a background such as white or a colormap such "
                         f"as viridis.")
    pick = same or ok
    colormap, background = pick[int(rng.integers(len(pick)))]
    return replace(legend, colormap=colormap), background


def split_colormaps(config: BuildConfig) -> dict[str, list[str]]:
    """Colormaps each split may use (disjoint sets when ``split.disjoint_colormaps``, like MapQA-R)."""
    names, cmaps = list(config.split.ratios), config.variants.colormaps
    if not config.split.disjoint_colormaps:
        return {n: list(cmaps) for n in names}
    return {n: cmaps[k :: len(names)] for k, n in enumerate(names)}


# --- running one unit ---------------------------------------------------------------------------------------


def base_spec(unit: Unit, config: BuildConfig, out_dir: Path | None = None) -> MapSpec:
    """The MapSpec of a unit's base map (a user atlas is read from its copy in ``out_dir`` when given); it
    carries the country's Atlas object."""
    from mapgen.spec import localised, spec_of

    country = config.country(unit.country)
    atlas = country_atlas(config, country, out_dir)
    stat = load_statistic(unit.choice.statistic, atlas, unit, config)
    look = unit.choice.look
    fields = style_fields(look, atlas, config.variants.size is None, config.style_file(look))
    style = replace(unit.choice.style, **fields)
    legend = unit.choice.legend
    if legend.scale is not None and legend.scale.scale == "log" and not (stat.values.dropna() > 0).all():
        legend = replace(legend, scale=replace(legend.scale, scale="clip", clip=(float(config.legend.clip[0]), float(config.legend.clip[1]))))
    spec = spec_of(atlas, stat, legend, style, map_id=unit.unit_id, seed=unit.seed,
                   exclude=tuple(country.exclude))
    if country.language == "en" and country.labels == "codes":
        return spec
    return localised(spec.with_style(language=country.language, label_mode=country.labels))


#: The atlas of each country this process has built maps of: key (:func:`_atlas_key`) → Atlas.
_COUNTRY_ATLASES: ValueCache[tuple[Any, ...], Atlas] = ValueCache("build.country_atlases", maxsize=64)


def country_atlas(config: BuildConfig, country: CountryConfig, out_dir: Path | None = None) -> Atlas:
    """The Atlas a country's maps are drawn on, loaded once per process (a user atlas file is hashed once, and
    again only when its file changes)."""
    key = _atlas_key(config, country, out_dir)
    return _COUNTRY_ATLASES.get_or_make(key, lambda: atlas_of(config, country, out_dir, exclude=country.exclude))


def _atlas_key(config: BuildConfig, country: CountryConfig, out_dir: Path | None) -> tuple[Any, ...]:
    """What a country's atlas depends on: its name, or its file's place, size and time, and the fields."""
    if country.builtin:
        return country.key, tuple(country.exclude)
    path = _atlas_path(config, country, out_dir)
    stat = path.stat()
    return (str(path), stat.st_size, stat.st_mtime_ns, country.name_field, country.code_field,
            tuple(country.exclude))


def _atlas_path(config: BuildConfig, country: CountryConfig, out_dir: Path | None) -> Path:
    """A user atlas's vector file: its copy in the build folder ``out_dir`` when given, else the config's."""
    path = config.resolve_path(country.name)
    return path if out_dir is None else Path(out_dir) / ATLASES_DIR / country.key / path.name


def style_fields(name: str | None, atlas: Any, by_shape: bool = False, path: Path | None = None) -> dict[str, Any]:
    """The spec style fields a map style sets for a country (none without a style or for the default), and
    with ``by_shape`` (a config that states no page size) the page size: the style's for the country, else the
    one the atlas's shape gives (:func:`mapgen.render.layout.default_page_size`); ``path``: the style's file."""
    from mapgen.render.style import load_style

    look = load_style(name or "default", path=path)
    fields = look.spec_defaults(atlas.name) if name else {}
    if by_shape and "width" not in fields:
        from mapgen.render.layout import default_page_size

        fields["width"], fields["height"] = default_page_size(atlas, look)
    return fields


def atlas_of(config: BuildConfig, country: CountryConfig, out_dir: Path | None = None,
             exclude: Iterable[str] = ()) -> Atlas:
    """A country's atlas without ``exclude``: a built-in one by name, or the user file (its copy in the build
    folder ``out_dir`` when given, see :func:`copy_user_atlases`) hashed and read as that content, which this
    process reads once (:func:`mapgen.geo.atlas.load_atlas`: config validation, the input checks and the folder's
    copy share one read)."""
    from mapgen.geo.atlas import load_atlas

    if country.builtin:
        return load_atlas(country.key, exclude=exclude)
    return load_atlas(_atlas_path(config, country, out_dir), exclude=exclude, name_field=country.name_field,
                      code_field=country.code_field)


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


def load_statistic(source: StatisticSource, atlas: Atlas, unit: Unit, config: BuildConfig | None = None):
    """A Statistic from a pool entry (a table file's path is relative to the config file)."""
    if "curated" in source:
        from mapgen.data.curated import load_curated

        return load_curated(atlas.name, source["curated"])
    if "file" in source:
        from mapgen.data.user_tables import load_table

        return load_table(config.resolve_path(source["file"]) if config else source["file"], atlas)
    from mapgen.data.synthetic import synthesize

    syn = source["synthetic"]
    return synthesize(atlas, seed=syn["seed"], distribution=syn["distribution"], spatial=syn["spatial"],
                      kind=syn["kind"])


def unit_variants(unit: Unit, config: BuildConfig, out_dir: Path | None = None) -> list[tuple[str, MapSpec]]:
    """(variant name, spec) pairs a unit renders."""
    from mapgen.legend import HATCHES
    from mapgen.render import hatched_variant

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
        out.append(("hatched", hatched_variant(spec.with_style(annotated=fits))))
    return [(name, replace(s, map_id=f"{unit.unit_id}-{name}")) for name, s in out]


def run_unit(unit: Unit, config: BuildConfig, out_dir: Path) -> dict[str, Any]:
    """Render every variant of a unit, generate its questions and task records; write its completion record."""
    from mapgen.audit.legibility import vet
    from mapgen.questions import refusal_counts
    from mapgen.render import render
    refused_before = refusal_counts()
    timings: defaultdict[str, float] = defaultdict(float)
    chosen = registered_tasks(config.tasks)
    result: dict[str, Any] = {"unit_id": unit.unit_id, "maps": [], **{t.key: [] for t in chosen}, "files": {}}
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
        image = ImageContext(scene=rendered.scene, meta=meta, seed=unit.seed, config=config, image=rendered.image,
                             folder=out_dir, render=rendered,
                             timings=timings)
        for task in chosen:  # each task's gold records of the image (mapgen.tasks)
            result[task.key] += task.gold(image)
    result["timings"] = dict(timings)
    result["refusals"] = dict(sorted((refusal_counts() - refused_before).items()))  # draws refused, by reason
    write_unit_record(out_dir, unit.unit_id, result)
    return result


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
    source = f"{config}: " if isinstance(config, (str, Path)) else ""
    config = config if isinstance(config, BuildConfig) else load_config(config)
    out_dir = Path(out_dir)
    start = time.perf_counter()
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
    with folder_lock(out_dir), _resumable(config, out_dir):  # one build per folder at a time (build_workers)
        prepare_folder(config, out_dir, resume=resume, force=force, digest=digest, inputs=inputs)
        atlases = copy_user_atlases(config, out_dir)
        packs = copy_packs(config, out_dir)
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
        manifest = finalize(config, out_dir, ordered, atlases, packs, digest=digest)
        timings: Counter[str] = Counter()
        for unit in todo:
            timings.update(results[unit.unit_id].get("timings", {}))
        seconds = time.perf_counter() - start
        write_json_atomic(out_dir / BUILD_LOG_FILE, {"seconds": round(seconds, 2), "built": len(todo),
                                                        "reused": len(units) - len(todo), "workers": workers,
                                                        "executor": executor,
                                                        "stage_seconds": {k: round(v, 2) for k, v in timings.items()},
                                                        # diagnostics that vary with what each worker ran
                                                        # before (caches), so not in the manifest
                                                        "draws_refused_by_reason": refusal_counts(ordered)})
        return BuildReport(out_dir, manifest, len(todo), len(units) - len(todo), seconds, dict(timings))


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
        from concurrent.futures import as_completed

        with worker_pool(workers) as (pool, parent):  # workers die with this process (mapgen.build_workers)
            futures = [pool.submit(run_for_parent, run_unit, parent, unit, config, out_dir) for unit in units]
            for future in as_completed(futures):
                advance()
                yield future.result()


def run_dask(units: list[Unit], config: BuildConfig, out_dir: Path, workers: int = 2, scheduler: str | None = None,
             progress: bool = True):
    """Run units on a Dask cluster (``scheduler`` address) or a LocalCluster on loopback whose workers die with
    this process (:func:`mapgen.build_dask.dask_client`)."""
    try:
        from distributed import as_completed

        from mapgen.build_dask import dask_client
    except ImportError:
        raise BuildError("The dask executor needs dask.distributed: pip install 'mapgen[dask]'.") from None
    with dask_client(workers, scheduler) as (client, parent):
        fn = run_unit if parent is None else partial(run_for_parent, run_unit, parent)
        futures = client.map(fn, units, config=config, out_dir=out_dir, pure=False)
        with progress_bar(len(units), progress) as advance:
            for future in as_completed(futures):
                advance()
                yield future.result()


class progress_bar:
    """A rich progress bar (maps/s and ETA); silent when disabled."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled = total, enabled and total > 0
        self._progress: Progress | None = None

    def __enter__(self) -> Callable[[], None]:
        if not self.enabled:
            return lambda: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        progress = self._progress = Progress(TextColumn("building"), BarColumn(), MofNCompleteColumn(),
                                             TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                                             transient=False)
        progress.start()
        task = progress.add_task("units", total=self.total, rate="")
        started = time.perf_counter()

        def advance() -> None:
            done = progress.tasks[0].completed + 1
            rate = done / max(1e-9, time.perf_counter() - started)
            progress.update(task, advance=1, rate=f"{rate:.1f} units/s")

        return advance

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()


def finalize(config: BuildConfig, out_dir: Path, results: list[dict[str, Any]],
             atlases: dict[str, Any] | None = None, packs: dict[str, Any] | None = None,
             digest: str | None = None) -> dict[str, Any]:
    """Write the task files and the manifest (deterministic: sorted keys, no timestamps). ``atlases`` and
    ``packs``: the user atlas and template pack copies (:func:`copy_user_atlases`, :func:`copy_packs`),
    recorded with their paths and digests; ``digest``: the config's, as the folder's marker holds it."""
    maps = [m for r in results for m in r["maps"]]
    write_jsonl_atomic(out_dir / MAPS_FILE, maps)
    task_counts: dict[str, Any] = {}
    for task in registered_tasks():  # every registered task: one not asked for counts as empty
        records = task.select([x for r in results for x in r.get(task.key, [])], config)
        if records or task.record_file == QUESTIONS_FILE:  # the folder always has a questions file
            write_jsonl_atomic(out_dir / task.record_file, records)
        task_counts |= task.counts(records)
    files = {rel: digest for r in results for rel, digest in r["files"].items()}
    files |= file_digests(out_dir, record_files())
    atlases = atlases or {"atlases": {}, "files": {}}
    files |= atlases["files"]
    packs = packs or {"packs": {}, "files": {}}
    files |= packs["files"]
    manifest = {
        "name": config.name,
        "mapgen_version": __version__,
        "config_digest": digest or config.digest(),
        "config": config.model_dump(),
        "png": {"compress_level": config.variants.png_compress_level, "strategy": "zlib RLE"},
        "counts": map_counts(maps) | task_counts,
        "files": dict(sorted(files.items())),
    }
    if atlases["atlases"]:
        manifest["atlases"] = atlases["atlases"]
    if packs["packs"]:
        manifest["packs"] = packs["packs"]
    write_json_atomic(out_dir / MANIFEST_FILE, manifest)
    return manifest


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


def info(out_dir: str | Path) -> dict[str, Any]:
    """Summary of a build folder for ``mapgen info``: counts, checksum status and the files a reader uses that the
    manifest does not list (readers refuse such a folder: :func:`mapgen.benchmark.verify_listing`)."""
    try:
        manifest = read_manifest(out_dir)
    except NotABenchmarkError:
        raise BuildError(f"{out_dir} has no manifest.json: not a finished mapgen build "
                         "(try `mapgen build --resume`).") from None
    check_listed_paths(Path(out_dir), manifest["files"])  # a manifest naming a file outside: refused, not hashed
    return {"name": manifest["name"], "mapgen_version": manifest["mapgen_version"],
            "counts": manifest["counts"] | {"questions_by_template_id": questions_by_template_id(out_dir)}
            | refusals_logged(out_dir),
            "files": len(manifest["files"]), "files_failing_checksum": failing_checksums(out_dir, manifest["files"]),
            "files_unlisted": unlisted_files(out_dir)}


def refusals_logged(out_dir: str | Path) -> dict[str, Any]:
    """``{"draws_refused_by_reason": …}`` from the folder's build log (empty when it has none)."""
    from mapgen.files import read_json

    log = Path(out_dir) / BUILD_LOG_FILE
    data = read_json(log) if log.is_file() else {}
    refused = data.get("draws_refused_by_reason") if isinstance(data, dict) else None
    return {"draws_refused_by_reason": refused} if isinstance(refused, dict) else {}


def questions_by_template_id(out_dir: str | Path) -> dict[str, int]:
    """Questions per template id (the manifest counts by MAPWise number, where a pack's templates are 'None')."""
    from mapgen.files import read_jsonl

    records = read_jsonl(Path(out_dir) / QUESTIONS_FILE, missing_ok=True)
    return dict(sorted(Counter(str(r.get("template_id")) for r in records).items()))


