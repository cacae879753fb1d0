"""SVG and PDF output of the matplotlib renderer (issue 30 item 3): same layout and facts as the PNG."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.render import render
from mapgen.spec import make_spec


@pytest.fixture(scope="module")
def spec():
    return make_spec("usa", "population_2020", classes=4, map_id="usa-vector", annotated=True)


def test_svg_and_pdf_share_the_png_layout_and_facts(spec, tmp_path: Path) -> None:
    png = render(spec, tmp_path / "png" / "m.png")
    svg = render(spec, tmp_path / "svg" / "m.svg")
    pdf = render(spec, tmp_path / "pdf" / "m.pdf")
    root = ET.parse(svg.image).getroot()
    assert root.tag.endswith("svg") and root.get("width") == "576pt"  # 800 px at 100 dpi
    assert pdf.image.read_bytes().startswith(b"%PDF")
    facts = [json.loads(r.json.read_text(encoding="utf-8")) for r in (png, svg, pdf)]
    assert facts[0] == facts[1] == facts[2]
    assert png.mask.read_bytes() == svg.mask.read_bytes() == pdf.mask.read_bytes()
    again = render(spec, tmp_path / "again" / "m.svg")
    assert again.image.read_bytes() == svg.image.read_bytes()  # no timestamp: the same map, the same bytes


def test_other_suffixes_exit_2_and_create_nothing(tmp_path: Path) -> None:
    out = tmp_path / "usa.jpg"
    result = CliRunner().invoke(main, ["render", "usa", "--stat", "population_2020", "-o", str(out)])
    assert result.exit_code == 2 and ".png, .svg, .pdf" in result.output
    assert list(tmp_path.iterdir()) == []


def test_cli_writes_an_svg_file_not_a_folder(tmp_path: Path) -> None:
    out = tmp_path / "usa.svg"
    result = CliRunner().invoke(main, ["render", "usa", "--stat", "population_2020", "--style", "dashboard",
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and (tmp_path / "usa.mask.png").is_file() and (tmp_path / "usa.json").is_file()
    ET.parse(out)


def test_matplotlib_html_output_is_refused_naming_plotly(spec, tmp_path: Path) -> None:
    """HTML is plotly's output (tests/test_render_plotly.py tests plotly's SVG, PDF and HTML)."""
    with pytest.raises(ValueError, match=r"HTML output needs the plotly renderer \(--renderer plotly\)"):
        render(spec, tmp_path / "m.html")
    assert list(tmp_path.iterdir()) == []
