"""Whether a legend's ranges are evenly spaced, read off its printed labels: the one definition.

MAPWise's template 41 ("Are the legends evenly spaced or are there significant gaps between certain ranges?")
and the Scene's legend facts both read :func:`legend_spacing`. A reader sees only the labels, so the rule reads
them as printed, to the digit they print (:class:`~mapgen.legend.grammar.PrintedNumber`):

- the **step** is one unit of the coarsest last digit the labels print (1 for ``14-150``, 1M for ``7.1M-14M``);
- the **width** of a range is its upper less its lower number as printed;
- the **gap** between two consecutive ranges is the next range's lower number less this range's upper one, less
  the step (``1-3``, ``4-6`` leave no value out: no gap);
- **evenly spaced**: the widths differ by at most :data:`EVEN_WIDTH_TOL` of the widest or by one step (rounding
  to the printed digit: ``6-11``, ``11-17``, ``17-23`` are 5, 6, 6 wide), and no gap exceeds
  :data:`EVEN_GAP_TOL` of the legend's span (first lower to last upper number);
- **significant gaps**: the widest range less a step is at least :data:`UNEVEN_WIDTH_RATIO` × the narrowest plus
  a step, or some gap is at least :data:`UNEVEN_GAP` of the span;
- anything in between, a label with an open end (``>0.55``) or without numbers, or fewer than two ranges: no
  verdict (``None``; the question is not asked).

Discrete legends are read by their class labels, colour bars by the intervals between consecutive tick labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mapgen.legend.grammar import PrintedNumber, printed_numbers
from mapgen.legend.model import Legend

Spacing = Literal["evenly spaced", "significant gaps"]
EVENLY_SPACED: Spacing = "evenly spaced"
SIGNIFICANT_GAPS: Spacing = "significant gaps"

#: Widths count as equal within this share of the widest (beyond the rounding of the printed numbers).
EVEN_WIDTH_TOL = 0.05
#: An evenly spaced legend has no gap wider than this share of its span.
EVEN_GAP_TOL = 0.05
#: The widest range at least this many times the narrowest: significant gaps.
UNEVEN_WIDTH_RATIO = 1.5
#: A gap of at least this share of the span: significant gaps.
UNEVEN_GAP = 0.10

#: Room for float error in differences of printed numbers (3.0 - 2.4 is 0.6000000000000001), as a share of the span.
_FLOAT_SLACK = 1e-9

PrintedRange = tuple[PrintedNumber | None, PrintedNumber | None]


def legend_spacing(legend: Legend) -> Spacing | None:
    """The spacing of a legend's ranges as printed (module docstring): class labels on a discrete legend, tick
    intervals on a colour bar."""
    if legend.kind == "discrete":
        try:
            ranges = [printed_numbers(c.label) for c in legend.classes]
        except ValueError:
            return None
    else:
        try:
            ticks = [printed_numbers(t)[0] for t in legend.tick_labels]
        except ValueError:
            return None
        ranges = list(zip(ticks[:-1], ticks[1:], strict=True))
    return spacing(ranges)


def spacing(ranges: Sequence[PrintedRange]) -> Spacing | None:
    """The verdict on printed ranges, lowest first (module docstring); None when there is none."""
    closed = [(lo, hi) for lo, hi in ranges if lo is not None and hi is not None]
    if len(closed) < 2 or len(closed) < len(ranges):
        return None
    span = closed[-1][1].value - closed[0][0].value
    step = max(n.quantum for pair in closed for n in pair)
    widths = [hi.value - lo.value for lo, hi in closed]
    gaps = [max(0.0, b[0].value - a[1].value - step) for a, b in zip(closed, closed[1:])]
    widest, narrowest = max(widths), min(widths)
    if span <= 0 or widest <= 0:
        return None
    if widest - narrowest <= max(EVEN_WIDTH_TOL * widest, step) + _FLOAT_SLACK * span \
            and max(gaps) <= EVEN_GAP_TOL * span:
        return EVENLY_SPACED
    if widest - step >= UNEVEN_WIDTH_RATIO * (narrowest + step) or max(gaps) >= UNEVEN_GAP * span:
        return SIGNIFICANT_GAPS
    return None
