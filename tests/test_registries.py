"""Renderers and classification schemes register like tasks (issue 39 item 2): a toy renderer and a toy scheme
defined here are registered through the public doors and a map is rendered with them."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from mapgen.cli import main
from mapgen.config import LegendChoices, VariantChoices
from mapgen.legend import DiscreteOptions, discrete_legend
from mapgen.render import render
from mapgen.renderers import (
    Renderer,
    UnknownRendererError,
    get_renderer,
    register_renderer,
    renderer_names,
    unregister_renderer,
)
from mapgen.schemes import register_scheme, scheme_name, scheme_names, unregister_scheme
from mapgen.spec import make_spec

TOY_COLOUR = (12, 34, 56)


class ToyRenderer:
    """Paints the page one colour; reports no legend items and no labels."""

    name = "toy"

    def __init__(self) -> None:
        self.drawn: list[tuple[str, str]] = []

    def draw(self, spec: Any, canvas: Any, fmt: str = "png") -> tuple[bytes, list[dict[str, Any]], dict[str, Any]]:
        self.drawn.append((spec.legend.scheme, fmt))
        buf = io.BytesIO()
        Image.new("RGB", (canvas.layout.width, canvas.layout.height), TOY_COLOUR).save(buf, format="PNG")
        return buf.getvalue(), [], {}


def thirds_of_the_range(y: np.ndarray, k: int) -> np.ndarray:
    """A toy scheme: the first k-1 edges at thirds of the range's bottom third, the last the maximum."""
    lo, hi = float(y.min()), float(y.max())
    return np.array([lo + (hi - lo) / 3 * (i + 1) / k for i in range(k - 1)] + [hi])


@pytest.fixture
def toys() -> Iterator[None]:
    register_renderer("toy", ToyRenderer)
    register_scheme("toy_thirds", thirds_of_the_range, aliases=("thirds",))
    yield
    unregister_renderer("toy")
    unregister_scheme("toy_thirds")


def test_a_toy_renderer_and_a_toy_scheme_render_a_map(toys: None, tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020", classes=4, scheme="Thirds", renderer="toy", map_id="toy")
    assert spec.legend.scheme == "toy_thirds"
    values = np.array([v for v in spec.values.values() if v == v])
    assert spec.legend.breaks == pytest.approx(list(thirds_of_the_range(values, 4)))
    result = render(spec, tmp_path / "toy.png")
    with Image.open(result.image) as image:
        assert image.convert("RGB").getpixel((5, 5)) == TOY_COLOUR
    assert result.mask.is_file()
    record = json.loads(result.json.read_text(encoding="utf-8"))
    assert record["render"]["renderer"] == "toy" and record["spec"]["legend"]["scheme"] == "toy_thirds"
    toy = get_renderer("toy")
    assert isinstance(toy, ToyRenderer) and toy.drawn == [("toy_thirds", "png")]


def test_a_renderer_writes_only_the_formats_it_registered(toys: None, tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020", renderer="toy", map_id="toy")
    with pytest.raises(ValueError, match=r"SVG output needs the matplotlib or plotly renderer"):
        render(spec, tmp_path / "toy.svg")
    assert not list(tmp_path.iterdir())


def test_the_built_ins_come_through_the_same_door() -> None:
    assert renderer_names()[:2] == ("matplotlib", "plotly")
    assert scheme_names()[:4] == ("quantiles", "equal_interval", "natural_breaks", "fisher_jenks")
    assert isinstance(get_renderer("matplotlib"), Renderer)
    assert scheme_name("Jenks") == "natural_breaks" and scheme_name("user-defined") == "user_defined"


def test_unknown_names_fail_with_the_choices(toys: None) -> None:
    with pytest.raises(UnknownRendererError, match="matplotlib, plotly, toy"):
        make_spec("usa", "population_2020", renderer="toi")
    with pytest.raises(ValueError, match="quantiles, equal_interval, natural_breaks, fisher_jenks, toy_thirds"):
        discrete_legend(np.arange(20.0), DiscreteOptions(scheme="halves"))
    with pytest.raises(ValueError, match="already registered"):
        register_scheme("jenks", thirds_of_the_range)


def test_config_and_cli_validate_against_the_registries(toys: None, tmp_path: Path) -> None:
    assert LegendChoices(schemes=["Thirds", "quantiles"]).schemes == ["toy_thirds", "quantiles"]
    assert VariantChoices(renderers=["toy"]).renderers == ["toy"]
    with pytest.raises(ValueError, match="unknown classification scheme 'halves'"):
        LegendChoices(schemes=["halves"])
    with pytest.raises(ValueError, match="unknown renderer 'toi'"):
        VariantChoices(renderers=["toi"])
    out = tmp_path / "m.png"
    ok = CliRunner().invoke(main, ["render", "usa", "--stat", "population_2020", "--scheme", "toy-thirds", "-o", str(out)])
    assert ok.exit_code == 0, ok.output
    assert json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["spec"]["legend"]["scheme"] == "toy_thirds"
    bad = CliRunner().invoke(main, ["render", "usa", "--stat", "population_2020", "--scheme", "halves", "-o", str(out)])
    assert bad.exit_code == 2 and "unknown classification scheme 'halves'" in bad.output


def test_the_plotly_figure_module_loads_no_matplotlib() -> None:
    code = "import sys, mapgen.render.plotly_figure; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout
    assert out.strip() == "False"
