"""Share of pixels the plotly renderer draws differently from matplotlib for the same spec (issue 30 item 2:
goal >= 15 %), for the three countries × a discrete and a continuous legend.

A spec in the default style is drawn by plotly in plotly's own look (``templates/styles/renderers/plotly.yaml``);
both images are resampled to 400×300 and a pixel differs when any channel differs by more than 16 (the measure of
``benchmarks/style_difference.py``). Needs Chromium. Usage: ``python benchmarks/plotly_difference.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from style_difference import pixel_difference

from mapgen.render import render
from mapgen.spec import make_spec

STATS = {"usa": "population_2020", "india": "literacy_2011", "china": "gdp_per_capita_2022"}


def differences(out: Path) -> dict[tuple[str, str], float]:
    """(country, legend) → share of differing pixels between the matplotlib and the plotly render."""
    shares = {}
    for country, stat in STATS.items():
        for legend in ("discrete", "continuous"):
            spec = make_spec(country, stat, legend=legend, classes=5, map_id=f"{country}-{legend}")
            mpl = render(spec, out / f"{country}-{legend}-mpl.png").image
            plotly = render(spec.with_style(renderer="plotly"), out / f"{country}-{legend}-plotly.png").image
            shares[country, legend] = pixel_difference(mpl, plotly)
    return shares


def main() -> dict[tuple[str, str], float]:
    with tempfile.TemporaryDirectory() as tmp:
        shares = differences(Path(tmp))
    print("share of pixels plotly draws differently from matplotlib (same spec, 800x600, annotated)")
    print(f"{'country':<8}{'discrete':>10}{'continuous':>12}")
    for country in STATS:
        print(f"{country:<8}{shares[country, 'discrete']:>10.1%}{shares[country, 'continuous']:>12.1%}")
    print(f"smallest: {min(shares.values()):.1%}")
    return shares


if __name__ == "__main__":
    main()
