"""docs/ARCHITECTURE.md stays a map a newcomer reads in minutes: one line per floor in the floor table, and every
"ARCHITECTURE.md §N" a docstring, test or benchmark cites names a section the page has."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "ARCHITECTURE.md"
#: The longest a floor's name or rule cell may be (the rules' details go below the table; the modules column lists
#: every module test_architecture.py places, so it is as long as the floor's modules make it).
MAX_CELL = 120


def _text() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_the_floor_table_is_one_short_line_per_floor() -> None:
    section = _text().split("\n## 1.", 1)[1].split("\n## 2.", 1)[0]
    rows = [line for line in section.splitlines() if re.match(r"\| \d+ ", line)]
    cells = [cell.strip() for row in rows for cell in row.strip().strip("|").split("|")]
    assert len(rows) >= 10 and len(cells) == 3 * len(rows)
    prose = [cell for i, cell in enumerate(cells) if i % 3 != 1]
    assert [cell for cell in prose if len(cell) > MAX_CELL] == []


def test_every_cited_section_exists() -> None:
    sections = set(re.findall(r"^## (\d+)\. ", _text(), re.M))
    cited: dict[str, str] = {}
    for folder in ("mapgen", "tests", "benchmarks", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number in re.findall(r"ARCHITECTURE\.md §(\d+)", path.read_text(encoding="utf-8")):
                cited.setdefault(number, path.relative_to(ROOT).as_posix())
    assert cited and {n: where for n, where in cited.items() if n not in sections} == {}
