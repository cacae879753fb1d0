"""The matplotlib renderer's vector output (SVG, PDF): the PNG's page drawn again with the texts as matplotlib text artists (same
fonts, sizes, anchors, boxes and halos as PIL draws them), saved without a timestamp. An SVG keeps its texts as
``<text>`` elements (``svg.fonttype: none``, set for that save only) naming the font they were measured in, a
halo as the text's own stroke painted under its fill (``paint-order: stroke``), so titles, labels and legend
texts can be searched, selected and edited (``svg_text=False`` draws them as glyph outlines, as in a PDF). The
plotly renderer writes SVG, PDF and interactive HTML of its own figure (:mod:`mapgen.render.plotly_renderer`);
which renderer writes which suffix is registered with it (:mod:`mapgen.renderers`).

The mask and the pixel facts of a vector or HTML render are those of the PNG layout (the same canvas).
"""

from __future__ import annotations

import io
import re
from typing import Any

from matplotlib import patheffects, rc_context
from matplotlib.colors import to_hex
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle

from mapgen.render.text import TextItem, css_font, css_weight, font_for, text_box

#: Output suffix → matplotlib format; PNG is the renderer's own raster path.
VECTOR_FORMATS = {".svg": "svg", ".pdf": "pdf"}
#: PIL anchor letters → matplotlib horizontal and vertical alignment.
_HA = {"l": "left", "m": "center", "r": "right"}
_VA = {"t": "top", "m": "center_baseline", "s": "baseline", "b": "bottom", "a": "top", "d": "bottom"}
_METADATA = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}


#: The id prefix of a haloed text's group in an SVG (:func:`_stroke_halos` finds them by it).
_HALO_ID = "mapgen-halo-"


def text_artists(ax: Any, items: list[TextItem], dpi: int, as_text: bool = False) -> list[Any]:
    """Matplotlib artists for PIL text items on an axes in pixel coordinates: the background box (as PIL pads
    it), then the text with its halo. ``as_text`` (an SVG keeping its texts): the font's family and weight are
    named for the SVG, and a halo is left to :func:`save_vector` (a path effect would turn the text to paths)."""
    pt = 72.0 / dpi
    artists: list[Any] = []
    for index, item in enumerate(items):
        if item.background:
            x1, y1, x2, y2 = text_box(item)
            rect = Rectangle((x1 - 2, y1 - 2), x2 - x1 + 4, y2 - y1 + 4, facecolor=item.background,
                             edgecolor=item.frame or "none", linewidth=pt, zorder=9)
            ax.add_artist(rect)
            artists.append(rect)
        prop = _font_properties(item, pt, as_text)
        effects = [patheffects.withStroke(linewidth=2 * pt, foreground=item.halo)] if item.halo and not as_text else None
        text = ax.text(item.x, item.y, item.text, fontproperties=prop, color=item.color,
                       ha=_HA[item.anchor[0]], va=_VA[item.anchor[1]], zorder=10, path_effects=effects)
        if item.halo and as_text:
            text.set_gid(f"{_HALO_ID}{index}-{_hex(item.halo)}-{2 * pt:.6g}")
        artists.append(text)
    return artists


def _font_properties(item: TextItem, pt: float, as_text: bool) -> FontProperties:
    """The font of a text item (its file, so metrics match PIL's); for an SVG text also its CSS family and weight
    (the family PIL set it in, then a generic family)."""
    path = font_for(item.text, item.size_px, item.family).path
    assert isinstance(path, str), path  # fonts are loaded from files (mapgen.render.text)
    if not as_text:
        return FontProperties(fname=path, size=item.size_px * pt)
    family = css_font(item.text, item.size_px, item.family)[0]
    generic = "monospace" if "Mono" in family else "serif" if "Serif" in family else "sans-serif"
    return FontProperties(fname=path, size=item.size_px * pt, family=[family, generic], weight=css_weight(item.family))


def _hex(color: str) -> str:
    """A colour as six hex digits (an id may not hold ``#``)."""
    return to_hex(color).lstrip("#")


def save_vector(fig: Any, fmt: str, facecolor: Any, svg_text: bool = True) -> bytes:
    """The figure as SVG or PDF bytes (no creation date, so the same map gives the same bytes); an SVG with its
    texts as ``<text>`` unless not ``svg_text`` (then as outlines, as in a PDF)."""
    buf = io.BytesIO()
    as_text = fmt == "svg" and svg_text
    # texts as <text>, each naming its own font, then one fallback per generic family (not matplotlib's lists)
    text_params: dict[Any, Any] | None = {"svg.fonttype": "none", "font.sans-serif": ["DejaVu Sans"], "font.serif": ["DejaVu Serif"],
                                        "font.monospace": ["DejaVu Sans Mono"]} if as_text else None
    with rc_context({"svg.hashsalt": "mapgen"}), rc_context(text_params):  # fixed ids of clip paths and glyphs
        fig.savefig(buf, format=fmt, facecolor=facecolor, metadata=_METADATA[fmt])
    return _stroke_halos(buf.getvalue()) if as_text else buf.getvalue()


_HALO_TEXT = re.compile(rb'(<g id="' + _HALO_ID.encode() + rb'\d+-([0-9a-f]{6})-([0-9.e+-]+)">\s*<text style=")')


def _stroke_halos(svg: bytes) -> bytes:
    """Each haloed ``<text>`` of an SVG stroked in its halo colour and width under its fill (what the PNG's
    path effect draws)."""
    def stroke(match: re.Match[bytes]) -> bytes:
        color, width = match.group(2).decode(), match.group(3).decode()
        return match.group(1) + f"stroke: #{color}; stroke-width: {width}; paint-order: stroke; ".encode()

    return _HALO_TEXT.sub(stroke, svg)
