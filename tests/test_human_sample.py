"""`mapgen human sample`: the stratified sample for people and the annotation kit it writes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.benchmark import load_benchmark
from mapgen.cli import main
from mapgen.human.kit import GOLD_FILE, PAGE_DATA, PAGE_VARIABLE, load_gold, write_kit
from mapgen.human.sample import stratified_sample, type_quotas

GOLD_KEYS = {"answer", "accepted_answers", "bounds", "program", "params", "difficulty"}


def page_data(kit: Path) -> dict:
    text = (kit / PAGE_DATA).read_text(encoding="utf-8")
    assert text.startswith(f"{PAGE_VARIABLE} = ")
    return json.loads(text[len(PAGE_VARIABLE) + 3:].rstrip().rstrip(";"))


@pytest.fixture(scope="module")
def kit(eval_bench, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("kit") / "kit"
    result = CliRunner().invoke(main, ["human", "sample", str(eval_bench), "-n", "40", "--seed", "5", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_type_quotas_are_equal_and_pass_on_what_a_short_type_cannot_fill() -> None:
    assert type_quotas({"binary": 100, "count": 100, "list": 100}, 30) == {"binary": 10, "count": 10, "list": 10}
    short = type_quotas({"binary": 100, "count": 100, "ranking": 2}, 30)
    assert short == {"binary": 14, "count": 14, "ranking": 2}
    assert sum(type_quotas({"binary": 3, "count": 4}, 50).values()) == 7


def test_sample_is_stratified_per_country(eval_bench) -> None:
    questions = load_benchmark(eval_bench).questions
    sample = stratified_sample(questions, 40, seed=5)
    per_country = Counter(q.country for q in sample)
    assert set(per_country.values()) == {40}
    usa = [q for q in sample if q.country == "usa"]
    types = Counter(q.answer_type for q in usa)
    assert len(types) == 6 and all(abs(c / 40 - 1 / 6) <= 0.10 for c in types.values()), types
    assert {q.map_type for q in usa} == {"discrete", "continuous"}
    assert {q.counterfactual_set for q in usa} >= {"original", "imaginary", "shuffled", "jumbled"}
    assert {q.annotated for q in usa} == {True, False}
    # the least represented template first: no template twice before every template of its type was used once
    for t in types:
        available = {q.template_id for q in questions if q.country == "usa" and q.answer_type == t}
        chosen = Counter(q.template_id for q in usa if q.answer_type == t)
        assert max(chosen.values()) - min(chosen.values()) <= 1 or len(chosen) == len(available)


def test_sample_is_seeded(eval_bench) -> None:
    questions = load_benchmark(eval_bench).questions
    first = [q.question_id for q in stratified_sample(questions, 30, seed=1)]
    assert first == [q.question_id for q in stratified_sample(list(reversed(questions)), 30, seed=1)]
    assert first != [q.question_id for q in stratified_sample(questions, 30, seed=2)]


def test_kit_is_self_contained_and_holds_no_gold_in_what_the_page_reads(kit: Path, eval_bench) -> None:
    data = page_data(kit)
    gold = load_gold(kit)
    assert [q["question_id"] for q in data["questions"]] == [q.question_id for q in gold]
    for q in data["questions"]:
        assert not GOLD_KEYS & set(q), q
        image = kit / q["image"]
        assert image.is_file() and not image.is_symlink() and image.stat().st_nlink == 1
        assert image.read_bytes() == (eval_bench / "maps" / image.name).read_bytes()
        if q["answer_type"] in ("single", "list", "ranking"):
            assert len(q["names"]) > 10
    discrete_range = [q for q in data["questions"] if q["answer_type"] == "range" and q["map_type"] == "discrete"]
    assert discrete_range and all(q["ranges"] for q in discrete_range)
    for rel in ("index.html", "assets/app.js", "assets/style.css", GOLD_FILE, "kit.json"):
        assert (kit / rel).is_file()
    assert "gold" not in (kit / "index.html").read_text() and "gold" not in (kit / "assets/app.js").read_text()


def test_kit_refuses_a_non_empty_folder_without_force(kit: Path, eval_bench, tmp_path: Path) -> None:
    out = tmp_path / "kit"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["human", "sample", str(eval_bench), "-n", "5", "-o", str(out)])
    assert result.exit_code == 2 and "--force" in result.output and len(result.output.strip().splitlines()) == 1
    assert (out / "notes.txt").read_text() == "mine"
    write_kit(eval_bench, out, n=5, force=True)
    assert not (out / "notes.txt").exists() and len(load_gold(out)) == 10
    assert not list(tmp_path.glob(".kit*"))  # no staging folder left behind


def test_kit_refuses_to_write_into_the_benchmark(eval_bench) -> None:
    result = CliRunner().invoke(main, ["human", "sample", str(eval_bench), "-o", str(eval_bench / "kit")])
    assert result.exit_code == 2 and "benchmark folder" in result.output


def test_a_full_size_sample_holds_every_template_present(eval_bench) -> None:
    questions = load_benchmark(eval_bench).questions
    sample = stratified_sample(questions, 150, seed=2)
    assert {q.mapwise_template for q in sample} == {q.mapwise_template for q in questions}
    assert {q.template_id for q in sample} == {q.template_id for q in questions}
    assert {q.map_type for q in sample} == {"discrete", "continuous"}


def test_a_map_cap_keeps_the_sample_on_that_many_maps_of_both_types(eval_bench) -> None:
    sample = stratified_sample(load_benchmark(eval_bench).questions, 30, seed=3, maps=4)
    for country in ("usa", "india"):
        maps = {q.map_id: q.map_type for q in sample if q.country == country}
        assert len(maps) <= 4 and len(maps) >= 3
    assert {q.map_type for q in sample if q.country == "usa"} == {"discrete", "continuous"}
    with pytest.raises(ValueError, match="--maps 0"):
        stratified_sample(load_benchmark(eval_bench).questions, 30, maps=0)
