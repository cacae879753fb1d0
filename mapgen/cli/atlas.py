"""``mapgen atlas ...``: regions, borders and named groups."""

from __future__ import annotations

import json

import click

from mapgen.geo.atlas import list_atlases, load_atlas

# --- atlas -------------------------------------------------------------------------------------------------


@click.group()
def atlas() -> None:
    """Regions, borders and named groups of the built-in atlases."""


@atlas.command("list")
def atlas_list() -> None:
    """List the built-in atlases."""
    for name in list_atlases():
        a = load_atlas(name)
        click.echo(f"{name}\t{a.title}\t{len(a.codes)} regions\t{a.graph.number_of_edges()} borders")


@atlas.command("show")
@click.argument("country")
@click.option("--json", "as_json", is_flag=True, help="Print every region as JSON.")
def atlas_show(country: str, as_json: bool) -> None:
    """Every region of COUNTRY: code, name, aliases, neighbours, foreign borders, groups."""
    a = load_atlas(country)
    records = [a.region_record(c) for c in a.codes]
    if as_json:
        click.echo(json.dumps({"atlas": a.name, "title": a.title, "regions": records}, indent=2))
        return
    for r in records:
        foreign = ", ".join(r["foreign_borders"]) or "-"
        click.echo(f"{r['code']}\t{r['name']}\tneighbours: {' '.join(r['neighbors']) or '-'}\tforeign: {foreign}")


@atlas.command("neighbors")
@click.argument("country")
@click.argument("region")
def atlas_neighbors(country: str, region: str) -> None:
    """Codes of the regions bordering REGION."""
    click.echo(" ".join(sorted(load_atlas(country).neighbors(region))))


@atlas.command("group")
@click.argument("country")
@click.argument("name", required=False)
def atlas_group(country: str, name: str | None) -> None:
    """Members of the named group NAME (without NAME: list the groups)."""
    a = load_atlas(country)
    if name is None:
        for g in a.groups.values():
            click.echo(f"{g.name}\t{len(g.members)}\t{' '.join(sorted(g.members))}")
        return
    click.echo(" ".join(sorted(a.group(name))))
