"""Unit tests of the function library on the hand-built Scenes of test_questions_templates (values there)."""

from __future__ import annotations

import pytest
from test_questions_templates import hand_scene

from mapgen.questions.functions import FUNCTIONS, INVALID, Estimate, hue_spread, number_text, reading

TESTED: set[str] = set()


def f(name: str, scene: str, *args):
    TESTED.add(name)
    return FUNCTIONS[name].fn(reading(hand_scene(scene)), *args)


FC = "Four Corners states"
WC = "West Coast"


def test_sets_and_counts() -> None:
    assert f("members", "D1", WC) == {"WA", "OR", "CA"}
    assert f("neighbors", "D1", "CO") == {"WY", "NE", "KS", "OK", "NM", "UT"}
    assert len(f("all_regions", "D1")) == 51
    assert f("others", "D1", frozenset({"WA", "OR"}), "WA") == {"OR"}
    assert f("count", "D1", {"A", "B"}) == 2
    assert f("regions", "D1", "A", "B", "C") == {"A", "B", "C"}
    assert f("regions", "D1", "A") == {"A"} and f("regions", "D1", "A", "B", "A") == {"A", "B"}
    assert f("pair", "D1", "A", "B") == {"A", "B"}
    assert f("contains", "D1", {"A"}, "A") and not f("contains", "D1", {"A"}, "B")
    assert f("nonempty", "D1", {"A"}) and not f("nonempty", "D1", set())
    assert f("equals", "D1", {"A", "B"}, ["B", "A"]) and not f("equals", "D1", 1, 2)
    assert f("both", "D1", True, True) and not f("both", "D1", True, False)


def test_filters_and_comparisons() -> None:
    assert f("in_range", "D1", f("members", "D1", FC), 1) == {"AZ", "NM"}
    assert f("in_range", "C1", f("members", "C1", WC), 0) is INVALID  # WA on the 0 tick
    assert f("is_in_range", "C1", "NV", 2) is True
    assert f("filter_threshold", "D1", f("members", "D1", FC), "higher", 10.0) == {"AZ", "CO", "NM"}
    assert f("filter_threshold", "C1", {"NV"}, "higher", 50.0) is INVALID  # 52 within tau of 50
    assert f("filter_compare", "D1", f("members", "D1", WC), "similar", "NV") == {"OR"}
    assert f("compare", "C1", "AZ", "similar", "NM") is True
    assert f("compare", "C1", "TX", "higher", "CO") is INVALID  # 6 apart: a reading within tau + m could flip it
    assert f("compare", "D1", "AZ", "higher", "NM") is False  # one class: equal as shown
    assert f("filter_compare", "D1", f("members", "D1", FC), "higher", "CO") is INVALID  # CO tops the map: forced
    assert f("is_majority", "D1", {"AZ", "CO", "NM"}, f("members", "D1", FC)) is True
    assert f("all_of", "D1", {"AZ"}, f("members", "D1", FC)) is False
    assert f("count", "D1", f("ranges_of", "D1", f("members", "D1", FC))) == 3  # UT, AZ/NM and CO: three classes
    assert f("ranges_of", "D1", {"AZ", "NM"}) == (1,)
    assert f("ranges_of", "C1", {"AZ", "NM"}) == (3,)  # 70 and 72: both in 60-80
    assert f("count", "C1", f("ranges_of", "C1", {"OR", "AZ"})) == 2  # 30 and 70
    assert f("ranges_of", "C1", {"WA", "OR"}) is INVALID  # WA on the 0 tick: in no interval for sure
    assert f("ranges_of", "N1", {"KS", "TX"}) == f("ranges_of", "N1", {"TX"})  # KS is N/A: in no range
    assert f("with_data", "N1", {"KS", "TX"}) is INVALID  # so "all in the same range" is not asked of it
    assert f("count", "D1", f("classes", "D1")) == 3 and f("count", "D1", {"AZ", "NM"}) == 2
    assert f("missing", "N1", {"KS", "OK", "TX"}) == {"KS", "OK"} and f("missing", "D1", {"KS"}) == set()


def test_ranks_and_aggregates() -> None:
    fc = f("members", "D1", FC)
    assert f("extreme_region", "D1", fc, "highest") == "CO"
    assert f("extreme_region", "D1", fc, "second highest") is INVALID
    assert f("top_n", "D1", f("members", "D1", WC), "highest", 2) == {"CA", "OR"}
    assert f("extreme_class", "D1", fc, "lowest") == 0
    assert f("ranked_class", "D1", f("ranges_of", "D1", fc), "level", "lowest") == 0  # the same, composed
    assert f("ranking", "D1", fc) == [["CO"], ["AZ", "NM"], ["UT"]]
    assert f("median", "D1", fc) == Estimate(16.0, 11.0, 18.0, closed=True, range_index=1)  # 8, 14, 18, 22: class 1
    assert f("median", "C1", f("members", "C1", FC)) == Estimate(71.0, 65.0, 77.0)  # 30, 70, 72, 90: (70 + 72) / 2
    assert f("median", "D1", {"AZ", "CO"}) is INVALID  # fewer than 3 members
    assert f("range_containing", "D1", f("median", "D1", fc)) == 1
    assert f("range_containing", "C1", f("median", "C1", f("members", "C1", FC))) == 3  # 60-80
    assert f("value_compare", "D1", f("value", "D1", "CO"), "above", f("median", "D1", fc)) is True  # by class
    assert f("means_relation", "C1", f("members", "C1", WC), "lower", f("members", "C1", FC)) is True
    assert f("is_outlier", "C1", "UT", f("members", "C1", FC)) is INVALID
    assert f("is_outlier", "C1", "AZ", f("members", "C1", FC)) is False
    assert f("closest_in_value", "C1", f("members", "C1", WC), "NV", "same") == {"OR"}
    assert f("closer_number", "C1", "CO", 40.0, 100.0) == 100.0
    assert f("is_max_border_pair", "C2", f("regions", "C2", "CA", "OR")) is True
    assert f("is_max_border_pair", "C2", f("regions", "C2", "OR", "CA")) is True  # a set: either order
    assert f("is_max_border_pair", "C1", f("regions", "C1", "CA", "UT")) is INVALID  # not neighbours
    assert f("is_max_border_pair", "C2", f("regions", "C2", "CA")) is INVALID  # not a pair
    assert f("is_max_border_pair", "C2", f("regions", "C2", "CA", "OR", "NV")) is INVALID


def test_geography() -> None:
    assert f("extreme_direction", "D1", f("members", "D1", WC), "north") == "WA"
    assert f("extreme_direction", "D1", {"AZ", "NM"}, "north") is INVALID  # 0.1 degrees apart
    assert f("versus_all_neighbors", "D1", "CO", "higher") is True
    assert f("extreme_local", "D1", "higher", "west") == "CA"
    assert f("extreme_local_count", "D1", "similar", "west", 2) == "NV"  # OR, ID (same class as NV)
    assert f("extreme_local_count", "D1", "higher", "west", 0) is INVALID  # N >= 1
    assert f("extreme_in_range", "D1", 2, "east") == "MA"
    assert f("ranked_class", "D1", f("classes", "D1"), "level", "highest") == 2
    assert f("ranked_class", "D1", f("classes", "D1"), "level", "lowest") == 0
    assert f("closest_pair", "D1", {"CO", "TX", "CA", "MA"}) == {"CO", "TX"}
    assert f("closest_pair_in_range", "D1", f("all_regions", "D1"), 2) == {"CO", "TX"}
    assert f("closest_pair_in_range", "D1", {"CA", "MA", "TX"}, 2) == {"CA", "TX"}  # CO left out
    assert f("closest_pair_in_range", "D1", {"CA", "MA", "TX", "CO"}, 2) == {"CO", "TX"}
    assert f("closest_pair_in_range", "D1", {"CA", "MA"}, 2) is INVALID  # two members: forced
    assert f("range_of", "D1", "CA") == 2 and f("range_of", "C1", "WA") is INVALID
    assert f("range_containing", "D1", f("value", "D1", "CA")) == 2
    assert f("range_containing", "C1", f("value", "C1", "WA")) is INVALID  # WA on the 0 tick
    assert f("range_containing", "C1", f("value", "C1", "NV")) == 2  # 52 in 40-60, clear of both ticks
    assert f("range_containing", "D1", f("difference", "D1", f("value", "D1", "CA"), f("value", "D1", "NV"))) is INVALID


def test_legend_facts() -> None:
    assert f("count", "D1", f("classes", "D1")) == 3 and f("classes", "C1") == (0, 1, 2, 3, 4)
    assert f("legend_is", "D1", "darker_is_higher") is True
    assert f("legend_is", "D1", "percent") is False
    assert f("legend_trait", "C1", "kind") == "continuous"
    assert f("legend_is", "D1", "single_hue") is True
    assert f("class_by_shade", "D1", "darkest") == 2 and f("class_by_shade", "D1", "second lightest") == 1
    assert f("legend_span", "D1") == ("2-30", [2.0, 30.0])
    assert f("legend_span", "C1") == ("0-100", [0.0, 100.0])
    assert f("ranked_class", "D1", f("classes", "D1"), "width", "highest") == 2  # 22-30
    assert f("ranked_class", "D1", f("classes", "D1"), "regions", "highest") == 0
    assert f("legend_trait", "D1", "spacing") == "significant gaps"
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


def test_generic_steps() -> None:
    # C1: r = tau + margin = 5 + 1 = 6 (value units); a Value is the interval a reader can be sure of
    def v(scene: str, code: str) -> Estimate:
        return f("value", scene, code)

    assert v("C1", "NV") == Estimate(52.0, 46.0, 58.0)
    assert v("D1", "CA") == Estimate(25.0, 22.0, 30.0, closed=True, range_index=2)  # discrete: class 2, 22-30
    assert f("value", "N1", "KS") is INVALID  # N/A
    assert f("number", "D1", 5.0) == Estimate(5.0, 5.0, 5.0, closed=True)
    d = f("difference", "C1", v("C1", "CA"), v("C1", "WA"))  # 100 - 0, each +-6
    assert d == Estimate(100.0, 88.0, 112.0)
    assert f("exceeds", "C1", d, "higher", 80.0) is True and f("exceeds", "C1", d, "higher", 95.0) is INVALID
    g = f("gap", "C1", v("C1", "OR"), v("C1", "UT"))  # 30 and 30: |d| in 0-12
    assert g == Estimate(0.0, 0.0, 12.0) and f("exceeds", "C1", g, "lower", 20.0) is True
    q = f("ratio", "C1", v("C1", "CA"), v("C1", "OR"))  # 94/36 .. 106/24
    assert q.lo == pytest.approx(94 / 36) and q.hi == pytest.approx(106 / 24)
    assert f("ratio", "C1", v("C1", "CA"), v("C1", "WA")) is INVALID  # WA 0 +- 6 could be 0
    m = f("mean", "C1", f("members", "C1", WC))  # (0 + 30 + 100) / 3 +- 6
    assert m.value == pytest.approx(130 / 3) and m.hi - m.lo == pytest.approx(12)
    assert f("mean", "C1", {"WA"}) is INVALID
    assert f("value_compare", "C1", v("C1", "CO"), "higher", v("C1", "NV")) is True  # 90 vs 52
    assert f("value_compare", "C1", v("C1", "AZ"), "similar", v("C1", "NM")) is True  # |70 - 72| <= 14 <= 15
    assert f("value_compare", "C1", v("C1", "AZ"), "higher", v("C1", "NM")) is INVALID  # 2 apart
    assert f("value_compare", "D1", v("D1", "CA"), "higher", v("D1", "NV")) is True  # 22-30 above 11-18
    assert f("value_compare", "D1", v("D1", "CA"), "similar", v("D1", "NV")) is INVALID  # by class: compare
    assert f("value_compare", "D1", v("D1", "CA"), "above", 20.0) is True  # a number: read as a mark, 22-30
    assert f("value_compare", "D1", v("D1", "NV"), "above", 15.0) is INVALID  # 15 inside 11-18
    assert f("value_compare", "C1", v("C1", "NV"), "below", 50.0) is INVALID  # 52 within r of 50
    reader = reading(hand_scene("D1")).as_reader()  # a discrete reader orders class readings by class
    same = [FUNCTIONS["value"].fn(reader, c) for c in ("AZ", "NM")]  # one class, values 14 and 18
    assert FUNCTIONS["value_compare"].fn(reader, same[1], "higher", same[0]) is INVALID
    assert f("difference", "C1", v("C1", "CA"), 10.0) == Estimate(90.0, 84.0, 96.0)  # a number is a Value
    assert f("exceeds", "D1", v("D1", "CA"), "above", 20.0) is True  # 22-30
    assert f("exceeds", "D1", v("D1", "NV"), "above", 15.0) is INVALID  # 15 inside 11-18
    assert f("exceeds", "C1", v("C1", "OR"), "above", 40.0) is False  # 30 +- 6
    assert f("exceeds", "C1", v("C1", "NV"), "below", 50.0) is INVALID  # 52 within r of 50
    assert f("count_compare", "D1", 3, "higher", 2) and f("count_compare", "D1", 2, "similar", 2)
    assert f("count_compare", "D1", 2, "lower", 2) is False
    assert f("at_least", "D1", 3, 3) is True and f("at_least", "D1", 2, 3) is False


def test_generic_filters_and_neighbour_aggregates() -> None:
    assert f("union", "D1", {"A"}, {"B"}) == {"A", "B"} and f("intersection", "D1", {"A", "B"}, {"B"}) == {"B"}
    assert f("without", "D1", {"A", "B"}, {"B"}) == {"A"}
    assert f("unique", "D1", {"A"}) == "A" and f("unique", "D1", {"A", "B"}) is INVALID
    assert f("unique", "D1", set()) is INVALID
    assert f("with_data", "N1", {"TX", "NM"}) == {"TX", "NM"} and f("with_data", "N1", {"TX", "KS"}) is INVALID
    assert f("with_data", "D1", {"TX"}) is INVALID  # one member: nothing to aggregate
    assert f("bordering_range", "D1", f("in_range", "D1", f("all_regions", "D1"), 2), "only", 0, 2) == {"MA"}
    assert f("bordering_range", "D1", f("members", "D1", WC), "only", 1, 2) == {"CA"}
    # class 1 (11-18) holds OR and NV: WA borders OR, OR borders NV, CA borders OR and NV
    assert f("bordering_range", "D1", f("members", "D1", WC), "at least", 1, 1) == {"CA", "OR", "WA"}
    assert f("bordering_range", "D1", f("members", "D1", WC), "at least", 1, 2) == {"CA"}
    fc = f("members", "D1", FC)  # UT 8 (class 0), AZ 14 and NM 18 (class 1), CO 22 (class 2)
    assert f("beyond_range", "D1", fc, "higher", 1) == {"CO"} and f("beyond_range", "D1", fc, "lower", 1) == {"UT"}
    fc = f("members", "C1", FC)  # UT 30, AZ 70, NM 72, CO 90 against range 2 = 40-60
    assert f("beyond_range", "C1", fc, "higher", 2) == {"AZ", "NM", "CO"}
    assert f("beyond_range", "C1", fc, "lower", 2) == {"UT"}
    assert f("beyond_range", "C1", {"TX"}, "higher", 4) is INVALID  # TX 96 within r of the 100 tick
    wc_mean = f("mean", "C1", f("members", "C1", WC))  # 43.3 +- 6
    assert f("filter_value", "C1", fc, "higher", wc_mean) == {"AZ", "NM", "CO"}
    assert f("filter_value", "C1", {"NV"}, "higher", wc_mean) is INVALID  # 52 - 43.3 = 8.7 < 2r
    assert f("bordering", "D1", "CO") == "bordering Colorado" and f("bordering", "D1", "AK") is INVALID
    groups = f("bordering_groups", "D1")
    assert "bordering Colorado" in groups and "bordering Alaska" not in groups and "bordering Canada" not in groups
    assert f("count_neighbours", "D1", "CO", "higher") == 6  # 22 above KS, NE, NM, OK, UT, WY
    assert f("count_neighbours", "D1", "CO", "similar") == 0
    assert f("count_neighbours", "C1", "CA", "higher") == 3 and f("count_neighbours", "C1", "CA", "lower") == 0
    assert f("count_neighbours", "C1", "NV", "higher") is INVALID  # NV 52 vs ID 50
    assert f("count_neighbours", "N1", "TX", "higher") == 3  # AR, LA, NM; OK is N/A and never counts
    assert f("count_neighbours", "N1", "KS", "higher") is INVALID
    assert f("neighbour_mean", "C1", "WA") == Estimate(40.0, 34.0, 46.0)  # OR 30, ID 50
    assert f("neighbour_mean", "D1", "AK") is INVALID  # no land neighbours


def test_every_function_is_unit_tested() -> None:
    for test in (test_sets_and_counts, test_filters_and_comparisons, test_ranks_and_aggregates, test_geography,
                 test_legend_facts, test_domain_helpers, test_generic_steps,
                 test_generic_filters_and_neighbour_aggregates):
        test()
    shipped = {name for name, spec in FUNCTIONS.items() if spec.fn.__module__.startswith("mapgen.")}
    untested = sorted(shipped - TESTED)  # a pack's or a test's function registered by an earlier test is not ours
    assert not untested, untested


def test_ranking_of_all_tied_regions_is_not_asked() -> None:
    # D1 breaks at 10 and 20: NV 12, WY 12 and AZ 14 share the middle class, so there is nothing to rank
    assert f("ranking", "D1", {"NV", "WY", "AZ"}) is INVALID
    assert f("ranking", "D1", {"NV", "WA", "TX"}) == [["TX"], ["NV"], ["WA"]]
