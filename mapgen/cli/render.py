"""``mapgen render``: draw a map (from a spec file or from a country + statistic) to PNG + mask + JSON."""

from __future__ import annotations

from pathlib import Path

import click

from mapgen.cli.sources import atlas_options, open_atlas, statistic_for, table_options
from mapgen.cli.styles import look_fields, style_option
from mapgen.geo.atlas import BUILTIN
from mapgen.geo.source import is_atlas_path
from mapgen.mapwise.schema import load_map_spec
from mapgen.render import render, render_variants
from mapgen.render.vector import OUTPUT_SUFFIXES
from mapgen.spec import MapSpec, make_hatched, make_spec


@click.command("render")
@click.argument("source")
@click.option("--stat", help="Curated statistic id (when SOURCE is a country).")
@table_options
@atlas_options
@click.option("--title", default=None, help="Map title (default: the statistic's title and year).")
@click.option("--legend", type=click.Choice(["discrete", "continuous"]), default="discrete", show_default=True)
@click.option("--classes", type=int, default=5, show_default=True)
@click.option("--scheme", default="quantiles", show_default=True,
              help="quantiles, equal_interval or natural_breaks.")
@click.option("--order", type=click.Choice(["small_to_large", "large_to_small"]), default="small_to_large")
@click.option("--colormap", default=None, help="matplotlib/plotly colour scale name; append _r to reverse.")
@click.option("--reverse", is_flag=True, help="Reverse the colour scale.")
@click.option("--hatched", is_flag=True, help="Black-and-white hatched classes (discrete maps only).")
@click.option("--background", default=None, help="white, lightgray, gray, lightsteelblue, … or '#rrggbb'.")
@click.option("--annotated/--no-annotated", default=None, help="Draw region codes on the map.")
@click.option("--names", is_flag=True, help="Label regions with full names where they fit.")
@click.option("--renderer", type=click.Choice(["matplotlib", "plotly"]), default=None)
@click.option("--legend-position", default=None,
              type=click.Choice(["right", "left", "bottom", "top", "bottom-left", "bottom-right"]))
@click.option("--horizontal-legend", is_flag=True, help="Lay the legend out horizontally.")
@click.option("--no-title", is_flag=True)
@click.option("--size", default=None, help="WIDTHxHEIGHT in pixels (default: 800 wide, the height by the map's shape).")
@style_option
@click.option("--all-variants", is_flag=True, help="Annotated, unannotated and hatched renders into -o DIR.")
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
              help="PNG, SVG or PDF path (or a folder).")
def render_cmd(source: str, output: Path, stat: str | None, all_variants: bool, **options) -> None:
    """Render SOURCE (a map JSON, MAPWise metadata, or a country or vector file with --stat/--data) to PNG.

    A PNG (or SVG / PDF), its region-id mask and a JSON (spec + pixel facts) are written."""
    _check_output(output)
    spec = _spec_from_source(source, stat, options)
    if options["colormap"] or options["background"] or options["style_ref"]:
        _refuse_illegible(spec)
    if all_variants:
        for result in render_variants(spec, output):
            click.echo(str(result.image))
        return
    if output.suffix.lower() not in OUTPUT_SUFFIXES:
        output = output / f"{spec.map_id}.png"
    if spec.style.annotated and options["annotated"] is None:
        from mapgen.build import MAX_CALLOUTS, labels_fit

        if not labels_fit(spec):
            click.echo(f"Note: more than {MAX_CALLOUTS} region labels would not fit inside their regions; drawing "
                       "the map unannotated (pass --annotated to force labels).", err=True)
            spec = spec.with_style(annotated=False)
    result = render(spec, output)
    illegible = [c for c, r in result.scene.regions.items() if not r.legible]
    click.echo(f"{result.image}  (mask {result.mask.name}, facts {result.json.name}; "
               f"illegible: {' '.join(illegible) or 'none'})")


def _check_output(output: Path) -> None:
    """``-o`` is a .png/.svg/.pdf file, a path without a suffix or an existing folder; any other suffix is a
    usage error (exit 2) before anything is created."""
    if output.suffix and output.suffix.lower() not in OUTPUT_SUFFIXES and not output.is_dir():
        raise click.BadParameter(f"unsupported output suffix {output.suffix!r}; use one of "
                                 f"{', '.join(OUTPUT_SUFFIXES)} (or a folder).", param_hint="-o")


def _spec_from_source(source: str, stat: str | None, options: dict) -> MapSpec:
    style = _style_options(options)
    if source.lower() in BUILTIN or is_atlas_path(source):
        atlas = open_atlas(source, options["name_field"], options["code_field"])
        style = look_fields(options["style_ref"], atlas) | style
        statistic = statistic_for(atlas, stat, options, options["title"])
        colormap = options["colormap"] or "Blues"
        return make_spec(atlas, statistic, legend=options["legend"], classes=options["classes"],
                         scheme=options["scheme"], order=options["order"], colormap=colormap,
                         reverse=options["reverse"], hatched=options["hatched"], title=options["title"], **style)
    path = Path(source)
    if not path.exists():
        raise click.UsageError(f"{source!r} is neither a country ({', '.join(BUILTIN)}) nor an existing file.")
    if stat or options["data"]:
        raise click.UsageError(f"{source!r} is a map JSON: --stat / --data apply to a country or a vector file.")
    spec = load_map_spec(path)
    style = look_fields(options["style_ref"], spec.atlas) | style
    spec = spec.with_style(**style) if style else spec
    return make_hatched(spec) if options["hatched"] else spec


def _refuse_illegible(spec: MapSpec) -> None:
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
        style |= {"width": width, "height": height}
    return style
