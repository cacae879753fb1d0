"""``mapgen atlas ...``: regions, borders and named groups of a built-in atlas or a user vector file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from mapgen.cli.sources import atlas_options
from mapgen.geo.atlas import list_atlases
from mapgen.geo.names import UnknownNameError
from mapgen.mapmaking import open_atlas

if TYPE_CHECKING:
    from mapgen.geo.atlas_model import Atlas

# --- atlas -------------------------------------------------------------------------------------------------


@click.group()
def atlas() -> None:
    """Regions, borders and named groups of the built-in atlases or a vector file."""


@atlas.command("list")
def atlas_list() -> None:
    """List the built-in atlases."""
    for name in list_atlases():
        a = open_atlas(name)
        click.echo(f"{name}\t{a.title}\t{len(a.codes)} regions\t{a.graph.number_of_edges()} borders")
    from mapgen.resources import data_path

    examples = data_path("examples")
    for folder in sorted(examples.iterdir(), key=lambda p: p.name) if examples.is_dir() else []:
        for item in folder.iterdir() if folder.is_dir() else []:
            if item.name.endswith(".geojson"):
                click.echo(f"example user atlas: {item}  (build config: {folder / (folder.name + '.yaml')})")


@atlas.command("show")
@click.argument("country")
@click.option("--json", "as_json", is_flag=True, help="Print every region as JSON.")
@atlas_options
def atlas_show(country: str, as_json: bool, name_field: str | None, code_field: str | None) -> None:
    """Every region of COUNTRY (a name or a GeoJSON/GeoPackage/shapefile path): code, name, aliases,
    neighbours, foreign borders, groups."""
    a = open_atlas(country, name_field, code_field)
    records = [a.region_record(c) for c in a.codes]
    if as_json:
        source = {"file": a.file.record()} if a.file else {}
        borders = {"borders": {"rule": a.border_rule, "contested": sorted(sorted(p) for p in a.contested),
                               "left_out": [list(d) for d in a.dropped_borders]}}
        click.echo(json.dumps({"atlas": a.name, "title": a.title, **source, "regions": records, **borders}, indent=2))
        return
    for r in records:
        foreign = ", ".join(r["foreign_borders"]) or "-"
        click.echo(f"{r['code']}\t{r['name']}\tneighbours: {' '.join(r['neighbors']) or '-'}\tforeign: {foreign}")
    if a.file is not None:
        click.echo(border_outcome(a), err=True)


def border_outcome(a: Atlas) -> str:
    """One line on what the border rule made of an atlas: the rule, borders, contested pairs, contacts left out."""
    contested = ", ".join("–".join(sorted(p)) for p in sorted(a.contested, key=sorted)) or "none"
    return (f"borders: {a.graph.number_of_edges()} ({a.border_rule}); contested: {contested}; "
            f"contacts left out: {len(a.dropped_borders)}")


@atlas.command("neighbors")
@click.argument("country")
@click.argument("region")
@atlas_options
def atlas_neighbors(country: str, region: str, name_field: str | None, code_field: str | None) -> None:
    """Codes of the regions bordering REGION of COUNTRY (a name or a vector file path)."""
    a = open_atlas(country, name_field, code_field)
    with _listed_by(f"mapgen atlas show {country}"):
        click.echo(" ".join(sorted(a.neighbors(region))))


@contextmanager
def _listed_by(command: str) -> Iterator[None]:
    """An unknown name with no close match also names the command that lists the valid ones."""
    try:
        yield
    except UnknownNameError as exc:
        if not exc.matches:
            exc.args = (f"{exc}; `{command}` lists them",)
        raise


@atlas.command("group")
@click.argument("country")
@click.argument("name", required=False)
@atlas_options
def atlas_group(country: str, name: str | None, name_field: str | None, code_field: str | None) -> None:
    """Members of the named group NAME (without NAME: list the groups) of COUNTRY (a name or a file path)."""
    a = open_atlas(country, name_field, code_field)
    if name is None:
        for g in a.groups.values():
            click.echo(f"{g.name}\t{len(g.members)}\t{' '.join(sorted(g.members))}")
        return
    with _listed_by(f"mapgen atlas group {country}"):
        click.echo(" ".join(sorted(a.group(name))))
