"""``mapgen render``: draw maps (from spec files or from a country + statistic) to PNG + mask + JSON.

Several SOURCEs, or a CSV of specs (:mod:`mapgen.cli.render_jobs`), render in one process. Nothing heavy is
imported until a map is drawn (``mapgen render --help`` loads no pandas, matplotlib or geopandas).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from mapgen.cli.map_options import (
    apply_to_spec,
    given_options,
    legend_choice,
    refuse_source_options,
    scheme_option,
)
from mapgen.cli.render_jobs import (
    OUTPUT_SUFFIXES,
    Job,
    Source,
    check_outputs,
    expand_sources,
    is_spec_csv,
    job_inputs,
    output_for,
)
from mapgen.cli.scales import scale_of, scale_options
from mapgen.cli.sources import atlas_options, naming_table, statistic_for, table_options
from mapgen.cli.styles import style_errors, style_option
from mapgen.collector import collector_paused
from mapgen.page import MAX_PX, MIN_PX, size_ok
from mapgen.renderers import renderer_names
from mapgen.schemes import scheme_names

#: Options whose explicit use asks for the legibility check of the colours drawn.
_COLOUR_REQUESTS = ("colormap", "reverse", "background", "style_ref", "legend", "classes", "scheme", "breaks",
                    "scale", "clip", "midpoint")


@click.command("render")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--stat", help="Curated statistic id (when SOURCE is a country).")
@table_options
@atlas_options
@click.option("--title", default=None, help="Map title (default: the statistic's title and year).")
@click.option("--legend", type=click.Choice(["discrete", "continuous"]), default="discrete", show_default=True)
@click.option("--classes", type=int, default=5, show_default=True)
@click.option("--scheme", default="quantiles", show_default=True, callback=scheme_option,
              help=f"Classification scheme: {', '.join(scheme_names())}.")
@click.option("--breaks", default=None, help="Upper class edges, e.g. 1,2,3 (override --scheme).")
@click.option("--order", type=click.Choice(["small_to_large", "large_to_small"]), default="small_to_large")
@click.option("--colormap", default=None, help="matplotlib/plotly colour scale name; append _r to reverse.")
@click.option("--reverse", is_flag=True, help="Reverse the colour scale.")
@scale_options
@click.option("--hatched", is_flag=True, help="Black-and-white hatched classes (discrete maps only).")
@click.option("--background", default=None, help="white, lightgray, gray, lightsteelblue, … or '#rrggbb'.")
@click.option("--annotated/--no-annotated", default=None, help="Draw region codes on the map.")
@click.option("--names", is_flag=True, help="Label regions with full names where they fit.")
@click.option("--renderer", type=click.Choice(renderer_names()), default=None)
@click.option("--legend-position", default=None,
              type=click.Choice(["right", "left", "bottom", "top", "bottom-left", "bottom-right"]))
@click.option("--horizontal-legend", is_flag=True, help="Lay the legend out horizontally.")
@click.option("--no-title", is_flag=True)
@click.option("--size", default=None, help="WIDTHxHEIGHT in pixels (default: 800 wide, the height by the map's shape).")
@style_option
@click.option("--all-variants", is_flag=True, help="Annotated, unannotated and hatched renders into -o DIR.")
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
              help="PNG, SVG, PDF or (plotly) HTML path (or a folder; a folder for several maps).")
@click.pass_context
def render_cmd(ctx: click.Context, sources: tuple[str, ...], output: Path, all_variants: bool, **options: Any) -> None:
    """Render SOURCE (a map JSON, MAPWise metadata, or a country or vector file with --stat/--data) to PNG.

    A PNG (or SVG / PDF), its region-id mask and a JSON (spec + pixel facts) are written. Several SOURCEs, or
    a CSV of specs (a `source` column, option columns, an `output` column), render in one process into the
    folder -o. Options given with a map JSON are applied to it (or refused, naming the option); no output may
    overwrite an input."""
    _check_output(output)
    items = expand_sources(ctx, sources, options, given_options(ctx) - {"output", "all_variants"})
    several = len(items) > 1 or any(is_spec_csv(s) for s in sources)
    if several and output.suffix.lower() in OUTPUT_SUFFIXES:
        raise click.BadParameter("several maps need a folder, not a file.", param_hint="-o")
    if all_variants and output.suffix.lower() in OUTPUT_SUFFIXES:
        raise click.BadParameter(f"--all-variants writes each variant's files into a folder; give a folder "
                                 f"(e.g. -o {output.with_suffix('')}/), not {output.name}.", param_hint="-o")
    # building the specs and drawing the first map import everything the call needs: hundreds of thousands of
    # objects that live until the process ends, whose collection cost a sixth of a one-map call
    with collector_paused(promote=True):
        jobs = [_job(item, output, several) for item in items]
        if all_variants:  # every variant is named by its map id: the folder is -o (or the item's output cell)
            jobs = [replace(job, output=output / Path(item.output_name).stem if item.output_name else output)
                    for job, item in zip(jobs, items)]
        check_outputs(jobs, all_variants)
        if jobs:
            _render_job(jobs[0], items[0], all_variants)
    for job, item in zip(jobs[1:], items[1:]):
        _render_job(job, item, all_variants)


def _check_output(output: Path) -> None:
    """``-o`` is a .png/.svg/.pdf file, a path without a suffix or an existing folder; any other suffix is a
    usage error (exit 2) before anything is created."""
    if output.suffix and output.suffix.lower() not in OUTPUT_SUFFIXES and not output.is_dir():
        raise click.BadParameter(f"unsupported output suffix {output.suffix!r}; use one of "
                                 f"{', '.join(OUTPUT_SUFFIXES)} (or a folder).", param_hint="-o")


def _job(item: Source, output: Path, several: bool) -> Job:
    """The spec of one source and where it goes, its colours checked when the user chose them."""
    try:
        spec = _spec_from_source(item)
    except click.ClickException as exc:
        if not item.where:
            raise
        raise click.UsageError(f"{item.where}: {exc.format_message()}") from None
    if spec.hatched:  # as the style prints hatched maps (MAPWise's: black on white, no labels)
        from mapgen.render import hatched_in_style

        spec = hatched_in_style(spec, labels="annotated" in item.given)
    if any(n in item.given for n in _COLOUR_REQUESTS):
        _refuse_illegible(spec)
    return Job(spec, output_for(item, spec, output, several), job_inputs(item))


def _render_job(job: Job, item: Source, all_variants: bool) -> None:
    from mapgen.render import render, render_variants

    if all_variants:
        for result in render_variants(job.spec, job.output):
            click.echo(str(result.image))
        return
    spec = job.spec
    if spec.style.annotated and "annotated" not in item.given:
        from mapgen.render.label_fit import MAX_CALLOUTS, labels_fit

        if not labels_fit(spec):
            click.echo(f"Note: more than {MAX_CALLOUTS} region labels would not fit inside their regions; drawing "
                       "the map unannotated (pass --annotated to force labels).", err=True)
            spec = spec.with_style(annotated=False)
    result = render(spec, job.output)
    illegible = [c for c, r in result.scene.regions.items() if not r.legible]
    click.echo(f"{result.image}  (mask {result.mask.name}, facts {result.json.name}; "
               f"illegible: {' '.join(illegible) or 'none'})")


def _spec_from_source(item: Source):
    """The MapSpec of a country or vector file (with --stat/--data) or of a map JSON (options applied)."""
    from mapgen.geo.atlas import BUILTIN
    from mapgen.geo.source import is_atlas_path

    source, options = item.source, item.options
    style = _style_options(options)
    if source.lower() in BUILTIN or is_atlas_path(source):
        return _spec_from_table(source, options, style)
    path = Path(source)
    if not path.exists():
        raise click.UsageError(f"{source!r} is neither a country ({', '.join(BUILTIN)}) nor an existing file.")
    if (options["stat"] or options["data"]) and path.suffix.lower() != ".json":
        raise click.UsageError(f"{source}: a vector file needs a .geojson/.gpkg/.shp suffix; rename it.")
    if options["stat"] or options["data"]:
        raise click.UsageError(f"{source!r} is a map JSON: --stat / --data apply to a country or a vector file.")
    refuse_source_options(item.given, source)
    return _spec_from_json(path, options, style, item.given)


def _spec_from_table(source: str, options: dict[str, Any], style: dict[str, Any]):
    """The spec of a country or vector file with --stat/--data (:func:`mapgen.mapmaking.make_map_spec`)."""
    from mapgen.mapmaking import check_look, make_map_spec, open_atlas

    atlas = open_atlas(source, options["name_field"], options["code_field"])
    with style_errors():
        check_look(options["style_ref"])
    with naming_table(options["data"]), style_errors():
        statistic = statistic_for(atlas, options["stat"], options, options["title"])
        legend = legend_choice(options, options["colormap"] or "Blues", scale_of(options))
        return make_map_spec(atlas, statistic, legend, look=options["style_ref"], options=style,
                             title=options["title"])


def _spec_from_json(path: Path, options: dict[str, Any], style: dict[str, Any], given: set[str]):
    """A map JSON with the style, legend and title options applied (:func:`mapgen.mapmaking.restyle`)."""
    from mapgen.mapmaking import restyle
    from mapgen.mapwise.schema import load_map_spec
    from mapgen.spec import make_hatched

    with style_errors():
        spec = restyle(load_map_spec(path), options["style_ref"], scale_of(options), **style)
    spec = apply_to_spec(spec, options, given)
    return make_hatched(spec) if options["hatched"] and not spec.hatched else spec


def _refuse_illegible(spec) -> None:
    """Refuse an explicit colour request whose colours a reader could not tell apart (one line, with a fix)."""
    from mapgen.legend import legend_collision, legibility_suggestion, legible_legend
    from mapgen.spec import background_color

    bg = background_color(spec.style.background)
    hit = legend_collision(legible_legend(spec.legend, bg), bg)
    if hit is not None:
        k = spec.legend.k if spec.legend.kind == "discrete" else None
        fix = legibility_suggestion(spec.legend.colormap, spec.legend.reversed, k, bg)
        raise ValueError(f"illegible colours: {hit.describe()} on {spec.style.background}; {fix}.")


def _style_options(options: dict) -> dict:
    style: dict = {}
    if options["background"]:
        style["background"] = options["background"]
    if options["annotated"] is not None:
        style["annotated"] = options["annotated"]
    if options["names"]:
        style["label_mode"] = "names"
    if options["renderer"]:
        style["renderer"] = options["renderer"]
    if options["legend_position"]:
        style["legend_position"] = options["legend_position"]
    if options["horizontal_legend"]:
        style["legend_orientation"] = "horizontal"
        style.setdefault("legend_position", "bottom")
    if options["no_title"]:
        style["show_title"] = False
    if options["size"]:
        try:
            width, height = (int(v) for v in options["size"].lower().split("x"))
        except ValueError:
            raise click.BadParameter(f"--size must look like 800x600, not {options['size']!r}.") from None
        if not size_ok(width, height):
            raise click.BadParameter(f"--size {width}x{height} is outside {MIN_PX}-{MAX_PX} px per side; give e.g. "
                                     "--size 800x600.")
        style |= {"width": width, "height": height}
    return style
