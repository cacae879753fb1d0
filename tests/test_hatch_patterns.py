"""Hatch patterns: up to eight, pairwise distinguishable in both renderers, none like the flat N/A fill or paper.

"Distinguishable" is measured on pattern tiles each renderer draws with its own pattern code
(benchmarks/hatch_figures.py states the rule: mirror-aware texture distance plus tone difference, at least
MIN_PATTERN_DISTANCE).
"""

from __future__ import annotations

import importlib.util
import itertools
import shutil
from pathlib import Path

import numpy as np
import pytest

from mapgen.legend import HATCHES

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "hatch_figures.py"
_SPEC = importlib.util.spec_from_file_location("hatch_figures", _PATH)
hatch = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(hatch)


@pytest.fixture(scope="module")
def mpl_tiles() -> dict[str, np.ndarray]:
    return hatch.mpl_tiles()


def _assert_distinguishable(tiles: dict[str, np.ndarray]) -> None:
    assert list(tiles) == list(HATCHES) and len(HATCHES) == 8
    close = {pair: round(d, 3) for pair, d in hatch.distances(tiles).items() if d < hatch.MIN_PATTERN_DISTANCE}
    assert not close, close


def test_the_measure_can_fail(mpl_tiles) -> None:
    """Mirror images and shifted copies of one pattern are NOT distinguishable; different patterns are."""
    back = mpl_tiles["\\"]
    assert hatch.pattern_distance(back, np.fliplr(back)) < hatch.MIN_PATTERN_DISTANCE
    shifted = np.roll(mpl_tiles["-"], 3, axis=0)
    assert hatch.pattern_distance(mpl_tiles["-"], shifted) < hatch.MIN_PATTERN_DISTANCE
    assert hatch.pattern_distance(mpl_tiles["-"], mpl_tiles["|"]) > hatch.MIN_PATTERN_DISTANCE


def test_matplotlib_patterns_pairwise_distinguishable(mpl_tiles) -> None:
    _assert_distinguishable(mpl_tiles)


@pytest.mark.skipif(not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")),
                    reason="the plotly renderer needs Chromium (apt-get install chromium)")
def test_plotly_patterns_pairwise_distinguishable() -> None:
    pytest.importorskip("kaleido")
    tiles = hatch.plotly_tiles()
    _assert_distinguishable(tiles)
    # No pattern pair is a mirror pair: the old mapping drew classes 4 and 5 as "\" and "/".
    from mapgen.render.plotly_renderer import PLOTLY_HATCH

    shapes = {spec[0] for spec in PLOTLY_HATCH.values()}
    assert not {"\\", "/"} <= shapes
    assert len(set(PLOTLY_HATCH.values())) == len(HATCHES)


def test_eight_class_hatched_maps_are_allowed() -> None:
    from mapgen.spec import make_hatched, make_spec

    spec = make_hatched(make_spec("usa", "population_2020", classes=8, scheme="quantiles"))
    assert [c.hatch for c in spec.legend.classes] == list(HATCHES)
    assert all(a != b for a, b in itertools.combinations([c.hatch for c in spec.legend.classes], 2))
