"""Run one unit of a build: its specs, their renders and every task's gold records, and its completion record
(written last, so a crash never leaves a unit that looks complete)."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.benchmark import (
    ATLASES_DIR,
    image_path,
    image_rel,
    verified_unit_record,
    write_unit_record,
)
from mapgen.build.plan import Unit
from mapgen.caches import ValueCache
from mapgen.config import BuildConfig
from mapgen.files import sha256_file
from mapgen.mapmaking import StatisticSource, load_statistic, make_map_spec, open_atlas
from mapgen.render.label_fit import labels_fit
from mapgen.tasks import ImageContext
from mapgen.tasks import tasks as registered_tasks

if TYPE_CHECKING:
    from mapgen.config import CountryConfig
    from mapgen.data.statistic import Statistic
    from mapgen.geo.atlas import Atlas
    from mapgen.spec import LegendChoice, MapSpec


def base_spec(unit: Unit, config: BuildConfig, out_dir: Path | None = None) -> MapSpec:
    """The MapSpec of a unit's base map (:func:`mapgen.mapmaking.make_map_spec`; a user atlas is read from its
    copy in ``out_dir`` when given); it carries the country's Atlas object."""
    country = config.country(unit.country)
    atlas = country_atlas(config, country, out_dir)
    source = statistic_source(unit.choice.statistic, config)
    look = unit.choice.look
    look_path = config.style_file(look)
    words = {} if country.language == "en" and country.labels == "codes" else {
        "language": country.language, "label_mode": country.labels}
    stat = load_statistic(atlas, source)
    legend = drawn_legend(unit.choice.legend, stat, config)
    return make_map_spec(atlas, stat, legend, style=unit.choice.style, look=look, look_path=look_path,
                         by_shape=config.variants.size is None, options=words, map_id=unit.unit_id, seed=unit.seed,
                         exclude=country.exclude)


def drawn_legend(legend: LegendChoice, stat: Statistic, config: BuildConfig) -> LegendChoice:
    """The plan's legend choice for ``stat``: a log colour bar of values that are not all positive is clipped at
    the config's percentiles instead."""
    if legend.scale is None or legend.scale.scale != "log" or (stat.values.dropna() > 0).all():
        return legend
    clip = (float(config.legend.clip[0]), float(config.legend.clip[1]))
    return replace(legend, scale=replace(legend.scale, scale="clip", clip=clip))


def statistic_source(source: StatisticSource, config: BuildConfig | None = None) -> StatisticSource:
    """A pool entry as :func:`mapgen.mapmaking.load_statistic` reads it (a table file's path is relative to the
    config file)."""
    if "file" in source and config is not None:
        return {"file": config.resolve_path(source["file"])}
    return source


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


def atlas_of(config: BuildConfig, country: CountryConfig, out_dir: Path | None = None,
             exclude: Iterable[str] = ()) -> Atlas:
    """A country's atlas without ``exclude``: a built-in one by name, or the user file (its copy in the build
    folder ``out_dir`` when given, see :func:`copy_user_atlases`) hashed and read as that content, which this
    process reads once (:func:`mapgen.geo.atlas.load_atlas`: config validation, the input checks and the folder's
    copy share one read)."""
    source: str | Path
    if country.builtin:
        source, name_field, code_field = country.key, None, None
    else:
        source, name_field, code_field = _atlas_path(config, country, out_dir), country.name_field, country.code_field
    return open_atlas(source, name_field, code_field, exclude)


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


def completed(unit: Unit, out_dir: Path) -> dict[str, Any] | None:
    """The unit's completion record if it exists and every file it lists has its recorded hash."""
    return verified_unit_record(out_dir, unit.unit_id)
