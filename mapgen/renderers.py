"""The renderer registry: the one door through which built-in and user renderers become known.

:func:`register_renderer` adds a :class:`Renderer` under a name (``Style.renderer``, ``--renderer``, a config's
``variants.renderers`` name it) with the output formats it writes; :func:`get_renderer` gives the one long-lived
instance of a name; :func:`renderer_names` lists them (built-ins first: matplotlib, plotly). A renderer may be
registered as an instance, as a class or zero-argument factory (made on first use), or as a ``"module:attribute"``
path imported on first use — the built-ins are registered that way, so naming a renderer loads no drawing library.
This module imports nothing heavy: the CLI reads its names for ``--help``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

#: Output file suffix → the format a renderer is asked to draw (``fmt``).
SUFFIX_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf", ".html": "html"}
OUTPUT_SUFFIXES = tuple(SUFFIX_FORMATS)


@runtime_checkable
class Renderer(Protocol):
    """What a renderer does: draw ``spec`` (a :class:`~mapgen.spec.MapSpec`) on ``canvas`` (its page geometry, a
    :class:`~mapgen.render.canvas.AtlasCanvas`: region paths in pixels, mask, label plan) in format ``fmt`` (one
    of those it was registered with) and return (image bytes, legend item boxes, label records)."""

    name: str

    def draw(self, spec: Any, canvas: Any, fmt: str = "png") -> tuple[bytes, list[dict[str, Any]], dict[str, Any]]: ...


Made = Renderer | Callable[[], Renderer] | str


@dataclass
class _Entry:
    made: Made
    formats: tuple[str, ...]
    instance: Renderer | None = None


_RENDERERS: dict[str, _Entry] = {}


class UnknownRendererError(ValueError):
    """A renderer name no registered renderer has."""


def register_renderer(name: str, renderer: Made, *, formats: tuple[str, ...] = ("png",), replace: bool = False) -> None:
    """Register ``renderer`` — a :class:`Renderer`, a class or zero-argument factory making one, or a
    ``"module:attribute"`` path to either — under ``name``, writing ``formats`` (of :data:`SUFFIX_FORMATS`'s
    values; ``png`` first). ``replace`` overrides a renderer of the same name."""
    if not name or not isinstance(name, str):
        raise ValueError(f"a renderer needs a name, got {name!r}")
    if name in _RENDERERS and not replace:
        raise ValueError(f"a renderer named {name!r} is already registered (pass replace=True to override it)")
    unknown = [f for f in formats if f not in SUFFIX_FORMATS.values()]
    if unknown or "png" not in formats:
        raise ValueError(f"renderer {name!r}: formats must include 'png' and be among "
                         f"{', '.join(SUFFIX_FORMATS.values())}, got {formats!r}")
    _RENDERERS[name] = _Entry(renderer, tuple(formats))


def unregister_renderer(name: str) -> None:
    """Forget a registered renderer (tests and notebooks that registered a toy one)."""
    _RENDERERS.pop(name, None)


def renderer_names() -> tuple[str, ...]:
    """Names of every registered renderer, in registration order."""
    return tuple(_RENDERERS)


def check_renderer(name: str) -> str:
    """``name`` when a renderer of that name is registered (:class:`UnknownRendererError` naming the choices)."""
    if name not in _RENDERERS:
        raise UnknownRendererError(f"unknown renderer {name!r}; choose one of {', '.join(_RENDERERS)} (or register "
                                   "one: mapgen.renderers.register_renderer)")
    return name


def get_renderer(name: str) -> Renderer:
    """The one long-lived instance of the renderer registered as ``name`` (made on first use)."""
    entry = _RENDERERS[check_renderer(name)]
    if entry.instance is None:
        entry.instance = _instance(name, entry.made)
    return entry.instance


def _instance(name: str, made: Made) -> Renderer:
    """The renderer ``made`` stands for: imported when a path, called when a class or factory."""
    found: Any = made
    if isinstance(found, str):
        module, _, attribute = found.partition(":")
        found = getattr(importlib.import_module(module), attribute)
    if isinstance(found, type) or not isinstance(found, Renderer):
        found = found()
    if not isinstance(found, Renderer):
        raise TypeError(f"renderer {name!r} is not a mapgen Renderer (a `name` and a `draw(spec, canvas, fmt)`): {found!r}")
    return found


def output_problem(suffix: str, renderer: str) -> str | None:
    """Why ``renderer`` cannot write a file ending in ``suffix`` (one line naming what can), or None."""
    fmt = SUFFIX_FORMATS.get(suffix.lower())
    if fmt is None:
        return f"unsupported output suffix {suffix!r}; use one of {', '.join(OUTPUT_SUFFIXES)}"
    check_renderer(renderer)
    if fmt in _RENDERERS[renderer].formats:
        return None
    able = [n for n, e in _RENDERERS.items() if fmt in e.formats]
    own = ", ".join(s for s, f in SUFFIX_FORMATS.items() if f in _RENDERERS[renderer].formats)
    return (f"{fmt.upper()} output needs the {' or '.join(able)} renderer (--renderer {able[0]}); "
            f"the {renderer} renderer writes {own}")


register_renderer("matplotlib", "mapgen.render.mpl_renderer:MatplotlibRenderer", formats=("png", "svg", "pdf"))
register_renderer("plotly", "mapgen.render.plotly_renderer:PlotlyRenderer", formats=("png", "svg", "pdf", "html"))
