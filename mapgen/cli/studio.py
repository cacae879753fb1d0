"""``mapgen templates studio``: the template studio page of one or more packs (:mod:`mapgen.studio`)."""

from __future__ import annotations

from pathlib import Path

import click

from mapgen.cli.limits import SEED, bounded

PER_MAP = bounded(1, 20)
PORT = bounded(0, 65535)


@click.command("studio")
@click.argument("packs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--maps", "map_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Map JSON (a spec, MAPWise metadata or what `mapgen render` writes; repeatable) to ask on "
                   "(default: a discrete and a continuous US map and a discrete Indian one).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the page here (an .html file).")
@click.option("--serve", is_flag=True, help="Serve the page on localhost instead of writing a file.")
@click.option("--port", type=PORT, default=8765, show_default=True, help="Port for --serve (0: any free port).")
@click.option("--watch", is_flag=True, help="Make the page again whenever a file of the packs changes (an open "
                                            "page reloads); Ctrl-C stops.")
@click.option("-n", "per_map", type=PER_MAP, default=3, show_default=True, help="Questions per template and map.")
@click.option("--seed", type=SEED, default=0, show_default=True)
def studio(packs: tuple[str, ...], map_files: tuple[str, ...], output: str | None, serve: bool, port: int,
           watch: bool, per_map: int, seed: int) -> None:
    """A page showing each template of PACKS on a few maps: questions, gold answers, program traces, refused
    draws and lint messages. A pack's functions.py is Python and runs when the pack is named."""
    if serve == bool(output):
        raise click.UsageError("give either -o PAGE.html or --serve")
    if output:
        _check_output(Path(output), packs)
    from mapgen.studio import Studio, default_maps, load_maps, serve_studio, write_studio

    maps = load_maps(map_files) if map_files else default_maps()
    page = Studio(packs, maps, per_map=per_map, seed=seed)
    try:
        if output:
            write_studio(page, output, watch=watch, said=lambda line: click.echo(line, err=True))
        else:
            serve_studio(page, port, watch=watch, said=lambda line: click.echo(line, err=True))
    except KeyboardInterrupt:
        click.echo("stopped", err=True)


def _check_output(out: Path, packs: tuple[str, ...]) -> None:
    """Refuse a page path that is not ``.html`` or lies inside a pack (writing it would be a change to watch)."""
    if out.suffix.lower() not in (".html", ".htm"):
        raise click.BadParameter(f"{out} is no .html file; name the page like studio.html", param_hint="-o")
    for pack in map(Path, packs):
        if out.resolve() == pack.resolve() or (pack.is_dir() and out.resolve().is_relative_to(pack.resolve())):
            raise click.BadParameter(f"{out} lies in the pack {pack}; write the page outside it", param_hint="-o")
