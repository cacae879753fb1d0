"""Legible by construction: colour rule (CIEDE2000), N/A keys, outlines, legends and titles inside the canvas."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from coloraide import Color
from PIL import Image

from mapgen.build import build
from mapgen.cli import main
from mapgen.geo.atlas import load_atlas
from mapgen.legend import (
    DiscreteOptions,
    Legend,
    class_colors,
    combination_collision,
    continuous_legend,
    discrete_legend,
    legend_collision,
)
from mapgen.render import render
from mapgen.render.layout import compute_layout
from mapgen.render.legend_layout import legend_font_px, legend_layout
from mapgen.render.text import text_box, title_items
from mapgen.spec import LEGEND_POSITIONS, Style, background_color, make_hatched, make_spec

BACKGROUNDS = ["white", "lightgray", "lightsteelblue", "whitesmoke"]
COLORMAPS = ["Blues", "Greens", "Purples", "Oranges", "Reds", "YlOrRd", "YlGnBu", "PuBu", "viridis"]


def de(a: str, b: str) -> float:
    return Color(a).delta_e(Color(b), method="2000")


def test_delta_e_is_ciede2000_of_the_reported_pair() -> None:
    # the pair from the bug report: PuBu's second class on lightsteelblue, 1.45 CIEDE2000 (CIE76 would say ~2.6)
    from mapgen.legend import delta_e

    assert delta_e("#afc1dd", "lightsteelblue") == pytest.approx(1.45, abs=0.01)
    assert delta_e("#d9d9d9", "#d3d3d3") == pytest.approx(1.40, abs=0.01)


@pytest.mark.parametrize("colormap", COLORMAPS)
def test_every_passing_combination_really_passes_and_failing_ones_name_a_real_pair(colormap: str) -> None:
    for bg, k in itertools.product(BACKGROUNDS, [3, 5, 7]):
        hit = combination_collision(colormap, False, k, background_color(bg))
        colors = class_colors(colormap, k)
        if hit is None:
            spec_bg = background_color(bg)
            assert all(de(c, spec_bg) >= 10 for c in colors)
            assert all(de(a, b) >= 8 for a, b in itertools.pairwise(colors))
            assert all(de(a, b) >= 10 for a, b in itertools.combinations(colors, 2) if colors.index(b) - colors.index(a) > 1)
        else:
            assert de(hit.first_color, hit.second_color) == pytest.approx(hit.delta_e)
            assert hit.delta_e < hit.minimum


def test_pubu_on_lightsteelblue_fails_and_na_fill_moves_off_a_grey_background() -> None:
    assert combination_collision("PuBu", False, 5, background_color("lightsteelblue")) is not None
    values = pd.Series({"a": 1.0, "b": 2.0, "c": 3.0, "d": np.nan, "e": 5.0, "f": 8.0})
    spec = make_spec("usa", "population_2020", colormap="YlOrRd", background="lightgray")
    legend = spec.legend
    assert legend_collision(legend, "#d3d3d3") is None
    assert de(legend.na_color, "#d3d3d3") >= 10  # the old #d9d9d9 N/A fill was 1.4 from lightgray
    assert discrete_legend(values, DiscreteOptions(k=3)).na_label == "N/A"


def test_cli_refuses_an_illegible_request_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "m.png"
    args = ["render", "china", "--stat", "gdp_per_capita_2022", "--colormap", "PuBu", "--background",
            "lightsteelblue", "-o", str(out)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2  # bad input
    line = res.output.strip()
    assert "\n" not in line and "CIEDE2000" in line and "the background (#b0c4de)" in line and "try --" in line
    assert not out.exists()
    ok = CliRunner().invoke(main, args[:-4] + ["--background", "white", "-o", str(out)])
    assert ok.exit_code == 0, ok.output
    assert out.exists()


def test_build_samples_only_legible_colour_pairs(tmp_path: Path) -> None:
    config = {"name": "tiny", "seed": 5, "countries": [{"name": "china", "maps": 6}],
              "variants": {"colormaps": ["PuBu", "Blues"], "backgrounds": ["lightsteelblue", "white"],
                           "hatched": False},
              "questions": {"per_image": 1}, "tasks": ["vqa"]}
    build(config, tmp_path / "b", progress=False)
    maps = [json.loads(p.read_text()) for p in (tmp_path / "b" / "maps").glob("*.json")]
    assert maps
    for rec in maps:
        legend = Legend.from_dict(rec["spec"]["legend"])
        bg = background_color(rec["spec"]["style"]["background"])
        for code in rec["regions"]:
            fill = legend.color_of(rec["spec"]["values"].get(code))
            assert de(fill, bg) >= 10, (rec["spec"]["map_id"], code, fill, bg)


def _swatch_pixel(png: Path, item: dict) -> str:
    x1, y1, x2, y2 = item["swatch"]
    r, g, b = np.asarray(Image.open(png).convert("RGB"))[round((y1 + y2) / 2), round((x1 + x2) / 2)]
    return f"#{r:02x}{g:02x}{b:02x}"


@pytest.mark.parametrize("kind", ["continuous", "discrete", "hatched"])
def test_no_data_region_gets_an_na_key_distinct_from_classes_and_paper(kind: str, tmp_path: Path) -> None:
    # Ladakh has no literacy figure in the 2011 census table
    spec = make_spec("india", "literacy_2011", legend="continuous" if kind == "continuous" else "discrete",
                     colormap="YlGnBu", background="white", annotated=False)
    spec = make_hatched(spec) if kind == "hatched" else spec
    result = render(spec, tmp_path / "m.png")
    na_items = [i for i in result.legend_items if i.get("class", 0) is None]
    assert len(na_items) == 1 and na_items[0]["label"] == "N/A"
    assert _swatch_pixel(result.image, na_items[0]) == spec.legend.na_color
    x, y = result.scene.regions["LA"].pixels["sample"]
    r, g, b = np.asarray(Image.open(result.image).convert("RGB"))[round(y), round(x)]
    assert f"#{r:02x}{g:02x}{b:02x}" == spec.legend.na_color
    assert de(spec.legend.na_color, "#ffffff") >= 10
    faces = [c.color for c in spec.legend.classes] or list(spec.legend.colors[::8])
    assert min(de(spec.legend.na_color, f) for f in faces) >= 10


def test_outline_separates_the_lightest_class_from_white_paper(tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020", colormap="Greens", annotated=False)
    result = render(spec, tmp_path / "m.png")
    rgb = np.asarray(Image.open(result.image).convert("RGB")).astype(int)
    land = np.asarray(Image.open(result.mask)) > 0
    edge = land & ~(np.roll(land, 1, 0) & np.roll(land, -1, 0) & np.roll(land, 1, 1) & np.roll(land, -1, 1))
    lum = rgb[edge].mean(axis=1)
    lightest = min(np.mean(Color(c).convert("srgb").coords()) * 255 for c in [spec.legend.classes[0].color])
    assert np.mean(lum < lightest - 30) > 0.6  # the coast is drawn darker than any fill next to it


def _inside(box, w: int, h: int) -> bool:
    x1, y1, x2, y2 = box
    return x1 >= 0 and y1 >= 0 and x2 <= w and y2 <= h


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _sweep_legends():
    rng = np.random.default_rng(0)
    values = pd.Series(rng.lognormal(10, 2, 40) * 1000, index=[f"r{i}" for i in range(40)])
    values.iloc[3] = np.nan
    for k in range(3, 9):
        yield f"k{k}", discrete_legend(values, DiscreteOptions(k=k, scheme="quantiles"))
    yield "bar", continuous_legend(values)


@pytest.mark.parametrize("size", [(800, 600), (400, 300), (1600, 1200), (600, 900)])
def test_layout_sweep_keeps_every_legend_item_and_title_on_the_canvas(size: tuple[int, int]) -> None:
    """Every legend position x orientation x 3-8 classes (and a colour bar) x size: both renderers draw this
    geometry (legend_layout), so nothing leaves the canvas in either."""
    bounds = tuple(load_atlas("usa").gdf.total_bounds)
    legends = list(_sweep_legends())
    outside = []
    for pos, orient in itertools.product(LEGEND_POSITIONS, ["vertical", "horizontal"]):
        style = Style(width=size[0], height=size[1], legend_position=pos, legend_orientation=orient)
        lay = compute_layout(bounds, style)
        title = "Share of households with a broadband internet subscription, American Community Survey 2022 (%)"
        for item in title_items(title, lay.title_box):
            if not _inside(text_box(item), *size):
                outside.append(("title", pos, orient))
        for name, legend in legends:
            layout = legend_layout(legend, lay.legend_box, orient, legend_font_px(*size))
            boxes = [text_box(t) for t in layout.texts]
            boxes += [i["box"] for i in layout.items if "box" in i]
            boxes += [i["colorbar"] for i in layout.items if "colorbar" in i]
            outside += [(name, pos, orient, b) for b in boxes if not _inside(b, *size)]
            entries = [i["box"] for i in layout.items if "box" in i]
            clashes = [(a, b) for a, b in itertools.combinations(entries, 2) if _overlap(a, b)]
            assert not clashes, (name, pos, orient, clashes)
            if legend.kind == "discrete":
                assert len(entries) == legend.k + 1  # every class and the N/A key are drawn
    assert outside == []


def test_long_title_wraps_to_two_lines_keeping_every_word() -> None:
    lay = compute_layout(tuple(load_atlas("china").gdf.total_bounds), Style())
    title = "Gross domestic product per capita by province, National Bureau of Statistics (yuan, 2022)"
    items = title_items(title, lay.title_box)
    assert len(items) == 2
    assert " ".join(i.text for i in items) == title
    assert not _overlap(text_box(items[0]), text_box(items[1]))
    short = title_items("Population, 2020", lay.title_box)
    assert [i.text for i in short] == ["Population, 2020"]


def test_text_scales_with_the_page(tmp_path: Path) -> None:
    small = render(make_spec("usa", "population_2020", classes=4), tmp_path / "s.png")
    big = render(make_spec("usa", "population_2020", classes=4, width=1600, height=1200), tmp_path / "b.png")

    def height(result, code: str) -> float:
        x1, y1, x2, y2 = result.labels[code]["box"]
        return y2 - y1

    assert height(big, "TX") >= 1.8 * height(small, "TX")
    sw_small, sw_big = small.legend_items[0]["swatch"], big.legend_items[0]["swatch"]
    assert sw_big[3] - sw_big[1] == pytest.approx(2 * (sw_small[3] - sw_small[1]))
