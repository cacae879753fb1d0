"""Honest scales (issue 30 item 4): log and clipped colour bars, end ticks, diverging colormaps with a midpoint
and outlines, CSS background names — checked on the legend, the render record, the PNG and the questions."""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from PIL import Image

from mapgen.audit.legibility import check_record
from mapgen.cli import main
from mapgen.legend import ScaleOptions, continuous_legend, delta_e, is_diverging, legend_collision
from mapgen.legend.colors import to_hex_color
from mapgen.render import render
from mapgen.render.layout import Box
from mapgen.render.legend_layout import LegendText, legend_layout
from mapgen.render.style import load_style, preset_names
from mapgen.spec import background_color, make_spec

DENSITY = "population_density_2020"
CHANGE = "population_change_2010_2020"


def _spec(stat: str = DENSITY, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make_spec("usa", stat, legend="continuous", annotated=False, **kw)


def _pixel(png: Path, xy: tuple[float, float]) -> str:
    r, g, b = Image.open(png).convert("RGB").getpixel((int(xy[0]), int(xy[1])))
    return f"#{r:02x}{g:02x}{b:02x}"


def _bar(record: dict) -> dict:
    return next(i for i in record["legend_items"] if "colorbar" in i)


# ------------------------------------------------------------------------------------------------ log


def test_log_bar_ticks_sit_at_log_positions_and_the_bar_colour_there_is_the_ticks_colour(tmp_path: Path) -> None:
    spec = _spec(scale=ScaleOptions("log"))
    legend = spec.legend
    assert legend.scale == "log" and legend.ticks == (10.0, 100.0, 1000.0)
    result = render(spec, tmp_path / "log.png")
    x1, y1, x2, y2 = _bar(result.record)["colorbar"]
    span = math.log10(legend.vmax) - math.log10(legend.vmin)
    for item in (i for i in result.record["legend_items"] if "tick" in i and "end" not in i):
        frac = (math.log10(item["tick"]) - math.log10(legend.vmin)) / span
        assert item["xy"][1] == pytest.approx(y2 - frac * (y2 - y1), abs=0.01)
        # the drawn gradient at the tick's row has the colour the map gives that value (a linear bar would not)
        drawn = _pixel(result.image, ((x1 + x2) / 2, item["xy"][1]))
        assert delta_e(drawn, legend.color_of(item["tick"])) < 3
    # 100 is a third of the way up a 1.3 .. 11 295 log bar, not 1 % as on a linear one
    assert legend.bar_position(100.0) == pytest.approx(0.48, abs=0.01)


def test_log_scale_refuses_non_positive_values_naming_the_regions() -> None:
    with pytest.raises(ValueError, match=r"log scale needs positive values; not positive: IL \(-0.14\), MS .*WV"):
        _spec(CHANGE, scale=ScaleOptions("log"))


def test_log_bars_read_with_the_tolerance_at_their_widest() -> None:
    from mapgen.questions import reading
    from mapgen.scene import build_scene

    legend = _spec(scale=ScaleOptions("log")).legend
    r = reading(build_scene(_spec(scale=ScaleOptions("log"))))
    assert r.tau == pytest.approx(legend.vmax - legend.value_at(0.95))
    assert r.tau > 0.05 * (legend.vmax - legend.vmin)  # wider than the linear share of the span


# ------------------------------------------------------------------------------------------------ clip


def test_clip_spans_the_percentiles_and_marks_its_ends_in_the_record_and_the_png(tmp_path: Path) -> None:
    spec = _spec(scale=ScaleOptions("clip", (5.0, 95.0)))
    legend, values = spec.legend, spec.series().dropna()
    assert (legend.vmin, legend.vmax) == pytest.approx(tuple(np.percentile(values, [5, 95])))
    assert legend.clipped == (True, True) and legend.clip == (5.0, 95.0)
    result = render(spec, tmp_path / "clip.png")
    bar = _bar(result.record)
    assert bar["scale"] == "clip" and bar["clipped"] == {"low": True, "high": True}
    ends = {i["end"]: i for i in result.record["legend_items"] if "end" in i}
    assert ends["min"]["label"].startswith("≤") and ends["max"]["label"].startswith("≥")
    for end, colour in (("low", legend.colors[0]), ("high", legend.colors[-1])):
        corners = np.array(bar["extensions"][end])
        assert delta_e(_pixel(result.image, corners.mean(axis=0)), colour) < 3  # the triangle is drawn
    json.loads(result.json.read_text())  # written as plain JSON


def test_linear_bars_have_no_clip_facts_and_specs_keep_their_old_keys() -> None:
    spec = _spec()
    assert "scale" not in spec.to_dict()["legend"] and "clipped" not in spec.to_dict()["legend"]
    assert spec.legend.clipped == (False, False)


def test_no_question_names_or_hinges_on_a_clipped_region() -> None:
    from mapgen.questions import generate_questions, load_templates, reading
    from mapgen.questions.engine import run_program
    from mapgen.scene import build_scene

    spec = _spec(scale=ScaleOptions("clip"))
    scene = build_scene(spec)
    clipped = [c for c, r in scene.regions.items() if spec.legend.clipped_end(r.value)]
    assert clipped == ["AK", "DC"]
    r = reading(scene)
    assert not set(clipped) & r.legible
    templates = {t.id: t for t in load_templates()}
    questions = generate_questions(scene, per_template=3, seed=0)
    assert len(questions) > 40
    for q in questions:
        assert not set(clipped) & {v for v in q.params.values() if isinstance(v, str)}
        answer, _ = run_program(templates[q.template_id], r, dict(q.params))
        for factor in (1.001, 3.0, 30.0):  # any value beyond the bar's ends gives the same answer
            moved = r.copy_with("AK", spec.legend.vmin / factor, spec.legend.vmin / factor)
            moved = moved.copy_with("DC", spec.legend.vmax * factor, spec.legend.vmax * factor)
            assert repr(run_program(templates[q.template_id], moved, dict(q.params))[0]) == repr(answer)


# ------------------------------------------------------------------------------------------------ end ticks


@pytest.mark.parametrize("name", preset_names())
@pytest.mark.parametrize("orientation", ["vertical", "horizontal"])
def test_every_preset_draws_a_tick_at_both_ends_of_the_bar(name: str, orientation: str) -> None:
    legend = continuous_legend(pd.Series({"a": 1.3, "b": 40.0, "c": 77.7}))
    box = Box(600, 50, 200, 500) if orientation == "vertical" else Box(0, 500, 800, 100)
    layout = legend_layout(legend, box, orientation, 15.0, LegendText.of(load_style(name)))
    bar = layout.colorbar
    assert bar is not None
    ends = {i["end"]: i for i in layout.items if "end" in i}
    axis = 1 if orientation == "vertical" else 0
    low, high = (bar.y + bar.h, bar.y) if orientation == "vertical" else (bar.x, bar.x + bar.w)
    assert ends["min"]["tick"] == 1.3 and ends["min"]["xy"][axis] == pytest.approx(low)
    assert ends["max"]["tick"] == 77.7 and ends["max"]["xy"][axis] == pytest.approx(high)
    marks = [seg[0][axis] for seg in bar.ticks]
    assert any(m == pytest.approx(low) for m in marks) and any(m == pytest.approx(high) for m in marks)


def test_the_end_tick_marks_are_drawn_in_the_png(tmp_path: Path) -> None:
    result = render(_spec(), tmp_path / "lin.png")
    x1, y1, x2, y2 = _bar(result.record)["colorbar"]
    for y in (y1, y2):  # a dark mark right of the bar at its top and bottom rows (snapped to a pixel row)
        dark = [delta_e(_pixel(result.image, (x2 + 3, row)), "#333333") < 10 for row in range(int(y) - 1, int(y) + 2)]
        assert any(dark), y
    labels = [i["label"] for i in result.record["legend_items"] if "end" in i]
    assert labels == ["1.30", "11,295"]


# ------------------------------------------------------------------------------------------------ diverging


def test_diverging_colormaps_are_recognised() -> None:
    assert all(is_diverging(n) for n in ("RdBu", "coolwarm", "PuOr", "Spectral", "BrBG"))
    assert not any(is_diverging(n) for n in ("Blues", "viridis", "YlOrRd", "PuBu", "magma", "Greys"))


def test_midpoint_centres_a_diverging_bar(tmp_path: Path) -> None:
    spec = _spec(CHANGE, colormap="RdBu", scale=ScaleOptions(midpoint=0.0))
    legend = spec.legend
    assert legend.midpoint == 0.0 and legend.vmin == -legend.vmax and 0.0 in legend.ticks
    assert legend.bar_position(0.0) == 0.5 and delta_e(legend.color_of(0.0), "#ffffff") < 10
    with pytest.warns(UserWarning, match="midpoint is the data's median"):
        median = make_spec("usa", CHANGE, legend="continuous", colormap="RdBu").legend.midpoint
    assert median == pytest.approx(float(np.median(spec.series().dropna())))


def test_an_outlined_pale_class_passes_and_the_same_class_unoutlined_fails() -> None:
    legend = make_spec("usa", CHANGE, colormap="RdBu").legend
    assert legend.outlined
    pale = [c for c in legend.classes if delta_e(c.color, "#ffffff") < 10]
    assert pale
    assert legend_collision(legend, "#ffffff") is None
    hit = legend_collision(replace(legend, outlined=False), "#ffffff")
    assert hit is not None and "the background" in hit.describe()


def test_the_renderer_outlines_pale_regions_and_swatches_and_the_audit_accepts_them(tmp_path: Path) -> None:
    spec = make_spec("usa", CHANGE, colormap="RdBu", annotated=False)
    plain = replace(spec, legend=replace(spec.legend, outlined=False))
    drawn = render(spec, tmp_path / "outlined.png")
    bare = render(plain, tmp_path / "bare.png")
    a = np.asarray(Image.open(drawn.image).convert("RGB"), dtype=int)
    b = np.asarray(Image.open(bare.image).convert("RGB"), dtype=int)
    mask = np.asarray(Image.open(drawn.mask))
    pale_codes = [c for c, r in drawn.scene.regions.items() if delta_e(r.color, "#ffffff") < 10]
    assert pale_codes
    changed = np.abs(a - b).max(axis=2) > 40
    # the outline darkens pixels on the pale regions' edges (in the map) and around the pale swatch (legend)
    ids = drawn.record["render"]["mask_ids"]
    on_pale = np.isin(mask if mask.ndim == 2 else mask[..., 0], [ids[c] for c in pale_codes])
    assert changed[on_pale].sum() > 200
    swatch = next(i["swatch"] for i in drawn.record["legend_items"]
                  if i.get("class") is not None and delta_e(spec.legend.classes[i["class"]].color, "#ffffff") < 10)
    x1, y1, x2, y2 = (int(round(v)) for v in swatch)
    assert changed[y1 - 1 : y2 + 2, x1 - 1 : x2 + 2].any()
    # the audit: outlined pale fills pass; the same fills without the outline fail
    assert "fill like background" not in check_record(drawn.record).flags
    bare_record = dict(bare.record, spec=dict(bare.record["spec"], legend=plain.legend.to_dict()))
    fills = [c for c, r in bare.scene.regions.items() if delta_e(r.color, "#ffffff") < 5]
    if fills:
        assert "fill like background" in check_record(bare_record).flags


def test_cli_draws_a_diverging_map_that_was_refused(tmp_path: Path) -> None:
    out = tmp_path / "d.png"
    res = CliRunner().invoke(main, ["render", "usa", "--stat", CHANGE, "--legend", "continuous", "--colormap", "RdBu",
                                    "--midpoint", "0", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads(out.with_suffix(".json").read_text())["spec"]["legend"]["midpoint"] == 0.0


# ------------------------------------------------------------------------------------------------ CLI, config


def test_cli_scale_options(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["spec", "usa", "--stat", DENSITY, "--legend", "continuous", "--clip", "2,98"])
    assert res.exit_code == 0, res.output
    legend = json.loads(res.stdout)["legend"]
    assert legend["scale"] == "clip" and legend["clip"] == [2.0, 98.0] and legend["clipped"] == [True, True]
    res = runner.invoke(main, ["render", "usa", "--stat", CHANGE, "--legend", "continuous", "--scale", "log",
                               "-o", str(tmp_path / "x.png")])
    assert res.exit_code != 0 and "not positive: IL" in res.output and not (tmp_path / "x.png").exists()
    res = runner.invoke(main, ["render", "usa", "--stat", DENSITY, "--scale", "log", "-o", str(tmp_path / "y.png")])
    assert res.exit_code != 0 and "continuous legends" in res.output
    res = runner.invoke(main, ["spec", "usa", "--stat", DENSITY, "--legend", "continuous", "--clip", "98"])
    assert res.exit_code == 2 and "two percentiles" in res.output


def test_config_scales_are_drawn_for_continuous_maps_only_and_default_configs_dump_as_before() -> None:
    from mapgen.build.plan import plan
    from mapgen.config import BuildConfig

    base = {"countries": [{"name": "usa", "maps": 4}]}
    default = BuildConfig.model_validate(base)
    assert "scales" not in default.model_dump()["legend"] and "clip" not in default.model_dump()["legend"]
    assert all(u.choice.legend.scale is None for u in plan(default))
    clipped = BuildConfig.model_validate(base | {"legend": {"scales": ["clip"], "clip": [5, 95]}})
    scales = {u.choice.legend.kind: u.choice.legend.scale for u in plan(clipped)}
    assert scales["discrete"] is None and scales["continuous"] == ScaleOptions("clip", (5.0, 95.0))


# ------------------------------------------------------------------------------------------------ backgrounds


def test_named_backgrounds_follow_css() -> None:
    assert background_color("gray") == background_color("grey") == "#808080"
    assert background_color("lightgray") == "#d3d3d3" and background_color("darkgray") == "#a9a9a9"
    assert background_color("Light Slate Gray") == "#778899"
    assert delta_e(background_color("gray"), "#ffffff") > delta_e(background_color("lightgray"), "#ffffff")
    assert to_hex_color(background_color("white")) == "#ffffff"


def test_the_cli_scale_choices_are_the_legend_scales() -> None:
    from mapgen.cli.scales import SCALES as CLI_SCALES
    from mapgen.legend import SCALES

    assert tuple(CLI_SCALES) == tuple(SCALES)


def test_a_midpoint_too_far_for_a_finite_bar_is_refused_naming_it_and_the_range() -> None:
    values = pd.Series({"A": 1.0, "B": 5.0, "C": 9.0})
    with pytest.raises(ValueError, match=r"^--midpoint 1e\+308 is too far from the values \(they range from 1 to 9\)"):
        continuous_legend(values, scale=ScaleOptions(midpoint=1e308))
    with pytest.raises(ValueError, match=r"--midpoint must be a finite number"):
        ScaleOptions(midpoint=math.nan)
    legend = continuous_legend(values, scale=ScaleOptions(midpoint=100.0))  # far, but finite: still drawn
    assert (legend.vmin, legend.vmax, legend.midpoint) == (1.0, 199.0, 100.0)
    result = CliRunner().invoke(main, ["render", "usa", "--stat", "population_2020", "-o", "/dev/null/x.png",
                                       "--midpoint", "1e308", "--legend", "continuous"])
    assert result.exit_code == 2 and "--midpoint" in result.output and "same value" not in result.output
