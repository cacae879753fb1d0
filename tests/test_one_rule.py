"""One rule each (issue 39): "evenly spaced" is the Scene's fact, read by the question, not recomputed; an
import of MAPWise reads its JSON lines through the one reader (mapgen.files)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

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


SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "sample"


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="shared MAPWise sample not available (../shared)")
def test_an_import_reads_back_through_the_json_lines_reader(tmp_path: Path) -> None:
    """The importer reads its questions.jsonl through mapgen.files: a damaged line is named by file and line (it
    used to be json's bare "Expecting value: line 1 column 1"), and a byte-order mark an editor adds is no
    damage."""
    from mapgen.recheck.importer import import_mapwise, load_imported

    out = tmp_path / "imp"
    import_mapwise(SAMPLE / "china", out, read_ticks=False)
    path = out / "questions.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("\ufeff" + "".join(lines), encoding="utf-8")
    assert len(load_imported(out).questions) == len(lines)
    path.write_text(lines[0] + "{not json\n" + "".join(lines[2:]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"questions\.jsonl:2: not valid JSON"):
        load_imported(out)
