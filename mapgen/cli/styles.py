"""``mapgen styles list|show`` and the ``--style NAME|FILE.yaml`` option of ``render`` and ``spec`` (what a style
sets on a map: :func:`mapgen.mapmaking.look_fields`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

style_option = click.option(
    "--style", "style_ref", default=None,
    help="Map style: a preset (`mapgen styles list`) or a style YAML file (default: default).")


@contextmanager
def style_errors() -> Iterator[None]:
    """Inside: a bad ``--style`` (an unknown name, an invalid file) is a usage error in one line."""
    from mapgen.render.style import StyleError

    try:
        yield
    except StyleError as exc:
        raise click.BadParameter(str(exc), param_hint="--style") from None


@click.group("styles")
def styles() -> None:
    """Map styles: the presets that ship, and what each sets."""


@styles.command("list")
def list_styles() -> None:
    """One preset name per line."""
    from mapgen.render.style import preset_names

    for name in preset_names():
        click.echo(name)


@styles.command("show")
@click.argument("name")
def show_style(name: str) -> None:
    """Print the YAML of preset NAME (or of a style file, after checking it)."""
    from mapgen.render.style import StyleError, load_style, style_source

    try:
        load_style(name)
        click.echo(style_source(name)[1], nl=False)
    except StyleError as exc:
        raise click.BadParameter(str(exc), param_hint="NAME") from None
