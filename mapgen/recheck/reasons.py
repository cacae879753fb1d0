"""Why a re-check verdict is "ambiguous": named reason buckets a reviewer can check, and the near-tie rule.

Every ambiguous verdict carries one bucket of :data:`AMBIGUOUS_BUCKETS` (``Verdict.bucket``; counted in
``summary.json`` as ``ambiguous_by_reason``). There is no catch-all bucket: a new way of being ambiguous needs a
name here first.

A question the engine rejects as a near tie on a continuous map (values closer than the reading tolerance r) is
a near tie only when it is one under the legend's own precision: it is re-asked with each value known to ± half
the finest digit the colour bar prints (:func:`legend_precision`: ``700, 800, 900`` → 100; ``0.14, 0.16`` → 0.01;
``20M, 40M`` → 10M). Asked there, it is judged (with a note): an agreement stands; a disagreement stands only
when the bar's ticks were read off the published image (otherwise the ticks are mapgen's, and it stays a
``near_tie``); rejected there too, it is a ``near_tie``. On a discrete map the legend's precision is the class: a rejection is a ``class_tie``.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from mapgen.legend.grammar import parse_number
from mapgen.questions import Question, Template, Unaskable, ask, reading
from mapgen.scene import Scene

#: bucket → what it means (the docs' table and ``summary.json`` use these names).
AMBIGUOUS_BUCKETS: dict[str, str] = {
    "near_tie": "values closer than the legend's own printed precision (continuous map): the map cannot say",
    "class_tie": "regions tie in one legend class, or the class set is degenerate (discrete map): the map cannot say",
    "degenerate": "no answer even on the exact values (an exact tie, too few members, an answer forced by "
                  "construction)",
    "no_data": "a region the question names has no value, or the question has an answer once the regions without "
               "a value (N/A) are left off the map",
    "beyond_ticks": "a value lies beyond the colour bar's labelled ticks: no legend range holds it",
    "illegible_region": "the answer depends on a region too small to read, or on a border only at an enclave a few km² "
                        "wide",
    "contested_border": "the answer depends on a contested border",
    "region_layout": "the answer depends on the regions derived for MAPWise's 2014-2019 India layout",
    "undefined_group": "a group the question derives (\"states south of X\") has no agreed definition",
    "definition_dependent": "the answer depends on a definition (one hue or several, N/A as a category, a border only "
                            "across a lake, union territories among 'states', a named group's other common "
                            "definition)",
    "false_premise": "a region the question names is outside the set the template asks about (not a neighbour, "
                     "not in the group)",
    "number_inside_class": "the number N lies inside a legend class: regions of that class cannot be placed against it",
    "outside_template_domain": "a slot value lies outside the template's domain (e.g. 'second highest')",
    "no_continuous_form": "the template is asked on discrete maps only: read, not judged on a continuous map",
    "bar_ends_by_eye": "MAPWise's range is within the reading tolerance of mapgen's (bar ends read by eye)",
    "bar_ticks_unknown": "MAPWise's answer uses the published bar's ticks, which the metadata does not record",
    "implied_tick_grid": "judged on a tick grid the question implies (not read from the image): would disagree",
    "inset_position": "a region drawn as an inset: its place on the image is not its geographic position, nor is its "
                      "border with a country drawn",
    "counterfactual_by_design": "the counterfactual kind's values are in the image only (jumbled values)",
    "names_not_established": "the name printed on a shape is not established from MAPWise's files",
    "no_gold_answer": "MAPWise gives no answer",
    "contradictory_wording": "the question says two opposite comparisons ('less greater than'): the two readings "
                             "give different answers",
}

_NUM_PART = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


def label_precision(label: str) -> float | None:
    """The finest digit a printed number writes, in its units: ``"700"`` → 100, ``"0.20"`` → 0.01,
    ``"20M"`` → 10M, ``"1,000"`` → 1000; None for no number or zero."""
    value = parse_number(label)
    m = _NUM_PART.search(label)
    if value is None or m is None or value == 0:
        return None
    written = m.group().replace(",", "")
    base = float(written)
    if base == 0:
        return None
    if "." in written:
        ulp = 10.0 ** -len(written.split(".")[1])
    else:
        digits = written.lstrip("-")
        ulp = 10.0 ** (len(digits) - len(digits.rstrip("0")))
    return abs(ulp * value / base)


def legend_precision(scene: Scene) -> float | None:
    """The precision a continuous map's colour bar prints (value units): the finest digit among its tick labels;
    None on a discrete map or when no tick label is a number."""
    legend = scene.legend
    if legend.kind != "continuous":
        return None
    found = [p for p in (label_precision(t) for t in legend.tick_labels) if p]
    if not found:
        return None
    return min(found) / (legend.label_scale or 1.0)


def at_precision(template: Template, scene: Scene, params: dict, precision: float) -> Question:
    """The question asked with every value known to ± ``precision``/2 (the legend's printed precision) instead of
    the reading tolerance; raises :class:`Unaskable` when it is a tie at that precision too."""
    copy = replace(scene)  # its own Reading: the shared one of ``scene`` stays untouched
    ctx = reading(copy)
    ctx.tolerance = precision / 2
    ctx.cache.clear()
    return ask(template, copy, params)


def exact_answer(template: Template, scene: Scene, params: dict) -> Question | None:
    """The question answered on the exact values (no reading tolerance); None when even that is undefined."""
    try:
        return ask(template, scene, params, reader=True)
    except Unaskable:
        return None


def has_missing(scene: Scene, codes: list[str]) -> bool:
    """Whether one of ``codes`` has no value on ``scene``."""
    return any(math.isnan(scene.regions[c].value) for c in codes if c in scene.regions)


def beyond_ticks(scene: Scene, codes: list[str]) -> bool:
    """Whether one of ``codes`` has a value outside a continuous map's labelled ticks."""
    ticks = list(scene.legend.ticks) if scene.legend.kind == "continuous" else []
    values = [scene.regions[c].value for c in codes if c in scene.regions]
    return bool(ticks) and any(v < ticks[0] or v > ticks[-1] for v in values if not math.isnan(v))
