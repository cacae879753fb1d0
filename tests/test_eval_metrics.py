"""Metrics and scoring (mapgen.eval.metrics, mapgen.eval.score), all expected values computed by hand."""

from __future__ import annotations

import math

import pytest
from helpers import make_question

from mapgen.eval.metrics import (
    METRICS_BY_TYPE,
    accuracy_at,
    aggregate,
    get_metric,
    grounding_summary,
    iou,
    kendall,
    kendall_tau_b,
    list_metrics,
    list_precision_recall,
    mean,
    mean_average_precision,
    mean_reciprocal_rank,
    metric_info,
    range_score,
    rank_wise_precision,
    register_metric,
    spearman,
    spearman_rho,
)
from mapgen.eval.score import evaluate, score
from mapgen.questions.record import Question


def make_q(qid: str = "q", answer_type: str = "single", answer=None, **kw) -> Question:
    return make_question(qid, answer_type, answer, **kw)

# ------------------------------------------------------------------------------------------- registry


def test_registry_lookup_and_custom_metric():
    assert {"binary_exact", "single_recall", "range_score", "list_f1", "ranking_rwp"} <= set(list_metrics())

    @register_metric("test_always_half")
    def half(prediction, question):
        return 0.5

    assert get_metric("test_always_half")(None, make_q()) == 0.5
    with pytest.raises(KeyError, match="unknown metric"):
        get_metric("nope")


def test_metrics_declare_aggregation_and_direction():
    for names in METRICS_BY_TYPE.values():
        for name in names:
            info = metric_info(name)
            assert info.aggregation is mean and info.higher_is_better, name
    # the mean skips questions without the metric (NaN), as the report frame holds them
    assert aggregate("list_f1", [1.0, math.nan, 0.5]) == 0.75
    assert math.isnan(aggregate("list_f1", []))

    @register_metric("test_worst_case", aggregation=min, higher_is_better=False)
    def errors(prediction, question):
        return 1.0

    info = metric_info("test_worst_case")
    assert info.fn is errors and not info.higher_is_better
    assert aggregate("test_worst_case", [0.2, 0.7]) == 0.2
    with pytest.raises(KeyError):
        register_metric("test_bad", aggregation="geometric")


# ------------------------------------------------------------------------------------------- exact / single


def test_binary_and_count_exact():
    q = make_q(answer_type="binary", answer="Yes")
    assert get_metric("binary_exact")("Yes", q) == 1.0
    assert get_metric("binary_exact")("no", q) == 0.0
    assert get_metric("binary_exact")(None, q) == 0.0
    c = make_q(answer_type="count", answer=3)
    assert get_metric("count_exact")(3, c) == 1.0
    assert get_metric("count_exact")(4, c) == 0.0
    assert get_metric("count_exact")("three", c) == 1.0


def test_single_recall_code_full_name_and_numbers():
    q = make_q(answer="California", accepted_answers={"California": ["CA", "Calif."]})
    metric = get_metric("single_recall")
    assert metric("ca", q) == 1.0
    assert metric("The State of California", q) == 1.0
    assert metric("Calif", q) == 1.0
    assert metric("Oregon", q) == 0.0
    assert metric(None, q) == 0.0
    multi = make_q(answer=["Tamil Nadu", "West Bengal"])
    assert metric("west bengal", multi) == 1.0
    numeric = make_q(answer="800B")
    assert metric("800 billion", numeric) == 1.0
    assert metric("600B", numeric) == 0.0


# ------------------------------------------------------------------------------------------- range


@pytest.mark.parametrize(
    ("prediction", "continuous", "discrete"),
    [
        ("1000 to 2000", 1.0, 1.0),
        ("1-2k", 1.0, 1.0),
        ("1.5k-3k", 0.5, 0.0),  # overlaps
        (">1k", 0.5, 0.0),  # open range overlapping
        ("2k-3k", 0.0, 0.0),  # only touches
        ("3k-4k", 0.0, 0.0),
        ("I don't know", 0.0, 0.0),
    ],
)
def test_range_partial_credit_only_on_continuous(prediction, continuous, discrete):
    kw = dict(answer_type="range", answer="1k-2k", bounds=[1000.0, 2000.0])
    assert get_metric("range_score")(prediction, make_q(map_type="continuous", **kw)) == continuous
    assert get_metric("range_score")(prediction, make_q(map_type="discrete", **kw)) == discrete


def test_range_matches_true_bounds_and_open_ends():
    q = make_q(answer_type="range", answer="1.2M-2.3M", bounds=[1_234_567.0, 2_345_678.0])
    assert get_metric("range_exact")("1,234,567 - 2,345,678", q) == 1.0
    assert get_metric("range_exact")("1.2-2.3 million", q) == 1.0
    open_q = make_q(answer_type="range", answer=">0.55", bounds=[0.55, None], map_type="continuous")
    assert get_metric("range_score")("above 0.55", open_q) == 1.0
    assert get_metric("range_score")("0.55-0.7", open_q) == 0.5
    assert get_metric("range_score")((0.55, None), open_q) == 1.0


# ------------------------------------------------------------------------------------------- list


def test_list_precision_recall_f1_with_aliases():
    q = make_q(
        answer_type="list",
        answer=["Texas", "Ohio", "Iowa"],
        accepted_answers={"Texas": ["TX"], "Ohio": ["OH"], "Iowa": ["IA"]},
    )
    pred = ["TX", "ohio", "Utah"]
    assert get_metric("list_precision")(pred, q) == pytest.approx(2 / 3)
    assert get_metric("list_recall")(pred, q) == pytest.approx(2 / 3)
    assert get_metric("list_f1")(pred, q) == pytest.approx(2 / 3)
    pred = ["Texas", "TX"]  # duplicates through an alias count once
    assert get_metric("list_precision")(pred, q) == 1.0
    assert get_metric("list_recall")(pred, q) == pytest.approx(1 / 3)
    assert get_metric("list_f1")(pred, q) == pytest.approx(0.5)


def test_list_empty_conventions():
    empty = make_q(answer_type="list", answer=[])
    assert get_metric("list_f1")([], empty) == 1.0
    assert get_metric("list_precision")(["Ohio"], empty) == 0.0
    assert get_metric("list_recall")(["Ohio"], empty) == 0.0  # naming a region when there is none: no credit
    assert get_metric("list_f1")(["Ohio"], empty) == 0.0
    full = make_q(answer_type="list", answer=["Ohio"])
    assert get_metric("list_precision")([], full) == 0.0
    assert get_metric("list_f1")(None, full) == 0.0


# ------------------------------------------------------------------------------------------- ranking

PAPER_GOLD = [["California"], ["Washington"], ["Oregon"]]
PAPER_CASE_1 = [["California"], ["Washington", "Oregon"]]
PAPER_CASE_2 = [["California"], ["Oregon", "Washington"]]


def test_paper_appendix_c_example():
    # Rank 1 scores 1, rank 3 scores 0 (nothing predicted there); rank 2 as stated in the paper.
    assert rank_wise_precision(PAPER_GOLD, PAPER_CASE_1) == pytest.approx((1 + 0.5 + 0) / 3)
    assert rank_wise_precision(PAPER_GOLD, PAPER_CASE_2) == pytest.approx((1 + 0.5 + 0) / 3)
    assert mean_reciprocal_rank(PAPER_GOLD, PAPER_CASE_1) == pytest.approx((1 + 1 + 0) / 3)
    assert mean_reciprocal_rank(PAPER_GOLD, PAPER_CASE_2) == pytest.approx((1 + 0.5 + 0) / 3)
    assert mean_average_precision(PAPER_GOLD, PAPER_CASE_1) == pytest.approx((1 + 0.75 + 0) / 3)
    assert mean_average_precision(PAPER_GOLD, PAPER_CASE_2) == pytest.approx((1 + 0.25 + 0) / 3)


def test_rwp_mrr_map_with_ties_on_both_sides():
    gold = [["A"], ["B", "C"], ["D"]]
    pred = [["A", "B"], ["C"], ["D", "E"]]
    # RWP: {A,B}vs{A} = 1/2, {C}vs{B,C} = 1, {D,E}vs{D} = 1/2
    assert rank_wise_precision(gold, pred) == pytest.approx(2 / 3)
    # MRR: first hit at position 1 in every rank
    assert mean_reciprocal_rank(gold, pred) == pytest.approx(1.0)
    # MAP: [A,B] -> (1 + 1/2)/2 = .75; [C] -> 1; [D,E] -> .75
    assert mean_average_precision(gold, pred) == pytest.approx(2.5 / 3)


def test_rwp_ignores_order_within_a_tie_and_extra_ranks():
    gold = [["A"], ["B", "C"]]
    assert rank_wise_precision(gold, [["A"], ["C", "B"], ["Z"]]) == 1.0
    assert rank_wise_precision(gold, [["A", "B", "C"]]) == pytest.approx((1 / 3 + 0) / 2)
    assert rank_wise_precision(gold, []) == 0.0


def test_ranking_with_missing_and_extra_item():
    gold = [["A"], ["B"], ["C"], ["D"]]
    pred = [["B"], ["A"], ["X"], ["D"]]  # C missing, X extra
    assert rank_wise_precision(gold, pred) == pytest.approx(0.25)
    assert mean_reciprocal_rank(gold, pred) == pytest.approx(0.25)
    # positions: gold A0 B1 C2 D3; pred A1 B0 C->4 (after the 4 groups) D3 -> d^2 = 4 -> 1 - 24/60
    assert spearman(gold, pred) == pytest.approx(0.6)
    # pairs: (A,B) and (C,D) discordant, 4 concordant -> (4 - 2) / 6
    assert kendall(gold, pred) == pytest.approx(1 / 3)


def test_spearman_kendall_known_values_with_ties():
    gold = [["A"], ["B", "C"], ["D"]]
    pred = [["A"], ["B"], ["C"], ["D"]]
    assert spearman(gold, pred) == pytest.approx(math.sqrt(0.9))
    assert kendall(gold, pred) == pytest.approx(5 / math.sqrt(30))
    assert spearman([["A"], ["B"], ["C"]], [["C"], ["B"], ["A"]]) == pytest.approx(-1.0)
    assert kendall([["A"], ["B"], ["C"]], [["C"], ["B"], ["A"]]) == pytest.approx(-1.0)
    assert spearman(gold, gold) == 1.0
    assert spearman(gold, [["A", "B", "C", "D"]]) == 0.0  # constant prediction
    assert spearman(gold, []) == 0.0


# ------------------------------------------------------------------------------------------- public names


def test_rank_wise_precision_truth_first_with_ties():
    truth = [["CA"], ["WA", "OR"]]
    assert rank_wise_precision(truth, [["CA"], ["OR", "WA"]]) == 1.0  # order inside a tie is free
    # rank 1: {CA} vs {CA} = 1; rank 2: predicted {WA} ⊂ {WA, OR} -> 1/1 = 1; rank 3 ignored (past truth)
    assert rank_wise_precision(truth, [["CA"], ["WA"], ["OR"]]) == 1.0
    # predicted tie at rank 1 {CA, WA}: 1/2; rank 2 {OR}: 1 -> 0.75
    assert rank_wise_precision(truth, [["CA", "WA"], ["OR"]]) == pytest.approx(0.75)
    # the argument order matters: the truth's ranks are averaged over
    assert rank_wise_precision([["CA"], ["WA"], ["OR"]], truth) == pytest.approx((1 + 0.5 + 0) / 3)
    assert rank_wise_precision(truth, [["OR"], ["CA"]]) == 0.0
    assert rank_wise_precision([], []) == 1.0 and rank_wise_precision([], [["CA"]]) == 0.0


@pytest.mark.parametrize(
    ("truth", "pred", "continuous", "expected"),
    [
        ("1k-2k", "1000-2000", False, 1.0),
        ("1k-2k", "1 to 2 thousand", True, 1.0),
        ("1k-2k", "1.5k-3k", True, 0.5),  # overlap: partial credit on continuous maps only
        ("1k-2k", "1.5k-3k", False, 0.0),
        ("1k-2k", "2k-3k", True, 0.0),  # touching ends do not overlap
        (">0.55", "above 0.55", False, 1.0),
        (">0.55", "0.6-0.7", True, 0.5),  # inside the open range
        (">0.55", "0.55-0.7", False, 0.0),  # an open end is not a closed one
        ("<10%", "less than 10", False, 1.0),
        ("1.2M-2.3M", "1,200,000 - 2,300,000", False, 1.0),
        ("1k-2k", "no idea", True, 0.0),
        ("1k-2k", None, True, 0.0),
        ((1000.0, 2000.0), "1k-2k", False, 1.0),
    ],
)
def test_range_score_on_printed_strings(truth, pred, continuous, expected):
    assert range_score(truth, pred, continuous=continuous) == expected


def test_range_score_rejects_an_unreadable_truth():
    with pytest.raises(ValueError, match="not a range"):
        range_score("Texas", "1-2")


def test_list_precision_recall_on_names():
    truth = ["Texas", "Ohio", "Iowa", "Utah"]
    assert list_precision_recall(truth, ["texas", "The State of Ohio", "Maine"]) == pytest.approx((2 / 3, 2 / 4))
    assert list_precision_recall(truth, truth[::-1]) == (1.0, 1.0)
    assert list_precision_recall(truth, ["Texas", "TEXAS"]) == (1.0, 0.25)  # duplicates count once
    assert list_precision_recall(truth, []) == (0.0, 0.0)
    assert list_precision_recall([], []) == (1.0, 1.0)
    assert list_precision_recall([], ["Ohio"]) == (0.0, 0.0)
    assert list_precision_recall([], ["Texas"]) == (0.0, 0.0)
    aliases = {"Texas": ["TX"], "Ohio": ["OH"]}
    assert list_precision_recall(["Texas", "Ohio"], ["TX", "OH", "CA"], aliases=aliases) == pytest.approx(
        (2 / 3, 1.0)
    )


def test_pure_python_correlations_match_scipy():
    import random

    from scipy import stats

    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(2, 9)
        x = [rng.randint(0, 4) for _ in range(n)]
        y = [rng.randint(0, 4) for _ in range(n)]
        rho, tau = float(stats.spearmanr(x, y)[0]), float(stats.kendalltau(x, y)[0])
        for ours, ref in ((spearman_rho(x, y), rho), (kendall_tau_b(x, y), tau)):
            assert (math.isnan(ours) and math.isnan(ref)) or ours == pytest.approx(ref)


def test_registered_ranking_metrics_use_aliases_and_rescale():
    q = make_q(
        answer_type="ranking",
        answer=[["Sichuan"], ["Yunnan"], ["Guizhou"]],
        accepted_answers={"Sichuan": ["SC"], "Yunnan": ["YN"], "Guizhou": ["GZ"]},
    )
    assert get_metric("ranking_rwp")([["SC"], ["yunnan"], ["GZ"]], q) == 1.0
    assert get_metric("ranking_rwp")("Guizhou < Yunnan < Sichuan", q) == 1.0
    assert get_metric("ranking_spearman")([["GZ"], ["YN"], ["SC"]], q) == pytest.approx(0.0)
    assert get_metric("ranking_kendall")([["SC"], ["YN"], ["GZ"]], q) == pytest.approx(1.0)
    assert get_metric("ranking_mrr")(None, q) == 0.0


# ------------------------------------------------------------------------------------------- grounding


def test_iou_and_accuracy():
    assert iou((0, 0, 2, 2), (1, 1, 3, 3)) == pytest.approx(1 / 7)
    assert iou((0, 0, 2, 2), (0, 0, 2, 2)) == 1.0
    assert iou((0, 0, 1, 1), (2, 2, 3, 3)) == 0.0
    assert iou((0, 0, 0, 5), (0, 0, 0, 5)) == 0.0  # degenerate
    assert iou((0, 0, 1, 1), (1, 1, 2, 2), pixel_inclusive=True) == pytest.approx(1 / 7)
    ious = [0.5, 0.69, 0.7, None]
    assert accuracy_at(ious, 0.5) == 0.75
    assert accuracy_at(ious, 0.7) == 0.25
    assert math.isnan(accuracy_at([], 0.5))


def test_grounding_summary_unique_split():
    out = grounding_summary([0.9, 0.6, 0.2, None], unique=[True, True, False, False])
    assert out["acc@0.5"] == 0.5 and out["acc@0.7"] == 0.25
    assert out["unique/acc@0.5"] == 1.0 and out["unique/acc@0.7"] == 0.5
    assert out["non_unique/acc@0.5"] == 0.0 and out["non_unique/n"] == 2
    assert out["mean_iou"] == pytest.approx(1.7 / 4)


# ------------------------------------------------------------------------------------------- score / evaluate


def test_score_single_question():
    q = make_q(answer_type="list", answer=["Texas", "Ohio"], accepted_answers={"Texas": ["TX"]})
    s = score(q, 'Thinking... {"answer": ["TX", "Utah"]}')
    assert s.parse_ok and s.extracted == ["TX", "Utah"]
    assert s.metrics["list_precision"] == 0.5 and s.metrics["list_recall"] == 0.5
    assert s.main == s.metrics["list_f1"] == 0.5
    as_dict = score(q.to_dict(), "TX and Ohio")
    assert as_dict.main == 1.0
    unparsed = score(make_q(answer_type="count", answer=2), "no idea")
    assert not unparsed.parse_ok and unparsed.main == 0.0 and not unparsed.missing
    missing = score(q, None)
    assert missing.missing and missing.main == 0.0


def _questions() -> list[Question | dict]:
    return [
        make_q("q1", "binary", "Yes", map_type="discrete", country="usa", hatched=True),
        make_q("q2", "count", 3, map_type="continuous", country="usa"),
        make_q("q3", "range", "1k-2k", bounds=[1000.0, 2000.0], map_type="continuous", country="india"),
        make_q("q4", "list", ["A", "B"], map_type="discrete", country="india", relative_region=True),
        make_q("q5", "single", "Texas", map_type="discrete", country="usa", counterfactual="shuffled"),
        make_q("q6", "binary", "No", map_type="continuous", country="usa").to_dict(),
    ]


PREDICTIONS = {
    "q1": '{"answer": "Yes"}',  # 1
    "q2": "I think four.",  # 0
    "q3": "Answer: 1.5k-2.5k",  # 0.5 (continuous overlap)
    "q4": '{"answer": ["A"]}',  # P 1, R .5, F1 2/3
    # q5 missing -> 0
    "q6": "I am not sure.",  # unparsed -> 0
    "zzz": "Yes",  # no such question
}


def test_evaluate_breakdown_by_map_type_and_country():
    report = evaluate(_questions(), PREDICTIONS)
    assert report.summary() == {
        "n": 6,
        "score": pytest.approx((1 + 0 + 0.5 + 2 / 3 + 0 + 0) / 6),
        "unparsed": 1,
        "missing": 1,
        "unmatched_predictions": 1,
    }
    by_map = report.breakdown(["map_type"]).set_index("map_type")
    assert by_map.loc["discrete", "score"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert by_map.loc["continuous", "score"] == pytest.approx((0 + 0.5 + 0) / 3)
    assert by_map.loc["discrete", "missing"] == 1 and by_map.loc["discrete", "unparsed"] == 0
    assert by_map.loc["continuous", "unparsed"] == 1 and by_map.loc["continuous", "n"] == 3
    by_country = report.breakdown("country").set_index("country")
    assert by_country.loc["usa", "score"] == pytest.approx(0.25)
    assert by_country.loc["india", "score"] == pytest.approx((0.5 + 2 / 3) / 2)


def test_evaluate_breakdown_other_columns_and_metric_means():
    report = evaluate(_questions(), PREDICTIONS)
    cf = report.breakdown("counterfactual").set_index("counterfactual")
    assert cf.loc["shuffled", "n"] == 1 and cf.loc["none", "n"] == 5
    hatched = report.breakdown(["hatched", "answer_type"]).set_index(["hatched", "answer_type"])
    assert hatched.loc[(True, "binary"), "score"] == 1.0
    assert hatched.loc[(False, "binary"), "score"] == 0.0
    rel = report.breakdown("relative_region", metrics=["list_precision", "list_recall"])
    rel = rel.set_index("relative_region")
    assert rel.loc[True, "list_precision"] == 1.0 and rel.loc[True, "list_recall"] == 0.5
    assert math.isnan(rel.loc[False, "list_precision"])
    row = report.frame.set_index("question_id").loc["q6"]
    assert bool(row["unparsed"]) and not bool(row["parse_ok"]) and not bool(row["missing"])
    table = report.table("map_type", "answer_type")
    assert table.loc["continuous", "range"] == 0.5
    with pytest.raises(KeyError):
        report.breakdown("colour")


@pytest.mark.parametrize("text", ["None", "no states", "N/A", '{"answer": []}', '{"answer": "none"}', "There are none."])
def test_empty_gold_and_an_empty_answer_scores_one(text):
    empty = make_q(answer_type="list", answer=[])
    got = score(empty, text)
    assert got.parse_ok and got.extracted == [] and got.main == 1.0
    assert got.metrics == {"list_precision": 1.0, "list_recall": 1.0, "list_f1": 1.0}


@pytest.mark.parametrize("text", ["Texas", '{"answer": ["Texas"]}', "Texas and Ohio"])
def test_empty_gold_and_any_region_scores_zero(text):
    got = score(make_q(answer_type="list", answer=[]), text)
    assert got.metrics == {"list_precision": 0.0, "list_recall": 0.0, "list_f1": 0.0}
    full = score(make_q(answer_type="list", answer=["Ohio"]), "None")
    assert full.metrics == {"list_precision": 0.0, "list_recall": 0.0, "list_f1": 0.0}
