"""``mapgen styles list|show`` and the ``--style NAME|FILE.yaml`` option of ``render`` and ``spec``."""

from __future__ import annotations

from typing import Any

import click

DEFAULT_STYLE = "default"  # mapgen.render.style.DEFAULT_STYLE (imported when a style is read: it loads the renderer)

style_option = click.option(
    "--style", "style_ref", default=None,
    help="Map style: a preset (`mapgen styles list`) or a style YAML file (default: default).")


def look_fields(ref: str | None, country: str) -> dict[str, Any]:
    """The spec style fields of a ``--style`` value for a country (none for no value or the default style);
    an unknown name or an invalid file is a usage error in one line."""
    if not ref or ref == DEFAULT_STYLE:
        return {}
    from mapgen.render.style import StyleError, load_style

    try:
        return load_style(ref).spec_defaults(country)
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
