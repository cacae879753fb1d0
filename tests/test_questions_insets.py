"""Direction questions agree with the image: insets (Alaska, Hawaii) never decide an answer the picture contradicts."""

from __future__ import annotations

from pathlib import Path

from mapgen.questions.functions import FUNCTIONS, INVALID, reading
from mapgen.render import render
from mapgen.scene import build_scene
from mapgen.spec import make_spec


def call(scene, name: str, *args):
    return FUNCTIONS[name].fn(reading(scene), *args)


def test_alaska_is_north_most_only_before_rendering(tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020")
    plain = build_scene(spec)
    assert call(plain, "extreme_direction", {"AK", "WA"}, "north") == "AK"  # geography alone
    drawn = render(spec, tmp_path / "m.png").scene
    assert call(drawn, "extreme_direction", {"AK", "WA"}, "north") is INVALID  # the inset sits bottom-left
    assert call(drawn, "extreme_direction", {"WA", "TX"}, "north") == "WA"  # image and geography agree
    assert call(drawn, "extreme_direction", {"ME", "CA"}, "east") == "ME"
