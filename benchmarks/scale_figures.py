"""How much of a colour bar a continuous map uses, per scale (issue 30 item 4: honest scales).

For one statistic (default: USA population density, where DC alone sets a linear bar's top), each scale —
linear, log, clip at the default percentiles — is measured on the regions a reader can see (legible in the
Scene, outside the clipped ends): the spread of their bar positions (10th to 90th percentile, as a share of the
bar), the share of them in the bar's lowest tenth, and the median CIEDE2000 between their fills and the fill of
the lowest one. Usage: ``python benchmarks/scale_figures.py [COUNTRY STAT]``.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from mapgen.legend import ScaleOptions, delta_e
from mapgen.scene import build_scene
from mapgen.spec import make_spec

SCALES = {"linear": None, "log": ScaleOptions("log"), "clip 2,98": ScaleOptions("clip")}


def spread(country: str, stat: str, scale: ScaleOptions | None) -> dict[str, float]:
    """The figures of one scale (module docstring)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = make_spec(country, stat, legend="continuous", annotated=False, scale=scale)
    legend, scene = spec.legend, build_scene(spec)
    values = [r.value for r in scene.regions.values()
              if r.legible and not np.isnan(r.value) and legend.clipped_end(r.value) is None]
    pos = np.array([legend.bar_position(v) for v in values])
    fills = [legend.color_of(v) for v in values]
    lowest = fills[int(np.argmin(pos))]
    return {"regions": len(values), "p10-p90": float(np.percentile(pos, 90) - np.percentile(pos, 10)),
            "lowest tenth": float((pos < 0.1).mean()),
            "median dE": float(np.median([delta_e(f, lowest) for f in fills])),
            "clipped": sum(legend.clipped_end(r.value) is not None for r in scene.regions.values())}


def main(country: str = "usa", stat: str = "population_density_2020") -> None:
    print(f"{country} {stat}: bar use of the legible, unclipped regions")
    print(f"{'scale':<10} {'regions':>7} {'p10-p90':>8} {'lowest 10%':>10} {'median dE':>9} {'clipped':>7}")
    for name, scale in SCALES.items():
        f = spread(country, stat, scale)
        print(f"{name:<10} {f['regions']:>7} {f['p10-p90']:>8.2f} {f['lowest tenth']:>10.0%} {f['median dE']:>9.1f} "
              f"{f['clipped']:>7}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
