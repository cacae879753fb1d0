"""Declared readings (mapgen.questions.readings): every answer holds under every reading a person may take.

Hand-checked facts on hand-made USA maps (Minnesota's Northwest Angle, a tie for "the most different", a gap
outlier that Tukey's fences do not call one, the Great Plains in two sizes, a "%" title over an absolute table),
a tiny pack declaring its own axis and group alternative through the same door as mapgen's, and a tiny build
whose direction answers are re-checked from the mask pixels alone (pixel centroid and extreme pixel)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers import build_tiny
from PIL import Image

from mapgen.data.statistic import StatInfo, Statistic
from mapgen.geo.atlas import builtin_atlas, load_atlas
from mapgen.questions import load_templates
from mapgen.questions.engine import Unaskable, ask, param_domain, reading_disagreements
from mapgen.questions.functions import reading
from mapgen.questions.readings import axes, load_readings_file
from mapgen.scene import CENTRE, FARTHEST, build_scene, load_scene
from mapgen.spec import make_spec


def _scene(values: dict[str, float], default: float = 5.0, breaks: list[float] | None = None, title: str = "Hand",
           kind: str = "absolute"):
    codes = load_atlas("usa").codes
    breaks = breaks or [10, 20]
    if max([*values.values(), default]) <= breaks[-1]:  # a top class needs a member
        values = {"HI": breaks[-1] + 5, **values}
    series = pd.Series({c: values.get(c, default) for c in codes}, dtype=float)
    stat = Statistic(values=series, info=StatInfo(id="hand", country="usa", title=title, unit="", kind=kind))
    return build_scene(make_spec("usa", stat, breaks=breaks))


def _refusal(template_id: str, scene: Any, **params: Any) -> str | None:
    """The reason ``ask`` refuses (None when it asks)."""
    try:
        ask(load_templates().get(template_id), scene, params)
    except Unaskable as no:
        return no.reason
    return None


def test_every_declared_reading_has_a_source() -> None:
    declared = axes()
    assert {"direction", "superlative", "outlier", "majority", "mean", "similar", "percent"} <= set(declared)
    for axis in declared.values():
        assert axis.default.source and axis.alternatives
        assert all(a.source and a.name != axis.default.name for a in axis.alternatives)


# --- direction: centre vs farthest point --------------------------------------------------------------------


def test_northwest_angle_makes_minnesota_northernmost_by_farthest_point_only() -> None:
    usa = builtin_atlas("usa")
    mn, mt = usa.positions["MN"], usa.positions["MT"]
    assert mt.lat > mn.lat + 0.5  # by centre, Montana lies north of Minnesota
    assert mn.north > mt.north  # by the farthest point (the Northwest Angle, 49.38 N), Minnesota
    scene = _scene({"MN": 25, "MT": 25})
    assert scene.direction_key("MN", "north", FARTHEST) > scene.direction_key("MT", "north", FARTHEST)
    assert scene.direction_key("MT", "north", CENTRE) > scene.direction_key("MN", "north", CENTRE)


def test_no_northernmost_question_hinges_on_minnesota_and_montana() -> None:
    """Only MN and MT in the top class: "the northernmost state in the range" is Montana by its centre, not by
    its farthest point, so it is not asked; the southernmost (both readings: Minnesota) is."""
    scene = _scene({"MN": 25, "MT": 25})
    why = _refusal("direction_extreme_in_range", scene, Y=2, D="north")
    assert why is not None and why.startswith("reading:direction")
    assert _refusal("direction_extreme_in_range", scene, Y=2, D="east") is None
    assert reading_disagreements(load_templates().get("direction_extreme_in_range"), scene,
                                 {"Y": 2, "D": "north"}) == [("direction", FARTHEST)]


# --- superlatives with ties ---------------------------------------------------------------------------------


def test_a_tie_for_the_most_different_is_asked_only_in_the_plural() -> None:
    """AZ class 0, UT class 1, CO and NM class 2: CO and NM tie for the most different from AZ."""
    scene = _scene({"AZ": 5, "UT": 15, "CO": 25, "NM": 25})
    params = {"R": "Four Corners states", "M": "most different", "Y": "AZ"}
    why = _refusal("group_is_closest_value", scene, X="CO", **params)
    assert why is not None and why.startswith("reading:superlative")
    listed = ask(load_templates().get("group_regions_closest_value"), scene,
                 {"R": "Four Corners states", "M": "most different", "X": "AZ"})
    assert listed.answer == ["Colorado", "New Mexico"]  # "Which states … have": the wording names "among"
    untied = _scene({"AZ": 5, "UT": 15, "CO": 25, "NM": 15})
    assert _refusal("group_is_closest_value", untied, X="CO", **params) is None


# --- vague words --------------------------------------------------------------------------------------------


def test_a_gap_outlier_inside_tukeys_fences_is_not_asked() -> None:
    """New England in classes 0,1,2,3,3 and CT in class 5: 2 classes beyond the others (the gap rule: an
    outlier) but inside Q3 + 1.5 IQR = 3 + 1.5 * 1.75 = 5.625 (Tukey: not one)."""
    breaks = [10, 20, 30, 40, 50]
    scene = _scene({"ME": 5, "NH": 15, "VT": 25, "MA": 35, "RI": 35, "CT": 55}, breaks=breaks)
    why = _refusal("group_outlier", scene, R="New England", X="CT")
    assert why is not None and why.startswith("reading:outlier")
    far = _scene({"ME": 5, "NH": 5, "VT": 5, "MA": 15, "RI": 5, "CT": 55}, breaks=breaks)  # both readings: Yes
    assert _refusal("group_outlier", far, R="New England", X="CT") is None


def test_an_exact_half_is_no_majority_question() -> None:
    scene = _scene({"AZ": 15, "CO": 15, "NM": 5, "UT": 5})  # 2 of the 4 Four Corners states in range 1
    why = _refusal("group_majority_in_range", scene, R="Four Corners states", Y=1)
    assert why is not None and why.startswith("reading:majority")


def test_similar_for_neighbouring_classes_is_not_asked() -> None:
    """Kansas one class above Nebraska: "similar" is No as the same class, Yes to a reader who finds neighbouring
    shades alike; the same class, or two classes apart, reads one way under both."""
    scene = _scene({"KS": 15, "NE": 5, "IA": 25})
    why = _refusal("neighbour_comparison", scene, X="KS", Y="NE", C="similar")
    assert why is not None and why.startswith("reading:similar")
    assert _refusal("neighbour_comparison", scene, X="KS", Y="NE", C="higher") is None  # not a "similar" word
    assert _refusal("region_comparison", scene, X="IA", Y="NE", C="similar") is None  # 2 classes: No either way
    assert _refusal("neighbour_comparison", scene, X="MO", Y="NE", C="similar") is None  # same class: Yes


def test_a_percent_title_over_an_absolute_table_is_not_asked_about() -> None:
    scene = _scene({}, title="Population change, 2010 to 2020 (% change)", kind="absolute")
    why = _refusal("map_percent_or_absolute", scene, K="percentages")
    assert why is not None and why.startswith("reading:percent")
    plain = _scene({}, title="Population", kind="absolute")
    assert _refusal("map_percent_or_absolute", plain, K="percentages") is None


# --- groups with documented alternatives --------------------------------------------------------------------


def test_great_plains_has_ten_states_or_five() -> None:
    ctx = reading(_scene({}))
    assert len(ctx.group("Great Plains")) == 10
    assert len(ctx.taking({"group:Great Plains": "narrow usage"}).group("Great Plains")) == 5


def test_a_count_that_hinges_on_the_great_plains_is_not_asked() -> None:
    """Texas alone in range 2: 1 in the 10-state Great Plains, 0 in the 5-state narrow usage."""
    scene = _scene({"TX": 25, "CA": 25})
    why = _refusal("group_count_in_range", scene, R="Great Plains", Y=2)
    assert why is not None and why.startswith("reading:group")
    kansas = _scene({"KS": 25, "CA": 25})  # in both: 1 either way
    assert _refusal("group_count_in_range", kansas, R="Great Plains", Y=2) is None


# --- a pack's own readings ----------------------------------------------------------------------------------

PACK_TEMPLATES = """\
templates:
  - id: pack_is_warm
    answer_type: binary
    params:
      X: Region
    text: ["Is {{ X }} warm?"]
    program:
      - answer: pack_warm(X)
  - id: pack_four_corners_count
    answer_type: count
    params:
      R: RegionGroup
      Y: LegendClass
    text: ["How many {{ states }} {{ R }} are in range {{ Y }}?"]
    program:
      - answer: count(in_range(members(R), Y))
"""
PACK_FUNCTIONS = '''\
from mapgen.questions import register


@register("Region", "Bool")
def pack_warm(ctx, region):
    """Warm: in the top class (the pack's reading "top class"), or in the top two ("top two")."""
    top = ctx.range_count - 1
    cls = int(ctx.level_of(region))
    return cls >= top - 1 if ctx.meaning("pack_warm") == "top two" else cls == top
'''
PACK_READINGS = """\
axes:
  pack_warm:
    default: {name: top class, source: "the pack's definition"}
    alternatives:
      - {name: top two, source: "a reader's wider sense of warm", reason: "for the test"}
groups:
  usa:
    Four Corners states:
      - {name: without Utah, members: [AZ, CO, NM], source: "for the test"}
"""


@pytest.fixture
def pack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The pack's folder; what loading it declares (an axis, a membership of the USA's Four Corners states) is
    taken back after the test, so later builds in this process ask what a fresh process asks."""
    from mapgen.questions import readings

    folder = tmp_path_factory.mktemp("pack")
    (folder / "templates.yaml").write_text(PACK_TEMPLATES, encoding="utf-8")
    (folder / "functions.py").write_text(PACK_FUNCTIONS, encoding="utf-8")
    (folder / "readings.yaml").write_text(PACK_READINGS, encoding="utf-8")
    saved = dict(readings._AXES), dict(readings._GROUPS), set(readings._LOADED)
    yield folder
    for registry, before in zip((readings._AXES, readings._GROUPS, readings._LOADED), saved, strict=True):
        registry.clear()
        registry.update(before)  # type: ignore[attr-defined]


def test_a_pack_declares_its_own_axis_and_group_alternative(pack: Path) -> None:
    templates = load_templates(str(pack))
    assert "pack_warm" in axes()
    scene = _scene({"AZ": 15, "UT": 25, "CO": 25, "NM": 15})
    warm = templates.get("pack_is_warm")
    for code, refused in (("UT", False), ("AZ", True), ("WA", False)):  # UT top: warm under both; AZ: middle
        try:
            ask(warm, scene, {"X": code})
        except Unaskable as no:
            assert refused and no.reason.startswith("reading:pack_warm"), (code, no.reason)
        else:
            assert not refused, code
    count = templates.get("pack_four_corners_count")
    with pytest.raises(Unaskable, match="reading:group"):  # UT and CO in range 2: 2, or 1 without Utah
        ask(count, scene, {"R": "Four Corners states", "Y": 2})
    assert ask(count, scene, {"R": "Four Corners states", "Y": 1}).answer == 2  # AZ and NM: in both memberships


def test_a_bad_readings_file_is_one_line_per_problem(tmp_path: Path) -> None:
    bad = tmp_path / "readings.yaml"
    bad.write_text("axes:\n  warmth:\n    default: {name: hot}\n", encoding="utf-8")
    problems = load_readings_file(bad)
    assert problems and "warmth" in problems[0] and "\n" not in problems[0]


# --- the image: every direction answer from the mask pixels ------------------------------------------------

DIRECTION_TEMPLATES = {"direction_local_extreme", "direction_local_extreme_count", "is_direction_local_extreme",
                       "direction_extreme_in_range", "direction_extreme_category"}
TINY = {"name": "tiny-readings", "seed": 11, "countries": [{"name": "usa", "maps": 6}, {"name": "india", "maps": 4},
                                                            {"name": "china", "maps": 4}],
        "legend": {"types": ["discrete"]}, "variants": {"annotated": True, "unannotated": False, "hatched": False},
        "questions": {"per_image": 80}}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny(tmp_path_factory, TINY, "readings")


@cache
def _pixels(map_json: Path) -> dict[str, dict[str, np.ndarray]]:
    """Per region, from the mask PNG beside the map: the pixel centroid and the extreme pixel per direction
    (x right, y down; keys larger = further north/south/east/west)."""
    record = json.loads(map_json.read_text(encoding="utf-8"))
    mask = np.asarray(Image.open(map_json.with_suffix("").with_suffix(".mask.png")))
    out = {}
    for code, i in record["render"]["mask_ids"].items():
        ys, xs = np.nonzero(mask == i)
        if len(xs):
            cx, cy = xs.mean(), ys.mean()
            out[code] = {"centroid": np.array([-cy, cy, cx, -cx]),
                         "extreme": np.array([-ys.min(), ys.max(), xs.max(), -xs.min()])}
    return out


DIRS = {"north": 0, "south": 1, "east": 2, "west": 3}


def _passes(scene: Any, code: str, q: dict[str, Any]) -> bool:
    """Whether a region meets the question's condition, from the map's classes (discrete maps)."""
    p = {k: v for k, v in q["params"].items()}
    cls = {c: r.class_index for c, r in scene.regions.items()}
    if cls[code] is None:
        return False
    if q["template_id"] == "direction_extreme_in_range":
        return cls[code] == p["Y"]
    if q["template_id"] == "direction_extreme_category":
        top = max(c for c in cls.values() if c is not None)
        bottom = min(c for c in cls.values() if c is not None)
        return cls[code] == (top if p["E"] == "highest" else bottom)
    nbrs = [cls[n] for n in scene.regions[code].neighbors]
    sign = {"higher": 1, "lower": -1, "similar": 0}[p["C"]]
    ok = [n is not None and ((cls[code] > n) - (cls[code] < n)) == sign for n in nbrs]
    if "N" in p:  # a neighbour without data never counts
        return len(nbrs) >= int(p["N"]) and sum(ok) >= int(p["N"])
    return bool(nbrs) and all(ok)


def _holds_by_pixels(map_json: Path, q: dict[str, Any]) -> None:
    """Assert the direction answer ``q`` (a question record) from the mask pixels of its map alone."""
    scene, pixels = load_scene(map_json), _pixels(map_json)
    d = DIRS[q["params"]["D"]]
    answer = q["params"]["X"] if q["template_id"] == "is_direction_local_extreme" else None
    winner = next(c for c, r in scene.regions.items() if r.name == q["answer"]) if answer is None else None
    pool = [c for c in scene.regions if c in pixels and _passes(scene, c, q)]
    for rule in ("centroid", "extreme"):
        best = max(pool, key=lambda c: pixels[c][rule][d])
        if winner is not None:
            assert best == winner, (q["question"], rule, best, winner)
        else:
            assert (best == answer) == (q["answer"] == "Yes"), (q["question"], rule, best, answer)


def test_every_direction_answer_holds_by_pixel_centroid_and_extreme_pixel(tiny: Path) -> None:
    records = [json.loads(line) for line in (tiny / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    asked = [q for q in records if q["template_id"] in DIRECTION_TEMPLATES]
    assert len(asked) >= 10, "the tiny build should ask direction questions"
    for q in asked:
        _holds_by_pixels(next(tiny.glob(f"**/{q['map_id']}.json")), q)


def _every_params(template: Any, ctx: Any, env: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every parameter combination the engine could draw on ``ctx``."""
    env = env or {}
    if len(env) == len(template.params):
        return [dict(env)]
    p = template.params[len(env)]
    return [out for v in param_domain(p, ctx, env) for out in _every_params(template, ctx, {**env, p.name: v})]


def test_every_direction_question_of_the_built_maps_holds_by_the_pixels(tiny: Path) -> None:
    """Not only the questions the build kept: every direction question the engine asks on the built maps."""
    templates = [t for t in load_templates() if t.id in DIRECTION_TEMPLATES]
    asked = 0
    for map_json in sorted(tiny.glob("**/*.json")):
        if not map_json.with_suffix("").with_suffix(".mask.png").is_file():
            continue
        scene = load_scene(map_json)
        for t in templates:
            if not t.applies_to(scene.map_type):
                continue
            for params in _every_params(t, reading(scene)):
                try:
                    q = ask(t, scene, params)
                except Unaskable:
                    continue
                _holds_by_pixels(map_json, {"template_id": t.id, "params": q.params, "answer": q.answer,
                                            "question": q.question})
                asked += 1
    assert asked >= 100


def test_info_counts_the_refusals_per_reason(tiny: Path) -> None:
    from click.testing import CliRunner

    from mapgen.cli import main

    out = CliRunner().invoke(main, ["info", str(tiny), "--json"])
    assert out.exit_code == 0, out.output
    refused = json.loads(out.output)["counts"]["draws_refused_by_reason"]
    assert any(k.startswith("reading:") for k in refused) and all(v > 0 for v in refused.values())
    units = [json.loads(p.read_text(encoding="utf-8")) for p in tiny.rglob("*.json") if "refusals" in p.read_text()]
    assert units, "each unit's record keeps its refusals (resume sums them again)"


def test_preview_names_the_reading() -> None:
    from mapgen.questions.preview import rejections

    scene = _scene({"MN": 25, "MT": 25})
    lines = rejections(load_templates().get("direction_extreme_in_range"), scene)
    assert any(line.startswith("reading:direction") for line in lines), lines


def test_a_user_atlas_declares_alternative_memberships(tmp_path: Path) -> None:
    from helpers import write_grid

    from mapgen.geo.vector_file import AtlasFileError

    geo, _ = write_grid(tmp_path)
    groups = tmp_path / "grid.groups.yaml"
    groups.write_text("- name: Centre\n  members: [Cell B2, Cell B3, Cell C2, Cell C3]\n  source: hand-made\n"
                      "  alternatives:\n    - {name: wide, members: [Cell B2, Cell B3, Cell C2, Cell C3, Cell A1], "
                      "source: a wider sense}\n")
    centre = load_atlas(geo).group_info("Centre")
    assert [(a.name, sorted(a.members)) for a in centre.alternatives] == [("wide", ["CA1", "CB2", "CB3", "CC2", "CC3"])]
    groups.write_text("- name: Centre\n  members: [Cell B2]\n  alternatives:\n    - {name: wide, members: [Cell Z9]}\n")
    with pytest.raises(AtlasFileError, match="unknown regions"):
        load_atlas(geo)
