"""Legends: classification of values into legend classes (mapclassify) and range labels.

Data model (contract other modules rely on):

- ``LegendClass``: one discrete class; ``index`` 0 is the class with the LOWEST values, whatever order the
  legend box displays them in.
- ``Legend``: one type however it was built (mapclassify scheme, user breaks, MAPWise metadata, continuous).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

LegendKind = Literal["discrete", "continuous"]
LegendOrder = Literal["small_to_large", "large_to_small"]

#: MAPWise's hatch order for black-and-white discrete maps (class 0 gets the first pattern).
HATCHES: tuple[str, ...] = ("-", "+", "x", "\\", "*", "o", "O")


@dataclass(frozen=True)
class LegendClass:
    """One discrete legend class. ``lower``/``upper`` are inclusive bounds of the values it holds."""

    index: int
    lower: float
    upper: float
    label: str
    color: str  # "#rrggbb"
    hatch: str | None = None


@dataclass(frozen=True)
class Legend:
    """A discrete or continuous legend.

    Discrete: ``classes`` ordered by value (index 0 lowest); ``order`` is the display order in the legend box.
    Continuous: ``classes`` is empty; ``vmin``/``vmax``/``ticks``/``tick_labels`` describe the colour bar and
    ``colors`` samples the colour scale from vmin to vmax.
    ``na_label`` is set when some regions have no value (shown as an explicit N/A entry).
    """

    kind: LegendKind
    classes: tuple[LegendClass, ...] = ()
    order: LegendOrder = "small_to_large"
    vmin: float = 0.0
    vmax: float = 1.0
    ticks: tuple[float, ...] = ()
    tick_labels: tuple[str, ...] = ()
    colormap: str = "Blues"
    reversed: bool = False
    colors: tuple[str, ...] = ()
    percent: bool = False
    scheme: str = "quantiles"
    na_label: str | None = None
    na_color: str = "#d9d9d9"
    meta: dict = field(default_factory=dict, compare=False)
