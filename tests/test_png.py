"""mapgen's PNG writer (:mod:`mapgen.render.png`): Pillow reads back every pixel, for a drawn map and for noise
(where an unfiltered row cannot hide a wrong byte order), at every compression level; same pixels, same bytes."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from mapgen.render.png import encode_png


def _decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("level", [0, 1, 6, 9])
def test_noise_round_trips_at_every_level(level: int) -> None:
    pixels = np.random.default_rng(level).integers(0, 256, size=(37, 53, 3), dtype=np.uint8)  # odd sizes
    image = _decoded(encode_png(Image.fromarray(pixels), level))
    assert image.mode == "RGB" and image.size == (53, 37) and not image.info.get("dpi")
    assert np.array_equal(np.asarray(image), pixels)


def test_a_drawn_map_round_trips_and_is_byte_stable(tmp_path) -> None:
    from mapgen.render import render
    from mapgen.spec import make_spec

    spec = make_spec("usa", "population_2020", classes=5)
    first = render(spec, tmp_path / "a.png")
    png = first.image.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = _decoded(png)
    assert image.size == (spec.style.width, spec.style.height)
    again = encode_png(image.convert("RGBA"), spec.style.png_compress_level)  # RGBA in: converted to RGB
    assert again == png
    assert len(set(image.getpixel((x, 300)) for x in range(0, 800, 8))) > 3  # a map, not a blank page


def test_levels_trade_size_for_speed_on_a_flat_image() -> None:
    flat = Image.new("RGB", (400, 300), (200, 30, 60))
    assert len(encode_png(flat, 9)) <= len(encode_png(flat, 1)) < len(encode_png(flat, 0))
