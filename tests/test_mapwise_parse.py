"""MAPWise question parsing: exact parameters or a reason, never a guess."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "sample"
pytestmark = pytest.mark.skipif(not SAMPLE.is_dir(), reason="shared MAPWise sample not available")


@cache
def scene(country: str, ref: str):
    from mapgen.recheck.importer import read_sample
    from mapgen.scene import build_scene

    return build_scene(read_sample(SAMPLE / country).specs[ref])


def parse(country: str, ref: str, text: str, template_no: int | None = None):
    from mapgen.recheck.parse import parse_question

    return parse_question(text, scene(country, ref), template_no)


def test_region_group_and_class_resolve_exactly():
    p = parse("usa", "104", "Which states in the west coast region belong to the second highest range?", 11)
    assert p.ok and p.template_id == "group_regions_in_range"
    assert p.params == {"R": "West Coast", "Y": 2}  # 4 classes: second highest = index 2


def test_label_as_printed_and_percent_number():
    p = parse("usa", "10436", "Which states along Canada border have a value lower than 13.6%?", 26)
    assert p.ok and p.params["R"] == "bordering Canada" and p.params["C"] == "lower"
    assert p.params["N"] == pytest.approx(0.136)  # value units: fractions on this map
    p = parse("usa", "1136", "What value range does state New York fall in?", 16)
    assert p.ok and p.params == {"X": "NY"}


def test_aliases_and_typos_from_data_file():
    p = parse("china", "10_3D", "Yes or no: the value of Hunan is higher than its neighbouring state Chingqing.", 18)
    assert p.ok and p.params["Y"] == "CQ"
    p = parse("china", "10_3D", "What is the higest value range along Russia's border?", 12)
    assert p.ok and p.params == {"E": "highest", "R": "bordering Russia"}


def test_wording_of_another_template_is_noted():
    p = parse("china", "11_5C", "Yes or no: the map depicts absolute values.", 17)
    assert p.ok and p.mapwise == 6 and "template 17" in p.notes[0]


def test_never_guess_unknown_group_or_foreign_range():
    p = parse("india", "110_0D", "How many states that have Jyotirlinga have a value similar to Odisha?", 35)
    assert not p.ok and "unknown group" in p.reason
    p = parse("india", "112_7D", "Does Maharashtra fall in range 4384.00 - 11553.00?", 9)
    assert not p.ok and "not a legend range of this map" in p.reason  # 112_2D's legend, not this map's
    p = parse("india", "10_8C", "Which states bordering Nepal belong to the range 3k-5k?", 11)
    assert not p.ok and "tick intervals" in p.reason


def test_engine_gaps_are_named():
    p = parse("usa", "104", "Which state in the highest range borders at least 1 state with missing data?", 37)
    assert not p.ok and p.reason.startswith("engine gap")
    p = parse("india", "10_8C", "Is the value of Tamil Nadu closer to Bihar or Gujarat?", 10)
    assert not p.ok and "engine gap" in p.reason


def test_rank_words_refused_on_continuous_maps():
    p = parse("china", "12_4C", "Name the East most state in the highest range.", 36)
    assert not p.ok and "continuous" in p.reason


def test_sample_parse_rate_at_least_70_percent():
    from mapgen.recheck.importer import read_sample
    from mapgen.recheck.parse import parse_question

    n = ok = 0
    for country in ("usa", "india", "china"):
        data = read_sample(SAMPLE / country)
        for q in data.questions:
            n += 1
            ok += parse_question(q.question, scene(country, q.map_ref), q.template_no).ok
    assert ok / n >= 0.7


def test_second_and_third_rank_words():
    p = parse("usa", "104", "Which range has the second highest number of states?", 29)
    assert p.ok and p.params == {"E": "second highest"}
    p = parse("usa", "104", "Which range has the third lowest number of states?", 29)
    assert p.ok and p.params == {"E": "third lowest"}
    p = parse("usa", "104", "Which states in the west coast region belong to the third highest range?", 11)
    assert p.ok and p.params == {"R": "West Coast", "Y": 1}  # 4 classes: third highest = index 1


def test_own_wordings_spell_out_if_chains_and_fix_unsaid_parameters():
    from mapgen.questions.templates import load_templates
    from mapgen.recheck.parse import own_wordings

    words = {w.text: w.fixed for w in own_wordings(load_templates().get("range_border_relation"))}
    assert words == {
        "Which {{ state }} in the range {{ X }} borders at least {{ N }} {{ states }} from the range {{ Y }}?":
            {"Rel": "at least"},
        "Which {{ state }} in the range {{ X }} borders only {{ states }} from the range {{ Y }}?":
            {"Rel": "only", "N": 2},  # N is not said: any value asks the same question
        "Which {{ state }} in the range {{ X }} does not border any {{ states }} from the range {{ Y }}?":
            {"Rel": "none", "N": 2},
    }


def test_mapgen_wording_and_group_region_phrase_parse():
    p = parse("india", "108_0D", "How many states in the Ganga river region have a value in range 755.0 - 7,894.0?")
    assert p.ok and p.template_id == "group_count_in_range_23" and p.params == {"R": "Ganga river states", "Y": 1}


def test_curated_southeast_china_group():
    """"the South east region" is the curated Southeast China group (Fujian, Guangdong, Hainan)."""
    p = parse("china", "12_2D", "What is the least value range in the South east region?", 12)
    assert p.ok and p.params["R"] == "Southeast China"


def test_title_units():
    from mapgen.recheck.parse import title_units

    assert title_units("Net State Value Added (₹ Lakh) - 2008-09") == {"lakh": 1e5}
    assert title_units("Engaged Persons (10000 persons) - 2016") == {"10000": 1e4}
    assert title_units("Wool Production (Thousand Kgs) - 2012-13") == {"thousand": 1e3}
    assert title_units("Capital Outlay (₹ Crores)") == {"crore": 1e7}
    assert title_units("Poverty Rate by Race/Ethnicity | KFF") == {}


def _on_title(country: str, ref: str, title: str):
    from dataclasses import replace

    from mapgen.recheck.importer import read_sample
    from mapgen.scene import build_scene

    spec = read_sample(SAMPLE / country).specs[ref]
    return build_scene(replace(spec, title=title))


def test_numbers_off_the_bar_are_read_in_the_title_unit():
    """India 100_4C counts ₹ lakh (bar 0-15M): "600B" rupees is 6M lakh. Without the title's unit, or with two
    units that would both put it on the bar, the units are unclear and the question does not parse."""
    from mapgen.recheck.parse import parse_question

    text = "Is the value of Tamil Nadu closer to 600B or 800B?"
    p = parse("india", "100_4C", text, 10)
    assert p.ok and (p.params["A"], p.params["B"]) == (6e6, 8e6)
    assert any("lakh" in n for n in p.notes) and p.in_map_units("800B") == "8000000"
    assert p.in_map_units("Tamil Nadu") is None
    plain = parse_question(text, _on_title("india", "100_4C", "Net State Value Added - 2008-09"), 10)
    assert not plain.ok and "units unclear" in plain.reason
    two = parse_question(text, _on_title("india", "100_4C", "Value (₹ Lakh) (₹ Crore)"), 10)
    assert not two.ok and "several" in two.reason
    same = parse("india", "100_4C", "Is the value of Tamil Nadu closer to 6M or 8M?", 10)
    assert same.ok and same.params == p.params and not same.notes  # on the bar as written: read as written


def test_ranges_off_the_bar_are_read_in_the_title_unit():
    p = parse("india", "100_4C", "Does the value of Tamil Nadu fall in range 500B-1000B?", 9)
    assert p.ok and p.params["Y"] == 0  # 5M-10M, the first tick interval of mapgen's bar for this map
    p = parse("india", "100_4C", "Does the value of Tamil Nadu fall in range 200B-400B?", 9)
    assert not p.ok and "'2,000,000-4,000,000' is not a legend range" in p.reason


@pytest.mark.parametrize(("answer", "verdict"), [("700B", "agree"), ("1400B", "disagree")])
def test_recheck_reads_an_answer_in_the_question_unit(answer: str, verdict: str):
    """MAPWise's answer repeats one of the question's numbers ("700B"): it is judged as the value that number
    was read as (7M lakh); Tamil Nadu's 7.3M lakh is closer to 7M than to 14M."""
    from mapgen.recheck.importer import RawQuestion
    from mapgen.recheck.verdicts import recheck_question

    sc = scene("india", "100_4C")
    raw = RawQuestion("india", 1, "100_4C", sc.map_id, 10, "Is the value of Tamil Nadu closer to 700B or 1400B?",
                      answer)
    v = recheck_question(raw, sc)
    assert v.verdict == verdict, (v.reason, v.our_answer)


def test_missing_data_question_parses():
    p = parse("usa", "1034", "Which states have missing data?", 37)
    assert p.ok and p.template_id == "regions_missing_data" and p.params == {}


def test_open_range_on_a_continuous_map_is_its_threshold():
    """"the range above 10k" is no tick interval of a continuous bar: it names the threshold 10k (template 26)."""
    p = parse("india", "10_8C", "Which states bordering Gujarat have a value in the range above 10k?", 26)
    assert p.ok and p.template_id == "group_regions_threshold"
    assert p.params == {"R": "bordering Gujarat", "C": "higher", "N": 10000.0}
    p = parse("india", "10_8C", "Which states bordering Nepal belong to the range below 2k?", 11)
    assert p.ok and (p.params["C"], p.params["N"]) == ("lower", 2000.0) and "template 11" in " ".join(p.notes)


@pytest.mark.parametrize(("phrase", "group"), [
    ("that border Canada", "bordering Canada"),
    ("that share a border with Mexico", "bordering Mexico"),
    ("sharing a border with Canada", "bordering Canada"),
    ("surrounding Texas", "bordering Texas"),
    ("adjacent to Texas", "bordering Texas"),
    ("along the Canadian border", "bordering Canada"),
    ("on the Mexican border", "bordering Mexico"),
    ("bordering the Pacific Ocean", "Pacific coast"),
    ("bordering the Gulf of Mexico", "Gulf Coast"),
])
def test_bordering_paraphrases(phrase: str, group: str):
    """Verb forms of "bordering", a country's adjective before "border" (the alias file's demonyms) and "bordering
    the <sea or ocean>" read as the group they name."""
    p = parse("usa", "104", f"Which states {phrase} belong to the highest range?", 11)
    assert p.ok and p.params["R"] == group, p


def test_unknown_adjective_before_border_is_not_guessed():
    p = parse("usa", "104", "Which states along the Martian border belong to the highest range?", 11)
    assert not p.ok and "unknown group" in p.reason


def test_template_20_with_a_quantifier_parses_and_is_answered_from_the_map():
    """MAPWise's "compared to atleast 2 of its neighbours" (10121's wording) on 10436: Nevada (class 10.2%-13.6%)
    is lower than Oregon, California, Idaho and Arizona; Washington (lower than none: Oregon and Idaho share its
    class), Oregon (California only) and California (Arizona only) lie further west."""
    from mapgen.questions import ask, load_templates

    q = "Name the western-most state that belongs to a lower value range compared to atleast 2 of its neighbours."
    p = parse("usa", "10436", q, 20)
    assert p.ok and p.template_id == "direction_local_extreme_count"
    assert p.params == {"D": "west", "C": "lower", "N": 2}
    assert ask(load_templates().get(p.template_id), scene("usa", "10436"), p.params).answer == "Nevada"
    p = parse("usa", "10436", q.replace("atleast 2", "at least 3"), 20)
    assert p.ok and p.params["N"] == 3


def test_an_open_range_on_a_discrete_map_is_a_number():
    p = parse("usa", "10436", "Does New York fall in range above 20%?", 9)
    assert p.ok and p.template_id == "region_vs_number"
    assert p.params["X"] == "NY" and p.params["S"] == "above" and p.params["N"] == pytest.approx(0.2)
