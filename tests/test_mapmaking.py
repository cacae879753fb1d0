"""One map-making module (mapgen.mapmaking) for build and CLI: the same options make the same MapSpec whichever
of the two asks (issue 39 item 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mapgen.build import unit_variants
from mapgen.build.plan import plan
from mapgen.cli import main
from mapgen.config import load_config
from mapgen.data.curated import list_stats
from mapgen.geo.atlas import load_atlas
from mapgen.mapmaking import look_fields
from mapgen.render.layout import default_page_size

#: Each case: the CLI options and the config's one-choice-each variants that say the same; India's page is
#: sized by its shape (800x800) unless the look sizes it (mapwise: 1000x1000).
CASES = {
    "default look": (["--legend", "discrete", "--classes", "4", "--scheme", "equal_interval", "--order",
                      "large_to_small", "--colormap", "Greens", "--background", "lightgray", "--legend-position",
                      "bottom", "--no-annotated"],
                     {"backgrounds": ["lightgray"], "legend_positions": ["bottom"]}),
    "mapwise look": (["--legend", "discrete", "--classes", "4", "--scheme", "equal_interval", "--order",
                      "large_to_small", "--colormap", "Greens", "--style", "mapwise", "--no-annotated"],
                     {"styles": ["mapwise"]}),
}


def _unit_spec(stat: str, variants: dict[str, Any]) -> dict[str, Any]:
    """The spec a one-map build of India makes with ``variants`` (its unannotated variant)."""
    config = load_config({
        "name": "same-spec", "seed": 3,
        "countries": [{"name": "india", "maps": 1, "statistics": {"curated": [stat]}}],
        "legend": {"types": ["discrete"], "classes": [4], "schemes": ["equal_interval"],
                   "orders": ["large_to_small"]},
        "variants": {"annotated": False, "unannotated": True, "hatched": False, "colormaps": ["Greens"],
                     "reverse_share": 0.0} | variants,
        "questions": {"per_image": 0},
    })
    [(variant, spec)] = unit_variants(plan(config)[0], config)
    assert variant == "unannotated"
    return spec.to_dict()


def _cli_spec(tmp_path: Path, stat: str, options: list[str]) -> dict[str, Any]:
    """The spec ``mapgen render india --stat STAT OPTIONS`` draws (read back from the JSON it writes)."""
    out = tmp_path / "map.png"
    result = CliRunner().invoke(main, ["render", "india", "--stat", stat, *options, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["spec"]


def _comparable(spec: dict[str, Any]) -> dict[str, Any]:
    """A serialised spec without what names one map: its id and its question seed."""
    return {k: v for k, v in spec.items() if k not in ("map_id", "seed")}


@pytest.mark.parametrize("case", list(CASES))
def test_a_cli_render_and_a_build_unit_make_the_same_spec(tmp_path: Path, case: str) -> None:
    options, variants = CASES[case]
    stat = list_stats("india")[0].id
    built, drawn = _unit_spec(stat, variants), _cli_spec(tmp_path, stat, options)
    assert _comparable(drawn) == _comparable(built)
    size = (built["style"]["width"], built["style"]["height"])
    assert size == ((1000, 1000) if case == "mapwise look" else (800, 800))


def test_a_spec_read_back_is_not_resized() -> None:
    """Page sizing needs the Atlas: a spec read back names its atlas only and keeps the size it has."""
    india = load_atlas("india")
    assert look_fields(None, india) == {"width": 800, "height": 800} == dict(zip(("width", "height"),
                                                                                 default_page_size(india)))
    assert look_fields(None, "india") == {}
    assert look_fields("mapwise", "india")["width"] == 1000
