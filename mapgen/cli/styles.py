"""``mapgen styles list|show`` and the ``--style NAME|FILE.yaml`` option of ``render`` and ``spec``."""

from __future__ import annotations

from typing import Any

import click

DEFAULT_STYLE = "default"  # mapgen.render.style.DEFAULT_STYLE (imported when a style is read: it loads the renderer)

style_option = click.option(
    "--style", "style_ref", default=None,
    help="Map style: a preset (`mapgen styles list`) or a style YAML file (default: default).")


def look_fields(ref: str | None, country: Any) -> dict[str, Any]:
    """The spec style fields of a ``--style`` value for a country (none for no value or the default style);
    an unknown name or an invalid file is a usage error in one line. Given the country's Atlas (a map drawn
    from a country or a vector file, not from a spec that has its size), the fields hold the page size too:
    the style's size for the country, else the one its shape gives (:func:`~mapgen.render.layout.default_page_size`)."""
    from mapgen.render.style import StyleError, load_style

    try:
        look = load_style(ref or DEFAULT_STYLE)
        fields = {} if not ref or ref == DEFAULT_STYLE else look.spec_defaults(getattr(country, "name", country))
    except StyleError as exc:
        raise click.BadParameter(str(exc), param_hint="--style") from None
    if not isinstance(country, str) and "width" not in fields:
        fields["width"], fields["height"] = page_size(country, look)
    return fields


def page_size(atlas: Any, look: Any) -> tuple[int, int]:
    """:func:`~mapgen.render.layout.default_page_size` of ``atlas`` in ``look``, its shape read from
    ``atlas.bounds`` (a built-in atlas's page is sized without loading its geometry)."""
    from mapgen.render.layout import default_page_size, shape_size

    if atlas.name in look.sizes:
        return default_page_size(atlas, look)
    return shape_size(atlas.bounds, look)


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
