"""Budgets on what a user file may ask (#37 item 8): YAML alias bombs, loops and deep nesting are refused before
anything is expanded, tables with absurd column counts are refused from their header, error lines stay short
whatever the input, and ``summary.json`` holds every score and interval in one unit (fractions). Real CLI runs."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.cli.errors import one_line_warning
from mapgen.data.user_tables import MAX_COLUMNS
from mapgen.errors import MAX_LINE, bounded_line, listing
from mapgen.files import read_jsonl
from mapgen.yamlio import MAX_DEPTH, MAX_NODES, YAMLBudgetError, load_yaml, safe_load

BOMB = "".join(f"{a}: &{a} [{', '.join([f'*{p}'] * 9)}]\n" for p, a in zip("abcdefgh", "bcdefghi"))
BOMB = 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n' + BOMB
"""A "billion laughs" document: 9 levels of 9 aliases, 9**9 (387 million) strings once expanded."""


def run(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output.strip()


def one_line(code_output: tuple[int, str], *fragments: str, code: int = 2) -> str:
    got, output = code_output
    assert got == code and len(output.splitlines()) == 1 and "Traceback" not in output, output
    assert len(output) <= MAX_LINE + 200, len(output)
    for fragment in fragments:
        assert fragment in output, output
    return output


def test_the_bomb_is_small_and_huge() -> None:
    assert len(BOMB) < 700
    with pytest.raises(YAMLBudgetError, match="alias bomb"):
        safe_load(BOMB)


@pytest.mark.parametrize("text, fragment", [
    (BOMB + "countries: [{name: usa, maps: 1}]\n", f"expands to more than {MAX_NODES:,} values"),
    ("a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n", f"nested more than {MAX_DEPTH} levels deep"),
    ("countries: &c [{name: usa, maps: 1, extra: *c}]\n", "refers to itself through an alias"),
])
def test_a_config_that_would_expand_is_refused_in_one_line(tmp_path: Path, text: str, fragment: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    # before: the bomb expanded to 8.8 GB, then printed a 2-GB error line; the loop and the depth: a traceback-ish
    # "resource limit reached" or a RecursionError
    line = one_line(run("build", config, "-o", tmp_path / "out"), str(config), fragment, "line ")
    assert time.perf_counter() - start < 30 and not (tmp_path / "out").exists(), line


def test_every_user_yaml_loader_has_the_budget(tmp_path: Path) -> None:
    """Styles and packs read through the same budget as configs."""
    style = tmp_path / "bomb-style.yaml"
    style.write_text(BOMB, encoding="utf-8")
    code, output = run("spec", "usa", "--stat", "population_2020", "--style", style)  # click's usage error
    assert code == 2 and "alias bomb" in output.splitlines()[-1] and len(output) < 1000, output
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "templates.yaml").write_text(BOMB, encoding="utf-8")
    one_line(run("templates", "lint", pack), str(pack), "alias bomb", code=1)  # lint: 1 = problems found


def test_ordinary_aliases_still_load() -> None:
    text = "base: &b {maps: 2, seed: 1}\ncountries:\n  - {<<: *b, name: usa}\n  - {<<: *b, name: india}\n"
    assert load_yaml(text) == yaml.safe_load(text)
    assert safe_load("x: &x [1, 2]\ny: [*x, *x]\n") == {"x": [1, 2], "y": [[1, 2], [1, 2]]}


def _wide_csv(path: Path, columns: int) -> Path:
    header = ",".join(["region", "value", *(f"c{i}" for i in range(columns - 2))])
    rows = [",".join([region, value, *(["x"] * (columns - 2))]) for region, value in (("Texas", "1"), ("Ohio", "2"))]
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def test_a_table_with_a_million_columns_is_refused_fast(tmp_path: Path) -> None:
    table = _wide_csv(tmp_path / "wide.csv", 1_000_002)
    start = time.perf_counter()
    # before: 100,000 columns took 75 s, a million did not finish
    one_line(run("spec", "usa", "--data", table), str(table), "1,000,002 columns", f"{MAX_COLUMNS:,}")
    assert time.perf_counter() - start < 20


def test_a_table_at_the_cap_still_loads(tmp_path: Path) -> None:
    table = _wide_csv(tmp_path / "w.csv", MAX_COLUMNS)
    code, output = run("spec", "usa", "--data", table, "--value-col", "value", "-o", tmp_path / "s.json")
    assert code == 0, output


def test_an_error_listing_many_columns_stays_short(tmp_path: Path) -> None:
    header = ",".join(f"column_number_{i}" for i in range(1500))
    table = tmp_path / "t.csv"
    table.write_text(header + "\n" + ",".join(["1"] * 1500) + "\n", encoding="utf-8")
    # before: every one of the 1,500 column names in the line (about 30,000 characters)
    line = one_line(run("spec", "usa", "--data", table), "No column", "(1492 more)", "--region-col")
    assert len(line) < 1000, len(line)


def test_error_lists_and_lines_are_bounded() -> None:
    ids = [f"'R{i}'" for i in range(1_000_000)]
    assert listing(ids) == "'R0', 'R1', 'R2', 'R3', 'R4', 'R5', 'R6', 'R7', … (999992 more)"
    long = "x: " + "; ".join(ids) + "; keep one row per id"
    line = bounded_line(long)
    assert len(line) < MAX_LINE + 60 and line.startswith("x: 'R0'") and line.endswith("keep one row per id")
    assert "characters left out" in line and bounded_line("short") == "short"
    warning = one_line_warning(UserWarning("leaves out " + ", ".join(ids[:100_000])), UserWarning, "f.py", 1)
    assert len(warning) < MAX_LINE + 80 and warning.startswith("Warning: leaves out 'R0'")  # warnings too


def _fractions(value: Any, path: str = "") -> Iterator[tuple[str, float]]:
    """Every number under a score-like key of a summary (intervals, table cells), with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _fractions(item, f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from _fractions(item, path)
    elif isinstance(value, float) and ("_ci" in path or ".tables." in path or path.endswith(("score", "acc@0.5"))):
        yield path, value


def test_summary_json_holds_fractions_throughout(eval_bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "ev"
    questions = read_jsonl(eval_bench / "questions.jsonl")
    boxes = read_jsonl(eval_bench / "grounding.jsonl")
    assert len(boxes) >= 2
    rows = [{"question_id": q["question_id"], "prediction": str(q["answer"]) if i % 2 else "no idea"}
            for i, q in enumerate(questions)]
    rows += [{"question_id": b["question_id"], "prediction": json.dumps(b["ground_truth"] if i % 2 else [0, 0, 1, 1])}
             for i, b in enumerate(boxes)]  # every other box right
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, output = run("eval", eval_bench, "--predictions", predictions, "--no-plots", "-o", out)
    assert code == 0, output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    grounding = summary["grounding"]
    lo, hi = grounding["acc@0.5_ci"]
    # before: acc@0.5 0.5 beside acc@0.5_ci [25.0, 75.0]
    assert 0 <= lo < grounding["acc@0.5"] < hi <= 1, grounding
    cells = dict(_fractions(summary))
    assert any("tables_ci" in p for p in cells) and any(".tables." in p for p in cells)
    assert all(0 <= v <= 1 for v in cells.values()), {p: v for p, v in cells.items() if not 0 <= v <= 1}
    overall, ci = summary["tables"]["overall"]["all"], summary["tables_ci"]["overall"]["all"]
    for column, (low, high) in ci.items():
        assert low - 1e-6 <= overall[column] <= high + 1e-6, column
    tables = (out / "tables.md").read_text(encoding="utf-8")  # the tables still show %
    assert f"{overall['Binary Acc'] * 100:.2f} [{ci['Binary Acc'][0] * 100:.1f}" in tables
