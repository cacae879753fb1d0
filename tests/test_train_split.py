"""The packaged training config (``configs/train.yaml``, issue 21): MapQA-scale, and sharing no map, statistic or
colour map with the test split of the default ``mapwise`` config (hatched maps are grey with hatch patterns in
both: their patterns, not a colour map, carry the classes).

The full plans are compared (planning draws every map's statistic and colours without rendering anything);
then scaled-down versions of both configs are built and their artefacts compared: statistics as the map files
record them (id and values), colour maps as drawn, images by content."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import build_tiny

from mapgen.build.plan import plan
from mapgen.config import load_config
from mapgen.files import read_json, read_jsonl
from mapgen.resources import config_path


def _statistic_key(source: dict[str, Any]) -> str:
    """A plan's statistic source as the statistic id the build gives it."""
    if "curated" in source:
        return source["curated"]
    syn = source["synthetic"]
    return f"synthetic_{syn['distribution']}_{syn['seed']}"


def _plan_facts(name: str) -> dict[str, set]:
    units = plan(load_config(name))
    return {"statistics": {(u.country, _statistic_key(u.choice.statistic)) for u in units},
            "colormaps": {u.choice.legend.colormap for u in units}, "splits": {u.split for u in units},
            "maps": {u.unit_id for u in units}}


def test_full_train_plan_is_mapqa_scale_and_disjoint_from_the_test_plan():
    train, test = _plan_facts("train"), _plan_facts("mapwise")
    assert train["splits"] == {"train"} and test["splits"] == {"test"}
    assert not train["statistics"] & test["statistics"]
    assert not train["colormaps"] & test["colormaps"] and len(train["colormaps"]) >= 10
    assert len(train["maps"]) >= 3_900  # × ~28 questions a map (3 variants, 2.5 images a map) ≥ 100,000
    assert not {s for _, s in train["statistics"]} & {s for _, s in _plan_facts("small")["statistics"]}


def _scaled(name: str, maps: int) -> dict[str, Any]:
    """A packaged config with ``maps`` maps per country (and at most that many counterfactual maps)."""
    data = yaml.safe_load(config_path(f"{name}.yaml").read_text(encoding="utf-8"))
    for country in data["countries"]:
        country["maps"] = maps
    if data.get("counterfactual", {}).get("maps"):
        data["counterfactual"]["maps"] = min(maps, data["counterfactual"]["maps"])
    return data


def _built_facts(bench: Path) -> dict[str, set]:
    maps = read_jsonl(bench / "maps.jsonl")
    specs = [read_json(bench / "maps" / f"{m['map_id']}.json")["spec"] for m in maps]
    return {
        "statistic_ids": {s["stat"]["id"] for s in specs},
        "statistic_values": {(s["atlas"], tuple(sorted(s["values"].items()))) for s in specs},
        # hatched maps are drawn in grey with hatch patterns in every build: the colour maps are the coloured maps'
        "colormaps": {s["legend"]["colormap"] for s, m in zip(specs, maps) if m["variant"] != "hatched"},
        "hatched_colormaps": {s["legend"]["colormap"] for s, m in zip(specs, maps) if m["variant"] == "hatched"},
        "images": {hashlib.sha256((bench / m["image"]).read_bytes()).hexdigest() for m in maps},
        "splits": {m["split"] for m in maps},
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, dict[str, set]]:
    train = build_tiny(tmp_path_factory, _scaled("train", 2), "train-split")
    test = build_tiny(tmp_path_factory, _scaled("mapwise", 2), "test-split")
    return {"train": _built_facts(train), "test": _built_facts(test), "train_dir": train}


def test_scaled_train_build_shares_no_map_statistic_or_colormap_with_the_test_build(built):
    train, test = built["train"], built["test"]
    assert train["splits"] == {"train"} and test["splits"] == {"test"}
    for key in ("statistic_ids", "statistic_values", "colormaps", "images"):
        assert train[key] and test[key] and not train[key] & test[key], key
    assert train["hatched_colormaps"] == test["hatched_colormaps"] == {"Greys"}
    questions = read_jsonl(built["train_dir"] / "questions.jsonl")
    assert {q["split"] for q in questions} == {"train"}
    units = {m["unit_id"] for m in read_jsonl(built["train_dir"] / "maps.jsonl")}
    per_map = len(questions) / len(units)  # over its variants (annotated, unannotated, hatched when discrete)
    assert per_map * 3_900 >= 100_000, f"{per_map:.1f} questions a map: the full config would fall short"
