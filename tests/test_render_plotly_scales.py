"""Plotly draws what the honest scales add (issue 30 item 4): the triangles of a clipped bar's ends, the outline
of page-like regions and swatches and the outlined bar's frame on a diverging legend — checked in the PNG
pixels — and a discrete legend at the top of its strip (where plotly places its legend) with exact item boxes.

Skipped when plotly/kaleido or a Chromium executable are missing (CI installs Debian's ``chromium``).
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

pytest.importorskip("plotly")
pytest.importorskip("kaleido")

from test_render_plotly import needs_chromium  # noqa: E402

from mapgen.audit.legibility import check_record  # noqa: E402
from mapgen.legend import ScaleOptions, delta_e  # noqa: E402
from mapgen.render import render  # noqa: E402
from mapgen.render.api import get_canvas  # noqa: E402
from mapgen.render.legend_layout import MARGIN  # noqa: E402
from mapgen.render.style import outline_color, style_of  # noqa: E402
from mapgen.spec import MapSpec, background_color, make_spec  # noqa: E402

DENSITY = "population_density_2020"
CHANGE = "population_change_2010_2020"


def _plotly(stat: str, style: str | None = None, **kw) -> MapSpec:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = make_spec("usa", stat, annotated=False, **kw).with_style(renderer="plotly")
    return spec.with_style(look=style) if style else spec


def _rgb(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"), dtype=int)


def _hex(rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(int(v) for v in rgb))


def _bar(record: dict) -> dict:
    return next(i for i in record["legend_items"] if "colorbar" in i)


def _inside(corners: list[list[float]], shape: tuple[int, int], shrink: float = 0.6) -> np.ndarray:
    """Pixels well inside a polygon (shrunk towards its centroid, clear of its antialiased edge)."""
    pts = np.asarray(corners)
    centre = pts.mean(axis=0)
    inner = centre + shrink * (pts - centre)
    img = Image.new("L", (shape[1], shape[0]), 0)
    ImageDraw.Draw(img).polygon([tuple(p) for p in inner], fill=1)
    return np.asarray(img).astype(bool)


@needs_chromium
def test_plotly_draws_a_clipped_bars_end_triangles_in_the_end_colours(tmp_path: Path) -> None:
    spec = _plotly(DENSITY, legend="continuous", scale=ScaleOptions("clip"))
    result = render(spec, tmp_path / "clip.png")
    bar, px = _bar(result.record), _rgb(result.image)
    h, w = px.shape[:2]
    assert set(bar["extensions"]) == {"low", "high"}
    for end, colour in (("low", spec.legend.colors[0]), ("high", spec.legend.colors[-1])):
        corners = bar["extensions"][end]
        assert all(0 <= x <= w and 0 <= y <= h for x, y in corners)  # the whole triangle is on the page
        inside = _inside(corners, (h, w))
        assert inside.sum() > 100
        drawn = px[inside]
        assert all(delta_e(_hex(p), colour) < 3 for p in drawn[:: max(1, len(drawn) // 40)])
        assert delta_e(colour, background_color(spec.style.background)) > 10  # a triangle, not the page


def _inner_boundary(mask: np.ndarray, ids: list[int]) -> np.ndarray:
    """Pixels of the regions ``ids`` next to a pixel of another region (4-neighbours; not the page, id 0,
    where the map's outer outline runs anyway)."""
    own = np.isin(mask, ids)
    edge = np.zeros_like(own)
    for axis in (0, 1):
        for step in (1, -1):
            other = np.roll(mask, step, axis=axis)
            edge |= own & (other != mask) & (other != 0)
    return edge


def _pale_codes(result, spec: MapSpec) -> list[str]:
    bg = background_color(spec.style.background)
    return [c for c, r in result.scene.regions.items() if delta_e(r.color, bg) < 10]


@needs_chromium
def test_plotly_edges_pale_regions_with_the_outline_colour(tmp_path: Path) -> None:
    # the minimal style's region borders are white: only the outline tells a pale region from the page
    spec = _plotly(CHANGE, "minimal", legend="continuous", colormap="RdBu", scale=ScaleOptions(midpoint=0.0))
    assert spec.legend.outlined and spec.legend.midpoint == 0.0
    result = render(spec, tmp_path / "diverging.png")
    pale = _pale_codes(result, spec)
    assert pale
    mask = np.asarray(Image.open(result.mask))
    mask = mask if mask.ndim == 2 else mask[..., 0]
    ids = result.record["render"]["mask_ids"]
    edge = _inner_boundary(mask, [ids[c] for c in pale])
    line = outline_color(background_color(spec.style.background), style_of(spec.style))
    px = _rgb(result.image)[edge]
    near = [delta_e(_hex(p), line) < 12 for p in px]
    # a 0.8 px outline on the boundary: 44 % of these pixels are the outline's grey (none without it: 0.4 %)
    assert len(near) > 100 and np.mean(near) > 0.25
    assert "fill like background" not in check_record(result.record).flags


@needs_chromium
def test_plotly_outlines_pale_swatches_and_the_bar_frame_of_an_outlined_legend(tmp_path: Path) -> None:
    discrete = _plotly(CHANGE, colormap="RdBu")
    continuous = _plotly(CHANGE, legend="continuous", colormap="RdBu", scale=ScaleOptions(midpoint=0.0))
    for name, spec in (("discrete", discrete), ("continuous", continuous)):
        assert spec.legend.outlined
        drawn = render(spec, tmp_path / f"{name}.png")
        bare = render(replace(spec, legend=replace(spec.legend, outlined=False)), tmp_path / f"{name}-bare.png")
        changed = np.abs(_rgb(drawn.image) - _rgb(bare.image)).max(axis=2) > 40
        mask = np.asarray(Image.open(drawn.mask))
        mask = mask if mask.ndim == 2 else mask[..., 0]
        ids = drawn.record["render"]["mask_ids"]
        on_pale = np.isin(mask, [ids[c] for c in _pale_codes(drawn, spec)])
        assert changed[on_pale].sum() > 100  # the outline is heavier than a region border
        if name == "discrete":
            box = next(i["swatch"] for i in drawn.record["legend_items"] if i.get("class") is not None
                       and delta_e(spec.legend.classes[i["class"]].color, "#ffffff") < 10)
        else:
            box = _bar(drawn.record)["colorbar"]
        x1, y1, x2, y2 = (int(round(v)) for v in box)
        assert changed[y1 - 2 : y2 + 3, x1 - 2 : x2 + 3].any()  # the swatch / bar frame is the outline's


@needs_chromium
def test_plotlys_discrete_legend_sits_at_the_top_of_its_strip_and_its_boxes_are_drawn(tmp_path: Path) -> None:
    spec = _plotly("population_2020")
    result = render(spec, tmp_path / "top.png")
    items = [i for i in result.record["legend_items"] if "swatch" in i]
    top = min(i["swatch"][1] for i in items)
    strip = get_canvas(spec.load_atlas(), spec.style).layout.legend_box
    assert top == pytest.approx(strip.top + MARGIN)  # at the top of its strip, not centred in it
    assert max(i["swatch"][3] for i in items) < strip.top + strip.height / 2
    px = _rgb(result.image)
    for item in items:  # every reported swatch is drawn where it is reported
        x1, y1, x2, y2 = item["swatch"]
        face = px[int(round((y1 + y2) / 2)), int(round((x1 + x2) / 2))]
        colour = spec.legend.classes[item["class"]].color if item["class"] is not None else spec.legend.na_color
        assert delta_e(_hex(face), colour) < 2
