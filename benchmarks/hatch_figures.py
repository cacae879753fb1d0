"""How far apart the hatch patterns are, as each renderer draws them (issue 14 item 6).

    python benchmarks/hatch_figures.py            # matplotlib and, when Chromium is found, plotly

*Distinguishable*, measured: each pattern is drawn by the renderer's own pattern code as a 64×64 px tile (black
ink on white, the page's 100 dpi), and described by the pixel audit's texture features
by its texture (normalised autocorrelation at offsets up to :data:`LAG` px, as the pixel audit reads hatches, so
the phase of the pattern does not matter) and its tone (share of ink pixels). The distance of two patterns is the
mean texture difference, taken as the smaller of the difference to the other pattern and to its left-right mirror
image (a reader easily confuses ``/`` with ``\\``), plus the difference in ink share. Two patterns are distinguishable when that distance is at least :data:`MIN_PATTERN_DISTANCE`; the N/A
fill (solid grey, no pattern) and the paper (white) are flat, at distance 1 from every pattern by the same rule.
Prints the smallest distance per renderer and the closest pair.
"""

from __future__ import annotations

import io
import itertools
import json

import numpy as np
from PIL import Image

from mapgen.legend import HATCHES

#: Smallest distance two hatch patterns must keep. Measured: the confusable pair of the old plotly mapping
#: (``\\`` and its mirror ``/``) scores 0.03; the closest pair a reader tells apart at a glance (matplotlib's
#: stars and small circles on one lattice) 0.16; line patterns of different directions score above 0.3.
MIN_PATTERN_DISTANCE = 0.1
TILE = 64
#: Largest autocorrelation offset (px): a full period of the coarsest pattern (large circles, thick bands).
LAG = 12
_OFFSETS = [(dx, dy) for dy in range(LAG + 1) for dx in range(-LAG, LAG + 1) if dy > 0 or dx > 0]


def mpl_tiles(symbols=HATCHES) -> dict[str, np.ndarray]:
    """Grey 64×64 tiles of each symbol as the matplotlib renderer hatches it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from mapgen.render.mpl_renderer import hatch_pattern

    out = {}
    for sym in symbols:
        fig = Figure(figsize=(TILE / 100, TILE / 100), dpi=100)
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        ax.add_patch(Rectangle((0, 0), 1, 1, facecolor="#ffffff", edgecolor="#000000", linewidth=0,
                               hatch=hatch_pattern(sym), transform=ax.transAxes))
        canvas.draw()
        out[sym] = np.asarray(canvas.buffer_rgba())[..., :3].astype(float) @ [0.299, 0.587, 0.114]
    return out


def plotly_tiles(symbols=HATCHES) -> dict[str, np.ndarray]:
    """Grey 64×64 tiles of each symbol as the plotly renderer fills it (one Chromium render of all tiles)."""
    from mapgen.render.plotly_renderer import FONT_FAMILY, BrowserSession, hatch_fillpattern

    width, step = TILE * len(symbols), TILE
    traces = [{"type": "scatter", "mode": "lines", "fill": "toself", "line": {"width": 0},
               "x": [i * step, (i + 1) * step, (i + 1) * step, i * step, i * step], "y": [0, 0, TILE, TILE, 0],
               "fillcolor": "#ffffff", "fillpattern": hatch_fillpattern(sym, "#ffffff")}
              for i, sym in enumerate(symbols)]
    axis = {"visible": False, "showgrid": False, "zeroline": False, "fixedrange": True}
    layout = {"width": width, "height": TILE, "margin": {"l": 0, "r": 0, "t": 0, "b": 0, "pad": 0},
              "paper_bgcolor": "#ffffff", "plot_bgcolor": "#ffffff", "showlegend": False,
              "xaxis": axis | {"range": [0, width]}, "yaxis": axis | {"range": [TILE, 0]},
              "font": {"family": FONT_FAMILY}}
    session = BrowserSession()
    try:
        png = session.png({"data": traces, "layout": layout}, width, TILE)
    finally:
        session.close()
    grey = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)
    return {sym: grey[:, i * step:(i + 1) * step] for i, sym in enumerate(symbols)}


def features(tile: np.ndarray) -> tuple[np.ndarray, float]:
    """(normalised autocorrelation at offsets up to :data:`LAG` px, ink share) of a tile's inner 48×48 px.

    Autocorrelation is shift invariant (the phase of the pattern does not matter) and sees spacing and direction;
    the ink share (pixels darker than mid-grey) sees tone: bold stars and thin circles on the same lattice differ
    in tone, not in spacing."""
    g = tile[8:TILE - 8, 8:TILE - 8]
    ink = float((g < 128).mean())
    if g.std() < 1.0:
        return np.zeros(len(_OFFSETS)), ink
    z = (g - g.mean()) / g.std()
    h, w = z.shape
    out = np.empty(len(_OFFSETS))
    for k, (dx, dy) in enumerate(_OFFSETS):
        a = z[0:h - dy, max(0, -dx):w - max(0, dx)]
        b = z[dy:h, max(0, dx):w - max(0, -dx)]
        out[k] = float((a * b).mean())
    return out, ink


def pattern_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute autocorrelation difference (the smaller of: to ``b``, to ``b`` mirrored left-right) plus the
    difference in ink share."""
    (fa, ia), (fb, ib), (fm, _) = features(a), features(b), features(np.fliplr(b))
    return min(float(np.abs(fa - fb).mean()), float(np.abs(fa - fm).mean())) + abs(ia - ib)


def distances(tiles: dict[str, np.ndarray]) -> dict[tuple[str, str], float]:
    """Distance of every pair of patterns, plus each pattern against a flat tile (the N/A fill and the paper)."""
    flat = np.full((TILE, TILE), 255.0)
    out = {(a, b): pattern_distance(tiles[a], tiles[b]) for a, b in itertools.combinations(tiles, 2)}
    out |= {(a, "flat"): pattern_distance(tiles[a], flat) for a in tiles}
    return out


def summary(tiles: dict[str, np.ndarray]) -> dict[str, object]:
    d = distances(tiles)
    pair = min(d, key=d.get)
    return {"patterns": len(tiles), "min_distance": round(d[pair], 3), "closest_pair": list(pair),
            "pairs_below_threshold": sum(v < MIN_PATTERN_DISTANCE for v in d.values())}


if __name__ == "__main__":
    from mapgen.render.plotly_renderer import ChromiumNotFoundError, find_browser

    report = {"threshold": MIN_PATTERN_DISTANCE, "matplotlib": summary(mpl_tiles())}
    try:
        find_browser()
        report["plotly"] = summary(plotly_tiles())
    except ChromiumNotFoundError as exc:
        report["plotly"] = f"skipped: {exc}"
    print(json.dumps(report, indent=1))
