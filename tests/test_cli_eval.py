"""``mapgen eval`` / ``mapgen prompt`` and run_eval on a real tiny build (``eval_bench``; copies of it where a test
deletes or trims files)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ChatStub, resign

from mapgen.benchmark import load_benchmark
from mapgen.cli import main
from mapgen.evaluation import load_predictions, prediction_source
from mapgen.files import read_jsonl


def copy_bench(eval_bench: Path, dest: Path) -> Path:
    """A private copy of the session's real build (tests that delete or trim files work on the copy)."""
    shutil.copytree(eval_bench, dest)
    return dest


def one_per_type(bench: Path) -> dict[str, dict]:
    """The first question record of each answer type in a built benchmark."""
    chosen: dict[str, dict] = {}
    for record in read_jsonl(bench / "questions.jsonl"):
        chosen.setdefault(record["answer_type"], record)
    return chosen


def trimmed_bench(eval_bench: Path, dest: Path) -> tuple[Path, dict[str, dict]]:
    """A copy of the real build keeping one question per answer type, one caption and one referring expression."""
    root = copy_bench(eval_bench, dest)
    chosen = one_per_type(root)
    write_answers(root / "questions.jsonl", list(chosen.values()))
    for name in ("captions.jsonl", "grounding.jsonl"):
        write_answers(root / name, read_jsonl(root / name)[:1])
    return resign(root), chosen


def write_answers(path: Path, lines: list) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_load_benchmark_tolerates_missing_files(eval_bench, tmp_path):
    root = copy_bench(eval_bench, tmp_path / "b")
    records = read_jsonl(root / "questions.jsonl")
    gone, kept = records[0]["map_id"], records[-1]["map_id"]
    assert gone != kept
    for rel in ("captions.jsonl", "grounding.jsonl", "manifest.json", f"maps/{gone}.json"):
        (root / rel).unlink()
    bench = load_benchmark(root)
    assert len(bench.questions) == len(records) and bench.image_path(gone).name == f"{gone}.png"
    assert bench.tasks.get("caption", []) == [] and bench.tasks.get("grounding", []) == [] and bench.spec(gone) is None
    assert bench.spec(kept)["spec"]  # the other maps' JSON still reads
    assert bench.manifest == {} and bench.name == "b"
    assert len(load_benchmark(root / "questions.jsonl").questions) == len(records)
    (tmp_path / "empty").mkdir()
    assert load_benchmark(tmp_path / "empty").questions == []
    with pytest.raises(FileNotFoundError):
        load_benchmark(tmp_path / "nowhere")
    (root / "questions.jsonl").write_text('{"question_id": "x"\n')
    with pytest.raises(ValueError, match="questions.jsonl:1"):
        load_benchmark(root)


def test_load_predictions_counts_problems(tmp_path):
    path = write_answers(
        tmp_path / "a.jsonl",
        [
            {"question_id": "q1", "prediction": "Yes"},
            "not json",
            {"prediction": "x"},
            {"id": "q2", "response": {"answer": 3}},
            {"question_id": "q1", "prediction": "No"},
            {"question_id": "q3"},
            "",
        ],
    )
    preds = load_predictions(path)
    assert preds.texts == {"q1": "No", "q2": '{"answer": 3}', "q3": None}
    assert preds.duplicates == ["q1"] and len(preds.invalid) == 3
    (tmp_path / "a.json").write_text('{"q1": "Yes"}')
    assert load_predictions(tmp_path / "a.json").texts == {"q1": "Yes"}


def test_eval_predictions_cli(eval_bench, tmp_path):
    bench, chosen = trimmed_bench(eval_bench, tmp_path / "bench")
    assert set(chosen) == {"binary", "count", "range", "list", "ranking", "single"}
    ref = read_jsonl(bench / "grounding.jsonl")[0]
    listed = chosen["list"]
    first = listed["answer"][0]
    aliased = [listed["accepted_answers"].get(first, [first])[0], *listed["answer"][1:]]
    ranking = " > ".join(" = ".join(group) for group in chosen["ranking"]["answer"])
    answers = write_answers(
        tmp_path / "answers.jsonl",
        [
            {"question_id": chosen["binary"]["question_id"],
             "prediction": f'Reasoning... {{"answer": "{chosen["binary"]["answer"]}"}}'},
            {"question_id": chosen["count"]["question_id"], "prediction": f"Final answer: {chosen['count']['answer']}"},
            {"question_id": chosen["range"]["question_id"], "prediction": "I am not sure."},
            {"question_id": listed["question_id"], "prediction": json.dumps({"answer": aliased})},
            {"question_id": chosen["ranking"]["question_id"], "prediction": ranking},
            {"question_id": ref["question_id"], "prediction": json.dumps(ref["ground_truth"])},
            "{broken",
        ],
    )
    out = tmp_path / "report"
    result = CliRunner().invoke(main, ["eval", str(bench), "--predictions", str(answers), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "6 questions" in result.output and "unparsed 1, missing 1, unknown ids 0" in result.output
    assert f"{answers}:7: not valid JSON" in result.output  # the broken line is located, not only counted
    summary = json.loads((out / "summary.json").read_text())
    # binary, count, list (an alias) and ranking right; range unparsed; single missing
    assert summary["score"] == pytest.approx(4 / 6, abs=1e-6)
    assert summary["invalid_prediction_lines"] == 1
    assert summary["grounding"]["acc@0.5"] == 1.0  # the gold box on the 0-100 scale
    assert "captions" not in summary  # no caption predictions: task not scored
    assert (out / "grounding_scores.csv").is_file() and (out / "plots" / "answer_type.png").is_file()


def test_random_baseline_needs_the_map_files(eval_bench, tmp_path):
    root = copy_bench(eval_bench, tmp_path / "b")
    map_id = read_jsonl(root / "questions.jsonl")[0]["map_id"]
    (root / "maps" / f"{map_id}.json").unlink()
    resign(root)  # the manifest no longer lists it (a listed file that is missing is refused before scoring)
    result = CliRunner().invoke(main, ["eval", str(root), "--baseline", "random", "-o", str(tmp_path / "r")])
    assert result.exit_code != 0 and f"no map JSON for {map_id!r}" in result.output


def test_pixel_baseline_runs_the_audit_and_scores_its_answers(eval_bench, tmp_path):
    out = tmp_path / "pixel"
    result = CliRunner().invoke(main, ["eval", str(eval_bench), "--baseline", "pixel", "-o", str(out), "--no-plots"])
    assert result.exit_code == 0, result.output
    preds = load_predictions(out / "audit" / "predictions.jsonl")
    audit = [json.loads(line) for line in (out / "audit" / "audit.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    assert set(preds.texts) == {q.question_id for q in load_benchmark(eval_bench).questions}
    assert summary["source"].endswith("predictions.jsonl") and summary["missing"] == 0
    oracle = sum(r["oracle_correct"] for r in audit) / len(audit)
    assert summary["score"] >= 0.9 and summary["score"] > summary["chance_score"] + 0.4
    assert abs(summary["score"] - oracle) < 0.1  # the eval scores what the audit says it got right


def test_eval_needs_exactly_one_source(eval_bench, tmp_path):
    result = CliRunner().invoke(main, ["eval", str(eval_bench), "-o", str(tmp_path / "r")])
    assert result.exit_code == 2 and "exactly one of" in result.output
    with pytest.raises(ValueError, match="exactly one"):
        prediction_source(baseline="random", model="openai:x")


def test_prompt_cli(eval_bench):
    records = read_jsonl(eval_bench / "questions.jsonl")
    jumbled = next(r for r in records if r["counterfactual"] == "jumbled")
    result = CliRunner().invoke(main, ["prompt", str(eval_bench), "--prompt", "eer", "--question",
                                       jumbled["question_id"]])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("[image 1] ") and f"{jumbled['map_id']}.png" in result.output
    assert f"Question: {jumbled['question']}" in result.output and "Step 4 - Reasoning" in result.output
    assert "counterfactual" in result.output  # jumbled note
    plain = records[0]
    data = json.loads(CliRunner().invoke(main, ["prompt", str(eval_bench), "--question", plain["question_id"],
                                                "--json"]).output)
    assert data["strategy"] == "direct" and data["images"][0].endswith(f"{plain['map_id']}.png")
    ref = read_jsonl(eval_bench / "grounding.jsonl")[0]
    grounding = CliRunner().invoke(main, ["prompt", str(eval_bench), "--question", ref["question_id"]])
    assert "0 to 100" in grounding.output and ref["question"] in grounding.output
    missing = CliRunner().invoke(main, ["prompt", str(eval_bench), "--question", "Q404"])
    assert missing.exit_code == 2 and "no question 'Q404'" in missing.output
    assert "eer" in CliRunner().invoke(main, ["prompt", "--list"]).output


def _server(fail_on: str, box: list[int]) -> ChatStub:
    """Answers every chat request with a fixed reply (``box`` for grounding prompts); fails with 500 for prompts
    containing ``fail_on``."""

    def respond(body: dict) -> str | None:
        text = body["messages"][-1]["content"][-1]["text"]
        if fail_on in text:
            return None
        if "bounding box" in text:
            return json.dumps(box)
        return "A map of the USA." if "Describe" in text else '{"answer": "Yes"}'

    return ChatStub(respond)


def test_eval_model_cli_against_local_server(eval_bench, tmp_path, monkeypatch):
    monkeypatch.setattr("mapgen.tasks.caption.scores.java_available", lambda: False)  # skip the slow METEOR JVM
    bench, chosen = trimmed_bench(eval_bench, tmp_path / "bench")
    failing = chosen["count"]
    server = _server(fail_on=failing["question"], box=read_jsonl(bench / "grounding.jsonl")[0]["ground_truth"])
    try:
        out = tmp_path / "report"
        args = ["eval", str(bench), "--model", "openai:tiny", "--base-url", server.url, "--prompt", "cot",
                "--retries", "1", "--concurrency", "2", "-o", str(out)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert "model failures: 1" in result.output
        summary = json.loads((out / "summary.json").read_text())
        assert summary["model_failures"] == 1 and summary["failures"][0]["question_id"] == failing["question_id"]
        assert summary["missing"] == 1  # the failed request scores as missing
        assert summary["grounding"]["acc@0.5"] == 1.0
        if importlib.util.find_spec("pycocoevalcap"):  # caption metrics come with the [eval] extra
            assert summary["captions"]["n"] == 1
        lines = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
        assert len(lines) == 8 and {x["question_id"] for x in lines if x["error"]} == {failing["question_id"]}
        first = server.requests  # 6 questions + 2 tasks, the failing one tried twice
        assert first == 9
        assert CliRunner().invoke(main, args).exit_code == 2  # a finished report is not overwritten silently
        assert CliRunner().invoke(main, [*args, "--force"]).exit_code == 0  # rerun: answers come from the cache
        assert server.requests == first + 2  # only the failed question is asked again
    finally:
        server.close()
