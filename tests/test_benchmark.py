"""The benchmark folder (mapgen.benchmark) read back from a folder that `build` made on a tiny config."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import build_tiny

from mapgen.benchmark import (
    CONFIG_MARKER,
    NotABenchmarkError,
    build_outputs,
    clear_build,
    file_digests,
    image_rel,
    info,
    load_benchmark,
    mask_name,
    record_files,
    verified_unit_record,
)
from mapgen.export import ExportError, export
from mapgen.files import read_jsonl
from mapgen.questions.record import Question

TINY = {
    "name": "benchmark tiny",
    "seed": 11,
    "countries": [{"name": "usa", "maps": 2}],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["imaginary"]},
    "questions": {"per_image": 3},
    "tasks": ["vqa", "caption", "grounding", "extraction"],
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_tiny(tmp_path_factory, TINY, "benchmark")


def _lines(path: Path) -> list[dict[str, Any]]:
    return read_jsonl(path)


def _copy(built: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built, tmp_path / "copy"))


def test_records_and_questions_match_the_files(built: Path) -> None:
    bench = load_benchmark(built, finished=True)
    manifest = json.loads((built / "manifest.json").read_text())
    assert bench.name == "benchmark tiny" and bench.manifest == manifest
    assert bench.maps == _lines(built / "maps.jsonl")
    assert bench.question_records == _lines(built / "questions.jsonl")
    assert bench.tasks.get("caption", []) == _lines(built / "captions.jsonl") and bench.tasks.get("grounding", []) == _lines(built / "grounding.jsonl")
    counts = manifest["counts"]
    assert (len(bench.maps), len(bench.questions), len(bench.tasks.get("caption", [])), len(bench.tasks.get("grounding", []))) == (
        counts["maps"], counts["questions"], counts["captions"], counts["grounding"])
    assert all(isinstance(q, Question) for q in bench.questions)
    assert [q.question_id for q in bench.questions] == [r["question_id"] for r in bench.question_records]
    assert [q.answer for q in bench.questions] == [r["answer"] for r in bench.question_records]
    assert set(bench.tasks) == {"vqa", "caption", "grounding", "extraction"}
    assert bench.tasks.get("extraction", []) == _lines(built / "extraction.jsonl") and len(bench.tasks.get("extraction", [])) == counts["extraction"]
    assert bench.countries == ["usa"]
    # the manifest is written with sorted keys, so its split ratios (and splits()) come in name order
    assert bench.splits() == list(manifest["config"]["split"]["ratios"]) == ["test", "train"]
    assert bench.failing_checksums() == []


def test_lookups_by_id_with_helpful_errors(built: Path) -> None:
    bench = load_benchmark(built)
    first = bench.question_records[0]
    assert bench.question(first["question_id"]).question == first["question"]
    with pytest.raises(KeyError, match=r"no question 'nope' in .*\(e\.g\. " + first["question_id"]):
        bench.question("nope")
    map_id = bench.maps[0]["map_id"]
    assert bench.map(map_id) == bench.maps[0]
    with pytest.raises(KeyError, match=f"no map 'nope' in .*{map_id}"):
        bench.map("nope")
    with pytest.raises(KeyError, match="nope"):
        bench.map_json("nope")
    assert bench.spec("nope") is None and bench.image_path("nope") is None


def test_images_map_json_and_listed_hashes(built: Path) -> None:
    bench = load_benchmark(built)
    for m in bench.maps:
        path = bench.image_path(m["map_id"])
        assert path == built / m["image"] == built / image_rel(m["map_id"])
        data = bench.image_bytes(m["map_id"])
        assert data.startswith(b"\x89PNG")
        assert bench.sha256(m["image"]) == hashlib.sha256(data).hexdigest()
        assert bench.map_json(m["map_id"]) == json.loads((built / "maps" / f"{m['map_id']}.json").read_text())
        assert bench.spec(m["map_id"]) is bench.map_json(m["map_id"])  # read once
    used = bench.map_ids(("grounding",))
    grounded = {g["map_id"] for g in bench.tasks.get("grounding", [])}
    assert used == [m["map_id"] for m in bench.maps if m["map_id"] in grounded]
    assert bench.sha256("not/listed.png") is None


def test_questions_file_path_loads_its_folder(built: Path) -> None:
    bench = load_benchmark(built / "questions.jsonl")
    assert bench.root == built
    assert [q.question_id for q in bench.questions] == [r["question_id"] for r in _lines(built / "questions.jsonl")]


def test_manifest_hashes_the_record_files(built: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text())
    digests = file_digests(built, record_files())
    assert set(digests) == set(record_files())
    assert {k: manifest["files"][k] for k in digests} == digests


def test_checksum_failure_is_reported(built: Path, tmp_path: Path) -> None:
    folder = _copy(built, tmp_path)
    bench = load_benchmark(folder)
    broken, missing = bench.maps[0], bench.maps[-1]
    image = folder / broken["image"]
    image.write_bytes(image.read_bytes() + b"\0")
    (folder / "maps" / mask_name(missing["map_id"])).unlink()
    expected = sorted([broken["image"], f"maps/{mask_name(missing['map_id'])}"])
    assert sorted(load_benchmark(folder).failing_checksums()) == expected
    assert sorted(info(folder)["files_failing_checksum"]) == expected
    # resume trusts a unit only when all its files still hash as recorded
    assert verified_unit_record(folder, broken["unit_id"]) is None
    assert verified_unit_record(folder, missing["unit_id"]) is None
    intact = [m["unit_id"] for m in bench.maps if m["unit_id"] not in (broken["unit_id"], missing["unit_id"])]
    assert intact and all(verified_unit_record(folder, u) is not None for u in intact)


def test_not_a_benchmark_folder(tmp_path: Path) -> None:
    from mapgen.audit.audit import audit_benchmark
    from mapgen.report_site import build_site

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "readme.txt").write_text("not a benchmark")
    with pytest.raises(NotABenchmarkError, match="has no manifest.json: not a finished mapgen build"):
        load_benchmark(folder, finished=True)
    with pytest.raises(NotABenchmarkError, match="holds no maps.jsonl or questions.jsonl"):
        load_benchmark(folder).require_records()
    with pytest.raises(FileNotFoundError, match="benchmark folder not found"):
        load_benchmark(tmp_path / "nowhere")
    with pytest.raises(ExportError, match="manifest.json"):
        export(folder, "jsonl", tmp_path / "out")
    with pytest.raises(FileNotFoundError, match="not a mapgen benchmark"):
        audit_benchmark(folder)
    with pytest.raises(FileNotFoundError, match="not a mapgen benchmark"):
        build_site(folder, tmp_path / "site")
    assert not (tmp_path / "out").exists() and not (tmp_path / "site").exists()


def test_unfinished_build_is_not_finished(built: Path, tmp_path: Path) -> None:
    folder = _copy(built, tmp_path)
    (folder / "manifest.json").unlink()
    with pytest.raises(NotABenchmarkError, match="manifest.json"):
        load_benchmark(folder, finished=True)
    assert load_benchmark(folder).question_records == _lines(folder / "questions.jsonl")


def test_bad_question_lines_name_file_and_line(built: Path, tmp_path: Path) -> None:
    folder = _copy(built, tmp_path)
    path = folder / "questions.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, lines[0]]) + "\n")
    with pytest.raises(ValueError, match=rf"questions.jsonl:{len(lines) + 1}: duplicate question_id"):
        load_benchmark(folder)
    path.write_text("\n".join([*lines[:1], '{"question_id": "x"}']) + "\n")
    with pytest.raises(ValueError, match="questions.jsonl:2: not a Question record"):
        load_benchmark(folder)
    path.write_text(lines[0] + "\n[1, 2]\n")
    with pytest.raises(ValueError, match="questions.jsonl:2: expected a JSON object"):
        load_benchmark(folder)


def test_clear_build_removes_only_what_a_build_writes(built: Path, tmp_path: Path) -> None:
    folder = _copy(built, tmp_path)
    assert (folder / CONFIG_MARKER).exists()
    (folder / "notes.txt").write_text("mine")
    clear_build(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    assert not any((folder / name).exists() for name in build_outputs())
