"""`mapgen human sample --maps N`: the capped maps are chosen so the sample still holds every answer type's quota."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from mapgen.benchmark import load_benchmark
from mapgen.build import build
from mapgen.human.sample import choose_maps, country_sample, stratified_sample, type_quotas
from mapgen.questions.record import Question

# 16 images of 6 questions, no floor: rankings fall on 2 images only (measured), the other types on many
CONFIG = {"name": "capped", "seed": 4, "countries": [{"name": "india", "maps": 8}], "variants": {"hatched": False},
          "questions": {"per_image": 6, "min_per_template": 0}, "tasks": ["vqa"]}
N, MAPS = 18, 6


@pytest.fixture(scope="module")
def questions(tmp_path_factory: pytest.TempPathFactory) -> list[Question]:
    out = tmp_path_factory.mktemp("capped") / "bench"
    build(CONFIG, out, progress=False)
    return list(load_benchmark(out).questions)


def _types_on(questions: list[Question], maps: set[str], n: int, seed: int) -> Counter:
    sample = country_sample([q for q in questions if q.map_id in maps], n, random.Random(seed))
    return Counter(q.answer_type for q in sample)


def test_capped_maps_hold_every_answer_types_quota(questions) -> None:
    held = Counter(q.answer_type for q in questions)
    assert 0 < held["ranking"] < N // 6 + 1 and len({q.map_id for q in questions if q.answer_type == "ranking"}) <= 3
    want = type_quotas(dict(held), N)
    for seed in range(4):
        maps = choose_maps(questions, MAPS, random.Random(seed), N)
        assert len(maps) == MAPS
        assert _types_on(questions, maps, N, seed) == want, seed
        # without the quotas the stratum turns alone leave a type short on these maps
        blind = choose_maps(questions, MAPS, random.Random(seed))
        assert _types_on(questions, blind, N, seed) != want, seed


def test_a_capped_sample_spans_both_map_types_and_is_seeded(questions) -> None:
    sample = stratified_sample(questions, N, seed=1, maps=MAPS)
    assert len({q.map_id for q in sample}) <= MAPS
    assert {q.map_type for q in sample} == {"discrete", "continuous"}
    again = stratified_sample(questions, N, seed=1, maps=MAPS)
    assert [q.question_id for q in sample] == [q.question_id for q in again]
