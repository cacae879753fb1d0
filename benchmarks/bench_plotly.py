"""Plotly renderer throughput, measured side by side in one run (ARCHITECTURE.md §4; issue 4).

    python benchmarks/bench_plotly.py [--n 40] [--naive 4]

Prints images/s for 800×600 USA maps (full ``mapgen.render.render``: PNG + mask + JSON) with the plotly renderer
(one long-lived Chromium; also its SVG, PDF and HTML output), the kaleido sync server (one browser, page reloaded after every image), and the naive
way: ``go.Figure(...).write_image`` per map, which starts a new browser each call. Needs Chromium.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from mapgen.data.curated import list_stats
from mapgen.render import render
from mapgen.render.api import get_canvas, get_renderer
from mapgen.render.plotly_renderer import build_figure, topojson_dir
from mapgen.spec import make_hatched, make_spec


def specs(n: int, **style):
    """n USA maps cycling through the curated tables and colormaps (different values/colours each map)."""
    stats = [s.id for s in list_stats("usa")]
    cmaps = ["Blues", "Greens", "Reds", "Purples", "YlOrRd", "Oranges"]
    return [
        make_spec("usa", stats[i % len(stats)], classes=3 + i % 4, colormap=cmaps[i % len(cmaps)]).with_style(
            renderer="plotly", **style)
        for i in range(n)
    ]


def rate(label: str, fn, items, out: Path, warm: bool = True) -> float:
    if warm:
        fn(items[0], out / "warm.png")  # start the browser, build the canvas
    start = time.perf_counter()
    for i, item in enumerate(items):
        fn(item, out / f"{i}.png")
    per_s = len(items) / (time.perf_counter() - start)
    print(f"{label:<62} {per_s:7.2f} images/s", flush=True)
    return per_s


def _figure(spec):
    import plotly.graph_objects as go

    canvas = get_canvas(spec.load_atlas(), spec.style)
    return go.Figure(build_figure(spec, canvas)[0])


def naive_write_image(spec, path: Path) -> None:
    """The naive way: build the figure and ``fig.write_image`` (kaleido starts a new Chromium per call)."""
    _figure(spec).write_image(str(path), width=spec.style.width, height=spec.style.height)


def sync_server(spec, path: Path) -> None:
    """kaleido's sync server: one browser, but kaleido reloads its page after every image."""
    import kaleido

    lay = get_canvas(spec.load_atlas(), spec.style).layout
    png = kaleido.calc_fig_sync(_figure(spec), opts={"format": "png", "width": lay.width, "height": lay.height},
                                topojson=topojson_dir().as_uri() + "/")
    path.write_bytes(png)


def main(n: int = 40, naive: int = 4) -> dict[str, float]:
    """Run every row and print images/s; returns the figures by row name."""
    import kaleido

    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        print(f"USA, 800x600, plotly renderer: {n} maps per row, naive: {naive} maps")
        results["plain"] = rate("plotly renderer, unannotated (one long-lived browser)", render,
                                specs(n, annotated=False), out)
        annotated = specs(n, annotated=True)
        results["annotated"] = rate("plotly renderer, annotated", render, annotated, out)
        results["hatched"] = rate("plotly renderer, hatched + annotated", render,
                                  [make_hatched(s) for s in annotated], out)
        for suffix in ("svg", "pdf", "html"):
            results[suffix] = rate(f"plotly renderer, unannotated, -o map.{suffix}",
                                   lambda spec, path, s=suffix: render(spec, path.with_suffix(f".{s}")),
                                   specs(max(4, n // 4), annotated=False), out)
        kaleido.start_sync_server(mathjax=False, silence_warnings=True)
        try:
            results["sync"] = rate("kaleido sync server (reload per image), unannotated", sync_server,
                                   specs(max(naive, min(n, 10)), annotated=False), out)
        finally:
            kaleido.stop_sync_server(silence_warnings=True)
        results["naive"] = rate("naive fig.write_image per map (new browser each), unannotated",
                                naive_write_image, specs(naive, annotated=False), out, warm=False)
    get_renderer("plotly").close()
    print(f"speed-up of the plotly renderer (unannotated) over naive write_image: "
          f"{results['plain'] / results['naive']:.1f}x")
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--naive", type=int, default=4, help="maps for the naive row (about 3 s each)")
    args = parser.parse_args()
    main(args.n, args.naive)
