"""Default page sizes from the map's shape (issue 30 item 6): 800 wide, the height the shape needs."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.config import VariantChoices
from mapgen.geo.atlas import load_atlas
from mapgen.mapmaking import look_fields
from mapgen.render.layout import PAD_PX, compute_layout, default_page_size, shape_size
from mapgen.render.style import load_style
from mapgen.spec import Style


@pytest.mark.parametrize(("country", "size"), [("usa", (800, 600)), ("india", (800, 800)), ("china", (800, 600))])
def test_the_default_size_comes_from_the_shape(country: str, size: tuple[int, int]) -> None:
    """India (taller than wide: 0.93) gets a square page; the USA (1.25) and China (1.20) are wider than the
    map box of 800×600 and keep it."""
    atlas = load_atlas(country)
    assert default_page_size(atlas) == size
    bounds = tuple(float(v) for v in atlas.gdf.total_bounds)
    lay = compute_layout(bounds, Style(width=size[0], height=size[1]))  # type: ignore[arg-type]
    # at that size the map spans the map box's width, and 100 px lower it would not (unless at 600)
    assert (bounds[2] - bounds[0]) * lay.scale == pytest.approx(lay.map_box.width - 2 * PAD_PX)
    if size[1] > 600:
        lower = compute_layout(bounds, Style(width=800, height=size[1] - 100))  # type: ignore[arg-type]
        assert (bounds[2] - bounds[0]) * lower.scale < lower.map_box.width - 2 * PAD_PX - 1


def test_shape_size_stays_between_four_thirds_and_four_fifths() -> None:
    assert shape_size((0.0, 0.0, 10.0, 1.0)) == (800, 600)  # a wide strip
    assert shape_size((0.0, 0.0, 1.0, 10.0)) == (800, 1000)  # a tall one


def test_a_style_size_wins_and_presets_keep_theirs() -> None:
    india = load_atlas("india")
    assert default_page_size(india, load_style("mapwise")) == (1000, 1000)
    assert look_fields("mapwise", india, by_shape=True)["width"] == 1000
    assert look_fields(None, india, by_shape=True) == {"width": 800, "height": 800}
    assert look_fields(None, india, by_shape=False) == {}


def test_a_config_states_a_size_or_takes_the_shape() -> None:
    assert VariantChoices().size is None and "width" not in VariantChoices().model_dump()
    assert VariantChoices(width=1000, height=1000).size == (1000, 1000)
    assert VariantChoices(width=1000).size == (1000, 600)


def test_cli_sizes_a_map_by_its_shape_unless_told() -> None:
    runner = CliRunner()
    spec = json.loads(runner.invoke(main, ["spec", "india", "--stat", "literacy_2011"]).output)
    assert (spec["style"]["width"], spec["style"]["height"]) == (800, 800)
    usa = json.loads(runner.invoke(main, ["spec", "usa", "--stat", "population_2020"]).output)
    assert (usa["style"]["width"], usa["style"]["height"]) == (800, 600)


def test_cli_render_takes_the_shape_size_and_size_overrides_it(tmp_path) -> None:
    from PIL import Image

    runner = CliRunner()
    plain = runner.invoke(main, ["render", "india", "--stat", "literacy_2011", "-o", str(tmp_path / "a.png")])
    assert plain.exit_code == 0, plain.output
    assert Image.open(tmp_path / "a.png").size == (800, 800)
    told = runner.invoke(main, ["render", "india", "--stat", "literacy_2011", "--size", "800x600", "-o",
                                str(tmp_path / "b.png")])
    assert told.exit_code == 0, told.output
    assert Image.open(tmp_path / "b.png").size == (800, 600)
