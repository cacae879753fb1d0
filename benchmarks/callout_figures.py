"""Callout figures (issue 36 item 4): how many region labels each style preset sets as callouts, per country.

    PYTHONPATH=$PWD python benchmarks/callout_figures.py [--presets default mapwise] [--countries usa india china]

Per preset and country, at the page size the preset gives the country (its ``sizes``, else the atlas's shape:
what ``mapgen render COUNTRY --style PRESET`` draws), it prints a markdown table row: the page size, the region
labels' cap height in px, how many labels sit inside their region, how many are callouts (boxed, with a leader
line), and how many regions find no clean spot (an annotated map marks them illegible). Each canvas is computed
afresh (:func:`mapgen.render.canvas.build_canvas`), never read from the canvas cache.
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")

from mapgen.data.curated import list_stats  # noqa: E402
from mapgen.geo.atlas import load_atlas  # noqa: E402
from mapgen.mapmaking import look_fields  # noqa: E402
from mapgen.render.canvas import build_canvas  # noqa: E402
from mapgen.render.style import preset_names  # noqa: E402
from mapgen.render.text import glyph_box  # noqa: E402
from mapgen.spec import make_spec  # noqa: E402

COUNTRIES = ("usa", "india", "china")
HEADER = ("| preset | country | page | label cap (px) | inside | callouts | unplaced |\n"
          "|---|---|---|---:|---:|---:|---:|")


def row(preset: str, country: str) -> str:
    """One table row: the label plan of ``country`` drawn in ``preset`` at the preset's page size for it."""
    atlas = load_atlas(country)
    spec = make_spec(atlas, list_stats(country)[0].id, **look_fields(preset, atlas, by_shape=True))
    canvas = build_canvas(atlas, spec.style)
    kinds = [place.kind for place in canvas.places.values()]
    _, top, _, bottom = glyph_box("W", canvas.label_px)
    size = f"{spec.style.width}×{spec.style.height}"
    return (f"| {preset} | {country} | {size} | {bottom - top:.0f} | {kinds.count('inside')} | "
            f"{kinds.count('callout')} | {len(canvas.unplaced)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=None, help="presets (default: every shipped one)")
    parser.add_argument("--countries", nargs="+", default=list(COUNTRIES))
    args = parser.parse_args()
    print(HEADER)
    for preset in args.presets or preset_names():
        for country in args.countries:
            print(row(preset, country), flush=True)


if __name__ == "__main__":
    main()
