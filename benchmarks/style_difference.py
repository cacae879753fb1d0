"""Share of differing pixels between every two style presets on the same spec (issue 30: goal >= 20 %).

Each preset renders the same statistic at its own page size; both images are resampled to 400×300 and a pixel
differs when any channel differs by more than 16. Usage: ``python benchmarks/style_difference.py [COUNTRY STAT]``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

from mapgen.render import render
from mapgen.render.style import load_style, preset_names
from mapgen.spec import make_spec


def pixel_difference(a: Path, b: Path, size: tuple[int, int] = (400, 300)) -> float:
    """Share of pixels differing (any channel by more than 16) between two images resampled to ``size``."""
    x, y = (np.asarray(Image.open(p).convert("RGB").resize(size, Image.Resampling.BILINEAR), dtype=int) for p in (a, b))
    return float((np.abs(x - y).max(axis=2) > 16).mean())


def main(country: str = "usa", stat: str = "population_2020") -> None:
    names = preset_names()
    with tempfile.TemporaryDirectory() as tmp:
        images = {}
        for name in names:
            spec = make_spec(country, stat, classes=5, map_id=name, **load_style(name).spec_defaults(country))
            images[name] = render(spec, Path(tmp) / f"{name}.png").image
        print(f"{country} {stat}: share of differing pixels")
        print(" " * 11 + "".join(f"{n[:10]:>11}" for n in names))
        for a in names:
            print(f"{a[:10]:<11}" + "".join(f"{pixel_difference(images[a], images[b]):>11.1%}" for b in names))


if __name__ == "__main__":
    main(*sys.argv[1:3])
