"""Answer extraction and normalisation (mapgen.eval.answers, mapgen.eval.normalize)."""

from __future__ import annotations

import pytest

from mapgen.eval.answers import extract_answer, parse_box, split_items
from mapgen.eval.normalize import AliasMap, normalize_answer_name, ranges_equal, ranges_overlap
from mapgen.legend.grammar import find_range, parse_number

# ------------------------------------------------------------------------------------------- JSON


def test_json_answer_buried_in_chain_of_thought_last_wins():
    text = (
        'Step 1: the legend has 5 classes. A first guess would be {"answer": "No"}.\n'
        "Step 2: Texas is darker than Ohio, so I revise.\n"
        '{"answer": "Yes"} I hope this helps!'
    )
    got = extract_answer(text, "binary")
    assert (got.ok, got.value, got.source) == (True, "Yes", "json")


def test_fenced_json_list():
    text = 'Here you go:\n```json\n{\n  "answer": ["Texas", "Ohio"]\n}\n```\n'
    got = extract_answer(text, "list")
    assert got.ok and got.value == ["Texas", "Ohio"]


def test_single_quotes_trailing_comma_and_trailing_text():
    got = extract_answer("{'answer': 'Jammu and Kashmir',} -- that's my answer", "single")
    assert got.ok and got.value == "Jammu and Kashmir" and got.source == "json"


def test_json_answer_nested_and_not_first_key():
    got = extract_answer('{"reasoning": {"steps": [1, 2]}, "answer": 3}', "count")
    assert got.value == 3
    got = extract_answer('{"result": {"answer": "4"}}', "count")
    assert got.value == 4


def test_json_bool_and_numeric_values():
    assert extract_answer('{"answer": true}', "binary").value == "Yes"
    assert extract_answer('{"answer": 3.0}', "count").value == 3
    assert extract_answer('{"answer": [1000, "2k"]}', "range").value == (1000.0, 2000.0)
    assert extract_answer('{"answer": {"lower": "1k", "upper": null}}', "range").value == (1000.0, None)


def test_malformed_json_falls_back_to_raw_key():
    got = extract_answer('{"answer": ["Texas", "Ohio"', "list")
    assert got.ok and got.value == ["Texas", "Ohio"] and got.source == "json-malformed"


def test_malformed_json_falls_back_to_answer_line():
    text = '{"answer": }\nFinal answer: 7'
    got = extract_answer(text, "count")
    assert got.ok and got.value == 7 and got.source == "answer-line"


def test_json_answer_that_is_unreadable_is_not_ok():
    got = extract_answer('{"answer": "I cannot tell"}', "count")
    assert not got.ok and got.value is None and got.reason


# ------------------------------------------------------------------------------------------- lines and prose


def test_answer_line_markdown_and_last_line_wins():
    text = "Answer: No, wait.\nLet me recheck the shades.\n**Final Answer:** **Yes**"
    got = extract_answer(text, "binary")
    assert got.value == "Yes" and got.source == "answer-line"


def test_answer_line_followed_by_bullets():
    got = extract_answer("Answer:\n- Texas\n- Ohio\n\nThanks", "list")
    assert got.value == ["Texas", "Ohio"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("No, Texas does not have the highest value.", "No"),
        ("Yes. It is the darkest state, although no other state is close.", "Yes"),
        ("Looking at the legend, the colours get darker. So, the statement is true.", "Yes"),
        ("Comparing both shades, I would say no.", "No"),
        ("Yes or no: Texas is higher than Ohio? Texas is lighter, so no.", "No"),
    ],
)
def test_yes_no_in_prose(text, expected):
    assert extract_answer(text, "binary").value == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("There are three such states.", 3),
        ("Twelve", 12),
        ("I count Ohio, Iowa and Utah, that makes 5? Actually 4.", 4),
        ("3 states: Ohio, Iowa, Utah (and 10 others are lighter).", 3),
        ("There are no states in that range.", 0),
        ("zero", 0),
    ],
)
def test_count_words_and_numbers(text, expected):
    got = extract_answer(text, "count")
    assert got.ok and got.value == expected


def test_single_from_prose_sentence():
    assert extract_answer("The state with the highest value is Texas.", "single").value == "Texas"
    assert extract_answer("New York.", "single").value == "New York"


def test_list_separators_keep_known_names_whole():
    text = "Final answer: Texas; Ohio, Jammu and Kashmir and Iowa or Utah"
    got = extract_answer(text, "list", vocabulary=["Jammu and Kashmir"])
    assert got.value == ["Texas", "Ohio", "Jammu and Kashmir", "Iowa", "Utah"]


def test_list_upper_case_or_is_a_code_not_a_separator():
    assert split_items("CA, OR and WA") == ["CA", "OR", "WA"]


def test_list_none_is_empty_list():
    assert extract_answer("None", "list").value == []
    assert extract_answer('{"answer": []}', "list").value == []


def test_list_bullets():
    got = extract_answer("* Texas (darkest)\n* **Ohio**\n1. Iowa", "list")
    assert got.value == ["Texas", "Ohio", "Iowa"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Texas > Ohio = Iowa > Utah", [["Texas"], ["Ohio", "Iowa"], ["Utah"]]),
        ("Guizhou < Yunnan < Sichuan", [["Sichuan"], ["Yunnan"], ["Guizhou"]]),
        ("Texas, Ohio = Iowa, Utah", [["Texas"], ["Ohio", "Iowa"], ["Utah"]]),
        ("Rank 2: Washington, Oregon\nRank 1: California", [["California"], ["Washington", "Oregon"]]),
        ("1. Texas\n2. Ohio = Iowa\n3. Utah", [["Texas"], ["Ohio", "Iowa"], ["Utah"]]),
        ("So the ranking is: A > B, C > D", [["A"], ["B", "C"], ["D"]]),
        (
            '{"answer": ["Texas", "Ohio = Iowa", ["Utah", "Idaho"]]}',
            [["Texas"], ["Ohio", "Iowa"], ["Utah", "Idaho"]],
        ),
    ],
)
def test_ranking_forms(text, expected):
    got = extract_answer(text, "ranking")
    assert got.ok and got.value == expected


def test_ranking_mixed_directions_is_unparsed():
    got = extract_answer("A > B < C", "ranking")
    assert not got.ok and "mix" in got.reason


def test_range_in_prose_takes_last_and_answer_line_takes_first():
    got = extract_answer("The legend goes from 0 to 100; Texas falls between 20k and 40k", "range")
    assert got.value == (20000.0, 40000.0)
    assert extract_answer("Answer: 1-2M (not 2-3M)", "range").value == (1e6, 2e6)


@pytest.mark.parametrize("answer_type", ["binary", "count", "single", "list", "range", "ranking"])
@pytest.mark.parametrize(
    "text",
    ["", "   ", "I cannot determine this from the image.", "{" * 3000, '{"answer": ' + "[" * 3000, "}{}{\"'"],
)
def test_unparseable_never_raises(text, answer_type):
    got = extract_answer(text, answer_type)
    assert isinstance(got.ok, bool)
    if not text.strip():
        assert not got.ok and got.reason == "empty response"


def test_unknown_answer_type_is_not_ok():
    got = extract_answer("Yes", "colour")
    assert not got.ok and "unknown answer type" in got.reason


def test_parse_box():
    assert parse_box("The box is [10, 20, 30, 40].") == (10.0, 20.0, 30.0, 40.0)
    assert parse_box("{<1><2><3><4>}") == (1.0, 2.0, 3.0, 4.0)
    assert parse_box("no box here") is None


# ------------------------------------------------------------------------------------------- normalisation


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("The State of Texas", "texas"),
        ("Côte d’Ivoire", "cote divoire"),
        ("Jammu & Kashmir", "jammu and kashmir"),
        ("  NEW-YORK. ", "new york"),
        ("the Bay of Bengal coast", "bay of bengal coast"),
    ],
)
def test_normalize_answer_name(raw, expected):
    assert normalize_answer_name(raw) == expected


def test_alias_map_code_and_full_name():
    amap = AliasMap.from_aliases({"California": ["CA", "Calif."]})
    assert amap.canonical("ca") == amap.canonical("California") == amap.canonical("Calif") == "california"
    assert amap.canonical("Oregon") == "oregon"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1k", 1000.0),
        ("2.5M", 2.5e6),
        ("3 billion", 3e9),
        ("0.5 trillion", 5e11),
        ("$1,234", 1234.0),
        ("12%", 12.0),
        ("Texas", None),
    ],
)
def test_parse_number(raw, expected):
    assert parse_number(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1k-2k", (1000.0, 2000.0)),
        ("1-2M", (1e6, 2e6)),
        ("1 to 2 million", (1e6, 2e6)),
        ("1k and 2k", (1000.0, 2000.0)),
        ("between 1.5 and 2.5 thousand", (1500.0, 2500.0)),
        ("1–2B", (1e9, 2e9)),
        ("3T-4T", (3e12, 4e12)),
        ("above 5k", (5000.0, None)),
        ("more than 10%", (10.0, None)),
        ("over 1T", (1e12, None)),
        ("greater than 0.55", (0.55, None)),
        (">0.55", (0.55, None)),
        ("5k and above", (5000.0, None)),
        ("1500+", (1500.0, None)),
        ("below $3,000", (None, 3000.0)),
        ("less than 2k", (None, 2000.0)),
        ("under 7", (None, 7.0)),
        ("53,540.99 - 15,700,269.0", (53540.99, 15700269.0)),
        ("-12.60 - -4.40", (-12.6, -4.4)),
        ("-4.40 - 4.40", (-4.4, 4.4)),
        ("10.2-13.6%", (10.2, 13.6)),
        ("0%", (0.0, 0.0)),
        ("2k-1k", (1000.0, 2000.0)),
        ("<0 - >1500", (0.0, 1500.0)),
        ("the overall range", None),
    ],
)
def test_find_range(raw, expected):
    assert find_range(raw) == expected


def test_range_compare_tolerant_and_open_ends():
    assert ranges_equal((1200.0, 2300.0), (1200.5, 2300.0))
    assert not ranges_equal((1200.0, 2300.0), (1250.0, 2300.0))
    assert not ranges_equal((5.0, None), (5.0, 9.0))
    assert ranges_overlap((1.0, 3.0), (2.0, 4.0))
    assert not ranges_overlap((1.0, 2.0), (2.0, 3.0))
    assert ranges_overlap((2.0, 2.0), (1.0, 2.0))
    assert ranges_overlap((5.0, None), (0.0, 6.0))
    assert not ranges_overlap((None, 1.0), (2.0, None))
