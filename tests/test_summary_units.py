"""``summary.json`` keeps every interval in the unit of the value it bounds (issue 37: ``acc@0.5`` was a fraction
while ``acc@0.5_ci`` was in percent); checked on a real ``mapgen eval`` run of the tiny build."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from click.testing import CliRunner

from mapgen.cli import main
from mapgen.files import read_jsonl
from mapgen.tasks.vqa.rows import answer_text


def _pairs(node: Any, path: str = "") -> Iterator[tuple[str, float, list[float]]]:
    """``(path, value, interval)`` of every ``X`` / ``X_ci`` pair in a summary (nested dicts included)."""
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        ci = node.get(f"{key}_ci")
        if isinstance(value, (int, float)) and isinstance(ci, list) and len(ci) == 2:
            yield f"{path}{key}", float(value), [float(x) for x in ci]
        yield from _pairs(value, f"{path}{key}.")


def test_every_interval_is_in_the_unit_of_its_value(eval_bench, tmp_path):
    questions = read_jsonl(eval_bench / "questions.jsonl")
    refs = read_jsonl(eval_bench / "grounding.jsonl")
    lines = [{"question_id": q["question_id"], "prediction": answer_text(q["answer"], q["answer_type"]) if i % 3
              else "I cannot tell."} for i, q in enumerate(questions)]
    lines += [{"question_id": r["question_id"], "prediction": json.dumps(r["ground_truth"]) if i % 2 else "[0, 0, 1, 1]"}
              for i, r in enumerate(refs)]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["eval", str(eval_bench), "--predictions", str(path), "-o", str(out), "--no-plots"])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    pairs = list(_pairs(summary))
    assert "grounding.acc@0.5" in {p for p, _, _ in pairs}
    assert 0 < summary["grounding"]["acc@0.5"] < 1
    for name, value, (lo, hi) in pairs:
        assert 0.0 <= lo <= value <= hi <= 1.0, (name, value, lo, hi)
    shown = []
    for table, cells in summary["tables"]["overall"].items():  # the paper tables and their intervals: fractions
        for column, ci in summary["tables_ci"]["overall"].get(table, {}).items():
            value = cells.get(column)
            if isinstance(value, float) and value == value and ci[0] == ci[0]:
                assert ci[0] - 1e-9 <= value <= ci[1] + 1e-9, (table, column, value, ci)
                shown.append(value)
    assert shown and 0 < max(shown) <= 1 and all(0 <= v <= 1 for v in shown)  # fractions, like every score
