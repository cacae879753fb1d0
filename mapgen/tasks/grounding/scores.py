"""Grounding scoring (VRSBench): IoU of the predicted box against the referring expression's box.

Grounding: :func:`grounding_scores` parses a box from each prediction (:func:`~mapgen.eval.answers.parse_box`),
converts it to pixels (``box_scale="percent"``: 0-100 of the image width/height, the prompt convention;
``"pixels"``: as is), and reports :func:`~mapgen.eval.metrics.grounding_summary` (Acc@0.5, Acc@0.7, mean IoU,
overall and split unique / non-unique).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mapgen.eval.answers import parse_box
from mapgen.eval.metrics import grounding_summary, iou
from mapgen.tasks.base import record_id

Box = tuple[float, float, float, float]


def to_pixels(box: Box, size: tuple[int, int] | None, box_scale: str) -> Box | None:
    """A predicted box in pixels (``percent`` boxes need the image ``(width, height)``)."""
    if box_scale == "pixels":
        return box
    if box_scale != "percent":
        raise ValueError(f"box_scale must be 'percent' or 'pixels', not {box_scale!r}")
    if size is None:
        return None
    w, h = size
    x1, y1, x2, y2 = box
    return (x1 * w / 100, y1 * h / 100, x2 * w / 100, y2 * h / 100)


def grounding_scores(
    records: Sequence[Mapping[str, Any]],
    predictions: Mapping[str, str | None],
    image_size: Callable[[Mapping[str, Any]], tuple[int, int] | None],
    box_scale: str = "percent",
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Grounding summary and per-record rows (``iou`` None when no box could be read)."""
    rows: list[dict[str, Any]] = []
    for record in records:
        rid = record_id(record)
        text = predictions.get(rid)
        box = parse_box(text)
        pixels = to_pixels(box, image_size(record), box_scale) if box else None
        value = iou(record["box"], pixels) if pixels else None
        rows.append(
            {
                "question_id": rid,
                "unique": bool(record.get("unique", True)),
                "missing": text is None,
                "pred_box": list(pixels) if pixels else None,
                "true_box": list(record["box"]),
                "iou": value,
            }
        )
    summary = grounding_summary([r["iou"] for r in rows], [r["unique"] for r in rows])
    summary["missing"] = float(sum(r["missing"] for r in rows))
    summary["unparsed"] = float(sum(r["iou"] is None and not r["missing"] for r in rows))
    return summary, rows


def image_size_of(path: str | Path | None) -> tuple[int, int] | None:
    """``(width, height)`` of an image file (``None`` when there is none)."""
    if path is None or not Path(path).is_file():
        return None
    from PIL import Image

    with Image.open(path) as img:
        return img.size


def grounding_table(summary: Mapping[str, Any]) -> Any:
    """Rows all / unique / non-unique; columns Acc@0.5, Acc@0.7 and mean IoU in %, and the count."""
    import pandas as pd

    rows = []
    for prefix, label in (("", "all"), ("unique/", "unique"), ("non_unique/", "non-unique")):
        if summary.get(f"{prefix}n"):
            rows.append(
                {
                    "referent": label,
                    "n": int(summary[f"{prefix}n"]),
                    "Acc@0.5": summary.get(f"{prefix}acc@0.5", math.nan) * 100,
                    "Acc@0.7": summary.get(f"{prefix}acc@0.7", math.nan) * 100,
                    "mean IoU": summary.get(f"{prefix}mean_iou", math.nan) * 100,
                }
            )
    return pd.DataFrame(rows, columns=["referent", "n", "Acc@0.5", "Acc@0.7", "mean IoU"])
