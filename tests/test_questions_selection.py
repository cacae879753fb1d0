"""The coverage planner on a real build: questions chosen from the images' candidates by the written rules."""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict

import pytest

from mapgen.build import build
from mapgen.questions.selection import SelectionRules, coverage, select_questions

CONFIG = {
    "name": "coverage",
    "seed": 5,
    "countries": [{"name": "usa", "maps": 3}, {"name": "china", "maps": 3}],
    "variants": {"hatched": False},
    "questions": {"per_image": 30, "min_per_template": 2},
    "tasks": ["vqa"],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], list[dict]]:
    out = tmp_path_factory.mktemp("coverage")
    build(CONFIG, out, progress=False)
    chosen = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    candidates = [q for f in sorted((out / "units").glob("*.json")) for q in json.loads(f.read_text())["questions"]]
    return chosen, candidates


def test_chosen_questions_are_candidates_within_the_image_budget(built) -> None:
    chosen, candidates = built
    assert {q["question_id"] for q in chosen} <= {q["question_id"] for q in candidates}
    assert len(candidates) > len(chosen)  # images offer more than they keep
    assert max(Counter(q["map_id"] for q in chosen).values()) <= CONFIG["questions"]["per_image"]


def test_every_template_with_candidates_reaches_its_minimum(built) -> None:
    chosen, candidates = built
    offered = coverage(candidates)
    asked = coverage(chosen)
    minimum = CONFIG["questions"]["min_per_template"]
    for country, templates in offered.items():
        for template, n in templates.items():
            answers = {json.dumps(q["answer"]) for q in candidates
                       if q["country"] == country and q["template_id"] == template}
            if n >= minimum and len(answers) >= 2:  # enough candidates, and answers to balance
                assert asked[country].get(template, 0) >= minimum, (country, template)


def test_answers_are_balanced_and_degenerate_answers_rare(built) -> None:
    chosen, _ = built
    by_template: dict[str, Counter] = defaultdict(Counter)
    for q in chosen:
        by_template[q["template_id"]][json.dumps(q["answer"])] += 1
    for template, answers in by_template.items():
        if '"Yes"' in answers or '"No"' in answers:
            assert answers['"Yes"'] == answers['"No"'], template
    empty = [q for q in chosen if q["answer_type"] == "list" and not q["answer"]]
    assert all(q["accepted_answers"].get("None") is not None for q in empty)
    assert len(empty) <= math.ceil(0.04 * sum(q["answer_type"] == "list" for q in chosen))


def test_the_minimum_comes_first_when_images_have_little_room(built) -> None:
    # 2 questions per image, 6 images per country: room for 12, so the minimum of 1 decides which templates get in;
    # without it, the least-asked-first turns still spread the room over as many templates
    _, candidates = built
    for minimum in (0, 1):
        chosen = select_questions(candidates, SelectionRules(per_image=2, min_per_template=minimum))
        assert max(Counter(q["map_id"] for q in chosen).values()) <= 2
        for country, templates in coverage(chosen).items():
            assert max(templates.values()) == 1 or len(templates) >= 10, (minimum, country, templates)
