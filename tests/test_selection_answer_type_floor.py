"""The coverage planner's answer-type floor (``min_per_answer_type``): hand-made candidates and a real tiny build."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from mapgen.build import build
from mapgen.config import load_config
from mapgen.questions.selection import SelectionRules, select_questions


def _candidates(images: int, templates: dict[str, tuple[str, int]], country: str = "usa") -> list[dict]:
    """Candidates of ``templates`` (id -> (answer type, images offering it)), every answer distinct."""
    out = []
    for i in range(images):
        for template, (kind, offered) in sorted(templates.items()):
            if i < offered:
                out.append({"question_id": f"{country}-{template}-{i}", "map_id": f"{country}-m{i}",
                            "country": country, "template_id": template, "answer_type": kind,
                            "answer": [f"{template}{i}"] if kind in ("list", "ranking") else f"{template}{i}",
                            "variant": "annotated"})
    return out


def _singles(offered: int = 12) -> dict[str, tuple[str, int]]:
    return {f"single_{k}": ("single", offered) for k in "abcdef"}


SINGLES = _singles()


def _types(chosen: list[dict]) -> Counter:
    return Counter((q["country"], q["answer_type"]) for q in chosen)


def test_a_type_below_the_floor_is_raised_to_it_over_its_templates() -> None:
    records = _candidates(12, {**SINGLES, "rank_a": ("ranking", 12), "rank_b": ("ranking", 12)})
    without = select_questions(records, SelectionRules(per_image=1, min_per_template=1))
    with_floor = select_questions(records, SelectionRules(per_image=1, min_per_template=1, min_per_answer_type=6))
    assert _types(without)["usa", "ranking"] < 6  # the turns alone leave rankings short (8 templates, 12 slots)
    assert _types(with_floor)["usa", "ranking"] == 6
    assert Counter(q["template_id"] for q in with_floor if q["answer_type"] == "ranking") == {"rank_a": 3, "rank_b": 3}
    assert len(with_floor) == len(without) == 12  # the floor moves room between types, it makes none
    assert max(Counter(q["map_id"] for q in with_floor).values()) == 1


def test_the_floor_brings_turns_forward_instead_of_adding_to_them() -> None:
    # rankings get 10 of 40 slots by the turns alone: a floor under that changes no count, one over it only tops up
    records = _candidates(40, {**_singles(40), "rank_a": ("ranking", 40), "rank_b": ("ranking", 40)})
    counts = {floor: _types(select_questions(records, SelectionRules(1, 1, min_per_answer_type=floor)))
              for floor in (0, 6, 14)}
    assert counts[0]["usa", "ranking"] == counts[6]["usa", "ranking"] == 10
    assert counts[14]["usa", "ranking"] == 14


def test_too_few_candidates_are_all_taken_without_failing() -> None:
    records = _candidates(12, {**SINGLES, "rank_a": ("ranking", 2), "rank_b": ("ranking", 1)})
    chosen = select_questions(records, SelectionRules(per_image=2, min_per_template=0, min_per_answer_type=10))
    assert _types(chosen)["usa", "ranking"] == 3
    assert _types(chosen)["usa", "single"] >= 10


def test_the_floor_holds_per_country_and_zero_changes_nothing() -> None:
    records = (_candidates(12, {**SINGLES, "rank_a": ("ranking", 12)}, "usa")
               + _candidates(12, {**SINGLES, "rank_a": ("ranking", 12)}, "china"))
    rules = SelectionRules(per_image=1, min_per_template=1, min_per_answer_type=5)
    assert all(_types(select_questions(records, rules))[c, "ranking"] == 5 for c in ("usa", "china"))
    zero = SelectionRules(per_image=1, min_per_template=1, min_per_answer_type=0)
    assert select_questions(records, zero, seed=3) == select_questions(records, SelectionRules(1, 1), seed=3)


def test_the_field_is_dumped_only_when_set() -> None:
    base = {"name": "floor", "countries": [{"name": "usa", "maps": 1}]}
    plain = load_config(base)
    assert "min_per_answer_type" not in plain.model_dump()["questions"]
    assert load_config({**base, "questions": {"min_per_answer_type": 0}}).digest() == plain.digest()
    floored = load_config({**base, "questions": {"min_per_answer_type": 25}})
    assert floored.model_dump()["questions"]["min_per_answer_type"] == 25
    assert floored.digest() != plain.digest()


FLOOR, SEED = 3, 2
CONFIG = {
    "name": "floor",
    "seed": SEED,
    "countries": [{"name": "usa", "maps": 2}, {"name": "china", "maps": 2}],
    "variants": {"hatched": False},
    "questions": {"per_image": 8, "min_per_template": 0, "min_per_answer_type": FLOOR},
    "tasks": ["vqa"],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], list[dict]]:
    out = tmp_path_factory.mktemp("floor")
    build(CONFIG, out, progress=False)
    chosen = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    candidates = [q for f in sorted((out / "units").glob("*.json")) for q in json.loads(f.read_text())["questions"]]
    return chosen, candidates


def test_a_built_benchmark_holds_the_floor_per_country(built) -> None:
    chosen, candidates = built
    offered, asked = _types(candidates), _types(chosen)
    assert {c for c, _ in offered} == {"usa", "china"}
    for (country, kind), n in offered.items():
        assert asked[country, kind] >= min(FLOOR, n), (country, kind, asked)
    rules = SelectionRules(per_image=8, min_per_template=0)  # the same build's candidates without the floor
    without = _types(select_questions(candidates, rules, seed=SEED))
    assert any(without[key] < min(FLOOR, n) for key, n in offered.items()), without  # the floor made the difference
