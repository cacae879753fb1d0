"""Benchmark: a user atlas at scale — a synthetic tessellation of N regions (seeded Voronoi cells in a 20°×14° box).

Measures reading the file (projection, repair, positions), the border graph alone, the first render (figure,
mask and label plan built once per atlas), a second render (only colours change), and how many labels fit
inside their region, need a callout, or could not be placed at all.

Run on demand: ``python benchmarks/bench_user_atlas.py [--regions 324] [--seed 0]`` (not part of the test suite),
or ``--file PATH`` to time a real vector file instead (e.g. a Natural Earth admin-1 country at full resolution).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import MultiPoint, box, mapping

from mapgen.data.synthetic import synthesize
from mapgen.geo.adjacency import border_graph
from mapgen.geo.atlas import load_atlas
from mapgen.render import render
from mapgen.spec import make_spec


def tessellation(path: Path, n: int, seed: int) -> Path:
    """A GeoJSON of ``n`` Voronoi cells of seeded random points, clipped to a 20°×14° box (lon 0-20, lat 30-44)."""
    rng = np.random.default_rng(seed)
    frame = box(0, 30, 20, 44)
    points = MultiPoint(np.column_stack([rng.uniform(0, 20, n), rng.uniform(30, 44, n)]))
    cells = [c.intersection(frame) for c in shapely.voronoi_polygons(points, extend_to=frame).geoms]
    features = [{"type": "Feature", "properties": {"name": f"District {i + 1}"}, "geometry": mapping(c)}
                for i, c in enumerate(cells)]
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regions", type=int, default=324)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--file", type=Path, default=None, help="a vector file to time instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.file or tessellation(Path(tmp) / "districts.geojson", args.regions, args.seed)
        start = time.perf_counter()
        atlas = load_atlas(path)
        load_s = time.perf_counter() - start
        geoms = list(atlas.gdf.geometry)
        start = time.perf_counter()
        graph = border_graph(list(atlas.codes), geoms)
        graph_s = time.perf_counter() - start
        stat = synthesize(atlas, seed=args.seed, distribution="lognormal", spatial=0.6)
        spec = make_spec(atlas, stat, classes=5, map_id="districts")
        times = []
        for i in range(2):
            start = time.perf_counter()
            result = render(spec, Path(tmp) / f"map{i}.png")
            times.append(time.perf_counter() - start)
        places = [p.kind for p in _canvas_places(atlas, spec)]
        illegible = sum(not r.legible for r in result.scene.regions.values())
    mean_degree = 2 * graph.number_of_edges() / graph.number_of_nodes()
    print(f"user atlas of {len(atlas.codes)} regions ({graph.number_of_edges()} borders, mean degree "
          f"{mean_degree:.1f})")
    print(f"  read + project + border graph + positions: {load_s:6.2f} s")
    print(f"  border graph alone:                         {graph_s:6.2f} s")
    print(f"  first render (canvas, mask, label plan):    {times[0]:6.2f} s")
    print(f"  next render (colours only):                 {times[1]:6.2f} s")
    print(f"  labels: {places.count('inside')} inside, {places.count('callout')} callouts, "
          f"{len(atlas.codes) - len(places)} none; {illegible} regions illegible")


def _canvas_places(atlas, spec):
    from mapgen.render.api import get_canvas

    return list(get_canvas(atlas, spec.style).places.values())


if __name__ == "__main__":
    main()
