"""Rendering: MapSpec → PNG image, region-id mask and pixel facts (ARCHITECTURE.md §4).

``render(spec, "out/map.png")`` writes ``map.png``, ``map.mask.png`` and ``map.json`` (the spec, pixel facts per
region, legend item boxes, label boxes) and returns a :class:`RenderResult` whose ``scene`` carries the
legibility flags. Files are written to temporary names and renamed, so an output is never half-written.

The names below are imported from :mod:`mapgen.render.api` on first use, so importing a light submodule
(``mapgen.render.style``, ``mapgen.render.label_fit``) does not load matplotlib and shapely.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mapgen.render.api import (
        RenderResult,
        hatched_in_style,
        hatched_variant,
        render,
        render_variants,
    )
    from mapgen.renderers import Renderer, get_renderer, register_renderer

__all__ = ["RenderResult", "Renderer", "get_renderer", "hatched_in_style", "hatched_variant", "register_renderer",
           "render", "render_variants"]
_REGISTRY = ("Renderer", "get_renderer", "register_renderer")  # from mapgen.renderers


def __getattr__(name: str) -> Any:
    """``mapgen.render.render`` and the rest of :data:`__all__`, imported from :mod:`mapgen.render.api` when first asked for."""
    if name in _REGISTRY:
        from mapgen import renderers

        return getattr(renderers, name)
    if name in __all__:
        from mapgen.render import api

        return getattr(api, name)
    raise AttributeError(f"module 'mapgen.render' has no attribute {name!r}")
