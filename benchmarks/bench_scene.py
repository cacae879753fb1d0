"""Benchmark: Scene build time per map, and Moran's I of the synthetic generator against its spatial knob.

Run on demand: ``python benchmarks/bench_scene.py [--runs 500] [--seeds 50]`` (not part of the test suite).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from mapgen.data.curated import list_stats
from mapgen.data.synthetic import morans_i, synthesize
from mapgen.geo.atlas import list_atlases, load_atlas
from mapgen.scene import build_scene
from mapgen.spec import make_spec

SPATIAL = (0.0, 0.3, 0.6, 0.9, 1.0)


def time_scenes(runs: int) -> None:
    """Median / p95 wall time of ``build_scene`` (atlas already loaded, as in a build) per country and legend."""
    print(f"Scene build time (ms), {runs} runs each, atlas loaded once")
    print(f"{'country':8} {'legend':11} {'regions':>7} {'median':>8} {'p95':>8}")
    for country in list_atlases():
        atlas = load_atlas(country)
        stat_id = list_stats(country)[0].id
        for legend in ("discrete", "continuous"):
            spec = make_spec(atlas, stat_id, legend=legend)
            build_scene(spec, atlas)  # warm per-atlas caches
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                build_scene(spec, atlas)
                times.append((time.perf_counter() - start) * 1000)
            p95 = float(np.percentile(times, 95))
            print(f"{country:8} {legend:11} {len(atlas.codes):7d} {statistics.median(times):8.3f} {p95:8.3f}")


def moran_table(seeds: int, distribution: str) -> None:
    """Mean ± sd of Moran's I over ``seeds`` seeds for each spatial knob value."""
    print(f"\nMoran's I of synthetic '{distribution}' tables (mean ± sd over {seeds} seeds; E[I] at 0 = -1/(n-1))")
    print(f"{'country':8} " + " ".join(f"{'spatial=' + format(s, 'g'):>14}" for s in SPATIAL))
    for country in list_atlases():
        atlas = load_atlas(country)
        cells = []
        for spatial in SPATIAL:
            values = [morans_i(synthesize(atlas, seed, distribution, spatial).values, atlas.graph) for seed in range(seeds)]
            cells.append(f"{np.mean(values):+.3f} ± {np.std(values):.3f}")
        print(f"{country:8} " + " ".join(f"{c:>14}" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=50)
    args = parser.parse_args()
    time_scenes(args.runs)
    for distribution in ("lognormal", "normal"):
        moran_table(args.seeds, distribution)


if __name__ == "__main__":
    main()
