"""Rendering: every variant renders, bytes are deterministic, masks and pixel facts match the geometry."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely
from PIL import Image

from mapgen.files import write_files_atomic
from mapgen.geo.atlas import load_atlas
from mapgen.legend import to_hex_color
from mapgen.render import render, render_variants
from mapgen.render.api import get_canvas
from mapgen.spec import make_hatched, make_spec

STATS = {"usa": "population_2020", "india": "literacy_2011", "china": "gdp_per_capita_2022"}


def rgb(color: str) -> np.ndarray:
    hexa = to_hex_color(color)
    return np.array([int(hexa[i : i + 2], 16) for i in (1, 3, 5)], dtype=float)


@pytest.mark.parametrize("country", list(STATS))
def test_every_variant_renders_a_valid_png(country: str, tmp_path: Path) -> None:
    spec = make_spec(country, STATS[country], classes=5)
    results = render_variants(spec, tmp_path)
    results.append(render(make_spec(country, STATS[country], legend="continuous"), tmp_path / "continuous.png"))
    assert len(results) == 4
    for result in results:
        with Image.open(result.image) as img:
            assert img.format == "PNG" and img.size == (800, 600)
        with Image.open(result.mask) as mask:
            assert mask.size == (800, 600)
        assert result.json.exists()
    assert not list(tmp_path.glob(".*.tmp"))


def test_render_is_byte_identical_across_processes(tmp_path: Path) -> None:
    spec = make_spec("india", "literacy_2011", classes=4, hatched=True)
    spec.save(tmp_path / "spec.json")
    first = render(spec, tmp_path / "a.png").image.read_bytes()
    code = (
        "import sys; from mapgen.spec import load_spec; from mapgen.render import render; "
        "render(load_spec(sys.argv[1]), sys.argv[2])"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "spec.json"), str(tmp_path / "b.png")], check=True)
    second = (tmp_path / "b.png").read_bytes()
    assert hashlib.sha256(first).hexdigest() == hashlib.sha256(second).hexdigest()
    assert render(spec, tmp_path / "c.png").image.read_bytes() == first


@pytest.mark.parametrize("country", list(STATS))
def test_mask_bbox_matches_projected_geometry(country: str) -> None:
    atlas = load_atlas(country)
    spec = make_spec(country, STATS[country])
    canvas = get_canvas(atlas, spec.style)
    lay = canvas.layout
    for code, geom in zip(atlas.codes, atlas.gdf.geometry):
        px = canvas.pixels[code]
        if px.area_px < 30:
            continue
        x1, y1, x2, y2 = shapely.transform(geom, lay.to_pixels).bounds
        # bbox holds inclusive pixel indices: its right/bottom pixel edge is index + 1; thin spikes thinner
        # than a pixel centre are not rasterised, hence a tolerance of a few pixels
        assert abs(px.bbox[0] - x1) <= 4 and abs(px.bbox[2] + 1 - x2) <= 4, code
        assert abs(px.bbox[1] - y1) <= 4 and abs(px.bbox[3] + 1 - y2) <= 4, code
        # the mask area agrees with the polygon area in pixels (within edge effects)
        area = shapely.transform(geom, lay.to_pixels).area
        assert abs(px.area_px - area) <= 0.1 * area + 2 * (x2 - x1 + y2 - y1), code
        sx, sy = px.sample
        assert canvas.mask[int(sy), int(sx)] == atlas.codes.index(code) + 1, code


def test_tiny_regions_are_illegible_and_big_ones_legible(tmp_path: Path) -> None:
    result = render(make_spec("usa", "population_2020"), tmp_path / "usa.png")
    regions = result.scene.regions
    assert not regions["DC"].legible
    assert all(regions[c].legible for c in ("CA", "TX", "CO", "ME", "MA", "AK", "HI"))
    # Rhode Island's widest circle is 2.3 px and the dark coast outline cuts into it: its colour is not read
    assert not regions["RI"].legible
    india = render(make_spec("india", "literacy_2011"), tmp_path / "india.png").scene.regions
    assert not india["CH"].legible


@pytest.mark.parametrize("country", list(STATS))
@pytest.mark.parametrize("annotated", [True, False])
def test_sampled_colour_recovers_the_legend_class(country: str, annotated: bool, tmp_path: Path) -> None:
    spec = make_spec(country, STATS[country], classes=5, annotated=annotated)
    result = render(spec, tmp_path / "m.png")
    assert samples_recover_classes(result, spec) >= 25


def samples_recover_classes(result, spec, max_channel_error: float | None = None) -> int:
    """Check that the pixel at every legible region's sample point is nearest its class colour (and, when
    ``max_channel_error`` is given, that close to it); return how many regions were checked."""
    image = np.asarray(Image.open(result.image).convert("RGB"), dtype=float)
    palette = np.array([rgb(c.color) for c in spec.legend.classes])
    checked = 0
    for code, facts in result.scene.regions.items():
        if not facts.legible or facts.class_index is None:
            continue
        x, y = facts.pixels["sample"]
        pixel = image[int(round(y)), int(round(x))]
        assert int(np.argmin(((palette - pixel) ** 2).sum(axis=1))) == facts.class_index, code
        if max_channel_error is not None:
            assert np.abs(pixel - palette[facts.class_index]).max() <= max_channel_error, code
        checked += 1
    return checked


def test_labels_never_cover_the_sample_point(tmp_path: Path) -> None:
    result = render(make_spec("usa", "population_2020"), tmp_path / "m.png")
    for code, label in result.labels.items():
        x1, y1, x2, y2 = label["box"]
        sx, sy = result.scene.regions[code].pixels["sample"]
        assert not (x1 - 1 <= sx <= x2 + 1 and y1 - 1 <= sy <= y2 + 1), code


def test_hatched_variant_uses_mapwise_order() -> None:
    spec = make_hatched(make_spec("usa", "population_2020", classes=5))
    assert [c.hatch for c in spec.legend.classes] == ["-", "+", "x", "\\", "*"]


def test_bad_inputs_fail_clearly(tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020")
    with pytest.raises(ValueError, match="png"):
        render(spec, tmp_path / "map.jpg")
    with pytest.raises(ValueError, match="discrete"):
        make_hatched(make_spec("usa", "population_2020", legend="continuous"))
    with pytest.raises(ValueError, match="Blues"):
        make_spec("usa", "population_2020", colormap="Bluez")
    assert not list(tmp_path.iterdir())


def test_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    (tmp_path / "b.png").mkdir()  # a directory where a file should go: the rename fails
    with pytest.raises(OSError):
        write_files_atomic({tmp_path / "a.png": b"x", tmp_path / "b.png": b"y"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.png"]


def test_a_render_json_loads_back_with_its_pixel_facts(tmp_path: Path) -> None:
    from mapgen.scene import load_scene

    result = render(make_spec("usa", "population_2020"), tmp_path / "m.png")
    scene = load_scene(result.json)  # what `mapgen questions` / `describe` read
    assert not scene.regions["DC"].legible and scene.regions["CA"].legible
    assert scene.regions["CA"].pixels["bbox"] == result.scene.regions["CA"].pixels["bbox"]
