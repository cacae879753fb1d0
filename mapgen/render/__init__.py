"""Rendering: MapSpec → PNG image, region-id mask and pixel facts (ARCHITECTURE.md §4).

``render(spec, "out/map.png")`` writes ``map.png``, ``map.mask.png`` and ``map.json`` (the spec, pixel facts per
region, legend item boxes, label boxes) and returns a :class:`RenderResult` whose ``scene`` carries the
legibility flags. Files are written to temporary names and renamed, so an output is never half-written.
"""

from mapgen.render.api import Renderer, RenderResult, get_renderer, render, render_variants

__all__ = ["RenderResult", "Renderer", "get_renderer", "render", "render_variants"]
