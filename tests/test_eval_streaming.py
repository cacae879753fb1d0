"""`mapgen eval` in bounded memory (issue 38 item 3, :mod:`mapgen.eval.stream`): the streamed run writes the same
bytes as a report of the whole frame, whatever the order of the predictions and however the questions are cut
into chunks; the joins it relies on (predictions by id, the benchmark's ids, repeated ids) refuse what they refused.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import mapgen.benchmark as benchmark
from mapgen.benchmark import QUESTIONS_FILE, load_benchmark
from mapgen.cli import main
from mapgen.eval import bootstrap, stream
from mapgen.eval.baselines import random_baseline
from mapgen.evaluation import EvalInputError, PredictionsFile, run_eval


def _predictions(bench: Path, path: Path, order: str = "as built") -> Path:
    """The random baseline's replies to every question but a few (missing), a few unreadable (unparsed)."""
    questions = load_benchmark(bench).questions
    texts = random_baseline(questions, load_benchmark(bench).spec, seed=11)
    rows = [{"question_id": qid, "prediction": text} for qid, text in texts.items()]
    del rows[3::17]  # missing
    for row in rows[5::13]:
        row["prediction"] = "I cannot tell from this map."  # unparsed
    if order == "shuffled":
        random.Random(4).shuffle(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _files(folder: Path, preds: Path) -> dict[str, bytes]:
    """Every file of a report folder (the predictions file's path, which ``summary.json`` names, left out)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes().replace(str(preds).encode(), b"<predictions>")
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _whole(bench: Path, preds: Path, out: Path) -> dict[str, bytes]:
    """The report of the whole frame in memory (``run_eval``'s default)."""
    run_eval(bench, PredictionsFile(preds), out)
    return _files(out, preds)


def _streamed(bench: Path, preds: Path, out: Path) -> dict[str, bytes]:
    """What ``mapgen eval`` runs: a lazily read benchmark, scored in chunks."""
    lazy = load_benchmark(bench, verify="records", lazy=True)
    report = run_eval(lazy, PredictionsFile(preds), out, keep_frame=False)
    assert "question_id" not in report.frame and report.spool is not None  # only the report's columns are held
    assert "question_records" not in lazy.__dict__  # the questions were streamed, never all read
    return _files(out, preds)


@pytest.fixture(scope="module")
def whole(eval_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("whole")
    return _whole(eval_bench, _predictions(eval_bench, folder / "p.jsonl"), folder / "report")


@pytest.mark.parametrize("order", ["as built", "shuffled"])
@pytest.mark.parametrize("chunk", [stream.CHUNK, 7])
def test_streamed_report_is_byte_identical_to_the_whole_frames(eval_bench: Path, whole: dict[str, bytes],
                                                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               order: str, chunk: int) -> None:
    monkeypatch.setattr(stream, "CHUNK", chunk)  # 7: many chunks, some without a type a column has elsewhere
    streamed = _streamed(eval_bench, _predictions(eval_bench, tmp_path / "p.jsonl", order), tmp_path / "report")
    assert set(streamed) == set(whole) and {"scores.csv", "summary.json", "tables.md"} <= set(whole)
    assert [name for name in whole if streamed[name] != whole[name]] == []
    summary = json.loads(whole["summary.json"])
    assert summary["missing"] > 0 and summary["unparsed"] > 0  # the run met both


def test_the_cli_streams_and_writes_what_the_api_writes(eval_bench: Path, whole: dict[str, bytes],
                                                        tmp_path: Path) -> None:
    preds = _predictions(eval_bench, tmp_path / "p.jsonl", "shuffled")
    result = CliRunner().invoke(main, ["eval", str(eval_bench), "--predictions", str(preds), "-o",
                                       str(tmp_path / "cli")])
    assert result.exit_code == 0, result.output
    cli = _files(tmp_path / "cli", preds)
    assert [name for name in whole if cli.get(name) != whole[name]] == []


def test_a_split_and_a_limit_stream_like_the_whole_frame(eval_bench: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "CHUNK", 5)
    preds = _predictions(eval_bench, tmp_path / "p.jsonl", "shuffled")
    run_eval(eval_bench, PredictionsFile(preds), tmp_path / "a", split="test", limit=23)
    lazy = load_benchmark(eval_bench, lazy=True)
    report = run_eval(lazy, PredictionsFile(preds), tmp_path / "b", split="test", limit=23, keep_frame=False)
    assert len(report.frame) == 23 and report.unmatched_predictions  # the other questions' replies
    assert _files(tmp_path / "a", preds) == _files(tmp_path / "b", preds)


def test_a_prediction_given_twice_is_refused_with_both_lines(eval_bench: Path, tmp_path: Path) -> None:
    preds = _predictions(eval_bench, tmp_path / "p.jsonl", "shuffled")
    lines = preds.read_text(encoding="utf-8").splitlines(keepends=True)
    preds.write_text("".join([*lines[:4], lines[1], *lines[4:]]), encoding="utf-8")
    lazy = load_benchmark(eval_bench, lazy=True)
    with pytest.raises(EvalInputError, match=r"gives 1 ids more than once: .*\(lines 2, 5\)"):
        run_eval(lazy, PredictionsFile(preds), tmp_path / "r", keep_frame=False)
    assert not (tmp_path / "r").exists()


def test_a_prediction_for_an_unknown_id_is_refused(eval_bench: Path, tmp_path: Path) -> None:
    preds = _predictions(eval_bench, tmp_path / "p.jsonl")
    with preds.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"question_id": "not-in-this-benchmark", "prediction": "Yes"}) + "\n")
    with pytest.raises(EvalInputError, match=r"1 of \d+ prediction ids .* \('not-in-this-benchmark'\)"):
        run_eval(load_benchmark(eval_bench, lazy=True), PredictionsFile(preds), tmp_path / "r", keep_frame=False)


def test_a_repeated_question_id_is_named_and_a_shared_hash_is_not_a_repeat(
        eval_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "bench"
    shutil.copytree(eval_bench, copy)
    lines = (copy / QUESTIONS_FILE).read_text(encoding="utf-8").splitlines(keepends=True)
    (copy / QUESTIONS_FILE).write_text("".join([*lines[:6], lines[2], *lines[6:]]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"questions.jsonl:7: duplicate question_id"):
        list(load_benchmark(copy, lazy=True).iter_records(QUESTIONS_FILE))
    monkeypatch.setattr(benchmark, "_repeats", lambda hashes: True)  # as if two distinct ids shared a hash
    assert len(list(load_benchmark(eval_bench, lazy=True).iter_records(QUESTIONS_FILE))) == len(lines)


def test_bootstrap_blocks_draw_what_one_draw_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bootstrap, "BLOCK", 50)
    values = np.random.default_rng(0).random(37)
    values[::5] = np.nan
    for n in (1, 7, 37):
        blocks = np.vstack(list(bootstrap.resample_blocks(n, 3, "cell")))
        assert np.array_equal(blocks, bootstrap.resample_rows(n, 3, "cell"))
    whole = np.nanpercentile(np.nanmean(values[bootstrap.resample_rows(37, 3, "cell")], axis=1), [2.5, 97.5])
    assert bootstrap.mean_ci(values, 3, "cell") == [float(whole[0]), float(whole[1])]


def test_the_spool_types_each_column_as_the_whole_column() -> None:
    spool = stream.ScoreSpool()
    parts = [pd.DataFrame({"n": [1, 2], "s": ["a", "b"], "f": [True, False]}),
             pd.DataFrame({"n": [None, 3], "s": [None, "c"], "f": [None, True]})]
    for part in parts:
        spool.add(part)
    whole = pd.DataFrame({"n": [1, 2, None, 3], "s": ["a", "b", None, "c"], "f": [True, False, None, True]})
    chunks = "".join(f.to_csv(index=False, header=i == 0, lineterminator="\n") for i, f in enumerate(spool.frames()))
    assert chunks == whole.to_csv(index=False, lineterminator="\n")  # 1.0, not 1: the whole column is float
    spool.close()


def test_the_random_baseline_streams_and_scores_as_in_memory(eval_bench: Path, tmp_path: Path) -> None:
    from mapgen.evaluation import Baseline

    run_eval(eval_bench, Baseline("random"), tmp_path / "whole", plots=False)
    lazy = load_benchmark(eval_bench, lazy=True)
    report = run_eval(lazy, Baseline("random"), tmp_path / "streamed", plots=False, keep_frame=False)
    assert "question_records" not in lazy.__dict__ and report.spool is not None
    assert _files(tmp_path / "whole", tmp_path) == _files(tmp_path / "streamed", tmp_path)
