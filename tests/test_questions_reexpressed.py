"""Re-expressed built-in templates (benchmarks/reexpressed_programs.yaml) answer exactly like the shipped ones.

Every parameter draw the engine could make on hand-built and real scenes (discrete, continuous, hatched, N/A)
is run through both programs: the answers (INVALID included) and the regions each program read must agree.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from test_questions_templates import hand_scene

from mapgen.data.curated import list_stats
from mapgen.questions import load_templates
from mapgen.questions.engine import answer_key, run_program, sample_params
from mapgen.questions.functions import INVALID, context
from mapgen.questions.templates import Template, parse_expr
from mapgen.scene import build_scene
from mapgen.spec import make_spec

ALTERNATIVES = Path(__file__).resolve().parents[1] / "benchmarks" / "reexpressed_programs.yaml"
DRAWS = 120


def _alternatives() -> dict[str, Template]:
    data = yaml.safe_load(ALTERNATIVES.read_text(encoding="utf-8"))
    shipped = load_templates()
    return {tid: replace(shipped.get(tid), _compiled={}, program=tuple(
        (name, parse_expr(call)) for step in spec["program"] for name, call in step.items())) for tid, spec in data.items()}


def _scenes() -> list:
    scenes = [hand_scene(name) for name in ("D1", "D2", "N1", "C1", "C2")]
    for country in ("usa", "india", "china"):
        info = list_stats(country)[0]
        for kind in ({"legend": "discrete"}, {"legend": "continuous"}, {"hatched": True}):
            scenes.append(build_scene(make_spec(country, info.id, classes=5, **kind)))
    return scenes


def _outcome(template: Template, ctx, params: dict) -> tuple:
    answer, _ = run_program(template, ctx, dict(params))
    return ("INVALID" if answer is INVALID else answer_key(answer)), frozenset(ctx.reads)


@pytest.mark.parametrize("template_id", sorted(yaml.safe_load(ALTERNATIVES.read_text(encoding="utf-8"))))
def test_reexpressed_template_answers_like_the_shipped_one(template_id: str) -> None:
    alt = _alternatives()[template_id]
    shipped = load_templates().get(template_id)
    compared = answered = 0
    for scene in _scenes():
        if not shipped.applies_to(scene.map_type):
            continue
        rng = random.Random(f"reexpressed:{template_id}:{scene.map_id}")
        for reader in (False, True):
            ctx = context(scene).as_reader() if reader else context(scene)
            for _ in range(DRAWS):
                params = sample_params(shipped, ctx, rng)
                if params is None:
                    break
                want, got = _outcome(shipped, ctx, params), _outcome(alt, ctx, params)
                assert got == want, f"{template_id} on {scene.map_id} {params}: {got} != {want}"
                compared += 1
                answered += want[0] != "INVALID"
    assert compared >= 500 and answered >= 100  # many draws, many of them asked
