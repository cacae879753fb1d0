"""The legend data model: :class:`Legend`, :class:`LegendClass` and the typed records of how a legend was made.

Contract other modules rely on:

- ``LegendClass``: one discrete class; ``index`` 0 is the class with the LOWEST values, whatever order the
  legend box displays them in.
- ``Legend``: one type however it was built (mapclassify scheme, user breaks, MAPWise metadata, continuous).
- Bounds, breaks, ``vmin``/``vmax`` and ticks are in VALUE units. Labels are in DISPLAY units: value ×
  ``label_scale`` (``label_scale=100`` for percentages stored as fractions, as in MAPWise's USA maps).
- Class membership follows mapclassify's ``yb``: upper-inclusive bins on ``Legend.breaks`` (class ``i`` holds
  ``breaks[i-1] < v <= breaks[i]``); values below the first class go to class 0, above the last to the last.
- ``labelling`` (:class:`LabelOptions`) says how a classified legend worded its labels; ``mapwise``
  (:class:`MapwiseProvenance`) how a legend read from MAPWise metadata was written there. In JSON both live
  under the ``meta`` key (the format specs have always used), so old spec files load and save unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

import pandas as pd

from mapgen.legend.colors import interpolate, relative_luminance
from mapgen.legend.grammar import NA_LABEL, reword_range

LegendKind = Literal["discrete", "continuous"]
LegendOrder = Literal["small_to_large", "large_to_small"]
LabelBounds = Literal["data", "breaks"]
MapwiseDialect = Literal["kff", "mapqa"]
LegendScale = Literal["linear", "log", "clip"]
LEGEND_ORDERS: tuple[str, ...] = ("small_to_large", "large_to_small")
SCALES: tuple[str, ...] = ("linear", "log", "clip")
#: Fields of a colour bar's scale, left out of the JSON at their defaults (so older specs save as before).
_SCALE_DEFAULTS: dict[str, Any] = {"scale": "linear", "clip": None, "clipped": (False, False), "midpoint": None,
                                   "outlined": False}


@dataclass(frozen=True)
class LabelOptions:
    """How class labels are worded.

    ``bounds="data"`` labels each class by the min-max of its values (``14-150``, ``161-390``; an empty class
    falls back to its breaks); ``"breaks"`` by the class edges (``13.09 - 54.2``, ``54.2 - 75.0``).
    ``open_ends`` prints the first/last class as ``<x``/``>x``; ``style`` is one of ``LABEL_STYLES``.
    """

    bounds: LabelBounds = "data"
    open_ends: bool = False
    style: str = "auto"

    def to_meta(self) -> dict[str, Any]:
        return {"label_bounds": self.bounds, "open_ends": self.open_ends, "label_style": self.style}

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> LabelOptions | None:
        """Pops this record's keys from ``meta`` (None when it has none of them)."""
        if "label_bounds" not in meta:
            return None
        return cls(meta.pop("label_bounds"), meta.pop("open_ends"), meta.pop("label_style"))


@dataclass(frozen=True)
class MapwiseProvenance:
    """How a legend read from MAPWise/MapQA metadata was written there (so it can be written back alike).

    ``dialect``: "kff" (USA) or "mapqa" (India/China); ``keys``: the legend fields the metadata had, in order;
    discrete legends also record ``na_entries`` (N/A entries in ``class_descriptions``), ``na_in_colorscales``,
    ``class_numbers`` (MAPWise class numbers, lowest class first) and ``class_to_index`` (MAPWise class
    number → our class index, None for N/A).
    """

    dialect: MapwiseDialect = "kff"
    keys: tuple[str, ...] | None = None
    na_entries: int | None = None
    na_in_colorscales: bool | None = None
    class_numbers: tuple[int, ...] | None = None
    class_to_index: Mapping[int, int | None] | None = None

    def to_meta(self) -> dict[str, Any]:
        info: dict[str, Any] = {"dialect": self.dialect}
        if self.class_numbers is not None:
            info |= {
                "na_entries": self.na_entries,
                "na_in_colorscales": self.na_in_colorscales,
                "class_numbers": list(self.class_numbers),
            }
        out: dict[str, Any] = {"mapwise": info}
        if self.class_to_index is not None:
            out["mapwise_class_to_index"] = {str(k): v for k, v in self.class_to_index.items()}
        if self.keys is not None:
            out["mapwise_keys"] = list(self.keys)
        return out

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> MapwiseProvenance | None:
        """Pops this record's keys from ``meta`` (None when it has none of them)."""
        if "mapwise" not in meta:
            return None
        info = dict(meta.pop("mapwise"))
        mapping = meta.pop("mapwise_class_to_index", None)
        keys = meta.pop("mapwise_keys", None)
        numbers = info.pop("class_numbers", None)
        return cls(
            dialect=info.pop("dialect", "kff"),
            keys=None if keys is None else tuple(keys),
            na_entries=info.pop("na_entries", None),
            na_in_colorscales=info.pop("na_in_colorscales", None),
            class_numbers=None if numbers is None else tuple(numbers),
            class_to_index=None if mapping is None else {int(k): v for k, v in mapping.items()},
        )


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
    ``breaks`` are the upper edges of the classes (mapclassify ``bins``) used by ``class_of``; ``label_scale``
    converts values to the numbers printed in labels (100 for fractions shown as percentages).
    Colour bars: ``scale`` is ``linear``, ``log`` (positions by log10) or ``clip`` (the bar spans the
    percentiles ``clip`` of the values; ``clipped`` says whether values lie below / above it, drawn as marked
    ends); ``midpoint`` is the value at the colormap's centre (diverging colormaps: the bar is symmetric about
    it). ``outlined``: classes (or bar colours) close to the page are drawn with an outline, regions and swatch.
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
    breaks: tuple[float, ...] = ()
    label_scale: float = 1.0
    scale: LegendScale = "linear"
    clip: tuple[float, float] | None = None
    clipped: tuple[bool, bool] = (False, False)
    midpoint: float | None = None
    outlined: bool = False
    labelling: LabelOptions | None = field(default=None, compare=False)
    mapwise: MapwiseProvenance | None = field(default=None, compare=False)

    # ----------------------------------------------------------------- lookups
    @property
    def k(self) -> int:
        """Number of (non-N/A) classes; 0 for a continuous legend."""
        return len(self.classes)

    @property
    def hatched(self) -> bool:
        """True when the classes carry hatch patterns (black-and-white map)."""
        return any(c.hatch for c in self.classes)

    def _edges(self) -> tuple[float, ...]:
        if self.breaks:
            return self.breaks
        return tuple(c.upper for c in self.classes)

    def class_of(self, value: float | None) -> int | None:
        """Class index of ``value`` (upper-inclusive bins like mapclassify's ``yb``); None for NaN/None."""
        self._need_discrete()
        if value is None or pd.isna(value):
            return None
        return self._bin(float(value))

    def _need_discrete(self) -> None:
        if self.kind != "discrete":
            raise ValueError("class_of() needs a discrete legend; use color_of()/position_of() on continuous")

    def _bin(self, v: float) -> int:
        """Class index of a present value (upper-inclusive bins)."""
        for i, edge in enumerate(self._edges()[: self.k - 1]):
            if v <= edge:
                return i
        return self.k - 1

    def position_of(self, value: float | None) -> float | None:
        """Relative position of ``value`` on a continuous colour bar (0 at vmin, 1 at vmax, clipped)."""
        if value is None or pd.isna(value):
            return None
        return self.bar_position(float(value))

    def bar_position(self, v: float) -> float:
        """Relative position of a present value on a continuous colour bar (0 at vmin, 1 at vmax, clipped;
        by log10 on a log scale)."""
        lo, hi = self.vmin, self.vmax
        if self.scale == "log":
            if v <= 0 or lo <= 0:
                return 0.0
            v, lo, hi = math.log10(v), math.log10(lo), math.log10(hi)
        span = hi - lo
        return float(min(1.0, max(0.0, (v - lo) / span))) if span > 0 else 0.0

    def value_at(self, position: float) -> float:
        """The value at relative ``position`` of the colour bar (inverse of :meth:`bar_position`)."""
        if self.scale == "log":
            lo, hi = math.log10(self.vmin), math.log10(self.vmax)
            return float(10 ** (lo + position * (hi - lo)))
        return float(self.vmin + position * (self.vmax - self.vmin))

    def value_tolerance(self, share: float) -> float:
        """A reading error of ``share`` of the bar in value units: ``share`` × span on a linear bar; on a log bar
        the widest, at its top end (vmax less the value ``share`` below it)."""
        if self.scale == "log":
            return self.vmax - self.value_at(1.0 - share)
        return share * (self.vmax - self.vmin)

    def clipped_end(self, value: float | None) -> str | None:
        """``"low"`` / ``"high"`` when a value lies beyond a clipped end of the colour bar (None otherwise)."""
        if value is None or pd.isna(value) or self.kind != "continuous":
            return None
        if self.clipped[0] and value < self.vmin:
            return "low"
        if self.clipped[1] and value > self.vmax:
            return "high"
        return None

    def color_of(self, value: float | None) -> str:
        """Fill colour of ``value``: its class colour, or the interpolated scale colour; ``na_color`` for NaN."""
        if value is None or pd.isna(value):
            return self.na_color
        if self.kind == "discrete":
            return self.classes[self._bin(float(value))].color
        return interpolate(self.colors, self.bar_position(float(value)))

    def display_classes(self) -> tuple[LegendClass, ...]:
        """Classes in the order the legend box shows them (N/A, if any, comes after these)."""
        return self.classes[::-1] if self.order == "large_to_small" else self.classes

    def display_slot(self, index: int) -> int:
        """Position (0-based) of class ``index`` in the legend box."""
        return [c.index for c in self.display_classes()].index(index)

    def label_of(self, value: float | None) -> str:
        """Legend label a reader would give for ``value`` (the N/A label for missing values)."""
        if value is None or pd.isna(value):
            return self.na_label or NA_LABEL
        self._need_discrete()
        return self.classes[self._bin(float(value))].label

    @property
    def darkness_increases_with_value(self) -> bool:
        """True when higher values are drawn darker (relative luminance of the lowest vs highest colour)."""
        if self.kind == "discrete":
            if not self.classes:
                raise ValueError("legend has no classes")
            first, last = self.classes[0].color, self.classes[-1].color
        else:
            if not self.colors:
                raise ValueError("legend has no colour scale")
            first, last = self.colors[0], self.colors[-1]
        return relative_luminance(last) < relative_luminance(first)

    def worded(self, na: str, range_format: str) -> Legend:
        """The legend in another language's words: the N/A key reads ``na`` and labels whose bounds are words
        apart (``-4 to 4``) take ``range_format`` (``"{lo} से {hi}"``); numbers and classes are unchanged."""
        classes = tuple(replace(c, label=reword_range(c.label, range_format)) for c in self.classes)
        ticks = tuple(reword_range(t, range_format) for t in self.tick_labels)
        return replace(self, classes=classes, tick_labels=ticks, na_label=na if self.na_label else None)

    # --------------------------------------------------------------- (de)serialise
    def meta(self) -> dict[str, Any]:
        """The JSON ``meta`` object: the ``labelling`` and ``mapwise`` records' fields."""
        out: dict[str, Any] = {}
        for record in (self.labelling, self.mapwise):
            if record is not None:
                out |= record.to_meta()
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (lists for tuples); ``from_dict`` restores an equal Legend with the same records."""
        d: dict[str, Any] = {}
        for f in fields(self):
            if f.name in ("labelling", "mapwise"):
                continue
            if f.name in _SCALE_DEFAULTS:
                if getattr(self, f.name) != _SCALE_DEFAULTS[f.name]:
                    d[f.name] = _json_safe(getattr(self, f.name))
                continue
            if f.name == "breaks":  # the place "meta" has always had in spec files
                d["meta"] = self.meta()
            d[f.name] = getattr(self, f.name)
        for key in ("ticks", "tick_labels", "colors", "breaks"):
            d[key] = list(d[key])
        d["classes"] = [vars(c).copy() for c in self.classes]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Legend:
        """Inverse of ``to_dict``."""
        d = dict(d)
        d["classes"] = tuple(LegendClass(**c) for c in d.get("classes", ()))
        for key in ("ticks", "tick_labels", "colors", "breaks"):
            d[key] = tuple(d.get(key, ()))
        for key in ("clip", "clipped"):
            if d.get(key) is not None:
                d[key] = tuple(d[key])
        meta = dict(d.pop("meta", None) or {})
        d["labelling"] = LabelOptions.from_meta(meta)
        d["mapwise"] = MapwiseProvenance.from_meta(meta)
        if meta:
            raise ValueError(f"unknown legend meta fields {sorted(meta)}")
        return cls(**d)


def _json_safe(value: Any) -> Any:
    """Tuples as lists (JSON)."""
    return list(value) if isinstance(value, tuple) else value
