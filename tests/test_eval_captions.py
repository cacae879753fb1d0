"""VRSBench caption metrics (pycocoevalcap, mapgen.tasks.caption.scores) and grounding scores
(mapgen.tasks.grounding.scores), hand-checked."""

from __future__ import annotations

import math

import pytest

from mapgen.tasks.caption.scores import caption_text, java_available, simple_tokenize
from mapgen.tasks.grounding.scores import grounding_scores, to_pixels

pytest.importorskip("pycocoevalcap.bleu.bleu")
needs_java = pytest.mark.skipif(not java_available(), reason="METEOR and PTBTokenizer need java")

from mapgen.tasks.caption.scores import caption_scores  # noqa: E402

REF = "The map shows income in the USA."


def test_simple_tokenizer_and_caption_text():
    assert simple_tokenize("The map, shows: income-level (USA).") == "the map shows income-level usa"
    assert caption_text('Sure! {"answer": "A map of India."}') == "A map of India."
    assert caption_text("  A map.  ") == "A map."
    assert caption_text(None) == ""


def test_hand_checked_bleu_and_rouge_without_java():
    # candidate "the map shows" vs the 7-token reference: every unigram matches (precision 1), brevity penalty
    # exp(1 - 7/3); ROUGE-L: LCS 3, P = 1, R = 3/7, F = (1 + 1.2^2) P R / (R + 1.2^2 P).
    s = caption_scores({"a": REF}, {"a": "the map shows"}, tokenizer="simple", meteor=False).scores
    assert s["BLEU-1"] == pytest.approx(math.exp(1 - 7 / 3), rel=1e-6)
    assert s["BLEU-2"] == pytest.approx(math.exp(1 - 7 / 3), rel=1e-6)  # 2/2 bigrams match
    r = 3 / 7
    assert s["ROUGE-L"] == pytest.approx(2.44 * r / (r + 1.44), rel=1e-6)
    assert s["CIDEr"] == 0.0  # one image: every reference n-gram has idf log(1/1) = 0
    assert math.isnan(s["METEOR"])
    assert s["avg_length"] == 3 and s["ref_avg_length"] == 7 and s["n"] == 1


def test_identical_captions_without_java():
    refs = {"a": REF, "b": "Texas is dark red with the highest values"}
    s = caption_scores(refs, dict(refs), tokenizer="simple", meteor=False).scores
    for n in range(1, 5):
        assert s[f"BLEU-{n}"] == pytest.approx(1.0, abs=1e-6)
    assert s["ROUGE-L"] == pytest.approx(1.0)
    assert s["CIDEr"] == pytest.approx(10.0)  # CIDEr-D is scaled by 10; the two captions share no n-gram


def test_missing_caption_counts_and_scores_low():
    refs = {"a": REF, "b": "Texas is dark red"}
    result = caption_scores(refs, {"a": REF}, tokenizer="simple", meteor=False)
    assert result.scores["missing"] == 1
    per = {row["question_id"]: row for row in result.per_item}
    assert per["b"]["BLEU-1"] < 0.01 and per["a"]["ROUGE-L"] == pytest.approx(1.0)
    assert result.scores["avg_length"] == pytest.approx(7 / 2)


def test_multiple_references_take_the_best():
    s = caption_scores({"a": ["a map of china", REF]}, {"a": REF}, tokenizer="simple", meteor=False).scores
    assert s["ROUGE-L"] == pytest.approx(1.0) and s["BLEU-1"] == pytest.approx(1.0)


@needs_java
def test_java_metrics_identical_and_partial():
    refs = {"a": REF, "b": "Texas is dark red with the highest values."}
    s = caption_scores(refs, dict(refs)).scores
    assert s["BLEU-1"] == pytest.approx(1.0, abs=1e-6)
    assert s["METEOR"] == pytest.approx(1.0, abs=1e-6)
    assert s["ROUGE-L"] == pytest.approx(1.0) and s["CIDEr"] == pytest.approx(10.0)
    partial = caption_scores({"a": REF}, {"a": "The map shows."}).scores  # PTB drops the full stop
    assert partial["BLEU-1"] == pytest.approx(math.exp(1 - 7 / 3), rel=1e-6)
    assert 0 < partial["METEOR"] < 1


def test_to_pixels():
    assert to_pixels((10, 20, 50, 100), (200, 100), "percent") == (20, 20, 100, 100)
    assert to_pixels((1, 2, 3, 4), None, "pixels") == (1, 2, 3, 4)
    assert to_pixels((1, 2, 3, 4), None, "percent") is None
    with pytest.raises(ValueError):
        to_pixels((1, 2, 3, 4), (10, 10), "inches")


def test_grounding_scores_split_unique():
    records = [
        {"question_id": "g1", "box": [0, 0, 100, 100], "unique": True},  # exact
        {"question_id": "g2", "box": [0, 0, 100, 100], "unique": True},  # IoU 0.5
        {"question_id": "g3", "box": [0, 0, 100, 100], "unique": False},  # IoU 0.64 (80x80)
        {"question_id": "g4", "box": [0, 0, 100, 100], "unique": False},  # unparseable
        {"question_id": "g5", "box": [0, 0, 100, 100], "unique": False},  # missing
    ]
    preds = {
        "g1": '{"answer": [0, 0, 50, 50]}',  # percent of a 200x200 image → [0, 0, 100, 100]
        "g2": "[0, 0, 25, 50]",
        "g3": "The box is [10, 10, 50, 50].",
        "g4": "I cannot find it.",
    }
    summary, rows = grounding_scores(records, preds, lambda r: (200, 200))
    ious = [r["iou"] for r in rows]
    assert ious[:3] == [pytest.approx(1.0), pytest.approx(0.5), pytest.approx(0.64)]
    assert ious[3] is None and ious[4] is None
    assert summary["acc@0.5"] == pytest.approx(3 / 5) and summary["acc@0.7"] == pytest.approx(1 / 5)
    assert summary["unique/acc@0.5"] == 1.0 and summary["unique/acc@0.7"] == 0.5
    assert summary["non_unique/acc@0.5"] == pytest.approx(1 / 3) and summary["non_unique/acc@0.7"] == 0.0
    assert summary["missing"] == 1 and summary["unparsed"] == 1
