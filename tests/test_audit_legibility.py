"""Legibility checks (issue 14 item 9): each rule is a named flag per map, computed from a render record the code
made; failing regions become illegible before questions are asked, so no question hinges on them."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import build_tiny
from shapely.geometry import LineString

from mapgen.audit.audit import audit_benchmark, hinges_on_failed
from mapgen.audit.legibility import CHECKS, MIN_LABEL_PX, check_record, vet
from mapgen.legend import delta_e
from mapgen.questions import generate_questions, load_templates
from mapgen.render import render
from mapgen.scene import load_scene
from mapgen.spec import make_spec


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    config = {"name": "legibility", "seed": 3, "countries": [{"name": "usa", "maps": 1}, {"name": "india", "maps": 1}],
              "questions": {"per_template": 1, "per_image": 12}}
    return build_tiny(tmp_path_factory, config, "legibility")


@pytest.fixture(scope="module")
def usa_record(tmp_path_factory) -> dict[str, Any]:
    spec = make_spec("usa", "population_2020", classes=4, map_id="usa-legibility", annotated=True)
    return json.loads(render(spec, tmp_path_factory.mktemp("usa") / "usa.png").json.read_text())


def _maps(bench: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((bench / "maps").glob("*.json"))}


def _failed(record: dict[str, Any]) -> dict[str, list[str]]:
    return {c: r["audit_flags"] for c, r in record["regions"].items() if r.get("audit_flags")}


def _class_members(record: dict[str, Any], index: int) -> set[str]:
    """Regions whose value falls in legend class ``index``: upper-inclusive bins between the class edges."""
    legend = record["spec"]["legend"]
    edges = legend.get("breaks") or [c["upper"] for c in sorted(legend["classes"], key=lambda c: c["index"])]
    k = len(legend["classes"])
    values = record["spec"]["values"]
    return {c for c in record["regions"] if values.get(c) is not None
            and (index == 0 or values[c] > edges[index - 1]) and (index == k - 1 or values[c] <= edges[index])}


# ------------------------------------------------------------------------------------------------ real build


def test_build_marks_failed_regions_illegible_and_recheck_agrees(bench: Path) -> None:
    for map_id, record in _maps(bench).items():
        stored = _failed(record)
        for code in stored:
            assert record["regions"][code]["legible"] is False, (map_id, code)
        checks = check_record(record)
        assert set(checks.flags) <= set(CHECKS)
        assert checks.regions == stored, map_id  # the audit recomputes exactly what the build applied


def test_no_question_hinges_on_a_failed_region(bench: Path) -> None:
    maps, templates = _maps(bench), load_templates()
    questions = [json.loads(line) for line in (bench / "questions.jsonl").read_text().splitlines()]
    assert questions
    for q in questions:
        failed = _failed(maps[q["map_id"]])
        scene = load_scene(bench / "maps" / f"{q['map_id']}.json")
        assert not hinges_on_failed(scene, q, templates, failed), q["question_id"]
        assert not {v for v in (q.get("params") or {}).values() if isinstance(v, str)} & set(failed)


def test_audit_reports_legibility_per_map(bench: Path, tmp_path: Path) -> None:
    result = audit_benchmark(bench, tmp_path / "audit")
    rows = [json.loads(line) for line in (tmp_path / "audit" / "maps.jsonl").read_text().splitlines()]
    maps = _maps(bench)
    for row in rows:
        assert row["legibility"]["failed_regions"] == _failed(maps[row["map_id"]])
        assert set(row["legibility"]["flags"]) <= set(CHECKS)
    leg = result.summary["legibility"]
    assert leg["questions_hinging_on_failed_regions"] == 0
    assert leg["maps_flagged"] == sum(bool(r["legibility"]["flags"]) for r in rows)
    assert "## Legibility checks" in (tmp_path / "audit" / "audit.md").read_text()


# ------------------------------------------------------------------------------------------------ the hook


def test_close_class_colours_keep_their_regions_out_of_questions(tmp_path: Path) -> None:
    spec = make_spec("usa", "population_2020", classes=4, map_id="close", annotated=False)
    colors = [c.color for c in spec.legend.classes]
    colors[2] = "#" + "".join(f"{min(255, int(colors[1][i:i + 2], 16) + 1):02x}" for i in (1, 3, 5))
    assert delta_e(colors[1], colors[2]) < 2
    classes = tuple(replace(c, color=col) for c, col in zip(spec.legend.classes, colors))
    spec = replace(spec, legend=replace(spec.legend, classes=classes, colors=tuple(colors)))
    plain = render(spec, tmp_path / "plain.png")
    vetted = render(spec, tmp_path / "vetted.png", vet=vet)
    record = json.loads(vetted.json.read_text())
    failed = _failed(record)
    assert set(failed) == _class_members(record, 1) | _class_members(record, 2)
    assert all(flags == ["class colours too close"] for flags in failed.values())
    assert not any(vetted.scene.regions[c].legible for c in failed)
    templates = load_templates()

    def hinging(scene) -> int:
        qs = generate_questions(scene, templates, per_template=2, seed=0)
        return sum(bool(hinges_on_failed(scene, q.to_dict(), templates, failed)) for q in qs)

    assert hinging(plain.scene) > 0  # without the hook, questions do read those classes
    assert hinging(vetted.scene) == 0


# ------------------------------------------------------------------------------------------------ each rule


def test_overlapping_labels_fail_both_regions(usa_record: dict[str, Any]) -> None:
    record = copy.deepcopy(usa_record)
    labels = record["labels"]
    labels["TX"]["box"] = list(labels["OK"]["box"])
    checks = check_record(record)
    assert "labels overlap" in checks.flags
    assert "labels overlap" in checks.regions["TX"] and "labels overlap" in checks.regions["OK"]


def test_leader_through_a_label_fails_both(usa_record: dict[str, Any]) -> None:
    record = copy.deepcopy(usa_record)
    labels = record["labels"]
    code = next(c for c, label in labels.items() if len(label.get("line") or ()) > 1)
    mid = LineString(labels[code]["line"]).interpolate(0.5, normalized=True)
    other = "TX" if code != "TX" else "CA"
    labels[other]["box"] = [mid.x - 6, mid.y - 4, mid.x + 6, mid.y + 4]
    checks = check_record(record)
    assert "leader crosses label" in checks.regions[code]
    assert "leader crosses label" in checks.regions[other]


def test_legend_item_off_canvas_fails_its_class(usa_record: dict[str, Any]) -> None:
    record = copy.deepcopy(usa_record)
    item = next(i for i in record["legend_items"] if i.get("class") == 2)
    shift = record["render"]["width"] - item["box"][0] + 5
    item["box"] = [item["box"][0] + shift, item["box"][1], item["box"][2] + shift, item["box"][3]]
    checks = check_record(record)
    assert "legend outside canvas" in checks.flags
    assert {c for c, f in checks.regions.items() if "legend outside canvas" in f} == _class_members(record, 2)


def test_missing_value_without_na_key_fails_that_region(usa_record: dict[str, Any]) -> None:
    record = copy.deepcopy(usa_record)
    record["spec"]["values"]["KS"] = None
    record["legend_items"] = [i for i in record["legend_items"] if i.get("class", 0) is not None]
    checks = check_record(record)
    assert checks.regions.get("KS") == ["no N/A key"]
    record["legend_items"].append({"label": "N/A", "class": None, "swatch": [650, 500, 674, 517],
                                   "box": [650, 500, 700, 517]})
    assert "no N/A key" not in check_record(record).flags


def test_fill_like_the_background_fails_those_regions(usa_record: dict[str, Any]) -> None:
    record = copy.deepcopy(usa_record)
    cls = record["spec"]["legend"]["classes"][0]
    record["spec"]["style"]["background"] = cls["color"]
    checks = check_record(record)
    legible = {c for c, r in record["regions"].items() if r["legible"]}
    assert {c for c, f in checks.regions.items() if "fill like background" in f} == \
        _class_members(record, cls["index"]) & legible
    assert checks.metrics["min_background_de"] == 0.0


def test_title_legend_text_and_label_size_are_map_flags(usa_record: dict[str, Any]) -> None:
    record = copy.deepcopy(usa_record)
    record["title"] = [{"text": "Resident population of the United States of…", "box": [10, 10, 790, 30]},
                       {"text": "second line", "box": [-40, 30, 400, 50]}]
    x1, y1, _, _ = record["labels"]["NV"]["box"]
    record["labels"]["NV"]["box"] = [x1, y1, x1 + 14, y1 + 6]  # 4 px of text
    first, second = record["legend_items"][:2]
    second["box"] = [second["box"][0], first["box"][1] + 2, second["box"][2], first["box"][3] + 2]
    checks = check_record(record)
    assert {"title truncated", "title outside canvas", "label too small", "legend labels overlap"} <= set(checks.flags)
    assert checks.details["legend labels overlap"] == [{"labels": [first["label"], second["label"]]}]
    assert checks.metrics["min_label_region"] == "NV" and checks.metrics["min_label_px"] == 4.0
    assert not any(f in flags for flags in checks.regions.values() for f in checks.flags if "title" in f)
    y, top = 252.342948498507, -7.482166499414073  # a 12 px glyph box at a fractional position, padded by 1 px
    tall = [y + top - 1, y + (top + MIN_LABEL_PX) + 1]
    assert tall[1] - tall[0] - 2 < MIN_LABEL_PX  # 11.99999…: floating point, not a smaller label
    record["labels"] = {c: label | {"box": [label["box"][0], tall[0], label["box"][2], tall[1]]}
                        for c, label in record["labels"].items()}
    assert "label too small" not in check_record(record).flags
