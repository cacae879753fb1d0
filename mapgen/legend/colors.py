"""Colours of legends: colormap names (matplotlib and plotly), sampling class colours, hex/RGB notation,
luminance and CIELAB differences (used by the renderers, the questions and the image audit).

- Class colours: ``k`` samples at equal CIEDE2000 steps along [0.15, 0.95] of the colormap, light to dark for
  ascending values (unless reversed); an end lighter than ``MAX_CLASS_LUMINANCE`` or closer than
  ``MIN_WHITE_DELTA_E`` to white moves inward so no class looks like white paper. Colour bars use the same range.
- Legibility (checked where colours are chosen): every class colour, the N/A fill and the background differ
  pairwise by at least ``MIN_DELTA_E`` CIEDE2000, adjacent classes by at least ``MIN_ADJACENT_DELTA_E``
  (:func:`palette_collision`); a colour bar's whole ramp keeps ``MIN_DELTA_E`` from the background and the N/A
  fill. The N/A fill is the first of ``NA_FILLS`` that passes (:func:`legible_legend`). ΔE comes from coloraide.
- Outlines: a legend whose classes (or bar colours) may come close to the page — a diverging colormap's pale
  centre (:func:`is_diverging`) — is ``outlined``: the renderer draws every region and swatch whose fill is within
  ``MIN_DELTA_E`` of the background with the map's outline (:func:`page_like`), and the rule then accepts a
  class or bar colour close to the background (class/class, class/N-A and N-A/background pairs still count).
- Hatched legends (black-and-white maps): class ``i`` gets ``HATCHES[i]`` (so at most 8 classes) and face
  colours run from white to mid grey (``Greys`` in [0, 0.45]) so black hatch lines stay visible.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mapgen.caches import memo
from mapgen.suggest import did_you_mean

#: MAPWise's hatch order for black-and-white discrete maps (class 0 gets the first pattern), plus vertical lines
#: for an eighth class. Both renderers draw the eight pairwise distinguishable (tests/test_hatch_patterns.py).
HATCHES: tuple[str, ...] = ("-", "+", "x", "\\", "*", "o", "O", "|")
#: Part of a colormap sampled for discrete classes: avoids the near-white end so classes stand out on white.
CLASS_COLOR_RANGE: tuple[float, float] = (0.15, 0.95)
HATCH_COLOR_RANGE: tuple[float, float] = (0.0, 0.45)
#: Class colours are at most this light (WCAG relative luminance; contrast >= 1.24 against white): an end of
#: CLASS_COLOR_RANGE that is lighter moves inward (by at most 0.25) until it is not.
MAX_CLASS_LUMINANCE = 0.8
#: Class colours keep at least this CIEDE2000 from white (ends of the range move inward until they do).
MIN_WHITE_DELTA_E = 12.0
#: Smallest CIEDE2000 between any two of: class colours, the N/A fill, the background.
MIN_DELTA_E = 10.0
#: Smallest CIEDE2000 between two adjacent classes.
MIN_ADJACENT_DELTA_E = 8.0
#: N/A fills tried in order (light grey first, the usual choice); the first distinct from every colour wins.
NA_FILLS: tuple[str, ...] = ("#d9d9d9", "#ffffff", "#8c8c8c", "#f6e8c3", "#525252", "#000000")
#: N/A fills of hatched (black-and-white) maps: solid greys with no pattern, darker than every class face.
HATCHED_NA_FILLS: tuple[str, ...] = ("#7f7f7f", "#525252", "#000000")
#: A diverging colormap's lightest colour is at least this much (CIELAB L*) lighter than both its ends.
DIVERGING_LIGHTNESS = 20.0
#: Points at which a colour bar's ramp is checked against the background and the N/A fill.
RAMP_CHECK_POINTS = 33

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
    """lower-case name -> (canonical name, source) for matplotlib colormaps and the extra plotly scales (made
    again only when a colormap is registered with matplotlib)."""
    import matplotlib as mpl

    return _registry_of(len(mpl.colormaps))


@memo(4)
def _registry_of(registered: int) -> dict[str, tuple[str, str]]:
    """:func:`_colormap_registry` while matplotlib holds ``registered`` colormaps."""
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


def get_colormap(name: str, reverse: bool = False) -> Any:
    """Resolve a matplotlib or plotly colormap name (case-insensitive, ``_r`` = reversed) to a Colormap."""
    from matplotlib.colors import LinearSegmentedColormap

    canon, rev = resolve_colormap_name(name)
    src = _colormap_registry()[canon.lower()][1]
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
        hint = did_you_mean(key, colormap_names())
        raise ValueError(f"unknown colormap {name!r}{hint}; mapgen.legend.colormap_names() lists them all ('_r' "
                         "reverses one)")
    return reg[key][0], rev


def split_colormap(name: str, reverse: bool) -> tuple[str, bool]:
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


@memo(512)
def is_diverging(name: str) -> bool:
    """Whether a colormap is diverging: its lightest colour (CIELAB L*) lies in the middle third of the ramp and
    is at least DIVERGING_LIGHTNESS lighter than both ends (RdBu, coolwarm, Spectral, PuOr; not viridis, Blues)."""
    base, _ = split_colormap(name, False)
    lightness = rgb_to_lab(np.array([hex_to_rgb(c) for c in sample_colors(base, 65)]))[:, 0]
    peak = int(np.argmax(lightness))
    return 64 / 3 <= peak <= 128 / 3 and lightness[peak] - max(lightness[0], lightness[-1]) >= DIVERGING_LIGHTNESS


@memo(512)
def class_color_range(name: str) -> tuple[float, float]:
    """Part of colormap ``name`` used for classes and colour bars: CLASS_COLOR_RANGE with ends that look like
    white paper (too light, or within MIN_WHITE_DELTA_E of white) moved inward by at most 0.25; a diverging
    colormap uses a range symmetric about its centre (its pale middle stays at the middle of the legend)."""
    from matplotlib.colors import to_hex

    if is_diverging(name):
        return 1 - CLASS_COLOR_RANGE[1], CLASS_COLOR_RANGE[1]
    cmap = get_colormap(name)

    def too_light(t: float) -> bool:
        c = to_hex(cmap(t))
        return relative_luminance(c) > MAX_CLASS_LUMINANCE or delta_e(c, "#ffffff") < MIN_WHITE_DELTA_E

    lo, hi = CLASS_COLOR_RANGE
    while too_light(lo) and lo < CLASS_COLOR_RANGE[0] + 0.25:
        lo = round(lo + 0.01, 2)
    while too_light(hi) and hi > CLASS_COLOR_RANGE[1] - 0.25:
        hi = round(hi - 0.01, 2)
    return lo, hi


@memo(512)
def _perceptual_arc(name: str, lo: float, hi: float, n: int = 129) -> tuple[np.ndarray, np.ndarray]:
    """Positions in [lo, hi] and the cumulative CIEDE2000 along the colormap at them."""
    ts = np.linspace(lo, hi, n)
    cols = sample_colors(name, n, lo, hi)
    steps = [delta_e(a, b) for a, b in zip(cols, cols[1:], strict=False)]
    return ts, np.concatenate([[0.0], np.cumsum(steps)])


def perceptual_colors(name: str, n: int, lo: float, hi: float) -> list[str]:
    """``n`` colours of a colormap between ``lo`` and ``hi`` at equal CIEDE2000 steps along the ramp."""
    from matplotlib.colors import to_hex

    if n == 1:
        return sample_colors(name, 1, lo, hi)
    ts, arc = _perceptual_arc(name, lo, hi)
    cmap = get_colormap(name)
    return [to_hex(cmap(float(np.interp(d, arc, ts)))) for d in np.linspace(0.0, arc[-1], n)]


def class_colors(colormap: str, k: int, reverse: bool = False, hatched: bool = False) -> list[str]:
    """Colours of ``k`` discrete classes, lowest class first (greys in HATCH_COLOR_RANGE when hatched)."""
    if hatched:
        return sample_colors("Greys", k, *HATCH_COLOR_RANGE)
    base, rev = split_colormap(colormap, reverse)
    colors = perceptual_colors(base, k, *class_color_range(base))
    return colors[::-1] if rev else colors


def ramp_colors(colormap: str, n: int, reverse: bool = False) -> list[str]:
    """``n`` colours of a colour bar (vmin first) over the class range of the colormap."""
    base, rev = split_colormap(colormap, reverse)
    colors = sample_colors(base, n, *class_color_range(base))
    return colors[::-1] if rev else colors


# ---------------------------------------------------------------------------------------------- legibility


@memo(65536)
def delta_e(a: str, b: str) -> float:
    """CIEDE2000 difference of two colours (any notation :func:`to_hex_color` reads), via coloraide."""
    from coloraide import Color

    return float(Color(to_hex_color(a)).delta_e(Color(to_hex_color(b)), method="2000"))


@dataclass(frozen=True)
class Collision:
    """Two colours of a map closer than the rule allows: names (e.g. ``class 2``), colours, ΔE and minimum."""

    first: str
    first_color: str
    second: str
    second_color: str
    delta_e: float
    minimum: float

    def describe(self) -> str:
        return (f"{self.first} ({self.first_color}) and {self.second} ({self.second_color}) differ by "
                f"CIEDE2000 {self.delta_e:.1f} (< {self.minimum:g})")


def _named(classes: Sequence[str], ramp: Sequence[str], na: str | None, background: str) -> list[tuple[str, str]]:
    named = [(f"class {i + 1}", c) for i, c in enumerate(classes)]
    named += [(f"colour bar at {round(100 * i / max(1, len(ramp) - 1))}%", c) for i, c in enumerate(ramp)]
    if na is not None:
        named.append(("the N/A fill", na))
    return [*named, ("the background", background)]


def palette_collision(classes: Sequence[str], background: str, na: str | None = None,
                      ramp: Sequence[str] = (), outlined: bool = False) -> Collision | None:
    """The closest pair breaking the legibility rule (module docstring), or None when the colours pass.

    ``classes`` are discrete class colours (adjacent = consecutive), ``ramp`` a colour bar's colours (checked
    against the background and the N/A fill only), ``na`` the N/A fill (None: not checked); ``outlined``: classes
    and bar colours close to the background are drawn outlined, so those pairs pass.
    """
    named = _named(classes, ramp, na, to_hex_color(background))
    ramp_names = {n for n, _ in named if n.startswith("colour bar")}
    worst: tuple[float, Collision] | None = None
    for i, (na_, ca) in enumerate(named):
        for nb, cb in named[i + 1 :]:
            if na_ in ramp_names and nb in ramp_names:
                continue
            if outlined and nb == "the background" and na_ != "the N/A fill":
                continue
            adjacent = na_.startswith("class") and nb == f"class {int(na_.split()[1]) + 1}"
            minimum = MIN_ADJACENT_DELTA_E if adjacent else MIN_DELTA_E
            d = delta_e(ca, cb)
            if d < minimum and (worst is None or d - minimum < worst[0]):
                worst = (d - minimum, Collision(na_, ca, nb, cb, d, minimum))
    return worst[1] if worst else None


def choose_na_color(classes: Sequence[str], background: str, ramp: Sequence[str] = (),
                    hatched: bool = False) -> str | None:
    """The first of ``NA_FILLS`` (``HATCHED_NA_FILLS``) distinct from the background and every class / ramp
    colour by MIN_DELTA_E; None when none is."""
    others = [*classes, *ramp, to_hex_color(background)]
    for fill in HATCHED_NA_FILLS if hatched else NA_FILLS:
        if all(delta_e(fill, c) >= MIN_DELTA_E for c in others):
            return fill
    return None


def check_ramp(colors: Sequence[str]) -> list[str]:
    """RAMP_CHECK_POINTS colours evenly picked from a colour bar's sampled colours."""
    if not colors:
        return []
    idx = np.linspace(0, len(colors) - 1, min(RAMP_CHECK_POINTS, len(colors))).round().astype(int)
    return [colors[i] for i in idx]


def legend_palette(legend: Any) -> tuple[list[str], list[str]]:
    """(class colours, checked ramp colours) of a legend; hatched classes are read by pattern, not fill."""
    if legend.kind == "continuous":
        return [], check_ramp(legend.colors)
    if legend.hatched:
        return [], []
    return [c.color for c in legend.classes], []


def legible_legend(legend: Any, background: str) -> Any:
    """``legend`` with its N/A fill chosen by :func:`choose_na_color` (unchanged when none passes; the
    collision is then reported by :func:`legend_collision`)."""
    from dataclasses import replace

    classes, ramp = legend_palette(legend)
    if not legend.hatched and not legend.outlined and is_diverging(legend.colormap):
        legend = replace(legend, outlined=True)
    faces = [c.color for c in legend.classes] if legend.hatched else classes
    na = choose_na_color(faces, background, ramp, hatched=legend.hatched)
    return legend if na is None or na == legend.na_color else replace(legend, na_color=na)


def legend_collision(legend: Any, background: str) -> Collision | None:
    """The colour pair of ``legend`` drawn on ``background`` breaking the legibility rule, if any (an
    ``outlined`` legend's page-like classes pass: they are drawn outlined)."""
    classes, ramp = legend_palette(legend)
    return palette_collision(classes, background, legend.na_color, ramp, outlined=legend.outlined)


def page_like(color: str, background: str) -> bool:
    """Whether a fill is close enough to the page (< MIN_DELTA_E) that an outlined legend outlines it."""
    return delta_e(color, background) < MIN_DELTA_E


@memo(4096)
def combination_collision(colormap: str, reverse: bool, k: int | None, background: str) -> Collision | None:
    """Collision of a (colormap, reverse, classes, background) choice before any data: every class count up to
    ``k`` (classification may merge classes), or the colour bar when ``k`` is None; the N/A fill is chosen.
    Cached: a build plans every map against every pair (~0.5 s per map uncached). A diverging colormap is
    drawn outlined (:func:`legible_legend`)."""
    outlined = is_diverging(colormap)
    if k is None:
        ramp = check_ramp(ramp_colors(colormap, 256, reverse))
        na = choose_na_color([], background, ramp) or NA_FILLS[0]
        return palette_collision([], background, na, ramp, outlined)
    for n in range(2, k + 1):
        classes = class_colors(colormap, n, reverse)
        na = choose_na_color(classes, background) or NA_FILLS[0]
        hit = palette_collision(classes, background, na, outlined=outlined)
        if hit is not None:
            return hit
    return None


# ---------------------------------------------------------------------------------------------- notation

_RGB_FUNCTION = re.compile(r"\s*rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*[\d.]+\s*)?\)\s*")
_HEX6 = re.compile(r"#[0-9a-f]{6}")


def to_hex_color(color: str) -> str:
    """Normalise a colour (``#rgb``, ``#rrggbb``, ``rgb(r, g, b)``, a named colour) to ``#rrggbb``."""
    from matplotlib.colors import to_hex

    m = _RGB_FUNCTION.fullmatch(color)
    if m:
        return "#" + "".join(f"{round(float(v)):02x}" for v in m.groups())
    return to_hex(color.strip())


def hex_to_rgb(color: str) -> tuple[int, int, int]:
    """``#rrggbb`` (or any colour :func:`to_hex_color` reads) → ``(r, g, b)`` in 0-255."""
    h = color if _HEX6.fullmatch(color) else to_hex_color(color)
    return int(h[1:3], 16), int(h[3:5], 16), int(h[5:7], 16)


def hex_to_rgb_string(color: str) -> str:
    """``#rrggbb`` → ``rgb(r, g, b)`` (plotly/MAPWise notation)."""
    r, g, b = hex_to_rgb(color)
    return f"rgb({r}, {g}, {b})"


@memo(4096)
def relative_luminance(color: str) -> float:
    """WCAG relative luminance of a colour (0 black … 1 white)."""
    chans = []
    for channel in hex_to_rgb(color):
        c = channel / 255
        chans.append(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
    return 0.2126 * chans[0] + 0.7152 * chans[1] + 0.0722 * chans[2]


def interpolate(colors: Sequence[str], pos: float) -> str:
    """The colour at relative position ``pos`` (0-1) of a scale sampled as ``colors`` (linear in RGB)."""
    if not colors:
        raise ValueError("legend has no colour scale")
    if len(colors) == 1:
        return to_hex_color(colors[0])
    x = pos * (len(colors) - 1)
    i = min(int(math.floor(x)), len(colors) - 2)
    t = x - i
    a, b = hex_to_rgb(colors[i]), hex_to_rgb(colors[i + 1])
    return "#" + "".join(f"{round(ca + (cb - ca) * t):02x}" for ca, cb in zip(a, b, strict=True))


# ---------------------------------------------------------------------------------------------- CIELAB

#: D65 white point (CIE 1931 2°).
_WHITE = np.array([0.95047, 1.0, 1.08883])
_RGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)


def rgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB of sRGB colours given as 0-255 values, shape ``(..., 3)``."""
    c = np.asarray(rgb, dtype=float) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = lin @ _RGB_TO_XYZ.T / _WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    lab = np.empty_like(f)
    lab[..., 0] = 116 * f[..., 1] - 16
    lab[..., 1] = 500 * (f[..., 0] - f[..., 1])
    lab[..., 2] = 200 * (f[..., 1] - f[..., 2])
    return lab


def min_pairwise_delta_e(colors: Sequence[Any]) -> tuple[float, tuple[int, int] | None]:
    """Smallest CIE76 ΔE between any two of ``colors`` (hex strings or 0-255 triples) and the index pair."""
    best, pair = float("inf"), None
    labs = [rgb_to_lab(np.array(hex_to_rgb(c) if isinstance(c, str) else c)) for c in colors]
    for i in range(len(labs)):
        for j in range(i + 1, len(labs)):
            d = float(np.linalg.norm(labs[i] - labs[j]))
            if d < best:
                best, pair = d, (i, j)
    return best, pair


#: Backgrounds and colormaps a refusal may suggest instead (the common ones, in this order).
SUGGESTED_BACKGROUNDS: tuple[tuple[str, str], ...] = (
    ("white", "#ffffff"), ("whitesmoke", "#f5f5f5"), ("lightgray", "#d3d3d3"), ("lightsteelblue", "#b0c4de"))
SUGGESTED_COLORMAPS: tuple[str, ...] = ("YlOrRd", "viridis", "Greens", "Reds", "YlGnBu", "Oranges", "Blues")


def legibility_suggestion(colormap: str, reverse: bool, k: int | None, background: str) -> str:
    """A fix for a failing (colormap, background) choice: another background, else another colormap."""
    for name, color in SUGGESTED_BACKGROUNDS:
        if combination_collision(colormap, reverse, k, color) is None:
            return f"try --background {name} or another colormap"
    for name in SUGGESTED_COLORMAPS:
        if combination_collision(name, reverse, k, background) is None:
            return f"try --colormap {name} or another background"
    return "try fewer classes, another colormap or --background white"
