"""``mapgen stats ...``: curated tables and the synthetic generator."""

from __future__ import annotations

import math

import click

from mapgen.cli.limits import FINITE, MAX_DECIMALS, SEED, bounded
from mapgen.data.curated import list_stats, load_curated
from mapgen.data.statistic import KINDS, Statistic
from mapgen.data.synthetic import DISTRIBUTIONS, morans_i, synthesize
from mapgen.data.user_tables import save_table, table_csv
from mapgen.mapmaking import open_atlas


@click.group()
def stats() -> None:
    """Statistics: the curated tables that ship, and fresh synthetic ones."""


@stats.command("list")
@click.argument("country", required=False)
def stats_list(country: str | None) -> None:
    """Curated tables (optionally of one COUNTRY): id, year, unit, kind, source."""
    for info in list_stats(country):
        click.echo(f"{info.country}\t{info.id}\t{info.year}\t{info.unit}\t{info.kind}\t{info.title}\t{info.source}")


def _fmt(value: float) -> str:
    return "N/A" if math.isnan(value) else f"{value:,.10g}"


def _show(stat: Statistic) -> None:
    atlas = open_atlas(stat.country)
    year = f", {stat.year}" if stat.year else ""
    click.echo(f"# {stat.title} ({stat.unit or 'no unit'}, {stat.kind}{year})")
    click.echo(f"# source: {stat.source}")
    for code, value in stat.values.items():
        click.echo(f"{code}\t{atlas.names.get(str(code), code)}\t{_fmt(value)}")


@stats.command("show")
@click.argument("country")
@click.argument("stat_id")
def stats_show(country: str, stat_id: str) -> None:
    """Values of the curated table STAT_ID of COUNTRY, one region a line (code, name, value)."""
    _show(load_curated(country, stat_id))


@stats.command("synth")
@click.argument("country")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Random seed (same seed, same table).")
@click.option("--distribution", type=click.Choice(list(DISTRIBUTIONS)), default="lognormal", show_default=True)
@click.option("--spatial", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Spatial autocorrelation: 0 independent ... 1 smooth.")
@click.option("--kind", type=click.Choice(list(KINDS)), default="absolute", show_default=True)
@click.option("--low", type=FINITE, default=None,
              help="Smallest value (default: from the indicator; with --title 100, or 5 for percent).")
@click.option("--high", type=FINITE, default=None,
              help="Largest value (default: from the indicator; with --title 100000, or 95 for percent).")
@click.option("--decimals", type=bounded(0, MAX_DECIMALS), default=None, help="Rounding (default: 1 for percent, ~3 digits else).")
@click.option("--missing", "n_missing", type=bounded(0, None), default=0, show_default=True, help="Regions left N/A.")
@click.option("--title", default=None,
              help="Title (default: a seeded indicator from data/stats/indicators.yaml, with its unit and range).")
@click.option("--unit", default=None)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="CSV file (code,name,value) plus <file>-metadata.json; without it, print the CSV.")
def stats_synth(country: str, seed: int, distribution: str, spatial: float, kind: str, low: float | None,
                high: float | None, decimals: int | None, n_missing: int, title: str | None, unit: str | None,
                output: str | None) -> None:
    """A fresh synthetic table for COUNTRY (seeded; see mapgen.data.synthetic)."""
    atlas = open_atlas(country)
    stat = synthesize(atlas, seed, distribution=distribution, spatial=spatial, kind=kind, low=low, high=high,
                      decimals=decimals, title=title, unit=unit, n_missing=n_missing)
    moran = morans_i(stat.values, atlas.graph)
    if output is None:
        click.echo(table_csv(stat, atlas), nl=False)
        click.echo(f"Moran's I {moran:.3f}", err=True)
        return
    path, sidecar = save_table(stat, output, atlas)
    click.echo(f"wrote {path} and {sidecar.name}: {len(stat.values)} regions, {len(stat.missing)} N/A, "
               f"Moran's I {moran:.3f}")
