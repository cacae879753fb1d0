"""Legends: classification of values into legend classes (mapclassify) and range labels.

Data model (contract other modules rely on):

- ``LegendClass``: one discrete class; ``index`` 0 is the class with the LOWEST values, whatever order the
  legend box displays them in.
- ``Legend``: one type however it was built (mapclassify scheme, user breaks, MAPWise metadata, continuous).

Conventions chosen here (tested in ``tests/test_legend.py``):

- Bounds, breaks, ``vmin``/``vmax`` and ticks are in VALUE units. Labels are in DISPLAY units: value ×
  ``label_scale`` (``label_scale=100`` for percentages stored as fractions, as in MAPWise's USA maps).
- Class membership follows mapclassify's ``yb``: upper-inclusive bins on ``Legend.breaks`` (class ``i`` holds
  ``breaks[i-1] < v <= breaks[i]``); values below the first class go to class 0, above the last to the last.
- Labels of one legend share one rounding: the fewest decimals (starting from two significant digits of the
  legend's spread, 0 for integer bounds) at which all labels are distinct, no class collapses to one number and
  (with ``label_bounds="data"``) adjacent classes do not print the same boundary.
- Degenerate data: fewer distinct values than ``k`` reduces ``k`` with a ``UserWarning``; fewer than 2 distinct
  values is a ``ValueError``.
- Class colours: ``k`` samples evenly spaced in [0.15, 0.95] of the colormap, light to dark for ascending
  values (unless reversed); an end lighter than ``MAX_CLASS_LUMINANCE`` moves inward so no class looks white.
- Hatched legends (black-and-white maps): class ``i`` gets ``HATCHES[i]`` (so at most 7 classes) and face
  colours run from white to mid grey (``Greys`` in [0, 0.45]) so black hatch lines stay visible.
"""

from __future__ import annotations

import difflib
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

LegendKind = Literal["discrete", "continuous"]
LegendOrder = Literal["small_to_large", "large_to_small"]
LabelBounds = Literal["data", "breaks"]

#: MAPWise's hatch order for black-and-white discrete maps (class 0 gets the first pattern).
HATCHES: tuple[str, ...] = ("-", "+", "x", "\\", "*", "o", "O")

K_MIN, K_MAX = 3, 8
#: Part of a colormap sampled for discrete classes: avoids the near-white end so classes stand out on white.
CLASS_COLOR_RANGE: tuple[float, float] = (0.15, 0.95)
HATCH_COLOR_RANGE: tuple[float, float] = (0.0, 0.45)
#: Class colours are at most this light (WCAG relative luminance; contrast >= 1.24 against white): an end of
#: CLASS_COLOR_RANGE that is lighter moves inward (by at most 0.25) until it is not.
MAX_CLASS_LUMINANCE = 0.8
LABEL_STYLES: tuple[str, ...] = ("auto", "plain", "compact", "spaced")
NA_LABEL = "N/A"


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
    breaks: tuple[float, ...] = ()
    label_scale: float = 1.0

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
        if self.kind != "discrete":
            raise ValueError("class_of() needs a discrete legend; use color_of()/position_of() on continuous")
        if value is None or pd.isna(value):
            return None
        v = float(value)
        for i, edge in enumerate(self._edges()[: self.k - 1]):
            if v <= edge:
                return i
        return self.k - 1

    def position_of(self, value: float | None) -> float | None:
        """Relative position of ``value`` on a continuous colour bar (0 at vmin, 1 at vmax, clipped)."""
        if value is None or pd.isna(value):
            return None
        span = self.vmax - self.vmin
        return float(min(1.0, max(0.0, (float(value) - self.vmin) / span))) if span > 0 else 0.0

    def color_of(self, value: float | None) -> str:
        """Fill colour of ``value``: its class colour, or the interpolated scale colour; ``na_color`` for NaN."""
        if value is None or pd.isna(value):
            return self.na_color
        if self.kind == "discrete":
            return self.classes[self.class_of(value)].color
        pos = self.position_of(value)
        return _interpolate(self.colors, pos)

    def display_classes(self) -> tuple[LegendClass, ...]:
        """Classes in the order the legend box shows them (N/A, if any, comes after these)."""
        return self.classes[::-1] if self.order == "large_to_small" else self.classes

    def label_of(self, value: float | None) -> str:
        """Legend label a reader would give for ``value`` (the N/A label for missing values)."""
        if value is None or pd.isna(value):
            return self.na_label or NA_LABEL
        return self.classes[self.class_of(value)].label

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

    # --------------------------------------------------------------- (de)serialise
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (lists for tuples); ``from_dict`` restores an equal Legend, ``meta`` included."""
        d = asdict(self)
        d["meta"] = _meta_to_json(self.meta)
        for key in ("ticks", "tick_labels", "colors", "breaks"):
            d[key] = list(d[key])
        d["classes"] = [dict(c) for c in d["classes"]]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Legend:
        """Inverse of ``to_dict``."""
        d = dict(d)
        d["classes"] = tuple(LegendClass(**c) for c in d.get("classes", ()))
        for key in ("ticks", "tick_labels", "colors", "breaks"):
            d[key] = tuple(d.get(key, ()))
        d["meta"] = _meta_from_json(d.get("meta") or {})
        return cls(**d)


def _meta_to_json(meta: dict) -> dict:
    out = dict(meta)
    mapping = out.get("mapwise_class_to_index")
    if isinstance(mapping, dict):
        out["mapwise_class_to_index"] = {str(k): v for k, v in mapping.items()}
    return out


def _meta_from_json(meta: dict) -> dict:
    out = dict(meta)
    mapping = out.get("mapwise_class_to_index")
    if isinstance(mapping, dict):
        out["mapwise_class_to_index"] = {int(k): v for k, v in mapping.items()}
    return out


# ============================================================================ colours

#: Plotly sequential scales that matplotlib lacks (CARTO and cmocean colours as plotly ships them), so MAPWise
#: colormap names resolve without plotly installed.
_PLOTLY_SCALES: dict[str, str] = {
    "Aggrnyl": "245668 0f7279 0d8f81 39ab7e 6ec574 a9dc67 edef5d",
    "Agsunset": "4b2991 872ca2 c0369d ea4f88 fa7876 f6a97a edd9a3",
    "Blackbody": "000000 e60000 e6d200 ffffff a0c8ff",
    "Bluered": "0000ff ff0000",
    "Blugrn": "c4e6c3 96d2a4 6dbc90 4da284 36877a 266b6e 1d4f60",
    "Bluyl": "f7feae b7e6a5 7ccba2 46aea0 089099 00718b 045275",
    "Brwnyl": "ede5cf e0c2a2 d39c83 c1766f a65461 813753 541f3f",
    "Burg": "ffc6c4 f4a3a8 e38191 cc607d ad466c 8b3058 672044",
    "Burgyl": "fbe6c5 f5ba98 ee8a82 dc7176 c8586c 9c3f5d 70284a",
    "Darkmint": "d2fbd4 a5dbc2 7bbcb0 559c9e 3a7c89 235d72 123f5a",
    "Electric": "000000 1e0064 780064 a05a00 e6c800 fffadc",
    "Emrld": "d3f2a3 97e196 6cc08b 4c9b82 217a79 105965 074050",
    "Magenta": "f3cbd3 eaa9bd dd88ac ca699d b14d8e 91357d 6c2167",
    "Mint": "e4f1e1 b4d9cc 89c0b6 63a6a0 448c8a 287274 0d585f",
    "Oryel": "ecda9a efc47e f3ad6a f7945d f97b57 f66356 ee4d5a",
    "Peach": "fde0c5 facba6 f8b58b f59e72 f2855d ef6a4c eb4a40",
    "Pinkyl": "fef6b5 ffdd9a ffc285 ffa679 fa8a76 f16d7a e15383",
    "Plotly3": "0508b8 1910d8 3c19f0 6b1cfb 981cfd bf1cfd dd2bfd f246fe fc67fd fe88fc fea5fd febefe fec3fe",
    "Purp": "f3e0f7 e4c7f1 d1afe8 b998dd 9f82ce 826dba 63589f",
    "Purpor": "f9ddda f2b9c4 e597b9 ce78b3 ad5fad 834ba0 573b88",
    "Redor": "f6d2a9 f5b78e f19c7c ea8171 dd686c ca5268 b13f64",
    "Sunset": "f3e79b fac484 f8a07e eb7f86 ce6693 a059a0 5c53a5",
    "Sunsetdark": "fcde9c faa476 f0746e e34f6f dc3977 b9257a 7c1d6f",
    "Teal": "d1eeea a8dbd9 85c4c9 68abb8 4f90a6 3b738f 2a5674",
    "Tealgrn": "b0f2bc 89e8ac 67dba5 4cc8a3 38b2a3 2c98a0 257d98",
    "algae": "d6f9cf bae4ae 9cd18f 7cbf73 55ae5b 259d51 078a4e 0d7547 175f3d 194b31 173723 112414",
    "amp": "f1ecec e6d1cb ddb6aa d59c89 cd8167 c46649 ba4a2f ac2c24 951327 780e28 590d1f 3c0911",
    "deep": "fdfdcc ceecb3 9cdba5 6fc9a3 56b1a3 4c99a0 44829b 3e6c96 3e528f 403c73 362b4d 271a2c",
    "dense": "e6f0f0 bfdde5 9cc9e2 81b4e3 739ae4 757fdd 7864ca 774aaf 71328d 641f68 501442 360e24",
    "haline": "29186b 2a23a0 0f4799 125f8e 267489 358888 419d85 51b27c 6fc66b a0d65b d4e170 fdee99",
    "ice": "030512 191933 2c2a57 3a3c7d 3e53a0 3e6db2 4886bb 599fc4 72b8cd 95cfd8 c0e5e8 eafcfd",
    "matter": "fdedb0 facd91 f6ad77 f08e62 e76d54 d85053 c3385a a82860 8a1d63 6b185d 4c1550 2f0f3d",
    "solar": "331317 4f1c21 6c2424 872f20 9d4219 ae5814 bc6f13 c78916 d1a420 d9c02c dede3b e0fd4a",
    "speed": "fefccd efe19c ddc96a c2b63b 9da715 749905 4b8a14 237924 0b642c 124e2b 193822 172312",
    "tempo": "fef5f4 dee0d2 bdceb5 99bd9c 6ead8a 419d81 19897d 127475 195e6a 1c485d 193350 141d43",
    "thermal": "032333 0d3064 35329b 5d3e99 7e4d8f 9e5987 c16479 e17161 f68b45 fbad3c f6d346 e7fa5a",
    "turbid": "e8f5ab dcdb89 d1c16b c7a853 ba8f42 aa793c 97673a 815738 684835 503b2e 392d25 221e1b",
}


def _colormap_registry() -> dict[str, tuple[str, str]]:
    """lower-case name -> (canonical name, source) for matplotlib colormaps and the extra plotly scales."""
    import matplotlib as mpl

    reg: dict[str, tuple[str, str]] = {}
    for name in _PLOTLY_SCALES:
        reg[name.lower()] = (name, "plotly")
    for name in mpl.colormaps:
        if not name.endswith("_r"):
            reg[name.lower()] = (name, "matplotlib")
    return reg


def colormap_names() -> list[str]:
    """All colormap names ``get_colormap`` accepts (each also with an ``_r`` suffix), sorted."""
    return sorted(canon for canon, _ in _colormap_registry().values())


def get_colormap(name: str, reverse: bool = False):
    """Resolve a matplotlib or plotly colormap name (case-insensitive, ``_r`` = reversed) to a Colormap."""
    from matplotlib.colors import LinearSegmentedColormap

    canon, rev = resolve_colormap_name(name)
    reg = _colormap_registry()
    src = reg[canon.lower()][1]
    if src == "matplotlib":
        import matplotlib as mpl

        cmap = mpl.colormaps[canon]
    else:
        cmap = LinearSegmentedColormap.from_list(
            canon, ["#" + h for h in _PLOTLY_SCALES[canon].split()], N=256
        )
    return cmap.reversed() if rev != reverse else cmap


def resolve_colormap_name(name: str) -> tuple[str, bool]:
    """(canonical name, reversed) for ``name``; ValueError listing close matches when unknown."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"colormap name must be a non-empty string, got {name!r}")
    key = name.strip().lower()
    rev = False
    reg = _colormap_registry()
    if key not in reg and key.endswith("_r"):
        key, rev = key[:-2], True
    if key not in reg:
        close = difflib.get_close_matches(key, list(reg), n=5, cutoff=0.6)
        close_names = [reg[c][0] for c in close]
        raise ValueError(
            f"unknown colormap {name!r}; did you mean one of {close_names}? "
            f"Valid names include Blues, Greens, Reds, Oranges, Purples, Greys, YlOrRd, YlGnBu, viridis, "
            f"plasma, Redor, Tealgrn (see mapgen.legend.colormap_names(); '_r' reverses)"
        )
    return reg[key][0], rev


def _split_colormap(name: str, reverse: bool) -> tuple[str, bool]:
    """Name as given (minus ``_r``) and the effective reversed flag; validates the name."""
    _, rev = resolve_colormap_name(name)
    base = name.strip()[:-2] if rev else name.strip()
    return base, rev != reverse


def sample_colors(name: str, n: int, lo: float = 0.0, hi: float = 1.0, reverse: bool = False) -> list[str]:
    """``n`` hex colours sampled evenly in [lo, hi] of a colormap (lo first)."""
    from matplotlib.colors import to_hex

    cmap = get_colormap(name, reverse=reverse)
    pts = [lo] if n == 1 else list(np.linspace(lo, hi, n))
    return [to_hex(cmap(float(t))) for t in pts]


def class_color_range(name: str) -> tuple[float, float]:
    """Part of colormap ``name`` used for discrete classes: CLASS_COLOR_RANGE with too-light ends moved in."""
    from matplotlib.colors import to_hex

    cmap = get_colormap(name)
    lo, hi = CLASS_COLOR_RANGE
    while relative_luminance(to_hex(cmap(lo))) > MAX_CLASS_LUMINANCE and lo < CLASS_COLOR_RANGE[0] + 0.25:
        lo = round(lo + 0.01, 2)
    while relative_luminance(to_hex(cmap(hi))) > MAX_CLASS_LUMINANCE and hi > CLASS_COLOR_RANGE[1] - 0.25:
        hi = round(hi - 0.01, 2)
    return lo, hi


def to_hex_color(color: str) -> str:
    """Normalise a colour (``#rgb``, ``#rrggbb``, ``rgb(r, g, b)``, a named colour) to ``#rrggbb``."""
    from matplotlib.colors import to_hex

    m = re.fullmatch(r"\s*rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*[\d.]+\s*)?\)\s*", color)
    if m:
        return "#" + "".join(f"{round(float(v)):02x}" for v in m.groups())
    return to_hex(color.strip())


def hex_to_rgb_string(color: str) -> str:
    """``#rrggbb`` → ``rgb(r, g, b)`` (plotly/MAPWise notation)."""
    h = to_hex_color(color)
    r, g, b = (int(h[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def relative_luminance(color: str) -> float:
    """WCAG relative luminance of a colour (0 black … 1 white)."""
    h = to_hex_color(color)
    chans = []
    for i in (1, 3, 5):
        c = int(h[i : i + 2], 16) / 255
        chans.append(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
    return 0.2126 * chans[0] + 0.7152 * chans[1] + 0.0722 * chans[2]


def _interpolate(colors: Sequence[str], pos: float) -> str:
    if not colors:
        raise ValueError("legend has no colour scale")
    if len(colors) == 1:
        return to_hex_color(colors[0])
    x = pos * (len(colors) - 1)
    i = min(int(math.floor(x)), len(colors) - 2)
    t = x - i
    a, b = to_hex_color(colors[i]), to_hex_color(colors[i + 1])
    out = []
    for j in (1, 3, 5):
        ca, cb = int(a[j : j + 2], 16), int(b[j : j + 2], 16)
        out.append(round(ca + (cb - ca) * t))
    return "#" + "".join(f"{c:02x}" for c in out)


# ============================================================================ labels

_SUFFIXES = ((12, "T"), (9, "B"), (6, "M"), (3, "k"))


def _fmt_number(x: float, decimals: int, style: str, percent: bool) -> str:
    """One number; ``decimals`` may be negative in compact style (rounding quantum 10**-decimals)."""
    ax = abs(x)
    if style == "compact":
        if ax > 0:  # at least two significant digits per number
            decimals = max(decimals, 1 - math.floor(math.log10(ax)))
        ax = abs(round(x, decimals))
        power, suffix = next(((p, u) for p, u in _SUFFIXES if ax >= 10**p), (0, ""))
        s = f"{ax / 10**power:,.{max(0, decimals + power)}f}"
        if "." in s:
            s = s.rstrip("0").rstrip(".")
        s += suffix
    else:
        s = f"{ax:,.{max(0, decimals)}f}"
    sign = "-" if x < 0 and not re.fullmatch(r"[0.,]+", s) else ""  # never "-0"
    return sign + s + ("%" if percent else "")


def _resolve_style(style: str, numbers: Sequence[float]) -> str:
    if style not in LABEL_STYLES:
        raise ValueError(f"unknown label style {style!r}; choose one of {list(LABEL_STYLES)}")
    if style == "auto":
        big = max((abs(x) for x in numbers), default=0.0)
        return "compact" if big >= 1e6 else "plain"
    return style


def _join(lo: str, hi: str, style: str, negative: bool) -> str:
    if negative:
        return f"{lo} to {hi}"
    return f"{lo} - {hi}" if style == "spaced" else f"{lo}-{hi}"


def _start_decimals(numbers: Sequence[float]) -> int:
    """Two significant digits of the spread of ``numbers``; never more than 0 decimals for integers."""
    finite = [x for x in numbers if x is not None]
    if not finite:
        return 0
    spread = max(finite) - min(finite)
    if spread <= 0:
        spread = max(abs(x) for x in finite) or 1.0
    d = 1 - math.floor(math.log10(spread))
    return min(d, 0) if all(float(x).is_integer() for x in finite) else d


def format_ranges(
    bounds: Sequence[tuple[float | None, float | None]],
    percent: bool = False,
    style: str = "auto",
    distinct_adjacent: bool = False,
    decimals: int | None = None,
) -> list[str]:
    """Labels for ranges ``(lower, upper)`` (display units, ascending) sharing one rounding.

    ``None`` as lower gives ``<upper``, as upper ``>lower``; ``lower == upper`` prints one number. Decimals: the
    fewest at which labels are distinct and no range collapses; ``distinct_adjacent`` also requires the upper
    bound of one range and the lower bound of the next to print differently (data-based bounds).
    ``decimals`` overrides the starting number of decimals (it is still raised until labels are distinct).
    """
    nums = [x for pair in bounds for x in pair if x is not None]
    for x in nums:
        if not math.isfinite(x):
            raise ValueError(f"range bounds must be finite numbers, got {x!r}")
    st = _resolve_style(style, nums)
    d = _start_decimals(nums) if decimals is None else decimals
    if st != "compact":
        d = max(0, d)
    labels: list[str] = []
    for dec in range(d, 16):
        labels = []
        ok = True
        for lo, hi in bounds:
            slo = _fmt_number(lo, dec, st, percent) if lo is not None else None
            shi = _fmt_number(hi, dec, st, percent) if hi is not None else None
            if slo is None and shi is None:
                raise ValueError("a range needs at least one bound")
            if slo is None:
                labels.append(f"<{shi}")
            elif shi is None:
                labels.append(f">{slo}")
            elif lo == hi:
                labels.append(slo)
            else:
                if slo == shi:
                    ok = False
                labels.append(_join(slo, shi, st, lo < 0 or hi < 0))
        if distinct_adjacent:
            for (_, hi), (lo, _) in zip(bounds[:-1], bounds[1:], strict=True):
                if (
                    hi is not None
                    and lo is not None
                    and hi < lo
                    and _fmt_number(hi, dec, st, percent) == _fmt_number(lo, dec, st, percent)
                ):
                    ok = False
        if ok and len(set(labels)) == len(labels):
            return labels
    return labels


def format_range(lower: float | None, upper: float | None, percent: bool = False, style: str = "auto") -> str:
    """Label one range the way published maps print it: ``14-150``, ``1.2M-3.4M``, ``10%-20%``, ``>0.55``."""
    return format_ranges([(lower, upper)], percent=percent, style=style)[0]


def format_value(
    value: float, percent: bool = False, style: str = "auto", decimals: int | None = None
) -> str:
    """Format a single number like a legend bound (tick labels, answers)."""
    st = _resolve_style(style, [value])
    d = _start_decimals([value]) if decimals is None else decimals
    return _fmt_number(value, d if st == "compact" else max(0, d), st, percent)


_NUM = r"[-+]?\s*[$€£₹¥]?\s*[-+]?\s*(?:\d[\d,]*(?:\.\d+)?|\.\d+)\s*(?:[kKmMbBtT]|bn|thousand|million|billion|trillion)?\s*%?"
_MULT = {
    "k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9,
    "t": 1e12, "trillion": 1e12,
}  # fmt: skip
_NA_WORDS = {"n/a", "na", "nan", "no data", "missing", "none", "null", "not available", "-", ""}
_LOW_OPEN = r"(?:>=|>|≥|over|above|more than|greater than|at least|from)"
_HIGH_OPEN = r"(?:<=|<|≤|under|below|less than|fewer than|up to|at most)"
_LOW_OPEN_SUFFIX = (
    r"(?:\+|and above|and over|or more|and more|or above|and up|and higher|or greater|or higher)"
)
_HIGH_OPEN_SUFFIX = r"(?:and below|or less|and under|or below|and lower|or lower|or fewer)"
_SEP = r"(?:-|–|—|to|and|through|until)"


def _parse_number(tok: str) -> tuple[float, float | None]:
    """(number, unit multiplier or None) of one number token."""
    t = tok.strip()
    neg = t.count("-") % 2 == 1
    m = re.search(r"(\d[\d,]*(?:\.\d+)?|\.\d+)\s*([a-zA-Z]*)", t)
    if not m:
        raise ValueError(f"no number in {tok!r}")
    x = float(m.group(1).replace(",", ""))
    unit = m.group(2).lower()
    mult = _MULT.get(unit) if unit else None
    return (-x if neg else x), mult


def parse_range(label: str) -> tuple[float | None, float | None]:
    """Read a legend label into ``(lower, upper)`` as printed (``"10%"`` → 10.0; ``k/M/B/T`` expanded).

    Open ends give ``None`` (``">0.55"`` → ``(0.55, None)``); ``"N/A"`` gives ``(None, None)``; a single number
    gives ``(x, x)``. A unit only on the upper bound applies to the lower one when that keeps lower <= upper
    (``"1-2k"`` → 1000–2000, ``"500-1k"`` → 500–1000). Unreadable text raises ValueError.
    """
    if not isinstance(label, str):
        raise ValueError(f"label must be a string, got {label!r}")
    s = label.strip().replace("−", "-").replace("\u2009", " ").replace("\xa0", " ")
    low = s.lower()
    if low in _NA_WORDS:
        return None, None
    flags = re.IGNORECASE
    m = re.fullmatch(rf"{_LOW_OPEN}\s*({_NUM})", s, flags) or re.fullmatch(
        rf"({_NUM})\s*{_LOW_OPEN_SUFFIX}", s, flags
    )
    if m:
        x, mult = _parse_number(m.group(1))
        return x * (mult or 1.0), None
    m = re.fullmatch(rf"{_HIGH_OPEN}\s*({_NUM})", s, flags) or re.fullmatch(
        rf"({_NUM})\s*{_HIGH_OPEN_SUFFIX}", s, flags
    )
    if m:
        x, mult = _parse_number(m.group(1))
        return None, x * (mult or 1.0)
    m = re.fullmatch(rf"(?:between\s+|from\s+)?({_NUM})\s*{_SEP}\s*({_NUM})", s, flags)
    if m:
        lo, lo_mult = _parse_number(m.group(1))
        hi, hi_mult = _parse_number(m.group(2))
        hi_v = hi * (hi_mult or 1.0)
        lo_v = lo * (lo_mult or 1.0)
        if lo_mult is None and hi_mult is not None and lo * hi_mult <= hi_v:
            lo_v = lo * hi_mult
        return lo_v, hi_v
    m = re.fullmatch(rf"({_NUM})", s, flags)
    if m:
        x, mult = _parse_number(m.group(1))
        return x * (mult or 1.0), x * (mult or 1.0)
    raise ValueError(f"cannot read legend label {label!r}")


# ============================================================================ classification

_SCHEMES = {
    "quantiles": "quantiles",
    "quantile": "quantiles",
    "equalinterval": "equal_interval",
    "naturalbreaks": "natural_breaks",
    "fisherjenks": "fisher_jenks",
    "jenks": "natural_breaks",
    "userdefined": "user_defined",
}


def _scheme_name(scheme: str) -> str:
    key = re.sub(r"[\s_\-]", "", str(scheme)).lower()
    if key not in _SCHEMES:
        raise ValueError(
            f"unknown classification scheme {scheme!r}; choose one of "
            "'quantiles', 'equal_interval', 'natural_breaks' (Fisher-Jenks), 'fisher_jenks', "
            "or pass breaks= for user-defined classes"
        )
    return _SCHEMES[key]


def _check_values(values: Any) -> pd.Series:
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
        raise ValueError(f"k must be an integer between {K_MIN} and {K_MAX} (inclusive), got {k!r}")
    return int(k)


def _classify(y: np.ndarray, k: int, scheme: str, breaks: Sequence[float] | None) -> np.ndarray:
    """Upper edges of the classes (mapclassify ``bins``), deduplicated."""
    import mapclassify as mc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if scheme == "user_defined":
            bins = mc.UserDefined(y, list(breaks)).bins
        elif scheme == "quantiles":
            bins = mc.Quantiles(y, k=k).bins
        elif scheme == "equal_interval":
            bins = mc.EqualInterval(y, k=k).bins
        else:  # natural_breaks / fisher_jenks: FisherJenks is exact and deterministic (NaturalBreaks is random)
            bins = mc.FisherJenks(y, k=k).bins
    return np.unique(np.asarray(bins, dtype=float))


def discrete_legend(
    values: pd.Series,
    k: int = 5,
    scheme: str = "quantiles",
    breaks: Sequence[float] | None = None,
    percent: bool = False,
    order: LegendOrder = "small_to_large",
    colormap: str = "Blues",
    reverse: bool = False,
    hatched: bool = False,
    label_style: str = "auto",
    label_bounds: LabelBounds = "data",
    open_ends: bool = False,
    label_scale: float = 1.0,
) -> Legend:
    """Classify ``values`` into ``k`` classes and build a discrete legend.

    ``scheme``: quantiles, equal_interval, natural_breaks (= Fisher-Jenks, deterministic) or fisher_jenks;
    ``breaks`` (upper edges, ascending) override the scheme (mapclassify UserDefined; the data max closes the
    last class). NaN values are left out of classification and give ``na_label="N/A"``.
    ``label_bounds="data"`` labels each class by the min-max of its values (``14-150``, ``161-390``; an empty
    class falls back to its breaks); ``"breaks"`` by the class edges (``13.09 - 54.2``, ``54.2 - 75.0``).
    ``open_ends`` prints the first/last class as ``<x``/``>x``. ``percent`` appends ``%``; ``label_scale``
    multiplies values for labels (100 when percentages are stored as fractions).
    """
    s = _check_values(values)
    if order not in ("small_to_large", "large_to_small"):
        raise ValueError(f"order must be 'small_to_large' or 'large_to_small', got {order!r}")
    if label_bounds not in ("data", "breaks"):
        raise ValueError(f"label_bounds must be 'data' or 'breaks', got {label_bounds!r}")
    _resolve_style(label_style, [])
    base, rev = _split_colormap(colormap, reverse)
    y = s.dropna().to_numpy()
    if breaks is not None:
        scheme_name = "user_defined"
        b = [float(x) for x in breaks]
        if not all(math.isfinite(x) for x in b):
            raise ValueError(f"breaks must be finite numbers, got {list(breaks)}")
        if any(b2 <= b1 for b1, b2 in zip(b, b[1:], strict=False)):
            raise ValueError(f"breaks must be strictly increasing, got {b}")
        n_classes = len(b) + (1 if y.max() > b[-1] else 0)
        if not K_MIN <= n_classes <= K_MAX:
            raise ValueError(
                f"breaks {b} give {n_classes} classes; the number of classes must be between {K_MIN} and {K_MAX}"
            )
        k = n_classes
    else:
        scheme_name = _scheme_name(scheme)
        if scheme_name == "user_defined":
            raise ValueError("scheme 'user_defined' needs breaks=")
        k = _check_k(k)
    n_unique = len(np.unique(y))
    if n_unique < 2:
        raise ValueError(f"need at least 2 distinct values to build a legend, got {n_unique}")
    if scheme_name != "user_defined" and n_unique < k:
        warnings.warn(
            f"only {n_unique} distinct values; reducing k from {k} to {n_unique}", UserWarning, stacklevel=2
        )
        k = n_unique
    bins = _classify(y, k, scheme_name, breaks)
    if scheme_name != "user_defined" and len(bins) < k:
        warnings.warn(
            f"{scheme_name} found only {len(bins)} distinct class edges; using {len(bins)} classes instead of {k}",
            UserWarning,
            stacklevel=2,
        )
    k = len(bins)
    if hatched and k > len(HATCHES):
        raise ValueError(f"hatched legends support at most {len(HATCHES)} classes (one per hatch), got {k}")

    # class bounds in value units
    lo_all = float(y.min())
    edges_lo = [lo_all] + [float(b) for b in bins[:-1]]
    edges_hi = [float(b) for b in bins]
    yb = np.searchsorted(bins, y, side="left")  # upper-inclusive, as mapclassify's yb
    bounds: list[tuple[float, float]] = []
    for i in range(k):
        members = y[yb == i]
        if label_bounds == "data" and members.size:
            bounds.append((float(members.min()), float(members.max())))
        else:
            bounds.append((edges_lo[i], edges_hi[i]))

    shown = [(lo * label_scale, hi * label_scale) for lo, hi in bounds]
    if open_ends:
        shown = [(None, shown[1][0])] + shown[1:-1] + [(shown[-2][1], None)]
    labels = format_ranges(
        shown, percent=percent, style=label_style, distinct_adjacent=label_bounds == "data"
    )

    if hatched:
        colors = sample_colors("Greys", k, *HATCH_COLOR_RANGE)
        hatches: list[str | None] = list(HATCHES[:k])
    else:
        colors = sample_colors(base, k, *class_color_range(base))
        if rev:
            colors = colors[::-1]
        hatches = [None] * k
    classes = tuple(
        LegendClass(
            index=i,
            lower=bounds[i][0],
            upper=bounds[i][1],
            label=labels[i],
            color=colors[i],
            hatch=hatches[i],
        )
        for i in range(k)
    )
    return Legend(
        kind="discrete",
        classes=classes,
        order=order,
        vmin=lo_all,
        vmax=float(y.max()),
        colormap="Greys" if hatched else base,
        reversed=False if hatched else rev,
        colors=tuple(colors),
        percent=percent,
        scheme=scheme_name,
        na_label=NA_LABEL if s.isna().any() else None,
        breaks=tuple(edges_hi),
        label_scale=float(label_scale),
        meta={"label_bounds": label_bounds, "open_ends": open_ends, "label_style": label_style},
    )


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
) -> Legend:
    """A colour-bar legend over [vmin, vmax] (default: data range) with nice ticks and ``n_colors`` samples."""
    s = _check_values(values)
    base, rev = _split_colormap(colormap, reverse)
    lo = float(s.min()) if vmin is None else float(vmin)
    hi = float(s.max()) if vmax is None else float(vmax)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
        raise ValueError(f"continuous legend needs vmin < vmax, got vmin={lo}, vmax={hi}")
    if n_ticks < 2:
        raise ValueError(f"n_ticks must be at least 2, got {n_ticks}")
    ticks = nice_ticks(lo, hi, n_ticks)
    shown = [t * label_scale for t in ticks]
    step = min(abs(b - a) for a, b in zip(shown, shown[1:], strict=False))
    labels = format_ranges(
        [(t, t) for t in shown], percent=percent, style=label_style, decimals=-math.floor(math.log10(step))
    )
    colors = sample_colors(base, n_colors, 0.0, 1.0, reverse=rev)
    return Legend(
        kind="continuous",
        vmin=lo,
        vmax=hi,
        ticks=tuple(ticks),
        tick_labels=tuple(labels),
        colormap=base,
        reversed=rev,
        colors=tuple(colors),
        percent=percent,
        scheme="continuous",
        na_label=NA_LABEL if s.isna().any() else None,
        label_scale=float(label_scale),
    )


# ============================================================================ MAPWise / MapQA metadata

_MAPWISE_NA = "N/A"


def _mapwise_values(meta: dict) -> list[float]:
    out = []
    for d in meta.get("data", []):
        v = d.get("value")
        out.append(float("nan") if v is None else float(v))
    return out


def legend_from_mapwise(meta: dict) -> Legend:
    """Build a Legend from one MAPWise/MapQA metadata dict.

    Discrete: labels are kept verbatim; classes are sorted by their label bounds (index 0 = lowest) and
    ``meta["mapwise_class_to_index"]`` maps MAPWise class numbers (positions in ``class_descriptions``; the
    N/A class, e.g. -1 or 3, maps to None) to ours. ``colorscales`` is read lowest-value class first, then the
    N/A colour if listed. Percent labels over fraction values set ``label_scale=100``.
    Continuous: ``continuous_legend`` over the data range with ``colormap_name``.
    """
    values = _mapwise_values(meta)
    kff = "class_descriptions" in meta and "num_symbols" in meta  # USA (KFF) dialect vs India/China
    info: dict[str, Any] = {"dialect": "kff" if kff else "mapqa"}
    cmap = meta.get("colormap_name") or "Blues"
    if str(meta.get("legend_type", "")).lower() == "continuous":
        percent = str(meta.get("data_type", "")).lower().startswith("percent")
        finite = [v for v in values if not math.isnan(v)]
        scale = 100.0 if percent and finite and max(abs(v) for v in finite) <= 1.0 else 1.0
        leg = continuous_legend(
            pd.Series(values, dtype=float), colormap=cmap, percent=percent, label_scale=scale
        )
        return _with_meta(leg, {"mapwise": info, "mapwise_keys": _present(meta)})

    descs: list[str] = list(meta["class_descriptions"])
    real = [i for i, d in enumerate(descs) if d.strip() != _MAPWISE_NA]
    parsed = {i: parse_range(descs[i]) for i in real}
    for i, (lo, hi) in parsed.items():
        if lo is None or hi is None:
            raise ValueError(f"MAPWise class label {descs[i]!r} is not a closed range")
    ranked = sorted(real, key=lambda i: (parsed[i][0], parsed[i][1]))
    mapping: dict[int, int | None] = {c: j for j, c in enumerate(ranked)}
    na_numbers = [i for i, d in enumerate(descs) if d.strip() == _MAPWISE_NA]
    for i in na_numbers:
        mapping[i] = None
    if na_numbers:
        mapping[-1] = None
    percent = any("%" in descs[i] for i in real)
    scale = _mapwise_label_scale(meta, descs, parsed) if percent else 1.0
    colors = [to_hex_color(c) for c in meta.get("colorscales", [])]
    n = len(ranked)
    if len(colors) < n:
        raise ValueError(f"colorscales has {len(colors)} colours for {n} classes")
    breaks = _mapwise_breaks(meta, ranked, [(parsed[c][0] / scale, parsed[c][1] / scale) for c in ranked])
    classes = []
    for j, c in enumerate(ranked):
        lo, hi = parsed[c]
        classes.append(
            LegendClass(index=j, lower=lo / scale, upper=hi / scale, label=descs[c], color=colors[j])
        )
    has_na = bool(na_numbers) or any(math.isnan(v) for v in values)
    info.update(
        {
            "na_entries": len(na_numbers),
            "na_in_colorscales": len(colors) > n,
            "class_numbers": ranked,
        }
    )
    order = meta.get("legend_order", "small_to_large")
    leg = Legend(
        kind="discrete",
        classes=tuple(classes),
        order=order if order in ("small_to_large", "large_to_small") else "small_to_large",
        vmin=classes[0].lower,
        vmax=classes[-1].upper,
        colormap=cmap,
        colors=tuple(colors[:n]),
        percent=percent,
        scheme="mapwise",
        na_label=_MAPWISE_NA if has_na else None,
        na_color=colors[n] if len(colors) > n else Legend.na_color,
        breaks=breaks,
        label_scale=scale,
    )
    return _with_meta(
        leg, {"mapwise": info, "mapwise_class_to_index": mapping, "mapwise_keys": _present(meta)}
    )


def _mapwise_breaks(meta: dict, ranked: list[int], bounds: list[tuple[float, float]]) -> tuple[float, ...]:
    """Class edges for ``class_of``: each label's upper bound, moved so the regions' own classes hold.

    MAPWise labels are rounded (a value printed as a shared boundary may sit in either class, and a few USA
    values lie outside their label), so an edge is raised to the largest value MAPWise put in the class and,
    if the next class already starts at or below it, set just under that class's smallest value.
    """
    members: dict[int, list[float]] = {c: [] for c in ranked}
    for d in meta.get("data", []):
        c, v = d.get("class"), d.get("value")
        if c in members and v is not None and not math.isnan(float(v)):
            members[c].append(float(v))
    edges = []
    for j, c in enumerate(ranked):
        edge = bounds[j][1]
        if members[c]:
            edge = max(edge, max(members[c]))
        if j + 1 < len(ranked) and members[ranked[j + 1]]:
            nxt = min(members[ranked[j + 1]])
            if nxt <= edge:
                edge = float(np.nextafter(nxt, -np.inf))
        edges.append(edge)
    return tuple(edges)


def _present(meta: dict) -> list[str]:
    keys = ("legend_type", "legend_order", "num_classes", "num_symbols", "class_descriptions", "colorscales")
    return [k for k in keys if k in meta] + (["colormap_name"] if "colormap_name" in meta else [])


def _with_meta(leg: Legend, extra: dict) -> Legend:
    leg.meta.update(extra)
    return leg


def _mapwise_label_scale(meta: dict, descs: list[str], parsed: dict) -> float:
    """100 when percent labels describe fraction values (USA KFF maps), else 1: whichever fits more regions."""
    scores = {}
    for scale in (1.0, 100.0):
        hits = 0
        for d in meta.get("data", []):
            c, v = d.get("class"), d.get("value")
            if v is None or c is None or not -len(descs) <= c < len(descs) or (c % len(descs)) not in parsed:
                continue
            lo, hi = parsed[c % len(descs)]
            hits += lo - 1e-9 <= float(v) * scale <= hi + 1e-9
        scores[scale] = hits
    return 100.0 if scores[100.0] > scores[1.0] else 1.0


def legend_to_mapwise(legend: Legend) -> dict[str, Any]:
    """Legend-level MAPWise metadata fields (``legend_type``, ``legend_order``, ``num_classes``,
    ``class_descriptions``, ``colorscales``, ``colormap_name``; ``num_symbols`` in the USA dialect).

    Dialect (kept from ``legend_from_mapwise``; new legends use "kff"): "kff" (USA) lists classes lowest first
    then "N/A", ``num_classes`` counts real classes, class number = our index, N/A = -1; "mapqa" (India/China)
    lists classes in display order then the N/A entries, ``num_classes`` counts all entries.
    ``colorscales``: lowest-value class first, then the N/A colour.
    """
    info = legend.meta.get("mapwise", {})
    dialect = info.get("dialect", "kff")
    keys = legend.meta.get("mapwise_keys")
    cmap_name = legend.colormap + ("_r" if legend.reversed else "")
    if legend.kind == "continuous":
        out: dict[str, Any] = {
            "legend_type": "Continuous",
            "legend_order": "N/A",
            "num_classes": 0,
            "num_symbols": 0,
            "class_descriptions": [],
            "colormap_name": cmap_name,
        }
        if keys is None:
            keys = list(out) if dialect == "kff" else ["legend_type", "colormap_name"]
        return {k: out[k] for k in keys if k in out}
    na_entries = info.get("na_entries", 1 if legend.na_label else 0)
    if dialect == "kff":
        descs = [c.label for c in legend.classes] + [_MAPWISE_NA] * na_entries
        num_classes = legend.k
    else:
        descs = [c.label for c in legend.display_classes()] + [_MAPWISE_NA] * na_entries
        num_classes = len(descs)
    colors = [hex_to_rgb_string(c.color) for c in legend.classes]
    if info.get("na_in_colorscales", legend.na_label is not None):
        colors.append(hex_to_rgb_string(legend.na_color))
    out = {
        "legend_type": "Discrete",
        "legend_order": legend.order,
        "num_classes": num_classes,
        "num_symbols": len(descs),
        "class_descriptions": descs,
        "colormap_name": cmap_name,
        "colorscales": colors,
    }
    if keys is None:
        keys = [k for k in out if dialect == "kff" or k != "num_symbols"]
    return {k: out[k] for k in keys if k in out}


def mapwise_class(legend: Legend, value: float | None) -> tuple[int, str]:
    """MAPWise ``(class, description)`` of one region value, in the legend's dialect (N/A: -1 or its slot)."""
    info = legend.meta.get("mapwise", {})
    dialect = info.get("dialect", "kff")
    idx = legend.class_of(value)
    if idx is None:
        if dialect == "kff":
            return -1, _MAPWISE_NA
        return legend.k, _MAPWISE_NA
    if dialect == "kff":
        return idx, legend.classes[idx].label
    pos = [c.index for c in legend.display_classes()].index(idx)
    return pos, legend.classes[idx].label
