"""Benchmark builds: config validation, determinism, resume after a crash, folder safety, splits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mapgen.benchmark import info
from mapgen.build import BuildError, build
from mapgen.build.plan import plan
from mapgen.config import ConfigError, load_config

TINY = {
    "name": "tiny",
    "seed": 3,
    "countries": [{"name": "usa", "maps": 2}, {"name": "india", "maps": 1}],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["imaginary", "jumbled"]},
    "questions": {"per_image": 3},
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
}


def test_config_errors_list_every_problem_with_its_path() -> None:
    bad = {"countries": [{"name": "usa", "maps": 0}], "legend": {"classes": [2]}, "split": {"ratios": {"a": 0.3}},
           "variants": {"colormaps": ["Bluez"]}, "typo": True}
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    message = str(err.value)
    for path in ("countries.0.maps", "legend.classes", "split.ratios", "variants.colormaps", "typo"):
        assert path in message
    assert "Blues" in message  # the colormap error suggests the close match


def test_unknown_country_and_counterfactual_cross_checks() -> None:
    with pytest.raises(ConfigError, match="unknown countries"):
        load_config({"countries": [{"name": "atlantis", "maps": 1}]})
    with pytest.raises(ConfigError, match="exceeds"):
        load_config({"countries": [{"name": "usa", "maps": 1}], "counterfactual": {"country": "usa", "maps": 2}})


def test_packaged_configs_validate() -> None:
    mapwise = load_config("mapwise")
    assert [c.maps for c in mapwise.countries] == [100, 100, 100]
    assert mapwise.counterfactual.maps == 90 and len(mapwise.counterfactual.kinds) == 4
    load_config("small")


def test_a_folder_named_like_a_packaged_config_is_not_taken_for_a_config(tmp_path: Path, monkeypatch) -> None:
    """`mapgen build small -o small` twice: the second run finds the folder ``small`` (the first run's output)
    in the working directory; the name still means the packaged config, and another folder is a config error."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small").mkdir()
    from mapgen.resources import config_path

    assert load_config("small").digest() == load_config(Path(str(config_path("small.yaml")))).digest()
    (tmp_path / "results").mkdir()
    with pytest.raises(ConfigError, match="'results' is a folder, not a config file"):
        load_config("results")


def test_plan_is_deterministic_and_splits_by_map() -> None:
    config = load_config(TINY)
    assert plan(config) == plan(config)
    units = plan(config)
    split_of = {u.unit_id: u.split for u in units if u.cf_kind is None}
    for unit in units:
        if unit.cf_kind:
            assert unit.split == split_of[f"{unit.country}-{unit.index:04d}"]  # counterfactuals follow their map


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "b"
    build(TINY, out, progress=False)
    return out


def test_build_writes_a_complete_folder(built: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["counts"]["maps"] == len(list((built / "maps").glob("*.mask.png")))
    questions = [json.loads(line) for line in (built / "questions.jsonl").read_text().splitlines()]
    assert questions and all((built / q["image"]).exists() for q in questions)
    for key in ("question_id", "map_id", "template_id", "mapwise_template", "question", "answer",
                "accepted_answers", "answer_type", "map_type", "relative_region", "program", "split", "variant",
                "country", "counterfactual", "image"):
        assert key in questions[0]
    maps = {m["map_id"]: m for m in map(json.loads, (built / "maps.jsonl").read_text().splitlines())}
    assert {m["variant"] for m in maps.values()} >= {"annotated", "unannotated", "imaginary", "jumbled"}
    assert all(q["split"] == maps[q["map_id"]]["split"] for q in questions)
    assert info(built)["files_failing_checksum"] == []


def test_same_config_gives_identical_manifest(built: Path, tmp_path: Path) -> None:
    again = build(TINY, tmp_path / "again", progress=False)
    assert again.manifest == json.loads((built / "manifest.json").read_text())
    assert (tmp_path / "again" / "questions.jsonl").read_bytes() == (built / "questions.jsonl").read_bytes()


def test_resume_after_a_crash_rebuilds_only_what_is_missing(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "crashed"
    build(TINY, out, progress=False)
    expected = (out / "manifest.json").read_text()
    # simulate a crash: one unit never finished, another left a truncated image, task files never written
    (out / "units" / "usa-0001.json").unlink()
    (out / "maps" / "india-0000-annotated.png").write_bytes(b"\x89PNG truncated")
    for name in ("manifest.json", "questions.jsonl"):
        (out / name).unlink()
    report = build(TINY, out, resume=True, progress=False)
    assert report.built == 2 and report.reused == len(plan(load_config(TINY))) - 2
    assert (out / "manifest.json").read_text() == expected


def test_folder_with_another_config_is_refused_unless_forced(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "b"
    build(TINY, out, progress=False)
    other = TINY | {"seed": 4}
    with pytest.raises(BuildError, match="different config"):
        build(other, out, progress=False)
    with pytest.raises(BuildError, match="already holds"):
        build(TINY, out, progress=False)
    build(other, out, force=True, progress=False)
    assert json.loads((out / "manifest.json").read_text())["config"]["seed"] == 4


def test_non_build_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(BuildError, match="not empty"):
        build(TINY, tmp_path, progress=False)
    assert (tmp_path / "precious.txt").exists()


def test_audit_flag_and_drop(built: Path, tmp_path: Path) -> None:
    flagged = build(TINY | {"audit": "flag"}, tmp_path / "flag", progress=False)
    rows = [json.loads(line) for line in (tmp_path / "flag" / "questions.jsonl").read_text().splitlines()]
    assert rows and all(set(r["audit"]) == {"recoverable", "reasons", "flags"} for r in rows)
    build(TINY | {"audit": "drop"}, tmp_path / "drop", progress=False)
    kept = [json.loads(line) for line in (tmp_path / "drop" / "questions.jsonl").read_text().splitlines()]
    recoverable = {r["question_id"] for r in rows if r["audit"]["recoverable"]}
    # drop leaves unrecoverable candidates out before the questions are chosen: whatever both builds chose,
    # the drop build holds only where the audit recovered it
    both = {r["question_id"] for r in kept} & {r["question_id"] for r in rows}
    assert both and both <= recoverable
    assert flagged.manifest["counts"]["questions"] >= len(kept) >= len(recoverable) * 0.9
