"""Flat export rows of the grounding task: the expression, its box in pixels, 0–1 and 0–100 (VRSBench)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mapgen.tasks.rows import COMMON_COLUMNS, common_fields
from mapgen.tasks.vrsbench import task_prompt_text

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark

COLUMNS: tuple[str, ...] = (*COMMON_COLUMNS, "expression", "box", "box_norm", "box_percent", "answer", "unique",
                            "type", "target_code", "prompt")


def expression_text(record: dict[str, Any]) -> str:
    """The referring expression of a grounding record (VRSBench eval records keep it in ``question``)."""
    return str(record.get("expression") or record.get("question") or "")


def box_percent(record: dict[str, Any], bench: Benchmark) -> list[int]:
    """The box as integers on a 0–100 scale of the image width and height (VRSBench convention)."""
    gold = record.get("ground_truth")
    if isinstance(gold, list) and len(gold) == 4:
        return [int(v) for v in gold]
    norm = record.get("box_norm")
    if not norm:
        from PIL import Image

        path = bench.image_path(record["map_id"])
        if path is None:
            raise KeyError(f"no image of map {record['map_id']!r} in {bench.root}")
        with Image.open(path) as img:
            w, h = img.size
        x1, y1, x2, y2 = record["box"]
        norm = [x1 / w, y1 / h, (x2 + 1) / w, (y2 + 1) / h]
    return [min(100, max(0, round(float(v) * 100))) for v in norm]


def box_text(box: list[int]) -> str:
    """VRSBench's answer form ``{<x1><y1><x2><y2>}``."""
    return "{" + "".join(f"<{v}>" for v in box) + "}"


def grounding_row(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    """A flat row for one referring expression with its box."""
    pct = box_percent(record, bench)
    expression = expression_text(record)
    return common_fields(record, bench) | {
        "expression": expression,
        "box": [float(v) for v in record["box"]],
        "box_norm": [float(v) for v in record.get("box_norm") or [v / 100 for v in pct]],
        "box_percent": pct,
        "answer": str(pct),
        "unique": bool(record.get("unique", True)),
        "type": str(record.get("expression_type") or record.get("type") or ""),
        "target_code": str(record.get("target_code") or ""),
        "prompt": task_prompt_text(record, "grounding", expression),
    }
