"""MAPWise's released wording in the MAPWise export: T42 "Yes/No:", T43 "Rank the states A, B and C …", China's
regions called "states"; mapgen's own text stays the build's default, and the MAPWise text reads back."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import build_tiny

from mapgen.export import export
from mapgen.files import read_jsonl
from mapgen.mapwise.wording import mapwise_text, write_wording

TINY = {
    "name": "wording",
    "seed": 4,
    "countries": [{"name": "usa", "maps": 1}, {"name": "china", "maps": 1}],
    "variants": {"unannotated": False, "hatched": False},
    "questions": {"per_image": 500, "per_template": 4},
}


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    return build_tiny(tmp_path_factory, TINY, "wording")


def _questions(bench: Path) -> list[dict[str, Any]]:
    return read_jsonl(bench / "questions.jsonl")


def test_build_keeps_mapgen_wording_and_export_writes_mapwise_wording(bench: Path) -> None:
    questions = _questions(bench)
    by_template = {q["template_id"] for q in questions}
    assert {"two_comparisons", "group_ranking"} <= by_template
    for q in questions:
        text = mapwise_text(q)
        if q["template_id"] == "two_comparisons":
            assert q["question"].startswith("Yes or no: ") and text.startswith("Yes/No: ")
            assert re.fullmatch(r"Yes/No: .+ has a \w+ value (than|as|to) .+, and also have a \w+ value (than|as|to) .+\.",
                                text), text
        if q["template_id"] == "group_ranking":
            assert q["question"].startswith("Among the ")
            names = [q["params"][k] for k in ("X", "Y", "Z")]
            assert text.startswith("Rank the states ") and " in terms of the legend value" in text
            assert all(n in q["question"] for n in names) or all(n not in text for n in names)  # codes vs names
        if q["country"] == "china":
            assert "province" not in text.lower()


def test_connector_moves_to_mapwise_position() -> None:
    wording = "Yes/No: {{ X }} has a {{ C1 }} value (than|as|to) {{ Y }}, and also [have ]a {{ C2 }} value (than|as|to) {{ Z }}."
    phrases = {"X": ("Ohio", ""), "Y": ("Texas", ""), "Z": ("Utah", ""), "C1": ("higher than", "than"),
               "C2": ("similar to", "than")}
    assert write_wording(wording, phrases) == "Yes/No: Ohio has a higher value than Texas, and also have a similar value to Utah."


def test_mapwise_wording_reads_back_with_the_same_answers(bench: Path, tmp_path: Path) -> None:
    from mapgen.mapwise.importer import import_repository
    from mapgen.mapwise.recheck import recheck

    out = export(bench, "mapwise", tmp_path / "mw")
    mapgen_text = export(bench, "mapwise", tmp_path / "mg", wording="mapgen")
    ours = (out / "dataset" / "china" / "final_china_cleaned3.csv").read_text()
    assert "province" not in ours.lower() and "province" in (
        mapgen_text / "dataset" / "china" / "final_china_cleaned3.csv").read_text().lower()
    for country, data in import_repository(out, tmp_path / "imp").items():
        verdicts = recheck(data)
        worded = [v for v in verdicts if v.template_no in (42, 43)]
        assert worded, country
        assert all(v.verdict in ("agree", "ambiguous") for v in worded), [(v.question, v.verdict) for v in worded]


@pytest.mark.parametrize(("template", "ours", "released"), [
    ("neighbour_comparison", "Yes or no: the value of Texas is similar to that of its neighbouring state Oklahoma.",
     "Yes or no: the value of Texas is similar to its neighbouring state Oklahoma."),
    ("region_comparison", "Yes or no: the value of Texas is lower than that of Ohio.",
     "Yes or no: the value of Texas is lower than Ohio."),
])
def test_comparisons_drop_that_of_as_mapwise_writes(template: str, ours: str, released: str) -> None:
    """MAPWise's released T18/T19 questions never say "that of" ("the value of Hunan is higher than its
    neighbouring state Chongqing"); the comparison's own connector stays."""
    assert mapwise_text({"template_id": template, "question": ours, "country": "usa",
                         "map_type": "discrete"}) == released
