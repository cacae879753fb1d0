"""Whether the region labels of a map fit on its page (the build's annotated variant and ``mapgen render`` ask).

Light to import: the canvas (:func:`mapgen.render.api.get_canvas`) is loaded only when the question is asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mapgen.spec import MapSpec

#: Most region labels a map carries as callouts beside the land (the built-in atlases need at most 16); an atlas
#: needing more is drawn unannotated, since its labels cannot fit legibly.
MAX_CALLOUTS = 30


def labels_fit(spec: MapSpec) -> bool:
    """Whether the labels of ``spec``'s atlas fit on its page: at most :data:`MAX_CALLOUTS` regions too small for
    their label inside (the renderer's label plan, computed once per atlas and layout)."""
    from mapgen.render.api import get_canvas

    canvas = get_canvas(spec.get_atlas(), spec.style)
    return sum(place.kind == "callout" for place in canvas.places.values()) <= MAX_CALLOUTS
