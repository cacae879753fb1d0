"""Rendering throughput, measured side by side in one run (ARCHITECTURE.md §4; issue: rendering).

    python benchmarks/bench_render.py [--n 40] [--plotly] [--cpu]

Prints images/s for 800×600 USA maps: mapgen's matplotlib renderer (unannotated, annotated, hatched; PNG
compress level 6 and 1), the naive ``GeoDataFrame.plot`` + ``savefig`` way, and (with --plotly) the plotly
renderer with one long-lived browser against naive ``fig.write_image`` per map. ``--cpu`` counts this process's
CPU seconds instead of wall-clock seconds (steadier on a shared machine).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from mapgen.data.curated import list_stats  # noqa: E402
from mapgen.geo.atlas import load_atlas  # noqa: E402
from mapgen.render import render  # noqa: E402
from mapgen.spec import make_hatched, make_spec  # noqa: E402


def specs(n: int, **style):
    """n USA maps cycling through the curated tables and colormaps (different values/colours each map)."""
    stats = [s.id for s in list_stats("usa")]
    cmaps = ["Blues", "Greens", "Reds", "Purples", "YlOrRd", "Oranges"]
    return [
        make_spec("usa", stats[i % len(stats)], classes=3 + i % 4, colormap=cmaps[i % len(cmaps)], **style)
        for i in range(n)
    ]


CLOCK = time.perf_counter


def rate(label: str, fn, items, out: Path) -> float:
    fn(items[0], out / "warm.png")  # warm caches (canvas, figure)
    start = CLOCK()
    for i, item in enumerate(items):
        fn(item, out / f"{i}.png")
    per_s = len(items) / (CLOCK() - start)
    print(f"{label:<58} {per_s:7.1f} images/s")
    return per_s


def naive_geopandas(spec, path: Path) -> None:
    import matplotlib.pyplot as plt

    atlas = load_atlas("usa")
    gdf = atlas.gdf.assign(value=[spec.values[c] for c in atlas.codes])
    fig, ax = plt.subplots(figsize=(8, 6), dpi=100)
    gdf.plot(column="value", cmap="Blues", scheme="quantiles", k=spec.legend.k, legend=True, ax=ax,
             edgecolor="white", linewidth=0.5)
    ax.set_axis_off()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--plotly", action="store_true", help="also measure the plotly renderer (needs Chromium)")
    parser.add_argument("--cpu", action="store_true", help="count CPU seconds of this process, not wall seconds")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.cpu else time.perf_counter
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        print(f"USA, 800x600, {args.n} maps per row")
        results = {}
        for level in (6, 1):
            plain = specs(args.n, annotated=False, png_compress_level=level)
            results[("plain", level)] = rate(f"matplotlib unannotated, PNG level {level}", render, plain, out)
            annotated = specs(args.n, annotated=True, png_compress_level=level)
            results[("annotated", level)] = rate(f"matplotlib annotated, PNG level {level}", render, annotated, out)
            hatched = [make_hatched(s) for s in annotated]
            results[("hatched", level)] = rate(f"matplotlib hatched + annotated, PNG level {level}", render, hatched, out)
        print(f"targets (issue 30): annotated {results[('annotated', 6)]:.1f} (>= 40), hatched + annotated "
              f"{results[('hatched', 6)]:.1f} (>= 30) images per {'CPU-' if args.cpu else ''}second at PNG level 6")
        naive = rate("naive geopandas .plot + savefig", naive_geopandas, specs(min(args.n, 20)), out)
        print(f"speed-up of mapgen unannotated (level 6) over naive geopandas: {results[('plain', 6)] / naive:.1f}x")
        if args.plotly:
            import sys

            sys.path.insert(0, str(Path(__file__).parent))
            from bench_plotly import main as plotly_main  # needs Chromium (see bench_plotly.py)

            plotly_main(args.n)


if __name__ == "__main__":
    main()
