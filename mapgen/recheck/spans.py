"""Legend ranges a discrete map does not print as one class: an open range or threshold where a range goes
("the range >200k", "higher than 1004.5", "30 and below") or a range over several classes ("517.03 - 3710.67"
over 517.03 - 1,303.3 and 1,303.3 - 3,710.67).

:func:`class_span` says which classes such a range holds: ``inner`` (the classes wholly inside it) and ``outer``
(every class it touches). When the two are the same the range is a union of whole classes, and
:func:`merged_classes` draws the map with those classes as one class labelled with the range
(:func:`span_label`), so the question reads unchanged; when they differ, the range cuts a class, whose regions
cannot be placed against it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mapgen.legend.grammar import find_range
from mapgen.spec import MapSpec

REL_TOL = 2e-3
"""Relative tolerance of a range end against a printed class bound (labels round: 2,340,666 vs 2,340,666.33)."""


@dataclass(frozen=True)
class Span:
    """The classes (first, last index, lowest class 0) a range holds wholly (``inner``; None for none) and the
    classes it touches (``outer``)."""

    inner: tuple[int, int] | None
    outer: tuple[int, int]

    @property
    def clean(self) -> bool:
        """The range is a union of whole classes."""
        return self.inner == self.outer


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b), 1e-12)


def _run(indices: list[int]) -> tuple[int, int] | None:
    return (indices[0], indices[-1]) if indices else None


def class_span(text: str, spec: MapSpec) -> Span | None:
    """Which classes of ``spec``'s discrete legend the range ``text`` (display units, as printed: ``">200k"``,
    ``"6-8%"``) holds; None when ``text`` is no range, the map is not discrete or the range touches no class."""
    legend = spec.legend
    wanted = find_range(text.replace(",", ""))
    if legend.kind != "discrete" or wanted is None or wanted == (None, None):
        return None
    scale = legend.label_scale or 1.0
    lo = -float("inf") if wanted[0] is None else float(wanted[0])
    hi = float("inf") if wanted[1] is None else float(wanted[1])
    bounds = [(c.lower * scale, c.upper * scale) for c in legend.classes]
    inner = [i for i, (a, b) in enumerate(bounds) if (a >= lo or _close(a, lo)) and (b <= hi or _close(b, hi))]
    outer = [i for i, (a, b) in enumerate(bounds) if _overlaps(a, b, lo, hi)]
    if not outer:
        return None
    return Span(_run(inner), (outer[0], outer[-1]))


def _overlaps(a: float, b: float, lo: float, hi: float) -> bool:
    """Whether class [a, b] shares more than a bound with [lo, hi] (a one-value class: whether it lies in it)."""
    if _close(a, b):
        return (a >= lo or _close(a, lo)) and (a <= hi or _close(a, hi))
    top, bottom = min(b, hi), max(a, lo)
    return top > bottom and not _close(top, bottom)


def span_label(text: str, percent: bool = False) -> str:
    """The range ``text`` written as a legend label prints it (``"higher than 50k"`` → ``">50,000"``)."""
    wanted = find_range(text.replace(",", ""))
    if wanted is None or wanted == (None, None):
        raise ValueError(f"{text!r} is no range")
    unit = "%" if percent else ""
    lo, hi = (None if x is None else f"{x:,.10g}{unit}" for x in wanted)
    return f">{lo}" if hi is None else f"<{hi}" if lo is None else f"{lo} - {hi}"


def merged_classes(spec: MapSpec, first: int, last: int, label: str) -> MapSpec:
    """``spec`` with classes ``first`` … ``last`` drawn as one class labelled ``label`` (in the colour of
    ``first``), the other classes unchanged."""
    legend = spec.legend
    old = legend.classes
    merged = replace(old[first], upper=old[last].upper, label=label)
    classes = tuple(replace(c, index=i) for i, c in enumerate((*old[:first], merged, *old[last + 1:])))
    breaks = legend.breaks[:first] + legend.breaks[last:] if legend.breaks else ()
    colors = tuple(c.color for c in classes)
    return replace(spec, legend=replace(legend, classes=classes, breaks=breaks, colors=colors, mapwise=None))
