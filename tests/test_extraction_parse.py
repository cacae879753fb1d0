"""The table-extraction reply parser on its messy-output corpus (tests/data/extraction_replies.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mapgen.tasks.extraction.parse import parse_table, read_cell

CORPUS = yaml.safe_load((Path(__file__).parent / "data" / "extraction_replies.yaml").read_text(encoding="utf-8"))


def test_corpus_is_large_and_covers_every_format() -> None:
    assert len(CORPUS) >= 30
    formats = {parse_table(c["reply"], c.get("kind")).format for c in CORPUS}
    assert formats == {"json", "markdown", "lines", "none"}


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_corpus_case(case: dict) -> None:
    rows = parse_table(case["reply"], case.get("kind")).rows
    assert [list(r) for r in rows] == [[str(a), str(b)] for a, b in case["expected"]]


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_every_corpus_cell_reads(case: dict) -> None:
    """Every cell the parser keeps is a reading (a number, a range or N/A)."""
    assert all(read_cell(cell).ok for _, cell in parse_table(case["reply"], case.get("kind")).rows)


@pytest.mark.parametrize(
    ("cell", "na", "expected"),
    [
        ("10–20", False, (10, 20)),
        ("580,000 — 7,000,000", False, (580_000, 7_000_000)),
        ("1.2M-3.4M", False, (1.2e6, 3.4e6)),
        ("-5 to 0", False, (-5, 0)),
        ("−2.5", False, (-2.5, -2.5)),
        (">50", False, (50, None)),
        ("approximately 39.5M", False, (39.5e6, 39.5e6)),
        ("96.2%", False, (96.2, 96.2)),
        ("No data", True, None),
        ("—", True, None),
    ],
)
def test_read_cell(cell: str, na: bool, expected: tuple | None) -> None:
    reading = read_cell(cell)
    assert reading.na is na
    assert reading.range == (None if expected is None else tuple(None if v is None else float(v) for v in expected))


def test_chatter_and_words_are_not_readings() -> None:
    assert not read_cell("high").ok and not read_cell("").ok
    assert parse_table("Note: 3 regions were unreadable.\nTexas: 10-20").rows == [("Texas", "10-20")]
