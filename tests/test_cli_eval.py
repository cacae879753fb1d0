"""``mapgen eval`` / ``mapgen prompt`` and run_eval on tiny benchmark folders built in tmp_path."""

from __future__ import annotations

import importlib.util
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from mapgen.benchmark import load_benchmark
from mapgen.cli import main
from mapgen.eval.run import load_predictions, run_eval

QUESTIONS = [
    dict(question_id="q1", template_id="t_bin", answer="Yes", answer_type="binary", split="train"),
    dict(question_id="q2", template_id="t_bin", answer="Yes", answer_type="binary", hatched=True),
    dict(question_id="q3", template_id="t_cnt", answer=3, answer_type="count", country="india"),
    dict(question_id="q4", template_id="t_rng", answer="1k-2k", answer_type="range", map_type="continuous"),
    dict(
        question_id="q5",
        template_id="t_lst",
        answer=["Texas", "Ohio"],
        answer_type="list",
        relative_region=True,
        accepted_answers={"Texas": ["TX"], "Ohio": ["OH"]},
    ),
    dict(question_id="q6", template_id="t_rnk", answer=[["Texas"], ["Ohio", "Iowa"]], answer_type="ranking"),
    dict(
        question_id="q7", template_id="t_sgl", answer="Texas", answer_type="single", counterfactual="jumbled"
    ),
]


def make_bench(root: Path, tasks: bool = False) -> Path:
    """questions.jsonl + a 20x10 PNG per map (+ captions/grounding when ``tasks``)."""
    (root / "maps").mkdir(parents=True)
    Image.new("RGB", (20, 10), "white").save(root / "maps" / "m1.png")
    lines = []
    for i, extra in enumerate(QUESTIONS):
        record = dict(
            map_id="m1", mapwise_template=i + 1, question=f"Question {i}?", map_type="discrete", country="usa"
        )
        record.update(extra)
        lines.append(json.dumps(record))
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n")
    (root / "manifest.json").write_text('{"name": "tiny"}')
    if tasks:
        cap = {"map_id": "m1", "question_id": "c1", "ground_truth": "A map of the USA showing income."}
        (root / "captions.jsonl").write_text(json.dumps(cap) + "\n")
        ref = {
            "image_id": "m1.png",
            "question_id": "g1",
            "question": "the largest state",
            "box": [0, 0, 10, 5],
            "unique": True,
        }
        (root / "grounding.jsonl").write_text(json.dumps(ref) + "\n")
    return root


def write_answers(path: Path, lines: list) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_load_benchmark_tolerates_missing_files(tmp_path):
    bench = load_benchmark(make_bench(tmp_path / "b"))
    assert len(bench.questions) == 7 and bench.image_path("m1").name == "m1.png"
    assert bench.captions == [] and bench.grounding == [] and bench.spec("m1") is None
    assert bench.manifest == {"name": "tiny"}
    assert len(load_benchmark(tmp_path / "b" / "questions.jsonl").questions) == 7
    (tmp_path / "empty").mkdir()
    assert load_benchmark(tmp_path / "empty").questions == []
    with pytest.raises(FileNotFoundError):
        load_benchmark(tmp_path / "nowhere")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "questions.jsonl").write_text('{"question_id": "x"\n')
    with pytest.raises(ValueError, match="questions.jsonl:1"):
        load_benchmark(tmp_path / "bad")


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


def test_eval_predictions_cli(tmp_path):
    bench = make_bench(tmp_path / "bench", tasks=True)
    answers = write_answers(
        tmp_path / "answers.jsonl",
        [
            {"question_id": "q1", "prediction": 'Reasoning... {"answer": "Yes"}'},
            {"question_id": "q2", "prediction": "I am not sure."},
            {"question_id": "q3", "prediction": "Final answer: 3"},
            {"question_id": "q4", "prediction": "between 1500 and 2500"},
            {"question_id": "q5", "prediction": '{"answer": ["TX", "Ohio"]}'},
            {"question_id": "q6", "prediction": "Texas > Ohio = Iowa"},
            {"question_id": "q99", "prediction": "Yes"},
            {"question_id": "g1", "prediction": "[0, 0, 50, 50]"},
            "{broken",
        ],
    )
    out = tmp_path / "report"
    result = CliRunner().invoke(main, ["eval", str(bench), "--predictions", str(answers), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "7 questions" in result.output and "unparsed 1, missing 1, unknown ids 1" in result.output
    summary = json.loads((out / "summary.json").read_text())
    # q1 1, q2 0 (unparsed), q3 1, q4 0.5, q5 F1 1, q6 1, q7 0 (missing)
    assert summary["score"] == pytest.approx(4.5 / 7, abs=1e-6)
    assert summary["invalid_prediction_lines"] == 1
    assert summary["grounding"]["acc@0.5"] == 1.0  # 50 % of 20x10 px = the true box
    assert "captions" not in summary  # no caption predictions: task not scored
    assert (out / "grounding_scores.csv").is_file() and (out / "plots" / "answer_type.png").is_file()


@pytest.mark.parametrize("baseline", ["random", "prior"])
def test_eval_baseline_cli_full_report(eval_bench, tmp_path, baseline):
    out = tmp_path / "report"
    result = CliRunner().invoke(main, ["eval", str(eval_bench), "--baseline", baseline, "-o", str(out)])
    assert result.exit_code == 0, result.output
    records = load_benchmark(eval_bench).questions
    if baseline == "prior":
        records = [q for q in records if q.split == "test"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n"] == len(records) and summary["missing"] == 0 and summary["unparsed"] == 0
    assert summary["source"] == f"baseline: {baseline}"
    md = (out / "tables.md").read_text()
    assert "## By map type" in md and "| hatched |" in md and "| hatched · chance (analytic) |" in md
    again = tmp_path / "again"
    CliRunner().invoke(main, ["eval", str(eval_bench), "--baseline", baseline, "-o", str(again)])
    assert (again / "scores.csv").read_bytes() == (out / "scores.csv").read_bytes()


def test_random_baseline_needs_the_map_files(tmp_path):
    result = CliRunner().invoke(main, ["eval", str(make_bench(tmp_path / "b")), "--baseline", "random",
                                       "-o", str(tmp_path / "r")])
    assert result.exit_code != 0 and "no map JSON for 'm1'" in result.output


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


def test_eval_needs_exactly_one_source(tmp_path):
    bench = make_bench(tmp_path / "bench")
    result = CliRunner().invoke(main, ["eval", str(bench), "-o", str(tmp_path / "r")])
    assert result.exit_code == 2 and "exactly one of" in result.output
    with pytest.raises(ValueError, match="exactly one"):
        run_eval(bench, baseline="random", model="openai:x")


def test_prompt_cli(tmp_path):
    bench = make_bench(tmp_path / "bench", tasks=True)
    result = CliRunner().invoke(main, ["prompt", str(bench), "--prompt", "eer", "--question", "q7"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("[image 1] ") and "m1.png" in result.output
    assert "Question: Question 6?" in result.output and "Step 4 - Reasoning" in result.output
    assert "counterfactual" in result.output  # jumbled note
    data = json.loads(CliRunner().invoke(main, ["prompt", str(bench), "--question", "q1", "--json"]).output)
    assert data["strategy"] == "direct" and data["images"][0].endswith("m1.png")
    grounding = CliRunner().invoke(main, ["prompt", str(bench), "--question", "g1"])
    assert "0 to 100" in grounding.output and "the largest state" in grounding.output
    missing = CliRunner().invoke(main, ["prompt", str(bench), "--question", "Q404"])
    assert missing.exit_code == 2 and "no question 'Q404'" in missing.output
    assert "eer" in CliRunner().invoke(main, ["prompt", "--list"]).output


class _Server:
    """Answers every chat request with a fixed reply; fails with 500 for prompts containing 'Question 1?'."""

    def __init__(self) -> None:
        self.count = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.count += 1
                text = body["messages"][-1]["content"][-1]["text"]
                if "Question 1?" in text:
                    self.send_response(500)
                    self.end_headers()
                    return
                reply = (
                    "[0, 0, 50, 50]"
                    if "bounding box" in text
                    else "A map of the USA."
                    if "Describe" in text
                    else '{"answer": "Yes"}'
                )
                payload = json.dumps({"choices": [{"message": {"content": reply}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_eval_model_cli_against_local_server(tmp_path, monkeypatch):
    monkeypatch.setattr("mapgen.eval.captions.java_available", lambda: False)  # skip the slow METEOR JVM
    bench = make_bench(tmp_path / "bench", tasks=True)
    server = _Server()
    try:
        out = tmp_path / "report"
        args = [
            "eval",
            str(bench),
            "--model",
            "openai:tiny",
            "--base-url",
            server.url,
            "--prompt",
            "cot",
            "--retries",
            "1",
            "--concurrency",
            "2",
            "-o",
            str(out),
        ]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert "model failures: 1" in result.output
        summary = json.loads((out / "summary.json").read_text())
        assert summary["model_failures"] == 1 and summary["failures"][0]["question_id"] == "q2"
        assert summary["missing"] == 1  # the failed request scores as missing
        assert summary["grounding"]["acc@0.5"] == 1.0
        if importlib.util.find_spec("pycocoevalcap"):  # caption metrics come with the [eval] extra
            assert summary["captions"]["n"] == 1
        lines = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
        assert len(lines) == 9 and {x["question_id"] for x in lines if x["error"]} == {"q2"}
        first = server.count  # 7 questions + 2 tasks, q2 tried twice
        assert first == 10
        assert CliRunner().invoke(main, args).exit_code == 0  # rerun: answers come from the cache
        assert server.count == first + 2  # only the failed question is asked again
    finally:
        server.close()
