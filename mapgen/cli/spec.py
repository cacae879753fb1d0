"""``mapgen spec ...`` (build a MapSpec) and ``mapgen scene ...`` (the computed facts of one map)."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from mapgen.cli.map_options import legend_choice, scheme_option
from mapgen.cli.scales import scale_of, scale_options
from mapgen.cli.sources import atlas_options, naming_table, statistic_for, table_options
from mapgen.cli.styles import style_errors, style_option
from mapgen.schemes import scheme_names

if TYPE_CHECKING:
    from mapgen.spec import MapSpec

LegendKind = Literal["discrete", "continuous"]  # mapgen.legend.model's (not imported: it loads pandas)
LegendOrder = Literal["small_to_large", "large_to_small"]


def _echo_warnings(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` and print its warnings as one ``Warning: ...`` line each on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    for w in caught:
        click.echo(f"Warning: {w.message}", err=True)
    return result


def json_safe(data: Any) -> Any:
    """``data`` with every NaN float replaced by None (JSON has no NaN)."""
    if isinstance(data, float) and math.isnan(data):
        return None
    if isinstance(data, dict):
        return {k: json_safe(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [json_safe(v) for v in data]
    return data


def _emit(spec: MapSpec, output: str | None) -> None:
    # MAPWise imports keep the original values (NaN for N/A) in extra; MapSpec.save refuses NaN, so write them
    # as null (spec_to_mapwise reads null as N/A).
    spec = replace(spec, extra=json_safe(spec.extra))
    if output is None:
        click.echo(json.dumps(spec.to_dict(), indent=1, allow_nan=False))
        return
    path = spec.save(output)
    classes = f", {spec.legend.k} classes" if spec.map_type == "discrete" else ""
    click.echo(f"wrote {path} ({spec.map_id}: {spec.map_type}{classes})", err=True)


@click.command("spec")
@click.argument("country", required=False)
@click.option("--stat", "stat_id", default=None, help="Curated table id (see `mapgen stats list`).")
@table_options
@atlas_options
@click.option("--from-metadata", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Import a MAPWise/MapQA metadata JSON instead.")
@click.option("--legend", type=click.Choice(["discrete", "continuous"]), default="discrete", show_default=True)
@click.option("--classes", type=int, default=5, show_default=True)
@click.option("--scheme", default="quantiles", show_default=True, callback=scheme_option,
              help=f"Classification scheme: {', '.join(scheme_names())}.")
@click.option("--breaks", default=None, help="Upper class edges, e.g. 1,2,3 (override --scheme).")
@click.option("--order", type=click.Choice(["small_to_large", "large_to_small"]), default="small_to_large",
              show_default=True)
@click.option("--colormap", default="Blues", show_default=True)
@click.option("--reverse", is_flag=True, help="Reverse the colour map.")
@scale_options
@click.option("--hatched", is_flag=True, help="Black-and-white hatch patterns (discrete legends only).")
@click.option("--title", default=None, help="Map title (default: the statistic's title and year).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True)
@style_option
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Spec JSON to write (atomically); without it, print the JSON.")
def spec(country: str | None, stat_id: str | None, from_metadata: str | None, legend: LegendKind, classes: int,
         scheme: str, breaks: str | None, order: LegendOrder, colormap: str, reverse: bool, hatched: bool,
         title: str | None, seed: int, output: str | None, style_ref: str | None, **sources: Any) -> None:
    """The MapSpec of one map of COUNTRY (a name or vector file) from --stat or --data, or --from-metadata."""
    from mapgen.mapmaking import make_map_spec, open_atlas

    if from_metadata:
        from mapgen.files import read_json
        from mapgen.mapwise.schema import spec_from_mapwise

        if stat_id or sources["data"]:
            raise click.UsageError("--from-metadata takes no --stat / --data.")
        meta = read_json(Path(from_metadata))  # names the file when it is no JSON
        _emit(_echo_warnings(lambda: spec_from_mapwise(meta, country=country)), output)
        return
    if not country:
        raise click.UsageError("Give COUNTRY (a name or a GeoJSON/GeoPackage/shapefile) and --stat or --data "
                               "(or use --from-metadata).")
    atlas = open_atlas(country, sources["name_field"], sources["code_field"])
    with naming_table(sources["data"]), style_errors():
        stat = statistic_for(atlas, stat_id, sources, title)
        choice = legend_choice({"legend": legend, "classes": classes, "scheme": scheme, "breaks": breaks,
                                "order": order, "reverse": reverse, "hatched": hatched}, colormap, scale_of(sources))
        built = make_map_spec(atlas, stat, choice, look=style_ref, title=title, seed=seed)
    _emit(built, output)


def _value(value: float) -> str:
    return "N/A" if math.isnan(value) else f"{value:,.10g}"


@click.command("scene")
@click.argument("spec_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print every fact as JSON.")
def scene(spec_file: str, as_json: bool) -> None:
    """The Scene of a map: per region value, class, neighbours, groups; legend facts."""
    from mapgen.scene import load_scene

    sc = load_scene(spec_file)  # a render JSON's pixel facts give legibility as rendered
    if as_json:
        click.echo(json.dumps(json_safe(sc.to_dict()), indent=1, allow_nan=False))
        return
    lf = sc.legend_facts
    click.echo(f"{sc.map_id}: {sc.title!r} ({sc.country}, {sc.map_type}{', hatched' if sc.hatched else ''})")
    click.echo(f"legend: {lf.num_classes} classes {list(lf.labels)}; order {lf.order}; "
               f"{lf.spacing or 'neither evenly spaced nor with significant gaps'}; "
               f"{'percent' if lf.percent else 'absolute'}"
               f"{'; has N/A' if lf.has_na else ''}")
    rows = [(r.code, r.name, _value(r.value), r.class_label or r.color, " ".join(sorted(r.neighbors)) or "-")
            for r in sc.regions.values()]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4])
