"""The matplotlib renderer's vector output (SVG, PDF): the PNG's page drawn again with the texts as matplotlib text artists (same
fonts, sizes, anchors, boxes and halos as PIL draws them), saved without a timestamp. The plotly renderer writes
SVG, PDF and interactive HTML of its own figure (:mod:`mapgen.render.plotly_renderer`); which renderer writes
which suffix is registered with it (:mod:`mapgen.renderers`).

The mask and the pixel facts of a vector or HTML render are those of the PNG layout (the same canvas).
"""

from __future__ import annotations

import io
from typing import Any

from matplotlib import patheffects, rc_context
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle

from mapgen.render.text import TextItem, font_for, text_box

#: Output suffix → matplotlib format; PNG is the renderer's own raster path.
VECTOR_FORMATS = {".svg": "svg", ".pdf": "pdf"}
#: PIL anchor letters → matplotlib horizontal and vertical alignment.
_HA = {"l": "left", "m": "center", "r": "right"}
_VA = {"t": "top", "m": "center_baseline", "s": "baseline", "b": "bottom", "a": "top", "d": "bottom"}
_METADATA = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}


def text_artists(ax: Any, items: list[TextItem], dpi: int) -> list[Any]:
    """Matplotlib artists for PIL text items on an axes in pixel coordinates: the background box (as PIL pads
    it), then the text with its halo."""
    pt = 72.0 / dpi
    artists: list[Any] = []
    for item in items:
        if item.background:
            x1, y1, x2, y2 = text_box(item)
            rect = Rectangle((x1 - 2, y1 - 2), x2 - x1 + 4, y2 - y1 + 4, facecolor=item.background,
                             edgecolor=item.frame or "none", linewidth=pt, zorder=9)
            ax.add_artist(rect)
            artists.append(rect)
        path = font_for(item.text, item.size_px, item.family).path
        assert isinstance(path, str), path  # fonts are loaded from files (mapgen.render.text)
        prop = FontProperties(fname=path, size=item.size_px * pt)
        effects = [patheffects.withStroke(linewidth=2 * pt, foreground=item.halo)] if item.halo else None
        artists.append(ax.text(item.x, item.y, item.text, fontproperties=prop, color=item.color,
                               ha=_HA[item.anchor[0]], va=_VA[item.anchor[1]], zorder=10, path_effects=effects))
    return artists


def save_vector(fig: Any, fmt: str, facecolor: Any) -> bytes:
    """The figure as SVG or PDF bytes (no creation date, so the same map gives the same bytes)."""
    buf = io.BytesIO()
    with rc_context({"svg.hashsalt": "mapgen"}):  # fixed ids of clip paths and glyphs
        fig.savefig(buf, format=fmt, facecolor=facecolor, metadata=_METADATA[fmt])
    return buf.getvalue()
