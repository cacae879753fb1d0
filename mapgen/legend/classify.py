"""Building legends from values: discrete classes through ``mapclassify.classify`` and colour-bar legends.

- Schemes are chosen by name from the registry, :mod:`mapgen.schemes` (built-ins through mapclassify's own
  dispatch or its arithmetic; ``natural_breaks`` is the deterministic Fisher-Jenks optimum, see there).
- Degenerate data: fewer distinct values than ``k`` reduces ``k`` with a ``UserWarning``; fewer than 2 distinct
  values is a ``ValueError``.
- Usable legends: no class may hold only regions too small to read (``DiscreteOptions.minor``, e.g. Puducherry
  or DC): such a class is merged into its neighbour nearer in value to a readable region (its break is dropped).
  Labels are consistent: a legend labelled by data ranges that has an empty class (equal intervals often do) is
  labelled by break bounds throughout, since an empty class has no data range (``labelling.bounds`` says which).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from mapgen.errors import DataError
from mapgen.legend.colors import HATCHES, class_colors, is_diverging, ramp_colors, split_colormap
from mapgen.legend.grammar import NA_LABEL, format_ranges, format_value, resolve_style
from mapgen.legend.model import (
    LEGEND_ORDERS,
    SCALES,
    LabelOptions,
    Legend,
    LegendClass,
    LegendOrder,
    LegendScale,
)
from mapgen.schemes import USER_DEFINED, class_edges, scheme_name

K_MIN, K_MAX = 3, 8
#: Percentiles a clipped colour bar spans unless told otherwise (``--scale clip`` without ``--clip``).
DEFAULT_CLIP: tuple[float, float] = (2.0, 98.0)
#: Ticks of a clipped or log colour bar stay this share of the bar away from its ends (room for the end labels).
END_CLEARANCE = 0.1

@dataclass(frozen=True)
class DiscreteOptions:
    """How :func:`discrete_legend` classifies, colours and labels.

    ``scheme``: a registered scheme in any spelling (:func:`mapgen.schemes.scheme_names`);
    ``breaks`` (upper edges, ascending) override the scheme (user-defined classes; the data max closes the
    last class). ``percent`` appends ``%`` to labels; ``label_scale`` multiplies values for labels (100 when
    percentages are stored as fractions). ``colormap`` may end in ``_r``; ``reverse`` flips it again.
    """

    k: int = 5
    scheme: str = "quantiles"
    breaks: Sequence[float] | None = None
    order: LegendOrder = "small_to_large"
    colormap: str = "Blues"
    reverse: bool = False
    hatched: bool = False
    percent: bool = False
    label_scale: float = 1.0
    labels: LabelOptions = field(default_factory=LabelOptions)
    #: Region codes too small to read on the map: no class may consist of these alone.
    minor: tuple[str, ...] = ()


def check_values(values: Any) -> pd.Series:
    """``values`` as a float Series (NaN = missing); TypeError/ValueError on non-numbers, inf or all-missing."""
    s = values if isinstance(values, pd.Series) else pd.Series(values)
    if s.empty:
        raise ValueError("no values to classify")
    if pd.api.types.is_bool_dtype(s):
        raise TypeError("values must be numbers (or NaN for missing), got booleans")
    if not (pd.api.types.is_numeric_dtype(s) or s.isna().all()):
        try:
            s = pd.to_numeric(s, errors="raise")
        except (ValueError, TypeError) as exc:
            raise TypeError(
                f"values must be numbers (or NaN for missing), got dtype {s.dtype}: {exc}"
            ) from exc
    s = s.astype(float)
    if np.isinf(s.to_numpy()).any():
        bad = list(s[np.isinf(s.to_numpy())].index[:5])
        raise ValueError(f"values must be finite; infinite values at {bad}")
    if s.notna().sum() == 0:
        raise ValueError("all values are missing (NaN); nothing to classify")
    return s


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not K_MIN <= int(k) <= K_MAX:
        raise ValueError(f"the number of classes (--classes, k) must be a whole number between {K_MIN} and {K_MAX}, "
                         f"got {k!r}; give e.g. --classes 5")
    return int(k)


def _check_options(opts: DiscreteOptions) -> None:
    if opts.order not in LEGEND_ORDERS:
        raise ValueError(f"order must be 'small_to_large' or 'large_to_small', got {opts.order!r}")
    if opts.labels.bounds not in ("data", "breaks"):
        raise ValueError(f"label_bounds must be 'data' or 'breaks', got {opts.labels.bounds!r}")
    resolve_style(opts.labels.style, [])


def _user_k(y: np.ndarray, breaks: Sequence[float]) -> int:
    """Number of classes user ``breaks`` give on ``y`` (validated)."""
    b = [float(x) for x in breaks]
    if not all(math.isfinite(x) for x in b):
        raise ValueError(f"breaks (--breaks) must be finite numbers, got {list(breaks)}; give upper class edges such "
                         "as 1,2,3")
    if any(b2 <= b1 for b1, b2 in zip(b, b[1:], strict=False)):
        raise ValueError(f"breaks (--breaks) must be strictly increasing, got {b}; give the upper class edges "
                         "smallest first, e.g. 1,2,3")
    n_classes = len(b) + (1 if y.max() > b[-1] else 0)
    if not K_MIN <= n_classes <= K_MAX:
        raise ValueError(
            f"breaks {b} give {n_classes} classes; the number of classes must be between {K_MIN} and {K_MAX}"
        )
    return n_classes


def _scheme_and_k(y: np.ndarray, opts: DiscreteOptions) -> tuple[str, int]:
    """(recorded scheme name, number of classes asked for), reduced to the distinct values with a warning."""
    if opts.breaks is not None:
        scheme, k = "user_defined", _user_k(y, opts.breaks)
    else:
        scheme = scheme_name(opts.scheme)
        if scheme == "user_defined":
            raise ValueError("scheme 'user_defined' needs breaks=")
        k = _check_k(opts.k)
    n_unique = len(np.unique(y))
    if n_unique < 2:
        raise DataError(f"need at least 2 distinct values to build a legend, got {n_unique}; give the regions at "
                        "least 2 different values")
    if scheme != "user_defined" and n_unique < k:
        warnings.warn(f"only {n_unique} distinct values; reducing k from {k} to {n_unique}", UserWarning, stacklevel=3)
        k = n_unique
    return scheme, k


def classify(y: np.ndarray, k: int, scheme: str, breaks: Sequence[float] | None = None) -> np.ndarray:
    """Upper edges of the classes (mapclassify ``bins``), deduplicated: by the registered ``scheme``
    (:func:`mapgen.schemes.class_edges`), or the user's ``breaks`` through ``mapclassify.classify``."""
    if scheme != USER_DEFINED:
        return class_edges(y, k, scheme)
    import mapclassify as mc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bins = mc.classify(y, USER_DEFINED, bins=list(breaks or ())).bins
    return np.unique(np.asarray(bins, dtype=float))


def _class_index(y: np.ndarray, bins: np.ndarray) -> np.ndarray:
    """Class of each value: upper-inclusive bins, as mapclassify's ``yb`` (values above the last edge: last)."""
    return np.minimum(np.searchsorted(bins, y, side="left"), len(bins) - 1)


def merge_minor_classes(y: np.ndarray, readable: np.ndarray, bins: np.ndarray) -> np.ndarray:
    """``bins`` without the breaks that isolate classes whose members are all unreadable (``readable`` False).

    Each such class merges with the neighbour whose readable values come nearer to its own values; empty classes
    stay as they are. Needs at least one readable value (otherwise ``bins`` is returned unchanged).
    """
    if not readable.any():
        return bins
    bins = np.asarray(bins, dtype=float)
    while len(bins) > 1:
        yb = _class_index(y, bins)
        bad = [i for i in range(len(bins)) if (yb == i).any() and not readable[yb == i].any()]
        if not bad:
            return bins
        i = bad[0]
        lo, hi = y[yb == i].min(), y[yb == i].max()
        below, above = y[readable & (y < lo)], y[readable & (y > hi)]
        up = below.size == 0 or (above.size > 0 and above.min() - hi < lo - below.max())
        drop = i if up and i < len(bins) - 1 else max(i - 1, 0)
        bins = np.delete(bins, drop)
    return bins


def _readable_bins(s: pd.Series, k: int, scheme: str, bins: np.ndarray, minor: Sequence[str]) -> tuple[str, np.ndarray]:
    """(scheme, bins) after :func:`merge_minor_classes`; when merging leaves fewer than ``min(k, K_MIN)`` classes
    (an outlier speck such as DC under equal intervals), the values are classified again by quantiles."""
    present = s.dropna()
    y, readable = present.to_numpy(), ~present.index.astype(str).isin([str(c) for c in minor])
    merged = merge_minor_classes(y, readable, bins)
    if len(merged) >= min(k, K_MIN) or scheme in ("quantiles", "user_defined"):
        return scheme, merged
    warnings.warn(f"{scheme} leaves {len(merged)} usable classes (a class held only regions too small to read); "
                  f"classifying by quantiles instead", UserWarning, stacklevel=3)
    return "quantiles", merge_minor_classes(y, readable, classify(y, k, "quantiles"))


def _class_bounds(y: np.ndarray, bins: np.ndarray, by_data: bool) -> list[tuple[float, float]]:
    """Per class (lowest first): min-max of its values (``by_data``; empty classes fall back) or its edges."""
    edges_lo = [float(y.min())] + [float(b) for b in bins[:-1]]
    yb = _class_index(y, bins)
    bounds = []
    for i, edge_hi in enumerate(bins):
        members = y[yb == i]
        if by_data and members.size:
            bounds.append((float(members.min()), float(members.max())))
        else:
            bounds.append((edges_lo[i], float(edge_hi)))
    return bounds


def _class_labels(bounds: list[tuple[float, float]], opts: DiscreteOptions) -> list[str]:
    shown: list[tuple[float | None, float | None]] = [(lo * opts.label_scale, hi * opts.label_scale) for lo, hi in bounds]
    if opts.labels.open_ends:
        shown = [(None, shown[1][0])] + shown[1:-1] + [(shown[-2][1], None)]
    return format_ranges(
        shown, percent=opts.percent, style=opts.labels.style, distinct_adjacent=opts.labels.bounds == "data"
    )


def discrete_legend(values: pd.Series, options: DiscreteOptions | None = None) -> Legend:
    """Classify ``values`` into classes (:class:`DiscreteOptions`) and build a discrete legend.

    NaN values are left out of classification and give ``na_label="N/A"``.
    """
    opts = options or DiscreteOptions()
    s = check_values(values)
    _check_options(opts)
    base, rev = split_colormap(opts.colormap, opts.reverse)
    y = s.dropna().to_numpy()
    scheme, k = _scheme_and_k(y, opts)
    bins = classify(y, k, scheme, opts.breaks)
    if scheme != "user_defined" and len(bins) < k:
        warnings.warn(
            f"{scheme} found only {len(bins)} distinct class edges; using {len(bins)} classes instead of {k}",
            UserWarning,
            stacklevel=2,
        )
    if opts.minor:
        scheme, bins = _readable_bins(s, k, scheme, bins, opts.minor)
    k = len(bins)
    if opts.hatched and k > len(HATCHES):
        raise ValueError(f"hatched legends support at most {len(HATCHES)} classes (one per hatch), got {k}")
    labelling = _consistent_labelling(y, bins, opts.labels)
    opts = replace(opts, labels=labelling)
    bounds = _class_bounds(y, bins, labelling.bounds == "data")
    labels = _class_labels(bounds, opts)
    colors = class_colors(base, k, rev, opts.hatched)
    hatches = list(HATCHES[:k]) if opts.hatched else [None] * k
    classes = tuple(
        LegendClass(index=i, lower=lo, upper=hi, label=labels[i], color=colors[i], hatch=hatches[i])
        for i, (lo, hi) in enumerate(bounds)
    )
    return Legend(
        kind="discrete",
        classes=classes,
        order=opts.order,
        vmin=float(y.min()),
        vmax=float(y.max()),
        colormap="Greys" if opts.hatched else base,
        reversed=False if opts.hatched else rev,
        colors=tuple(colors),
        percent=opts.percent,
        scheme=scheme,
        na_label=NA_LABEL if s.isna().any() else None,
        breaks=tuple(float(b) for b in bins),
        label_scale=float(opts.label_scale),
        labelling=labelling,
    )


def _consistent_labelling(y: np.ndarray, bins: np.ndarray, labels: LabelOptions) -> LabelOptions:
    """``labels``, switched to break bounds when data-range labels would meet an empty class (no mixed legends)."""
    if labels.bounds == "data" and len(np.unique(_class_index(y, bins))) < len(bins):
        return replace(labels, bounds="breaks")
    return labels


def nice_ticks(vmin: float, vmax: float, n_ticks: int = 5) -> list[float]:
    """Round tick values (steps 1, 2 or 5 × 10^n) inside [vmin, vmax], as close to ``n_ticks`` as possible.

    Among the 1-2-5 steps giving at least 2 ticks, the count nearest ``n_ticks`` wins (ties: fewer ticks).
    Falls back to ``[vmin, vmax]`` when no step fits two ticks.
    """
    span = vmax - vmin
    if not span > 0:
        return [float(vmin), float(vmax)]
    eps = 1e-9 * max(1.0, abs(vmin), abs(vmax))
    top = math.floor(math.log10(span))
    best: list[float] | None = None
    for e in range(top + 1, top - 3, -1):
        for m in (5, 2, 1):
            step = m * 10.0**e
            first, last = math.ceil((vmin - eps) / step), math.floor((vmax + eps) / step)
            ticks = [float(f"{i * m}e{e}") for i in range(first, last + 1)]
            if len(ticks) < 2:
                continue
            if best is None or abs(len(ticks) - n_ticks) < abs(len(best) - n_ticks):
                best = ticks
    return best if best is not None else [float(vmin), float(vmax)]


def _tick_labels(ticks: list[float], label_scale: float, percent: bool, style: str) -> list[str]:
    shown = [t * label_scale for t in ticks]
    step = min(abs(b - a) for a, b in zip(shown, shown[1:], strict=False))
    return format_ranges([(t, t) for t in shown], percent=percent, style=style, decimals=-math.floor(math.log10(step)))


@dataclass(frozen=True)
class ScaleOptions:
    """How a colour bar maps values: ``scale`` linear, log or clip (at the percentiles ``clip``, default
    DEFAULT_CLIP); ``midpoint``: the value at the colormap's centre (the bar becomes symmetric about it; a
    diverging colormap without one is centred on the data's median, with a warning saying so)."""

    scale: LegendScale = "linear"
    clip: tuple[float, float] | None = None
    midpoint: float | None = None

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"unknown scale {self.scale!r}; choose one of {', '.join(SCALES)}")
        if self.clip is not None:
            lo, hi = self.clip
            if self.scale != "clip":
                raise ValueError("clip percentiles need the clip scale: add --scale clip")
            if not 0 <= lo < hi <= 100:
                raise ValueError(f"clip percentiles (--clip) must satisfy 0 <= low < high <= 100, got {lo:g},{hi:g}; "
                                 "give e.g. --clip 2,98")
        if self.midpoint is not None and self.scale == "log":
            raise ValueError("a midpoint applies to linear and clip scales, not to --scale log")
        if self.midpoint is not None and not math.isfinite(self.midpoint):
            raise ValueError(f"--midpoint must be a finite number, got {self.midpoint}; give a value within the "
                             "values' range")


def _positive(s: pd.Series) -> None:
    """Refuse a log scale over values that are not all positive (one line naming the regions)."""
    bad = s[s <= 0].dropna()
    if not bad.empty:
        names = ", ".join(f"{c} ({v:g})" for c, v in bad.items())
        raise ValueError(f"a log scale needs positive values; not positive: {names}; use --scale linear or "
                         f"--scale clip, or drop these regions")


def _bar_range(s: pd.Series, opts: ScaleOptions, colormap: str) -> tuple[float, float, tuple[bool, bool], float | None]:
    """(vmin, vmax, clipped ends, midpoint) of a colour bar over the present values ``s``."""
    y = s.dropna().to_numpy()
    lo, hi = float(y.min()), float(y.max())
    if opts.scale == "log":
        _positive(s)
        return lo, hi, (False, False), None
    if opts.scale == "clip":
        lo, hi = (float(v) for v in np.percentile(y, opts.clip or DEFAULT_CLIP))
    clipped = (bool(y.min() < lo), bool(y.max() > hi))
    mid = opts.midpoint
    if mid is None and is_diverging(colormap):
        mid = float(np.median(y))
        warnings.warn(f"diverging colormap {colormap}: the midpoint is the data's median, {mid:g} (set it with "
                      "--midpoint)", UserWarning, stacklevel=3)
    if mid is not None:
        lo, hi = _centred(lo, hi, mid)
    return lo, hi, clipped, mid


def _centred(lo: float, hi: float, mid: float) -> tuple[float, float]:
    """[lo, hi] widened to be symmetric about ``mid``; a midpoint so far out that the bar's end is not a finite
    number is refused naming ``--midpoint`` and the values' range."""
    half = max(hi - mid, mid - lo)
    if not math.isfinite(mid - half) or not math.isfinite(mid + half):
        raise ValueError(f"--midpoint {mid:g} is too far from the values (they range from {lo:g} to {hi:g}): the "
                         "colour bar centred on it would not end at a finite number; give a midpoint within or "
                         "near that range")
    return mid - half, mid + half


def log_ticks(vmin: float, vmax: float) -> list[float]:
    """Ticks of a log colour bar: the powers of ten inside [vmin, vmax], or 1-2-5 steps when fewer than three."""
    eps = 1e-9
    first, last = math.ceil(math.log10(vmin) - eps), math.floor(math.log10(vmax) + eps)
    ticks = [10.0**e for e in range(first, last + 1)]
    if len(ticks) < 3:
        ticks = [m * 10.0**e for e in range(first - 1, last + 1) for m in (1, 2, 5)]
        ticks = [t for t in ticks if vmin * (1 - eps) <= t <= vmax * (1 + eps)]
    return ticks if len(ticks) >= 2 else [vmin, vmax]


def _scale_ticks(legend: Legend, n_ticks: int) -> list[float]:
    """Ticks of a colour bar: nice ticks (log ticks on a log scale); on a log or clipped bar none nearer than
    END_CLEARANCE to an end, whose tick carries its own label, while two are left."""
    lo, hi = legend.vmin, legend.vmax
    ticks = log_ticks(lo, hi) if legend.scale == "log" else nice_ticks(lo, hi, n_ticks)
    if legend.scale == "linear":
        return ticks
    inner = [t for t in ticks if END_CLEARANCE <= legend.bar_position(t) <= 1 - END_CLEARANCE]
    return inner if len(inner) >= 2 else ticks


def _log_tick_labels(ticks: list[float], label_scale: float, percent: bool, style: str) -> list[str]:
    """Each log tick with the decimals it needs (0.1, 1, 10, 100)."""
    shown = [t * label_scale for t in ticks]
    st = resolve_style(style, shown)
    return [format_value(t, percent, st, max(0, -math.floor(math.log10(t)))) for t in shown]


def continuous_legend(
    values: pd.Series,
    colormap: str = "Blues",
    vmin: float | None = None,
    vmax: float | None = None,
    reverse: bool = False,
    n_ticks: int = 5,
    percent: bool = False,
    label_style: str = "auto",
    label_scale: float = 1.0,
    n_colors: int = 256,
    scale: ScaleOptions | None = None,
) -> Legend:
    """A colour-bar legend over [vmin, vmax] (default: data range, or as ``scale`` says) with nice ticks and
    ``n_colors`` samples."""
    s = check_values(values)
    opts = scale or ScaleOptions()
    base, rev = split_colormap(colormap, reverse)
    lo, hi, clipped, mid = _bar_range(s, opts, base)
    lo = lo if vmin is None else float(vmin)
    hi = hi if vmax is None else float(vmax)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
        if vmin is None and vmax is None:  # the data's own range collapsed, not the caller's bounds
            raise DataError(f"continuous legend needs vmin < vmax, got vmin={lo}, vmax={hi}: every region holds "
                            "the same value; give the regions at least 2 different values")
        raise ValueError(f"continuous legend needs vmin < vmax, got vmin={lo}, vmax={hi}")
    if n_ticks < 2:
        raise ValueError(f"n_ticks must be at least 2, got {n_ticks}")
    legend = Legend(kind="continuous", vmin=lo, vmax=hi, scale=opts.scale,
                    clip=(opts.clip or DEFAULT_CLIP) if opts.scale == "clip" else None, clipped=clipped, midpoint=mid)
    ticks = _scale_ticks(legend, n_ticks)
    labels = (_log_tick_labels if opts.scale == "log" else _tick_labels)(ticks, label_scale, percent, label_style)
    return replace(
        legend,
        ticks=tuple(ticks),
        tick_labels=tuple(labels),
        colormap=base,
        reversed=rev,
        colors=tuple(ramp_colors(base, n_colors, reverse=rev)),
        percent=percent,
        scheme="continuous",
        na_label=NA_LABEL if s.isna().any() else None,
        label_scale=float(label_scale),
    )
