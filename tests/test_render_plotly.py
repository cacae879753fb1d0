"""Plotly renderer: same page as matplotlib (sampling recovers classes), same content, deterministic bytes.

Skipped when plotly/kaleido or a Chromium executable are missing (CI installs Debian's ``chromium``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("plotly")
pytest.importorskip("kaleido")

from test_render import samples_recover_classes  # noqa: E402

from mapgen.legend import HATCHES  # noqa: E402
from mapgen.render import render, render_variants  # noqa: E402
from mapgen.render.api import get_canvas, get_renderer  # noqa: E402
from mapgen.render.mpl_renderer import MatplotlibRenderer, label_texts  # noqa: E402
from mapgen.render.plotly_renderer import (  # noqa: E402
    PLOTLY_HATCH,
    ChromiumNotFoundError,
    build_figure,
    find_browser,
    topojson_dir,
)
from mapgen.spec import make_hatched, make_spec  # noqa: E402

STATS = {"usa": "population_2020", "india": "literacy_2011", "china": "gdp_per_capita_2022"}


def _have_browser() -> bool:
    try:
        find_browser()
    except ChromiumNotFoundError:
        return False
    return True


needs_chromium = pytest.mark.skipif(not _have_browser(), reason="Chromium not installed (apt-get install chromium)")


def plotly_spec(country: str, **kwargs):
    return make_spec(country, STATS[country], **kwargs).with_style(renderer="plotly")


@needs_chromium
@pytest.mark.parametrize("country", list(STATS))
@pytest.mark.parametrize("annotated", [True, False])
def test_sampled_colour_recovers_the_legend_class(country: str, annotated: bool, tmp_path: Path) -> None:
    spec = plotly_spec(country, classes=5, annotated=annotated)
    result = render(spec, tmp_path / "m.png")
    # placement is exact, so the pixel is the class colour itself (no blending with a neighbour/border)
    assert samples_recover_classes(result, spec, max_channel_error=2) >= 25


@needs_chromium
@pytest.mark.parametrize("country", list(STATS))
def test_every_variant_renders_a_valid_png(country: str, tmp_path: Path) -> None:
    spec = plotly_spec(country, classes=5)
    results = render_variants(spec, tmp_path)
    horizontal = plotly_spec(country, legend="continuous").with_style(
        legend_orientation="horizontal", legend_position="bottom", background="lightsteelblue")
    results.append(render(horizontal, tmp_path / "continuous.png"))
    assert len(results) == 4
    for result in results:
        with Image.open(result.image) as img:
            assert img.format == "PNG" and img.size == (800, 600)
            assert not img.info, "PNG carries metadata"
            assert len(img.convert("RGB").getcolors(1 << 20) or ()) > 20  # something was drawn
    assert not list(tmp_path.glob(".*.tmp"))


@needs_chromium
def test_hatched_map_uses_distinct_patterns(tmp_path: Path) -> None:
    assert set(PLOTLY_HATCH) == set(HATCHES) and len(set(PLOTLY_HATCH.values())) == len(HATCHES)
    spec = make_hatched(plotly_spec("usa", classes=5))
    canvas = get_canvas(spec.load_atlas(), spec.style)
    figure, items, _ = build_figure(spec, canvas)
    patterns = [tuple(t["fillpattern"][k] for k in ("shape", "size", "solidity")) for t in figure["data"]
                if "fillpattern" in t]
    assert set(patterns) == {PLOTLY_HATCH[h] for h in HATCHES[:5]}
    image = np.asarray(Image.open(render(spec, tmp_path / "h.png").image).convert("L"))
    for item in items:  # every swatch holds dark pattern pixels and light background pixels
        x1, y1, x2, y2 = (int(round(v)) for v in item["swatch"])
        inner = image[y1 + 2 : y2 - 2, x1 + 2 : x2 - 2]
        assert inner.min() < 80 and (item["class"] is None or inner.max() > 100), item["label"]


@needs_chromium
def test_same_content_as_matplotlib(tmp_path: Path) -> None:
    for spec in (plotly_spec("usa", classes=5), plotly_spec("india", legend="continuous"),
                 make_hatched(plotly_spec("china", classes=4)).with_style(label_mode="names")):
        canvas = get_canvas(spec.load_atlas(), spec.style)
        _, items, labels = get_renderer("plotly").draw(spec, canvas)
        _, mpl_items, mpl_labels = MatplotlibRenderer().draw(spec, canvas)
        assert items == mpl_items
        assert labels == mpl_labels
        assert {c: v["text"] for c, v in labels.items()} == {
            c: t for c, t in label_texts(spec, canvas).items() if c in canvas.places}


@needs_chromium
def test_output_is_byte_identical_in_process_and_across_processes(tmp_path: Path) -> None:
    spec = plotly_spec("india", classes=4)
    spec.save(tmp_path / "spec.json")
    first = render(spec, tmp_path / "a.png").image.read_bytes()
    assert render(spec, tmp_path / "b.png").image.read_bytes() == first
    code = (
        "import sys; from mapgen.spec import load_spec; from mapgen.render import render; "
        "render(load_spec(sys.argv[1]), sys.argv[2])"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "spec.json"), str(tmp_path / "c.png")], check=True)
    assert (tmp_path / "c.png").read_bytes() == first


def test_missing_browser_fails_clearly(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-chromium"))
    with pytest.raises(ChromiumNotFoundError, match="apt-get install chromium"):
        find_browser()
    monkeypatch.delenv("BROWSER_PATH")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ChromiumNotFoundError, match="BROWSER_PATH"):
        find_browser()


def test_local_topojson_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = topojson_dir()
    assert folder.is_relative_to(tmp_path)
    assert (folder / "world_110m.json").read_text().startswith('{"type":"Topology"')
    assert not [p for p in os.listdir(folder) if p.endswith(".tmp")]
