"""A build's parent keeps only what selection reads (compact candidates) and streams the chosen records from the
unit records on disk: the questions written are exactly those the selection picks from whole records, a task's
``selection_fields`` are all its select sees, and a task without them still gets whole records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mapgen.benchmark import Benchmark
from mapgen.build import build
from mapgen.build.select import Candidate, Compactor
from mapgen.config import BuildConfig, load_config
from mapgen.eval.prompts import Prompt
from mapgen.files import JsonlRecords, jsonl_writer, read_json, read_jsonl
from mapgen.tasks import (
    EvalScope,
    ImageContext,
    Record,
    Task,
    TaskScores,
    Texts,
    get_task,
    record_id,
    register_task,
    unregister_task,
)


def _units_in_plan_order(bench: Path) -> list[dict]:
    unit_ids = dict.fromkeys(m["unit_id"] for m in read_jsonl(bench / "maps.jsonl"))
    return [read_json(bench / "units" / f"{u}.json") for u in unit_ids]


def test_streamed_questions_are_the_selection_of_whole_records(eval_bench: Path) -> None:
    config = load_config(read_json(eval_bench / "manifest.json")["config"])
    candidates = [q for unit in _units_in_plan_order(eval_bench) for q in unit["questions"]]
    expected = get_task("vqa").select(candidates, config)  # the selection as it ran on whole records
    written = read_jsonl(eval_bench / "questions.jsonl")
    assert written == expected and 0 < len(written) < len(candidates)


def test_compact_candidates_hold_the_declared_fields_only(eval_bench: Path) -> None:
    config = load_config(read_json(eval_bench / "manifest.json")["config"])
    unit = _units_in_plan_order(eval_bench)[0]
    compact = Compactor(config)(unit)
    assert "captions" not in compact and "grounding" not in compact  # kept whole by their tasks: streamed
    assert compact["maps"] == unit["maps"] and compact["files"] == unit["files"]
    fields = get_task("vqa").selection_fields
    assert fields is not None
    for candidate, whole in zip(compact["questions"], unit["questions"], strict=True):
        assert isinstance(candidate, Candidate) and list(candidate) == list(fields)
        assert dict(candidate) == {f: whole.get(f) for f in fields}


def test_shared_values_keep_their_type() -> None:
    compact = Compactor(BuildConfig.model_validate({"name": "t", "countries": [{"name": "usa", "maps": 1}]}))
    answers = [1, 1.0, True, [1], [1.0], "1"]
    unit = {"unit_id": "u", "maps": [], "files": {},
            "questions": [{"question_id": f"q{i}", "answer": a} for i, a in enumerate(answers)]}
    kept = [c["answer"] for c in compact(unit)["questions"]]
    assert [(type(a), a) for a in kept] == [(type(a), a) for a in answers]
    again = compact(unit | {"questions": [{"question_id": "x", "answer": [1]}]})["questions"][0]["answer"]
    assert again is kept[3]  # one object for equal answers across units


class _EveryOther(Task):
    """One record per image; keeps the record of every other map (by map id)."""

    columns = ("question_id",)

    def gold(self, image: ImageContext) -> list[Record]:
        scene = image.scene
        return [{"question_id": f"{scene.map_id}-{self.name}", "map_id": scene.map_id,
                 "question": "Which map is this?", "answer": scene.map_id} | image.meta]

    def select(self, records: list[Record], config: BuildConfig) -> list[Record]:
        self.seen: set[type] = {type(r) for r in records}
        return [r for i, r in enumerate(sorted(records, key=lambda r: r["map_id"])) if i % 2 == 0]

    def row(self, record: Record, bench: Benchmark) -> Record:
        return {"question_id": record["question_id"]}

    def prompt(self, record: Record, bench: Benchmark | None, strategy: str = "direct") -> Prompt:
        return Prompt(text=record["question"], image_path=None, strategy="direct", question_id=record_id(record))

    def parse(self, reply: str | None, record: Record | None = None) -> Any:
        return reply

    def score(self, scope: EvalScope, texts: Texts) -> TaskScores:
        return TaskScores()


class _Compact(_EveryOther):
    name, record_file, selection_fields = "every_other", "every_other.jsonl", ("question_id", "map_id")


class _Whole(_EveryOther):
    name, record_file = "every_other_whole", "every_other_whole.jsonl"


@pytest.fixture
def selecting_tasks() -> Iterator[tuple[_EveryOther, _EveryOther]]:
    tasks = (register_task(_Compact()), register_task(_Whole()))
    yield tasks
    for task in tasks:
        unregister_task(task.name)


def test_a_task_selects_from_its_fields_and_gets_whole_records_written(
        selecting_tasks: tuple[_EveryOther, _EveryOther], tmp_path: Path) -> None:
    compact, whole = selecting_tasks
    config = {"name": "sel", "seed": 3, "countries": [{"name": "usa", "maps": 2}], "questions": {"per_image": 2},
              "tasks": ["vqa", compact.name, whole.name], "split": {"ratios": {"train": 1.0}}}
    build(config, tmp_path / "bench", progress=False)
    assert compact.seen == {Candidate} and whole.seen == {dict}
    maps = sorted(m["map_id"] for m in read_jsonl(tmp_path / "bench" / "maps.jsonl"))
    for task in selecting_tasks:
        records = read_jsonl(tmp_path / "bench" / task.record_file)
        assert sorted(r["map_id"] for r in records) == maps[::2]
        assert all(r["question"] == "Which map is this?" and r["split"] == "train" for r in records)
    counts = read_json(tmp_path / "bench" / "manifest.json")["counts"]
    assert counts["every_other"] == counts["every_other_whole"] == len(maps[::2])


def test_jsonl_records_stream_a_file(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with jsonl_writer(path) as write:
        for i in range(5):
            write({"i": i})
    records = JsonlRecords(path)
    assert len(records) == 5 and list(records) == read_jsonl(path) and records[-1] == {"i": 4}
    assert records[1:3] == [{"i": 1}, {"i": 2}] and len(JsonlRecords(tmp_path / "none.jsonl")) == 0
    with pytest.raises(IndexError):
        records[5]


def test_a_failed_stream_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with pytest.raises(RuntimeError), jsonl_writer(path) as write:
        write({"i": 1})
        raise RuntimeError("stop")
    assert list(tmp_path.iterdir()) == []
