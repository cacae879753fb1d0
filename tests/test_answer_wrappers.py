"""Answers wrapped the way models wrap them score exactly as the plain answer does, on a real tiny build
(``eval_bench``): a metamorphic check over every question, a shuffled-gold check that the invariance is not
vacuous, and one run through ``mapgen eval``. Plus the wrappers, denials and language words one by one."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.eval.answers import extract_answer
from mapgen.eval.native import NONE_WORDS
from mapgen.eval.negation import contradicts, drop_exclusions, is_denial
from mapgen.eval.score import score
from mapgen.eval.wrappers import boxed_answer, drop_reasoning, final_reply, latex_to_text
from mapgen.files import read_jsonl
from mapgen.tasks.vqa.rows import answer_text

REPO = Path(__file__).resolve().parents[1]


def _json_value(record: dict[str, Any]) -> Any:
    answer = record["answer"]
    return answer_text(answer, "ranking") if record["answer_type"] == "ranking" else answer


WRAPPERS: dict[str, Callable[[str, dict[str, Any]], str]] = {
    "boxed": lambda plain, _r: f"The answer is $\\boxed{{{plain}}}$",
    "boxed-text": lambda plain, _r: f"**Final Answer**\n\\[\n\\boxed{{\\text{{{plain}}}}}\n\\]",
    "answer-tags": lambda plain, _r: f"<answer>{plain}</answer>",
    "bold": lambda plain, _r: f"**{plain}**",
    "final-answer-line": lambda plain, _r: f"Let me read the legend and compare the shades.\n\nFinal answer: {plain}",
    "json-fence": lambda _p, r: "```json\n" + json.dumps({"answer": _json_value(r)}, ensure_ascii=False) + "\n```",
    # a reasoning block that considers another answer first: only the reply after it counts
    "think-prefix": lambda plain, r: f"<think>\nMaybe {_decoy(r)}? No, look again.\n</think>\n\n{plain}",
    "think-closing-only": lambda plain, r: f"First guess {_decoy(r)}... checking the legend again.\n</think>\n\n{plain}",
}


def _decoy(record: dict[str, Any]) -> str:
    """A wrong answer of the record's type, for the reasoning to mention."""
    return {"binary": "Yes" if record["answer"] == "No" else "No", "count": "99", "range": "123456-234567"}.get(
        record["answer_type"], "Atlantis")


@pytest.fixture(scope="module")
def questions(eval_bench) -> list[dict[str, Any]]:
    return read_jsonl(eval_bench / "questions.jsonl")


def _plain(record: dict[str, Any]) -> str:
    return answer_text(record["answer"], record["answer_type"])


def test_every_wrapper_keeps_the_score_of_the_plain_answer(questions):
    assert {q["answer_type"] for q in questions} == {"binary", "count", "single", "list", "range", "ranking"}
    plain_scores = [score(q, _plain(q)).main for q in questions]
    assert sum(plain_scores) / len(plain_scores) > 0.95  # the plain gold text scores (nearly) full marks
    changed = []
    for name, wrap in WRAPPERS.items():
        for q, plain_score in zip(questions, plain_scores, strict=True):
            wrapped = score(q, wrap(_plain(q), q))
            if not wrapped.parse_ok or wrapped.main != plain_score:
                changed.append(f"{name} {q['answer_type']} {_plain(q)!r}: {plain_score} -> {wrapped.main}")
    assert changed == []


def test_wrapped_wrong_answers_score_as_the_plain_wrong_answers(questions):
    """Gold shuffled within each answer type: the scores drop (the check above is not vacuous) and wrapping a
    wrong answer changes its score no more than wrapping a right one."""
    rng = random.Random(7)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for q in questions:
        by_type.setdefault(q["answer_type"], []).append(q)
    pairs = []
    for group in by_type.values():
        answers = [_plain(q) for q in group]
        rng.shuffle(answers)
        pairs += list(zip(group, answers, strict=True))
    shuffled = [score(q, answer).main for q, answer in pairs]
    assert sum(shuffled) / len(shuffled) < 0.75
    for name, wrap in WRAPPERS.items():
        if name.startswith("json"):
            continue  # the JSON wrapper writes the record's own answer
        assert [score(q, wrap(answer, q)).main for q, answer in pairs] == shuffled, name


def test_mapgen_eval_scores_wrapped_answers_like_plain_ones(eval_bench, tmp_path):
    """Through the real scorer: plain answers, the same answers in wrappers, and denied answers."""
    questions = read_jsonl(eval_bench / "questions.jsonl")
    names = list(WRAPPERS)
    runs = {
        "plain": [_plain(q) for q in questions],
        "wrapped": [WRAPPERS[names[i % len(names)]](_plain(q), q) for i, q in enumerate(questions)],
        "denied": [f"Definitely not {_plain(q)}." if q["answer_type"] == "binary" else _plain(q) for q in questions],
    }
    summaries = {}
    for run, predictions in runs.items():
        path = tmp_path / f"{run}.jsonl"
        path.write_text("".join(json.dumps({"question_id": q["question_id"], "prediction": p}) + "\n"
                                for q, p in zip(questions, predictions, strict=True)), encoding="utf-8")
        out = tmp_path / run
        result = CliRunner().invoke(main, ["eval", str(eval_bench), "--predictions", str(path), "-o", str(out),
                                           "--no-plots"])
        assert result.exit_code == 0, result.output
        summaries[run] = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    plain, wrapped, denied = summaries["plain"], summaries["wrapped"], summaries["denied"]
    assert plain["unparsed"] == wrapped["unparsed"] == 0
    assert wrapped["score"] == pytest.approx(plain["score"], abs=1e-12) and plain["score"] > 0.95
    assert wrapped["by_answer_type"] == plain["by_answer_type"]
    n_binary = sum(q["answer_type"] == "binary" for q in questions)
    assert denied["unparsed"] == n_binary and denied["by_answer_type"]["binary"]["binary_exact"] == 0.0


@pytest.mark.parametrize(("answer_type", "gold"), [("single", "Texas"), ("list", ["Texas"]), ("ranking", [["Texas"]])])
def test_the_issue_replies_read_the_boxed_answer(answer_type, gold):
    for reply in ("The answer is $\\boxed{Texas}$", "<answer>Texas</answer>"):
        got = extract_answer(reply, answer_type)
        assert got.ok and got.value == gold, (reply, got)


@pytest.mark.parametrize("reply", ["Yes and no.", "Definitely not Yes.", "sí y no", "是也不是", "हाँ और नहीं"])
def test_contradictory_or_denied_yes_no_is_unparsed(reply):
    got = extract_answer(reply, "binary")
    assert not got.ok and got.reason in ("negated answer", "contradictory answer")


@pytest.mark.parametrize(("reply", "answer_type"), [
    ("not Texas", "single"), ("It is not Texas.", "single"), ("No es Texas.", "single"), ("不是广东省", "single"),
    ("उत्तर प्रदेश नहीं", "single"), ("The answer is not $\\boxed{Texas}$", "single"), ("not 3", "count"),
    ("not 10-20", "range"), ("not Texas", "list"),
])
def test_denied_answers_are_unparsed(reply, answer_type):
    got = extract_answer(reply, answer_type)
    assert not got.ok and got.reason == "negated answer"


def test_reasoning_blocks_and_tags():
    assert drop_reasoning("<think>Ohio?</think>\nTexas").strip() == "Texas"
    assert drop_reasoning("Ohio? no...</think>Texas") == "Texas"  # the chat template opened the block
    assert drop_reasoning("<think>so Texas</think>") == "so Texas"  # nothing after it: the reasoning is the reply
    assert drop_reasoning("◁think▷Ohio◁/think▷Texas").strip() == "Texas"
    assert final_reply("<think>x</think><answer> Texas </answer>") == " Texas "
    assert final_reply("<answer></answer>") == ""  # an empty answer is empty, not the tags
    assert not extract_answer("<think>Texas</think><answer></answer>", "single").ok


def test_boxes_and_latex():
    assert boxed_answer("a \\boxed{1} b \\boxed{\\text{Texas}}") == "Texas"  # the last box
    assert boxed_answer("$\\boxed{Texas}$, $\\boxed{Ohio}$", join=True) == "Texas, Ohio"
    assert boxed_answer("<|begin_of_box|>Ohio<|end_of_box|>") == "Ohio"
    assert boxed_answer("\\boxed{\\{a\\}}") == "{a}"
    assert latex_to_text("10\\%\\text{--}20\\%") == "10%–20%"
    assert latex_to_text("1{,}500") == "1,500" and latex_to_text("\\geq 5") == "≥ 5"
    assert latex_to_text("$53,540 - $75,000") == "$53,540 - $75,000"  # dollar amounts are not math
    assert boxed_answer("no box here") is None


def test_exclusions_and_denials():
    assert drop_exclusions("Texas, not Ohio") == "Texas"
    assert drop_exclusions("Ohio and Iowa, but not Texas.") == "Ohio and Iowa."
    assert drop_exclusions("四川省和云南省，但不是贵州省") == "四川省和云南省"
    assert is_denial("not Texas") and is_denial("उत्तर प्रदेश नहीं") and not is_denial("राजस्थान")
    assert contradicts("Yes and no.") and not contradicts("Yes, and no other state is darker.")
    assert not contradicts("Yes, no doubt.")


def test_none_words_cover_every_language_file():
    """The empty-list words of each language's texts (templates/lang/*.yaml ``none``) are read as an empty list."""
    for path in sorted((REPO / "templates" / "lang").glob("*.yaml")):
        words = yaml.safe_load(path.read_text(encoding="utf-8")).get("none") or []
        assert words, path
        for word in words:
            assert word in NONE_WORDS, (path.name, word)
            assert extract_answer(word, "list").value == [], word


@pytest.mark.parametrize("name", ["Lower Saxony", "Region I", "Will County", "Nottinghamshire", "Second District"])
def test_names_that_hold_sentence_or_degree_words_stay_names(name):
    """A user atlas may name regions with words that also describe (``Lower``, ``I``, ``Will``, ``Not…``)."""
    assert extract_answer(name, "single").value == name
    assert extract_answer(f"Final answer: {name}, Texas", "list").value == [name, "Texas"]


@pytest.mark.parametrize(("reply", "answer_type", "expected"), [
    ("3-4", "count", None), ("Answer: 3 or 4", "count", None), ("There are 3 states in the 10-20 class.", "count", 3),
    ("Let me look.\n\n- Utah: light blue\n- Idaho: dark blue", "single", None),  # a bullet is not a conclusion
    ("Texas is darker.\n\nTexas", "single", "Texas"),
])
def test_hedged_counts_and_bullet_endings(reply, answer_type, expected):
    got = extract_answer(reply, answer_type)
    assert (got.value if got.ok else None) == expected, got


def test_the_answer_bullets_are_the_last_block_not_the_reasoning_bullets():
    reply = "Checking:\n- Texas: dark\n- Ohio: light\n\nSo the darkest are:\n- Texas\n- Iowa"
    assert extract_answer(reply, "list").value == ["Texas", "Iowa"]
    assert extract_answer("Ranking:\n1. Iowa\n\n2. Ohio", "ranking").value == [["Iowa"], ["Ohio"]]


def test_every_task_parser_reads_the_reply_after_the_reasoning():
    """Grounding boxes, extraction tables, captions and MCQ letters skip a reasoning block's drafts."""
    from mapgen.eval.answers import parse_box
    from mapgen.tasks.caption.scores import caption_text
    from mapgen.tasks.extraction.parse import parse_table

    assert parse_box("<think>maybe [1, 2, 3, 4]?</think><answer>[10, 20, 30, 40]</answer>") == (10, 20, 30, 40)
    assert parse_box("<think>maybe [1, 2, 3, 4]?</think>I cannot find it.") is None
    table = parse_table("<think>\n| State | Class |\n|---|---|\n| Texas | 0-10 |\n</think>\nTexas: 10-20")
    assert table.rows == [("Texas", "10-20")]  # the draft table inside the reasoning is not read
    assert caption_text("<think>draft: a map.</think><answer>A choropleth map of the USA.</answer>") == (
        "A choropleth map of the USA.")
