"""The legend and title options of ``mapgen render`` and how they apply to a map read from a JSON file.

One place decides what an option means for a spec that already exists: colour options recolour its classes,
classification options classify its values again (both through :func:`mapgen.mapmaking.relegend`, as the
changes the options ask), ``--title`` retitles it, and an option that cannot apply
(a table option on a spec, a colour on a hatched map, any legend change on a counterfactual or MAPWise map)
is a usage error naming the option — never silently ignored.

Kept free of heavy imports at module level (``mapgen render --help`` must not load pandas or matplotlib).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from mapgen.schemes import scheme_name

if TYPE_CHECKING:
    from mapgen.spec import LegendChoice, MapSpec

#: Options that classify the values again (the legend is rebuilt from the spec's values).
CLASSIFY_OPTIONS = ("legend", "classes", "scheme", "breaks")
#: Options that only recolour the existing classes.
COLOUR_OPTIONS = ("colormap", "reverse")
#: Options that say how to read a country, a vector file or a table: meaningless for a map JSON.
SOURCE_OPTIONS = ("stat", "data", "region_col", "value_col", "kind", "unit", "on_missing", "name_field",
                  "code_field")


def option_flag(name: str) -> str:
    """The command-line spelling of a parameter name (``region_col`` → ``--region-col``)."""
    return "--" + name.replace("_", "-")


def given_options(ctx: click.Context) -> set[str]:
    """The parameters the user set (on the command line or through the environment), not left at defaults."""
    sources = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    return {name for name in ctx.params if ctx.get_parameter_source(name) in sources}


def parse_breaks(text: str | None) -> list[float] | None:
    """``--breaks 1,2,3`` as floats (None when not given); a usage error naming the option otherwise."""
    if not text:
        return None
    try:
        return [float(b) for b in text.split(",") if b.strip()]
    except ValueError:
        raise click.BadParameter(f"breaks must be comma-separated numbers, got {text!r}",
                                 param_hint="--breaks") from None


def refuse_source_options(given: set[str], source: str) -> None:
    """Options about reading a country or a table make no sense for a map JSON: exit 2 naming them."""
    wrong = [option_flag(n) for n in SOURCE_OPTIONS if n in given]
    if wrong:
        raise click.UsageError(f"{', '.join(wrong)} {'applies' if len(wrong) == 1 else 'apply'} to a country or a "
                               f"vector file, not to the map JSON {source!r}.")


def apply_to_spec(spec: MapSpec, options: dict[str, Any], given: set[str]) -> MapSpec:
    """``spec`` with the legend and title options the user gave applied (unchanged when none was given)."""
    legend_given = [n for n in (*CLASSIFY_OPTIONS, *COLOUR_OPTIONS, "order") if n in given]
    if legend_given:
        from mapgen.mapmaking import relegend

        _check_legend_change(spec, legend_given)
        spec = relegend(spec, _legend_changes(spec, options, given))
    if "title" in given:
        spec = replace(spec, title=options["title"] or "")
    if legend_given or "title" in given:
        from mapgen.spec import content_id

        spec = replace(spec, map_id=content_id(spec))
    return spec


def _check_legend_change(spec: MapSpec, names: list[str]) -> None:
    """A legend option on a map whose legend is fixed by where it came from: exit 2 naming the option."""
    flag = option_flag(names[0])
    if spec.counterfactual:
        raise click.BadParameter("a counterfactual map keeps the legend of its original; apply it to the "
                                 "original spec, then make the counterfactual.", param_hint=flag)
    if spec.legend.mapwise is not None:
        raise click.BadParameter("a map imported from MAPWise metadata keeps the published legend; use "
                                 "`mapgen spec --stat/--data` for a new one.", param_hint=flag)
    colour = [option_flag(n) for n in COLOUR_OPTIONS if n in names]
    if spec.hatched and colour:
        raise click.BadParameter("a hatched map is black and white; drop it or render the colour map.",
                                 param_hint=colour[0])


def _colour_choice(spec: MapSpec, options: dict[str, Any], given: set[str]) -> tuple[str, bool]:
    """The colormap and reversal to use: ``--colormap`` (with ``--reverse``), else the spec's own colours,
    flipped by ``--reverse``."""
    legend = spec.legend
    if "colormap" in given and options["colormap"]:
        return options["colormap"], bool(options["reverse"])
    return legend.colormap, legend.reversed != bool(options.get("reverse"))


def _legend_changes(spec: MapSpec, options: dict[str, Any], given: set[str]) -> dict[str, Any]:
    """The legend changes the options given ask of ``spec`` (:func:`mapgen.mapmaking.relegend`): the
    classification options given, and always the colours (:func:`_colour_choice`)."""
    names = {"legend": "kind", "classes": "classes", "scheme": "scheme", "order": "order"}
    changes = {key: options[name] for name, key in names.items() if name in given}
    if "breaks" in given:
        changes["breaks"] = parse_breaks(options.get("breaks"))
    changes["colormap"], changes["reverse"] = _colour_choice(spec, options, given)
    return changes


def legend_choice(options: dict[str, Any], colormap: str, scale: Any = None) -> LegendChoice:
    """The legend the options of ``render`` / ``spec`` ask for (``colormap``: the one to use)."""
    from mapgen.spec import LegendChoice

    breaks = parse_breaks(options["breaks"])
    return LegendChoice(options["legend"], options["classes"], options["scheme"], options["order"], colormap,
                        options["reverse"], options["hatched"], None if breaks is None else tuple(breaks), scale)


def scheme_option(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """``--scheme`` checked against the registered schemes (:mod:`mapgen.schemes`), in its registered spelling."""
    try:
        return scheme_name(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
