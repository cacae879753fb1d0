"""VRSBench VQA question types for MAPWise questions.

VRSBench scores VQA per type: category, presence, quantity, colour, shape, size, position, direction, scene,
reasoning. On a choropleth map the "objects" are regions and legend classes, so a question gets the type of
the skill it tests. The table is keyed by MAPWise template number (``templates.csv``, 1–43; 14 is mapgen's
"X vs all its neighbours"), with the reason beside each entry:

====  ==========  ===================================================================================
 no.  type        why
====  ==========  ===================================================================================
  1   quantity    counts legend classes
  2   colour      darkness of the legend colours against value
  3   scene       overall legend range (a map-level property)
  4   colour      value range of a given shade
  5   colour      distinct colours vs shades of one colour
  6   scene       percentages vs absolute values (what the map is)
  7   scene       discrete vs continuous legend
  8   reasoning   compares the widths of all classes
  9   colour      reads one region's shade against a range
 10   colour      reads one region's shade on a colour bar against two numbers
 11   category    names the regions (objects) of a group that belong to a class
 12   colour      the darkest/lightest shade present in a group
 13   category    names the region with the extreme value in a group
 14   reasoning   compares a region with all its neighbours
 15   reasoning   ranks a group and lists the top/bottom N
 16   colour      reads one region's range from its shade
 17   quantity    counts regions in a range within a group
 18   reasoning   compares two bordering regions
 19   reasoning   compares two regions
 20   direction   north/south/east/west-most region meeting a neighbour condition
 21   reasoning   checks whether a region is extreme in a group
 22   reasoning   compares group averages
 23   quantity    counts regions above/below a number or in a range
 24   reasoning   median of a group
 25   reasoning   median range of a group
 26   category    names the regions of a group above/below a number
 27   reasoning   compares every group member with a region
 28   reasoning   same / most different value within a group
 29   quantity    the range holding the most/fewest regions (counting per class)
 30   reasoning   same / most different value, yes or no
 31   reasoning   majority quantifier over a group
 32   reasoning   outlier within a group
 33   reasoning   bordering pair with the largest difference
 34   direction   is X the direction-most region meeting a neighbour condition
 35   quantity    counts group members above/below a region
 36   direction   direction-most region in a range
 37   position    border relations between regions of a range (spatial adjacency)
 38   reasoning   above/below the group median
 39   reasoning   "all members" quantifier over a group
 40   position    closest pair of regions in a range (spatial distance)
 41   scene       spacing of the legend classes
 42   reasoning   two comparisons combined
 43   reasoning   ranks three regions
====  ==========  ===================================================================================

No MAPWise template asks about presence, shape or size (region shapes and areas are not what a choropleth
encodes); those types stay empty. Questions without a MAPWise number fall back by ``answer_type``
(:data:`ANSWER_TYPE_FALLBACK`). This module reads question records as plain data (a
:class:`mapgen.questions.record.Question` or its dict) and does not import the question engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

VQA_TYPES: tuple[str, ...] = (
    "category", "presence", "quantity", "colour", "shape", "size", "position", "direction", "scene", "reasoning",
)

MAPWISE_VQA_TYPE: dict[int, str] = {
    1: "quantity", 2: "colour", 3: "scene", 4: "colour", 5: "colour", 6: "scene", 7: "scene", 8: "reasoning",
    9: "colour", 10: "colour", 11: "category", 12: "colour", 13: "category", 14: "reasoning", 15: "reasoning",
    16: "colour", 17: "quantity", 18: "reasoning", 19: "reasoning", 20: "direction", 21: "reasoning",
    22: "reasoning", 23: "quantity", 24: "reasoning", 25: "reasoning", 26: "category", 27: "reasoning",
    28: "reasoning", 29: "quantity", 30: "reasoning", 31: "reasoning", 32: "reasoning", 33: "reasoning",
    34: "direction", 35: "quantity", 36: "direction", 37: "position", 38: "reasoning", 39: "reasoning",
    40: "position", 41: "scene", 42: "reasoning", 43: "reasoning",
}

ANSWER_TYPE_FALLBACK: dict[str, str] = {
    "count": "quantity", "binary": "reasoning", "single": "category", "list": "category", "range": "colour",
    "ranking": "reasoning",
}


def _get(question: Any, key: str) -> Any:
    if isinstance(question, Mapping):
        return question.get(key)
    return getattr(question, key, None)


def vqa_type(question: Any) -> str:
    """The VRSBench VQA type of a question record (Question or dict with ``mapwise_template``/``answer_type``)."""
    number = _get(question, "mapwise_template")
    if number is None:
        number = _get(question, "template_no")  # MAPWise's own question files
    if number is not None and int(number) in MAPWISE_VQA_TYPE:
        return MAPWISE_VQA_TYPE[int(number)]
    answer_type = _get(question, "answer_type")
    if answer_type in ANSWER_TYPE_FALLBACK:
        return ANSWER_TYPE_FALLBACK[answer_type]
    raise ValueError(
        f"Cannot type question {_get(question, 'question_id')!r}: no MAPWise template number (1-43) and "
        f"answer_type {answer_type!r} is not one of {', '.join(ANSWER_TYPE_FALLBACK)}."
    )
