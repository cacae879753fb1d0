"""The annotation page in headless Chromium, driven as a person would: clicks and typing, reload and resume,
export; the exported file scores with `mapgen human score` to the accuracy the test's answers imply."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from chromium_pipe import CHROMIUM, Browser
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.eval.score import score
from mapgen.human.kit import PAGE_DATA, load_gold, page_data_text, read_page_data, write_kit
from mapgen.questions.record import ANSWER_TYPES, Question

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
PER_TYPE = 10
ALT = 1


@pytest.fixture(scope="module")
def kit(eval_bench, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("page") / "kit"
    write_kit(eval_bench, out, n=150, seed=2)
    return out


@pytest.fixture
def browser(tmp_path: Path):
    (tmp_path / "downloads").mkdir()
    b = Browser(tmp_path / "profile", tmp_path / "downloads")
    yield b
    b.close()


def intended(q: Question, correct: bool) -> Any:
    """What the test answers: the gold, or an answer that is plainly wrong."""
    if q.answer_type == "binary":
        return q.answer if correct else ("No" if q.answer == "Yes" else "Yes")
    if q.answer_type == "count":
        return q.answer if correct else int(q.answer) + 7
    if q.answer_type == "single":
        return q.answer if correct else "Nowhere Land"
    if q.answer_type == "list":
        return list(q.answer) if correct else ["Nowhere Land"]
    if q.answer_type == "ranking":
        order = [name for group in q.answer for name in group]
        return [[n] for n in (order if correct else order[::-1])]
    return q.answer if correct else "1-2"


def answer(b: Browser, page_q: dict, value: Any, turn: int) -> None:
    """Give ``value`` through the question's widget, by clicking and typing."""
    kind = page_q["answer_type"]
    if kind == "binary":
        if turn % 2:
            b.type(value[0].lower())  # the Y / N shortcut
        else:
            b.click(f'button[data-answer="{value}"]')
    elif kind == "count":
        b.click("#answer")
        b.type(str(value))
        b.key("Enter", 13)
    elif kind == "single":
        b.click("#answer")
        b.type(value[:3])
        if b.js(f"!!document.querySelector('#suggestions button[data-name={json.dumps(value)}]')"):
            b.click(f"#suggestions button[data-name={json.dumps(value)}]")  # the autocomplete
        else:
            b.type(value[3:])
        b.click("#save")
    elif kind in ("list", "ranking"):
        names = [g[0] for g in value] if kind == "ranking" else value
        swap = kind == "ranking" and len(names) > 1
        for name in ([names[1], names[0], *names[2:]] if swap else names):
            b.click("#answer")
            b.type(name)
            b.key("Enter", 13)
        if swap:  # put the second one back in place with the up button
            b.click(f'#items button[aria-label={json.dumps("Move " + names[0] + " up")}]')
        b.click("#save")
    elif value in page_q["ranges"]:
        b.click(f"button[data-answer={json.dumps(value)}]")
    else:
        b.click("#answer")
        b.type(value)
        b.key("Enter", 13)


def shown(b: Browser) -> tuple[str, str]:
    return b.js("document.body.dataset.status"), b.js("document.body.dataset.question")


def annotate(b: Browser, kit: Path) -> dict[str, Any]:
    """Answer ≥ PER_TYPE questions of every answer type (2 in 3 right), skipping the rest; reload half-way."""
    gold = {q.question_id: q for q in load_gold(kit)}
    page = {q["question_id"]: q for q in read_page_data(kit)["questions"]}
    given: dict[str, Any] = {}
    done: Counter[str] = Counter()
    reloaded = False
    for _ in range(len(gold) + 5):
        status, qid = shown(b)
        if status != "question" or all(done[t] >= PER_TYPE for t in ANSWER_TYPES):
            break
        q = gold[qid]
        if done[q.answer_type] >= PER_TYPE:
            b.key("ArrowRight", 39, ALT)
            continue
        value = intended(q, correct=done[q.answer_type] % 3 != 2)
        answer(b, page[qid], value, done[q.answer_type])
        given[qid] = value
        done[q.answer_type] += 1
        assert shown(b)[1] != qid, f"the page did not take the answer to {qid}"
        if len(given) == 25 and not reloaded:
            before = (shown(b), b.js("document.getElementById('progress-text').textContent"))
            b.reload()
            assert (shown(b), b.js("document.getElementById('progress-text').textContent")) == before
            reloaded = True
    assert reloaded and all(done[t] >= PER_TYPE for t in ANSWER_TYPES), done
    return given


def exported(b: Browser, folder: Path) -> list[dict]:
    b.click("#export")
    path = folder / "alice.jsonl"
    end = time.monotonic() + 20
    while not path.is_file() and time.monotonic() < end:
        time.sleep(0.05)
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_person_answers_resumes_exports_and_is_scored(kit: Path, browser: Browser, tmp_path: Path) -> None:
    browser.open((kit / "index.html").as_uri())
    assert shown(browser)[0] == "start"
    browser.click("#annotator")
    browser.type("alice")
    browser.click("#begin")
    given = annotate(browser, kit)
    records = exported(browser, tmp_path / "downloads")
    assert {r["question_id"] for r in records} == set(given) and {r["annotator"] for r in records} == {"alice"}
    assert all(json.loads(r["prediction"])["answer"] == given[r["question_id"]] for r in records)
    assert browser.js("document.getElementById('errors').textContent") == ""
    assert all(url.startswith(("file://", "blob:")) for url in browser.requests()), browser.requests()

    gold = load_gold(kit)
    implied = pd.DataFrame([{"answer_type": q.answer_type,
                             "main": score(q, json.dumps({"answer": given[q.question_id]})).main
                             if q.question_id in given else 0.0} for q in gold])
    others = []
    for name in ("bob", "carol"):  # two more annotators who answered as alice did (agreement needs several)
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({**r, "annotator": name}) + "\n" for r in records))
        others.append(str(path))
    out = tmp_path / "report"
    result = CliRunner().invoke(main, ["human", "score", str(kit), "--answers",
                                       str(tmp_path / "downloads" / "alice.jsonl"), *others, "-o", str(out)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out / "annotators.csv", index_col="annotator")
    for answer_type, group in implied.groupby("answer_type"):
        assert table.loc["alice", answer_type] == pytest.approx(group["main"].mean() * 100, abs=0.01), answer_type
    assert table.loc["alice", "all"] == pytest.approx(implied["main"].mean() * 100, abs=0.01)
    assert 0 < implied["main"].sum() < len(given)


def test_the_page_escapes_every_text_and_loads_nothing_remote(kit: Path, browser: Browser, tmp_path: Path) -> None:
    copy = tmp_path / "kit"
    copy.mkdir()
    for path in kit.rglob("*"):
        if path.is_file():
            (copy / path.relative_to(kit)).parent.mkdir(parents=True, exist_ok=True)
            (copy / path.relative_to(kit)).write_bytes(path.read_bytes())
    data = read_page_data(kit)
    hostile = '<img src="https://example.com/x.png" onerror="document.title=\'pwned\'"><b>bold</b>'
    first = next(q for q in data["questions"] if q["answer_type"] in ("single", "list"))
    data["questions"] = [dict(first, question=hostile, names=[hostile, *first["names"]])]
    data["kit"] = hostile
    (copy / PAGE_DATA).write_text(page_data_text(data))
    browser.open((copy / "index.html").as_uri())
    browser.click("#annotator")
    browser.type("eve")
    browser.click("#begin")
    browser.click("#answer")
    browser.type("<img")
    assert browser.js("document.getElementById('question').textContent") == hostile
    assert browser.js("document.querySelector('#suggestions button').textContent") == hostile
    assert browser.js("document.querySelectorAll('img').length") == 1  # the map only
    assert browser.js("document.querySelectorAll('b').length") == 0
    assert browser.js("document.title") != "pwned"
    assert all(url.startswith(("file://", "blob:")) for url in browser.requests()), browser.requests()
    assert 'http-equiv="Content-Security-Policy"' in (kit / "index.html").read_text()
    assert "innerHTML" not in (kit / "assets" / "app.js").read_text()

