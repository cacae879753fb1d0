"""Pieces every task's flat export rows share: the id, image and grouping columns, and JSON cells."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark

COMMON_COLUMNS: tuple[str, ...] = (
    "question_id", "map_id", "image", "split", "country", "variant", "counterfactual", "counterfactual_set",
)
"""The columns every task's rows start with."""


def dumps(value: Any) -> str:
    """A cell's JSON text (sorted keys, Unicode kept)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def common_fields(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    """The :data:`COMMON_COLUMNS` of one record."""
    cf = record.get("counterfactual")
    return {
        "question_id": str(record.get("question_id") or ""),
        "map_id": record["map_id"],
        "image": record.get("image") or bench.image_rel(record["map_id"]),
        "split": str(record.get("split") or ""),
        "country": str(record.get("country") or ""),
        "variant": str(record.get("variant") or ""),
        "counterfactual": "" if cf in (None, "original") else str(cf),
        "counterfactual_set": str(record.get("counterfactual_set") or cf or ""),
    }
