"""How region labels look, for both renderers: text colour and halo per fill, callout boxes, leader lines, dots.

- Inside labels on colour maps: black or white text, whichever contrasts more with the fill (WCAG contrast
  ratio), with a one-pixel halo of the other colour, so the text reads on any fill (a style may drop the halo,
  ``labels.halo: false``, as MAPWise prints its labels). On hatched maps: black text
  on a white box (hatch lines would cross the text).
- Callouts: black text on a white box with a dark grey frame — never the page colour, which would read as a hole
  in the map.
- Leader lines: a dark line on a white casing (visible on dark fills and unlike a hatch line, which has no
  casing), from the edge of the drawn box to a dark dot with a white rim inside the region.

- Full names (``--names``) are set where :meth:`AtlasCanvas.name_fit` found room for them: at the codes' size,
  on two lines, or in smaller type; a region without room keeps its code.

The label record of a map (``labels`` in its JSON) gives per region the text, kind, text box, for a name on two
lines its ``lines``, and for callouts the leader line's two end points and the dot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mapgen.geo.languages import names_for
from mapgen.legend import relative_luminance
from mapgen.render.canvas import AtlasCanvas, NameFit, label_box_color
from mapgen.render.placement import LabelPlace, exit_point
from mapgen.render.text import LATIN, TextItem, text_box

if TYPE_CHECKING:
    from mapgen.spec import MapSpec

LEADER_COLOR = "#1a1a1a"
LEADER_WIDTH_PX = 1.2
CASING_COLOR = "#ffffff"
DOT_RIM_PX = 1.0
CALLOUT_FRAME = "#4d4d4d"


@dataclass(frozen=True)
class DrawnLabel:
    """One region label as drawn: its text item (the first line of a name on two lines, the second in
    ``more``), the text box recorded in the map JSON (around every line), and for callouts the leader line (from
    the drawn box's edge to the dot) and the dot."""

    code: str
    kind: str
    item: TextItem
    box: tuple[float, float, float, float]
    line: tuple[tuple[float, float], tuple[float, float]] | None = None
    dot: tuple[float, float] | None = None
    dot_radius: float = 0.0
    more: tuple[TextItem, ...] = ()

    @property
    def items(self) -> tuple[TextItem, ...]:
        """Every text item of the label (one per line)."""
        return (self.item, *self.more)

    def record(self) -> dict[str, Any]:
        text = " ".join(i.text for i in self.items)
        out: dict[str, Any] = {"text": text, "kind": self.kind, "box": list(self.box)}
        if self.more:
            out["lines"] = [i.text for i in self.items]
        if self.line is not None and self.dot is not None:  # a callout has both
            out["line"] = [[round(v, 2) for v in p] for p in self.line]
            out["dot"] = [round(v, 2) for v in self.dot]
            out["dot_radius"] = round(self.dot_radius, 2)
        return out


def text_colors(face: str) -> tuple[str, str]:
    """Text colour and halo colour on a fill: the higher-contrast of black and white, the other as halo."""
    lum = relative_luminance(face)
    return ("#000000", "#ffffff") if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else ("#ffffff", "#000000")


def drawn_labels(canvas: AtlasCanvas, texts: dict[str, str], faces: dict[str, str], hatched: bool,
                 callout_frame: str = CALLOUT_FRAME, halo: bool = True) -> list[DrawnLabel]:
    """Every placed region label of a map, ready to draw (regions without a place get none); ``halo``: inside
    labels on colour maps get a halo (a style's ``labels.halo``)."""
    out = []
    for code in canvas.codes:
        place = canvas.places.get(code)
        if place is None:
            continue
        out.append(_drawn(canvas, code, place, texts[code], faces[code], hatched, callout_frame, halo))
    return out


def _drawn(canvas: AtlasCanvas, code: str, place: LabelPlace, text: str, face: str, hatched: bool,
           callout_frame: str = CALLOUT_FRAME, with_halo: bool = True) -> DrawnLabel:
    fill = label_box_color(place, hatched)
    color, halo = ("#000000", None) if fill else text_colors(face)
    halo = halo if with_halo else None
    fit = canvas.fitted(code, text) if place.kind == "inside" else None
    if fit is not None:
        return _drawn_name(code, fit, color, fill, halo, canvas.label_family)
    frame = callout_frame if place.kind == "callout" else None
    item = TextItem(place.xy[0], place.xy[1], text, canvas.label_px, color, "mm", fill, frame, halo, canvas.label_family)
    box = canvas.text_box(text, place.xy)
    if place.dot is None:
        return DrawnLabel(code, place.kind, item, box)
    start = exit_point(place.xy, place.dot, (box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1))
    return DrawnLabel(code, place.kind, item, box, (start, place.dot), place.dot, place.dot_radius)


def _drawn_name(code: str, fit: NameFit, color: str, fill: str | None, halo: str | None,
                family: str = LATIN) -> DrawnLabel:
    """A full name as :meth:`AtlasCanvas.name_fit` set it: one item per line, the box around all of them."""
    (x, y), layout = fit.xy, fit.layout
    items = [TextItem(x, y + dy, line, layout.size_px, color, "mm", fill, None, halo, family)
             for line, dy in zip(layout.lines, layout.offsets)]
    boxes = [text_box(i) for i in items]
    box = (min(b[0] for b in boxes) - 1, min(b[1] for b in boxes) - 1, max(b[2] for b in boxes) + 1,
           max(b[3] for b in boxes) + 1)
    return DrawnLabel(code, "inside", items[0], box, more=tuple(items[1:]))


def label_texts(spec: MapSpec, canvas: AtlasCanvas) -> dict[str, str]:
    """Text drawn on each region: its code (counterfactual code when set), or its full name where it fits — in the
    spec's language (``style.language``), where a name that does not fit falls back to the language's short
    label (Chinese 简称) when that fits inside, else the code."""
    cf = spec.counterfactual or {}
    codes = {c: (cf.get("labels") or {}).get(c) or c for c in canvas.codes}
    if spec.style.label_mode != "names":
        return codes
    native = None if cf.get("names") else names_for(spec.style.language, canvas.atlas.name)
    if native is None:
        names = cf.get("names") or canvas.atlas.names
        return {c: names[c] if canvas.name_fits(c, names[c]) else codes[c] for c in canvas.codes}
    return {c: _local_label(canvas, c, native.name(c), native.label(c), codes[c]) for c in canvas.codes}


def _local_label(canvas: AtlasCanvas, code: str, name: str, short: str | None, fallback: str) -> str:
    """The first of a region's name and its short label that fits: inside the region, or for a callout in the
    box every label plans for (:meth:`AtlasCanvas.callout_fits`: Chinese short names; the plan of a Chinese
    names page reserves room for them); else its code."""
    place = canvas.places.get(code)
    if place is not None and place.kind == "callout":
        return next((t for t in (name, short) if t and canvas.callout_fits(t)), fallback)
    if canvas.name_fits(code, name):
        return name
    if short and canvas.name_fits(code, short):
        return short
    return fallback
