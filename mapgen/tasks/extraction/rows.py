"""Flat export rows of the table-extraction task: ``answer`` the gold table as Markdown, ``gold_json`` what scoring
needs (rows with accepted spellings, omitted regions, classes or bar ends and tolerance; :func:`table_from_row`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mapgen.tasks.rows import COMMON_COLUMNS, common_fields, dumps

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark

COLUMNS: tuple[str, ...] = (*COMMON_COLUMNS, "question", "answer", "gold_json", "map_type", "hatched", "annotated",
                            "prompt")
GOLD_TABLE_KEYS: tuple[str, ...] = ("question_id", "map_type", "hatched", "classes", "vmin", "vmax", "percent",
                                    "tolerance", "tolerance_share", "rows", "omitted")


def table_row(record: dict[str, Any], bench: Benchmark, prompt: str) -> dict[str, Any]:
    """A flat row for one gold table (see :data:`COLUMNS`)."""
    return common_fields(record, bench) | {
        "question": str(record.get("question") or ""),
        "answer": str(record.get("ground_truth") or ""),
        "gold_json": dumps({k: record[k] for k in GOLD_TABLE_KEYS if k in record}),
        "map_type": str(record.get("map_type") or ""),
        "hatched": bool(record.get("hatched")),
        "annotated": bool(record.get("annotated", True)),
        "prompt": prompt,
    }


def table_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`table_row`: the gold-table record :func:`~mapgen.tasks.extraction.scores.score_table`
    scores against."""
    return dict(json.loads(row["gold_json"]))
