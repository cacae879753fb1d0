"""docs/ARCHITECTURE.md §8 is executed: in page order, in one empty folder, each file block is written as shown
and each example block runs in a fresh Python process, so the example of every extension point keeps working."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "ARCHITECTURE.md"
_BLOCK = re.compile(r"<!-- (?P<kind>file|example): (?P<name>\S+) -->\n```(?P<lang>\w+)\n(?P<body>.*?)```", re.S)
#: Lines of an example's code not counted against its length: blank lines and imports.
_NOT_COUNTED = re.compile(r"\s*$|(from \S+ )?import ")
MAX_LINES = 12
DOORS = {"template-pack", "language", "question-function", "reading", "style", "renderer", "scheme", "country",
         "prompt-strategy", "task", "export-format"}


def _section() -> str:
    return PAGE.read_text(encoding="utf-8").split("\n## 8.", 1)[1]


def page_steps() -> list[tuple[str, str, str]]:
    """(kind, name, text) in page order: ("file", path, content) or ("example", name, Python code)."""
    return [(m["kind"], m["name"], m["body"]) for m in _BLOCK.finditer(_section())]


def example_lines() -> dict[str, int]:
    """Each example's length: the counted lines of its code and of the files written just before it."""
    out: dict[str, int] = {}
    pending = 0
    for kind, name, text in page_steps():
        pending += sum(not _NOT_COUNTED.match(line) for line in text.splitlines())
        if kind == "example":
            out[name], pending = pending, 0
    return out


def test_every_block_of_the_section_is_a_file_or_an_example() -> None:
    assert _section().count("```") == 2 * len(page_steps())


def test_every_door_has_a_short_example() -> None:
    lengths = example_lines()
    assert set(lengths) == DOORS
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


def test_the_examples_run(tmp_path: Path) -> None:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path)
    for kind, name, text in page_steps():
        if kind == "file":
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(text, encoding="utf-8")
            continue
        result = subprocess.run([sys.executable, "-c", text], cwd=tmp_path, env=env, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == 0, f"example {name!r} failed:\n{result.stdout}\n{result.stderr}"
    assert (tmp_path / "bench-csv" / "questions.csv").is_file()
