"""One rule each (issue 39): "evenly spaced" is the Scene's fact, read by the question, not recomputed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_questions_templates import hand_scene

from mapgen.legend import EVENLY_SPACED, SIGNIFICANT_GAPS
from mapgen.questions import Unaskable, ask, load_templates


@pytest.mark.parametrize("verdict", [EVENLY_SPACED, SIGNIFICANT_GAPS])
def test_the_spacing_question_reads_the_scenes_verdict(verdict: str) -> None:
    """Whatever the labels print, ``legend_spacing`` answers what the Scene's legend facts say, and asks
    nothing when they give no verdict."""
    scene = hand_scene("D1")
    told = replace(scene, legend_facts=replace(scene.legend_facts, spacing=verdict))
    assert ask(load_templates().get("legend_spacing"), told, {}).answer.lower() == verdict
    silent = replace(scene, legend_facts=replace(scene.legend_facts, spacing=None))
    with pytest.raises(Unaskable, match="INVALID"):
        ask(load_templates().get("legend_spacing"), silent, {})
