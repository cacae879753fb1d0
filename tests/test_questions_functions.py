"""Unit tests of the function library on the hand-built Scenes of test_questions_templates (values there)."""

from __future__ import annotations

import pytest
from test_questions_templates import hand_scene

from mapgen.questions.functions import FUNCTIONS, INVALID, context, hue_spread, number_text

TESTED: set[str] = set()


def f(name: str, scene: str, *args):
    TESTED.add(name)
    return FUNCTIONS[name].fn(context(hand_scene(scene)), *args)


FC = "Four Corners states"
WC = "West Coast"


def test_sets_and_counts() -> None:
    assert f("members", "D1", WC) == {"WA", "OR", "CA"}
    assert f("neighbors", "D1", "CO") == {"WY", "NE", "KS", "OK", "NM", "UT"}
    assert len(f("all_regions", "D1")) == 51
    assert f("others", "D1", frozenset({"WA", "OR"}), "WA") == {"OR"}
    assert f("count", "D1", {"A", "B"}) == 2
    assert f("trio", "D1", "A", "B", "C") == {"A", "B", "C"}
    assert f("pair", "D1", "A", "B") == {"A", "B"}
    assert f("contains", "D1", {"A"}, "A") and not f("contains", "D1", {"A"}, "B")
    assert f("nonempty", "D1", {"A"}) and not f("nonempty", "D1", set())
    assert f("equals", "D1", {"A", "B"}, ["B", "A"]) and not f("equals", "D1", 1, 2)
    assert f("both", "D1", True, True) and not f("both", "D1", True, False)


def test_filters_and_comparisons() -> None:
    assert f("in_range", "D1", f("members", "D1", FC), 1) == {"AZ", "NM"}
    assert f("in_range", "C1", f("members", "C1", WC), 0) is INVALID  # WA on the 0 tick
    assert f("is_in_range", "C1", "NV", 2) is True
    assert f("versus_number", "D1", "CA", "above", 20.0) is True  # class 22-30
    assert f("versus_number", "D1", "NV", "below", 15.0) is INVALID  # 15 inside NV's class 11-18
    assert f("versus_number", "C1", "OR", "above", 40.0) is False  # 30
    assert f("filter_threshold", "D1", f("members", "D1", FC), "higher", 10.0) == {"AZ", "CO", "NM"}
    assert f("filter_threshold", "C1", {"NV"}, "higher", 50.0) is INVALID  # 52 within tau of 50
    assert f("filter_compare", "D1", f("members", "D1", WC), "similar", "NV") == {"OR"}
    assert f("compare", "C1", "AZ", "similar", "NM") is True
    assert f("compare", "C1", "TX", "higher", "CO") is INVALID  # 6 apart: a reading within tau + m could flip it
    assert f("compare", "D1", "AZ", "higher", "NM") is False  # one class: equal as shown
    assert f("filter_compare", "D1", f("members", "D1", FC), "higher", "CO") is INVALID  # CO tops the map: forced
    assert f("is_majority", "D1", {"AZ", "CO", "NM"}, f("members", "D1", FC)) is True
    assert f("all_of", "D1", {"AZ"}, f("members", "D1", FC)) is False
    assert f("same_range", "D1", f("members", "D1", FC)) is False  # UT, AZ/NM and CO: three classes
    assert f("same_range", "D1", {"AZ", "NM"}) is True
    assert f("same_range", "C1", {"AZ", "NM"}) is True  # 70 and 72: both in 60-80
    assert f("same_range", "C1", {"OR", "AZ"}) is False  # 30 and 70
    assert f("same_range", "C1", {"WA", "OR"}) is INVALID  # WA on the 0 tick: in no interval for sure
    assert f("same_range", "D1", {"AZ"}) is INVALID  # one member: nothing to compare
    assert f("missing", "N1", {"KS", "OK", "TX"}) == {"KS", "OK"} and f("missing", "D1", {"KS"}) == set()


def test_ranks_and_aggregates() -> None:
    fc = f("members", "D1", FC)
    assert f("extreme_region", "D1", fc, "highest") == "CO"
    assert f("extreme_region", "D1", fc, "second highest") is INVALID
    assert f("top_n", "D1", f("members", "D1", WC), "highest", 2) == {"CA", "OR"}
    assert f("extreme_class", "D1", fc, "lowest") == 0
    assert f("ranking", "D1", fc) == [["CO"], ["AZ", "NM"], ["UT"]]
    assert f("median_range", "D1", fc) == 1
    assert f("versus_median", "D1", "CO", "above", fc) is True
    assert f("means_relation", "C1", f("members", "C1", WC), "lower", f("members", "C1", FC)) is True
    assert f("is_outlier", "C1", "UT", f("members", "C1", FC)) is INVALID
    assert f("is_outlier", "C1", "AZ", f("members", "C1", FC)) is False
    assert f("closest_in_value", "C1", f("members", "C1", WC), "NV", "same") == {"OR"}
    assert f("closer_number", "C1", "CO", 40.0, 100.0) == 100.0
    assert f("is_max_border_pair", "C2", "CA", "OR") is True
    assert f("is_max_border_pair", "C1", "CA", "UT") is INVALID  # not neighbours


def test_geography() -> None:
    assert f("extreme_direction", "D1", f("members", "D1", WC), "north") == "WA"
    assert f("extreme_direction", "D1", {"AZ", "NM"}, "north") is INVALID  # 0.1 degrees apart
    assert f("versus_all_neighbors", "D1", "CO", "higher") is True
    assert f("extreme_local", "D1", "higher", "west") == "CA"
    assert f("extreme_local_count", "D1", "similar", "west", 2) == "NV"  # OR, ID (same class as NV)
    assert f("extreme_local_count", "D1", "higher", "west", 0) is INVALID  # N >= 1
    assert f("extreme_in_range", "D1", 2, "east") == "MA"
    assert f("border_relation", "D1", 2, "only", 0, 2) == "MA"
    assert f("group_border_relation", "D1", f("members", "D1", WC), "only", 1, 2) == "CA"
    assert f("end_class", "D1", "highest") == 2 and f("end_class", "D1", "lowest") == 0
    assert f("closest_pair", "D1", {"CO", "TX", "CA", "MA"}) == {"CO", "TX"}
    assert f("closest_pair_in_range", "D1", 2) == {"CO", "TX"}
    assert f("closest_pair_in_group_range", "D1", {"CA", "MA", "TX"}, 2) == {"CA", "TX"}  # CO left out
    assert f("closest_pair_in_group_range", "D1", {"CA", "MA", "TX", "CO"}, 2) == {"CO", "TX"}
    assert f("closest_pair_in_group_range", "D1", {"CA", "MA"}, 2) is INVALID  # two members: forced
    assert f("range_of", "D1", "CA") == 2 and f("range_of", "C1", "WA") is INVALID


def test_legend_facts() -> None:
    assert f("num_classes", "D1") == 3
    assert f("darker_is_higher", "D1") is True
    assert f("is_percent", "D1") is False
    assert f("legend_kind", "C1") == "continuous"
    assert f("single_hue", "D1") is True
    assert f("class_by_shade", "D1", "darkest") == 2 and f("class_by_shade", "D1", "second lightest") == 1
    assert f("legend_span", "D1") == ("2 - 30", [2.0, 30.0])
    assert f("legend_span", "C1") == ("0 - 100", [0.0, 100.0])
    assert f("widest_class", "D1", "largest") == 2
    assert f("class_by_count", "D1", "highest") == 0
    assert f("legend_spacing", "D1") == "significant gaps"
    assert hue_spread(["#ff0000", "#00ff00"]) == pytest.approx(120, abs=1)
    assert hue_spread(["#ffffff", "#777777"]) == 0
    assert number_text(1_500_000, False, "compact") == "1.5M" and number_text(12.5, True) == "12.5%"


def test_domain_helpers() -> None:
    assert len(f("readable_regions", "D1")) == 51
    assert f("readable", "D1", {"CA", "WA"}) == ["CA", "WA"]
    assert f("by_level", "D1", f("members", "D1", FC), "highest")[0] == "CO"
    assert f("by_border_difference", "C1", "CA")[0] == "OR"
    assert f("regions_by_border_difference", "C1")[:2] in (["CA", "OR"], ["OR", "CA"])
    assert f("local_candidates", "D1", "higher", "north")[0] == "MA"
    assert "AK" not in f("with_neighbors", "D1")
    assert f("numbers_above", "C1", 60.0) == [80.0, 100.0]
    assert f("numbers_to_compare", "D1") == [5.0, 10.0, 15.0, 20.0, 25.0]  # inside 2-8, 8|11, 11-18, 18|22, 22-30
    assert f("by_outlyingness", "C1", f("members", "C1", FC))[0] == "UT"
    assert f("ranges_by_share", "D1", f("members", "D1", FC))[0] == 1


def test_every_function_is_unit_tested() -> None:
    for test in (test_sets_and_counts, test_filters_and_comparisons, test_ranks_and_aggregates, test_geography,
                 test_legend_facts, test_domain_helpers):
        test()
    untested = sorted(set(FUNCTIONS) - TESTED)
    assert not untested, untested


def test_ranking_of_all_tied_regions_is_not_asked() -> None:
    # D1 breaks at 10 and 20: NV 12, WY 12 and AZ 14 share the middle class, so there is nothing to rank
    assert f("ranking", "D1", {"NV", "WY", "AZ"}) is INVALID
    assert f("ranking", "D1", {"NV", "WA", "TX"}) == [["TX"], ["NV"], ["WA"]]
