"""`mapgen eval` holds no per-question text or score in memory (issue 38 item 3): the predictions go to a temporary
SQLite table (:class:`mapgen.eval.replies.ReplyStore`), the report's score columns and the random / chance
references to a temporary file (:class:`mapgen.eval.stream.ColumnSpool`). The store answers as the dict it
replaces did (order, last text, repeats, unknown and unmatched ids); reading a predictions file three times as long
costs no more memory; a streamed run never lists the replies.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mapgen.benchmark import load_benchmark
from mapgen.eval import stream
from mapgen.eval.replies import ReplyStore
from mapgen.evaluation import PredictionsFile, load_predictions, run_eval

PAIRS = [("b", "1"), ("ä", None), ("a", "3"), ("b", "4"), ("z", "5"), ("ä", "6"), ("b", "7"), ("É", "8")]


def test_the_store_answers_as_a_dict_of_the_same_pairs() -> None:
    store, plain = ReplyStore(PAIRS), dict(PAIRS)
    assert list(store) == list(plain) and dict(store.items()) == plain and list(store.values()) == list(plain.values())
    assert len(store) == len(plain) and "ä" in store and "q" not in store and store.get("q") is None
    assert store["b"] == "7" and store.has_text()  # the last text given, in the first one's place
    assert store.duplicates() == ["b", "b", "ä"]  # once per repeat, by first repeat
    assert not ReplyStore([("x", None)]).has_text()


def test_unknown_taken_and_untaken_ids() -> None:
    store = ReplyStore(PAIRS)
    store.mark_known(iter(["a", "z", "É", "nope"]))  # streamed
    assert store.unknown() == ["b", "ä"] and store.unknown(1) == ["b"] and store.unknown_count() == 2
    store.mark_other(["z"])
    assert store.take(["a", "z", "q"]) == {"a": "3"} and store.take(["a"]) == {}  # each reply taken once
    untaken = store.untaken()
    assert list(untaken) == sorted(["b", "ä", "É"]) and len(untaken) == 3  # Python's order of the ids
    assert untaken[0] == "b" and untaken[-1] == "ä" and untaken[1:] == ["É", "ä"] and untaken == ["b", "É", "ä"]
    with pytest.raises(IndexError):
        untaken[3]


def _predictions_file(path: Path, lines: int) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(lines):
            handle.write(json.dumps({"question_id": f"q-{i:07d}-{'x' * 40}", "prediction": f"{{\"answer\": {i}}} " * 6})
                         + "\n")
    return path


def _peak(path: Path) -> int:
    tracemalloc.start()
    try:
        preds = load_predictions(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(preds.texts) == sum(1 for _ in path.open(encoding="utf-8"))
    return peak


def test_reading_predictions_three_times_as_long_costs_no_more_memory(tmp_path: Path) -> None:
    small = _peak(_predictions_file(tmp_path / "small.jsonl", 20_000))
    large = _peak(_predictions_file(tmp_path / "large.jsonl", 60_000))
    assert large < small * 1.3 + 200_000, (small, large)  # a dict of the replies: ~3 × (8 MB vs 2.7 MB)


def test_the_column_spool_reads_back_what_it_was_given() -> None:
    parts = [pd.DataFrame({"x": [1.0, np.nan], "y": [0.5, 2.0]}), pd.DataFrame({"x": [3.0], "y": [np.nan]}),
             pd.DataFrame({"x": [], "y": []})]
    spool = stream.ColumnSpool(("x", "y"))
    for part in parts:
        spool.extend(part)
    pd.testing.assert_frame_equal(spool.frame(), pd.concat(parts[:2], ignore_index=True))
    flags = stream.ColumnSpool(("f",), "bool")
    flags.extend(pd.DataFrame({"f": [True, False]}))
    assert flags.frame()["f"].tolist() == [True, False] and flags.frame()["f"].dtype == bool


@pytest.fixture
def no_listing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The replies may be looked up, never listed (a set or dict of them would hold every reply)."""
    def refuse(self: ReplyStore) -> Iterator[tuple[str, str | None]]:
        raise AssertionError("the replies were listed")

    monkeypatch.setattr(ReplyStore, "items_in_order", refuse)
    yield


def test_a_streamed_run_never_lists_the_replies(eval_bench: Path, tmp_path: Path, no_listing: None) -> None:
    texts = {q["question_id"]: '{"answer": "Yes"}' for q in load_benchmark(eval_bench).question_records}
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"question_id": k, "prediction": v}) + "\n" for k, v in texts.items()),
                     encoding="utf-8")
    report = run_eval(load_benchmark(eval_bench, lazy=True), PredictionsFile(preds), tmp_path / "r", split="test",
                      keep_frame=False, plots=False)
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    assert summary["unmatched_predictions"] == len(texts) - len(report.frame) > 0  # the other splits' replies
    assert len(report.unmatched_predictions) == summary["unmatched_predictions"]


def test_the_streamed_run_has_arrow_allocate_with_malloc_unless_a_pool_is_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pyarrow = pytest.importorskip("pyarrow")
    before = pyarrow.default_memory_pool()
    try:
        monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "mimalloc")
        stream.arrow_pool_returning_memory()
        assert pyarrow.default_memory_pool().backend_name == before.backend_name  # the user's choice stands
        monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL")
        stream.arrow_pool_returning_memory()
        assert pyarrow.default_memory_pool().backend_name == "system"
    finally:
        pyarrow.set_memory_pool(before)
