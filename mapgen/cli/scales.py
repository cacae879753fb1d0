"""The ``--scale``, ``--clip`` and ``--midpoint`` options of ``render`` and ``spec`` (colour-bar scales)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from mapgen.legend import ScaleOptions

#: ``mapgen.legend.SCALES`` (not imported here: it loads pandas, and ``render --help`` must not).
SCALES = ("linear", "log", "clip")


def scale_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--scale linear|log|clip``, ``--clip LOW,HIGH`` (percentiles) and ``--midpoint X`` to a command."""
    for option in reversed((
        click.option("--scale", type=click.Choice(SCALES), default=None,
                     help="Colour-bar scale of a continuous legend (default linear)."),
        click.option("--clip", default=None,
                     help="Percentiles the clip scale spans, e.g. 2,98 (the default); the ends are marked."),
        click.option("--midpoint", type=float, default=None,
                     help="Value at a diverging colormap's centre, e.g. 0 (default: the data's median)."),
    )):
        command = option(command)
    return command


def scale_of(options: dict[str, Any]) -> ScaleOptions | None:
    """The :class:`ScaleOptions` the options ask for (None when none is given); bad values are usage errors."""
    scale, clip, midpoint = options.get("scale"), options.get("clip"), options.get("midpoint")
    if scale is None and clip is None and midpoint is None:
        return None
    try:
        percentiles = None if clip is None else tuple(float(v) for v in clip.split(","))
        if percentiles is not None and len(percentiles) != 2:
            raise ValueError
    except ValueError:
        raise click.BadParameter(f"--clip takes two percentiles such as 2,98, not {clip!r}.") from None
    if midpoint is not None and (midpoint != midpoint or abs(midpoint) == float("inf")):  # NaN or ±inf
        raise click.BadParameter(f"--midpoint must be a finite number, not {midpoint!r}; give e.g. --midpoint 0.")
    from mapgen.legend import ScaleOptions

    try:
        return ScaleOptions(scale or ("clip" if clip else "linear"), percentiles, midpoint)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
