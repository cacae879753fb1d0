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
from mapgen.mapwise.released_wording import mapwise_text, write_wording

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
    from mapgen.recheck.importer import import_repository
    from mapgen.recheck.verdicts import recheck

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
        unread = [(v.question, v.reason) for v in verdicts if v.verdict in ("unparsed", "disagree")]
        assert not unread, unread  # every exported question parses with the recheck parser and agrees


def _released(template: Any, map_type: str) -> list[Any]:
    from mapgen.mapwise.released_wording import RELEASED

    return [w for w in template.wordings if w.note == RELEASED and map_type in w.map_types]


def test_every_exported_question_matches_a_mapwise_wording(bench: Path) -> None:
    """Each question's MAPWise text fullmatches a wording of its own template: the released one where the template
    marks one, else one of MAPWise's wordings (never only mapgen's own text). T14 has none: MAPWise left row 14
    empty, so mapgen's own text is the only one (the read-back test parses it)."""
    from mapgen.mapwise.aliases import load_aliases
    from mapgen.questions import load_templates
    from mapgen.recheck.parse import clean_question, compile_wording

    templates = {t.id: t for t in load_templates()}
    words = load_aliases().words
    misses, marked = [], set()
    for q in _questions(bench):
        t = templates[q["template_id"]]
        if not t.wordings:
            assert t.mapwise == 14, t.id
            continue
        released = _released(t, q["map_type"])
        marked |= {t.mapwise} if released else set()
        text = clean_question(mapwise_text(q), words)
        if not any(compile_wording(t, w).pattern.fullmatch(text) for w in released or t.wordings):
            misses.append((t.id, mapwise_text(q)))
    assert not misses, misses
    assert {5, 17, 18, 19, 22, 32, 42, 43} <= marked, sorted(marked)


@pytest.mark.parametrize(("template", "map_type", "ours", "released"), [
    ("group_mean_comparison", "discrete",
     "Yes or no: on average, states bordering Texas have higher values compared to states on the Gulf Coast.",
     "Yes or no: States bordering Texas have higher values on average than states on the Gulf Coast."),
    ("group_mean_comparison", "continuous",
     "Yes or no: on average, states bordering Texas have similar values compared to states on the Gulf Coast.",
     "Yes or no: States bordering Texas have similar values on average to states on the Gulf Coast."),
    ("region_range", "continuous", "Between which two legend markings does Ohio fall?",
     "Between which two legend markings does Ohio fall in?"),
    ("region_range", "discrete", "What value range does Ohio fall in?", "What value range does Ohio fall in?"),
    ("group_count_in_range", "discrete", "Count the states with values in range 1-2 bordering Texas.",
     "Count the states with the values in range 1-2 bordering Texas."),
    ("group_outlier", "discrete", "Yes or no: Utah is an outlier compared to the other states bordering Texas.",
     "Yes or no: Utah is an outlier compared to other states bordering Texas."),
    ("legend_colour_kind", "discrete", "Yes or no: the legend has multiple distinct colours.",
     "Yes or no: the legend has multiple distinct colours?"),
    ("region_vs_number", "discrete", "Does New York have a value above 20%?", "Does New York fall in range above 20%?"),
    ("region_vs_number", "continuous", "Does the value of Ohio lie below 60?", "Does the value of Ohio lie below 60?"),
    ("direction_local_extreme_count", "discrete",
     "Name the westernmost state that belongs to a similar value range compared to at least 2 of its neighbours.",
     "Name the westernmost state that belongs to a similar value range compared to atleast 2 of its neighbours."),
])
def test_released_forms(template: str, map_type: str, ours: str, released: str) -> None:
    """Templates whose released questions differ from mapgen's text are written as MAPWise released them: T22
    "higher values on average than" / "similar values on average to", T16's continuous "fall in?", T17 "with the
    values", T32 "compared to other states", T5 ending in "?", T9's "fall in range above N" and T20's "atleast N of
    its neighbours" (continuous maps keep mapgen's text: MAPWise released no continuous form of either)."""
    assert mapwise_text({"template_id": template, "question": ours, "country": "usa", "map_type": map_type}) == released
