"""The region compositor (mapgen/render/composite.py) draws the very bytes Agg draws."""

from __future__ import annotations

from pathlib import Path

import pytest

from mapgen.data.curated import list_stats
from mapgen.render import mpl_renderer as mr
from mapgen.render import render
from mapgen.render.api import get_renderer
from mapgen.render.style import load_style
from mapgen.spec import make_hatched, make_spec


def _specs(country: str, style: str):
    stats = [s.id for s in list_stats(country)]
    look = load_style(style).spec_defaults(country)
    plain = make_spec(country, stats[3 % len(stats)], classes=6, annotated=True, **look)
    # India's 4th table at 6 classes leaves one region without data: a one-region unhatched class
    return [plain, plain.with_style(annotated=False), make_hatched(plain),
            make_spec(country, stats[0], legend="continuous", **look)]


@pytest.mark.parametrize(("country", "style"), [("usa", "default"), ("india", "default"), ("china", "dashboard")])
def test_composited_maps_are_byte_identical_to_agg(country: str, style: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    specs = _specs(country, style)
    render(specs[0], tmp_path / "first.png")  # a figure's first map is drawn by Agg; the next ones composited
    composited = [render(s, tmp_path / f"c{i}.png").png for i, s in enumerate(specs)]
    figures = get_renderer("matplotlib")._figures.values()
    assert any(f.compositor is not None for f in figures)  # the compositor did draw them
    monkeypatch.setattr(mr.MatplotlibFigure, "_compositing", lambda self, spec, faces: None)
    by_agg = [render(s, tmp_path / f"a{i}.png").png for i, s in enumerate(specs)]
    assert composited == by_agg
