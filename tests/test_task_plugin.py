"""Adding a task is one new module: a toy task defined here ("how many regions can you read?", gold computed from
the Scene) is registered through the public door and taken through ``mapgen build`` → jsonl export → eval, with no
other file of mapgen changed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from mapgen.benchmark import Benchmark
from mapgen.cli import main
from mapgen.eval.prompts import Prompt
from mapgen.files import read_jsonl
from mapgen.tasks import (
    EvalScope,
    ImageContext,
    Metric,
    Record,
    Task,
    TaskScores,
    Texts,
    UnknownTaskError,
    get_task,
    record_id,
    register_task,
    task_names,
    unregister_task,
)
from mapgen.tasks.rows import COMMON_COLUMNS, common_fields

QUESTION = "How many regions can you read on this map? Answer with one whole number."


class CountRegions(Task):
    """Count the legible regions of the map (gold: the Scene's legible regions)."""

    name = "count_regions"
    record_file = "count_regions.jsonl"
    columns = (*COMMON_COLUMNS, "question", "answer", "prompt")
    metrics = (Metric("exact"),)
    label = "Region count"
    noun = "region counts"
    baselines = ("random",)

    def gold(self, image: ImageContext) -> list[Record]:
        scene = image.scene
        n = sum(r.legible for r in scene.regions.values())
        return [{"question_id": f"{scene.map_id}-count", "map_id": scene.map_id, "question": QUESTION,
                 "answer": n} | image.meta]

    def row(self, record: Record, bench: Benchmark) -> Record:
        return common_fields(record, bench) | {"question": record["question"], "answer": str(record["answer"]),
                                               "prompt": self.prompt(record, None).text}

    def prompt(self, record: Record, bench: Benchmark | None, strategy: str = "direct") -> Prompt:
        image = bench.image_path(record["map_id"]) if bench is not None else None
        return Prompt(text=record["question"], image_path=image, strategy="count", question_id=record_id(record))

    def parse(self, reply: str | None, record: Record | None = None) -> int | None:
        found = re.search(r"-?\d+", reply or "")
        return int(found.group()) if found else None

    def score(self, scope: EvalScope, texts: Texts) -> TaskScores:
        records = self.records(scope.bench)
        if not {record_id(r) for r in records} & set(texts):
            return TaskScores()
        rows = [{"question_id": record_id(r), "exact": float(self.parse(texts.get(record_id(r))) == r["answer"])}
                for r in records]
        return TaskScores(summary={"n": len(rows), "exact": sum(r["exact"] for r in rows) / len(rows)},
                          item_tables={"count_regions_scores": rows})

    def baseline(self, scope: EvalScope, name: str) -> dict[str, str]:
        return {record_id(r): "0" for r in self.records(scope.bench)} if name in self.baselines else {}

    def overview(self, summary: Mapping[str, Any], seed: int = 0) -> dict[str, Any] | None:
        return {"task": self.label, "n": summary["n"], "metric": "exact", "score": summary["exact"] * 100,
                "95 % interval": "-", "random": float("nan"), "prior": float("nan"), "chance": float("nan")}

    def section(self, summary: Mapping[str, Any]) -> list[str]:
        return [f"## {self.label}", "", f"{summary['n']} maps, exact {summary['exact'] * 100:.1f} %", ""]

    def echo(self, summary: Mapping[str, Any]) -> str | None:
        return f"{summary['n']} region counts, exact {summary['exact']:.4f}"


@pytest.fixture
def toy() -> Iterator[CountRegions]:
    task = register_task(CountRegions())
    yield task
    unregister_task(task.name)


def _tiny_config(tmp_path: Path) -> Path:
    config = {"name": "toy", "seed": 3, "countries": [{"name": "usa", "maps": 2}], "questions": {"per_image": 2},
              "tasks": ["vqa", "count_regions"], "split": {"ratios": {"train": 0.5, "test": 0.5}}}
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def _run(args: Sequence[str]) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_toy_task_goes_through_build_export_and_eval(toy: CountRegions, tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    built = _run(["build", str(_tiny_config(tmp_path)), "-o", str(bench), "--quiet"])
    assert "region counts" in built
    records = read_jsonl(bench / "count_regions.jsonl")
    maps = read_jsonl(bench / "maps.jsonl")
    assert [r["map_id"] for r in records] == [m["map_id"] for m in maps] and all(r["answer"] > 0 for r in records)
    manifest = json.loads((bench / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["count_regions"] == len(records) and "count_regions.jsonl" in manifest["files"]
    assert not (bench / "captions.jsonl").exists()  # only the tasks the config names are built

    _run(["export", str(bench), "--format", "jsonl", "-o", str(tmp_path / "jsonl")])
    exported = read_jsonl(tmp_path / "jsonl" / "count_regions.jsonl")
    assert [r["image"] for r in exported] == [f"images/{r['map_id']}.png" for r in records]

    predictions = tmp_path / "predictions.jsonl"
    right = {r["question_id"]: f"I count {r['answer']} regions." for r in records}
    predictions.write_text("".join(json.dumps({"question_id": k, "prediction": v}) + "\n" for k, v in right.items()),
                           encoding="utf-8")
    out = _run(["eval", str(bench), "--predictions", str(predictions), "-o", str(tmp_path / "eval"), "--no-plots"])
    assert f"{len(records)} region counts, exact 1.0000" in out
    summary = json.loads((tmp_path / "eval" / "summary.json").read_text(encoding="utf-8"))
    assert summary["count_regions"] == {"n": len(records), "exact": 1.0}
    assert summary["unmatched_predictions"] == 0  # the toy task's ids are its own, not unknown question ids
    tables = (tmp_path / "eval" / "tables.md").read_text(encoding="utf-8")
    assert "| Region count |" in tables and "## Region count" in tables
    assert (tmp_path / "eval" / "count_regions_scores.csv").is_file()

    _run(["eval", str(bench), "--baseline", "random", "-o", str(tmp_path / "random"), "--no-plots"])
    assert json.loads((tmp_path / "random" / "summary.json").read_text())["count_regions"]["exact"] == 0.0


def test_registry_names_the_closest_task_and_refuses_a_second_one(toy: CountRegions) -> None:
    assert task_names()[:4] == ("vqa", "caption", "grounding", "extraction") and get_task("count_regions") is toy
    with pytest.raises(UnknownTaskError, match=r"\(did you mean 'count_regions'\?\)"):
        get_task("count_region")
    with pytest.raises(ValueError, match="already registered"):
        register_task(CountRegions())


def test_a_task_class_registers_as_the_built_in_ones_do() -> None:
    """``@register_task`` above a Task subclass (how mapgen.tasks registers its built-in classes) registers an
    instance and leaves the class as it was; anything else is refused."""
    from mapgen.tasks import BUILT_IN

    assert [t.name for t in BUILT_IN] == ["vqa", "caption", "grounding", "extraction"]
    assert all(get_task(t.name) is t for t in BUILT_IN)

    @register_task
    class Decorated(CountRegions):
        name = "count_regions_decorated"

    try:
        assert isinstance(Decorated, type) and type(get_task("count_regions_decorated")) is Decorated
    finally:
        unregister_task("count_regions_decorated")
    with pytest.raises(TypeError, match="takes a mapgen Task or a Task subclass"):
        register_task(object)  # type: ignore[type-var]


def test_an_installed_package_declares_a_task_by_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from mapgen.tasks import registry

    class Point:
        name = "count_regions"

        def load(self) -> type[CountRegions]:
            return CountRegions

    asked: list[str] = []

    def entry_points(group: str) -> list[Point]:
        asked.append(group)
        return [Point()]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    try:
        assert isinstance(get_task("count_regions"), CountRegions) and asked == ["mapgen.tasks"]
        assert task_names().count("count_regions") == 1 and asked == ["mapgen.tasks"]  # loaded once
    finally:
        unregister_task("count_regions")
