"""MAPWise layout: per-country question tables and MAPWise-schema map metadata.

Layout::

    DEST/<country>/questions.csv        map_id, template_no, question, ground_truth, c_or_d, relative_region,
                                        then mapgen's question_id, answer_type, split, variant, counterfactual
    DEST/<country>/questions.json       the same records as a JSON list
    DEST/<country>/metadata/<map_id>.json   MAPWise/MapQA metadata (:func:`mapgen.mapwise.schema.spec_to_mapwise`)
    DEST/<country>/images/<map_id>.png

Value conventions follow MAPWise's questions.csv: ``c_or_d`` is ``c`` (continuous legend) or ``d`` (discrete),
``relative_region`` ``Y``/``N``, ``template_no`` empty for mapgen templates without a MAPWise number, lists as
``A, B``, rankings as ``A > B = C`` (highest first), an empty answer as an empty cell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from mapgen.benchmark import MAPS_DIR, Benchmark, map_json_name
from mapgen.export.common import ExportError, answer_text, copy_images
from mapgen.files import write_json_atomic

COLUMNS: tuple[str, ...] = ("map_id", "template_no", "question", "ground_truth", "c_or_d", "relative_region",
                            "question_id", "answer_type", "split", "variant", "counterfactual")


def mapwise_row(r: dict[str, Any]) -> dict[str, Any]:
    """One question in MAPWise's columns (plus mapgen's identifiers)."""
    return {
        "map_id": r["map_id"],
        "template_no": r.get("mapwise_template"),
        "question": r["question"],
        "ground_truth": answer_text(r["answer"], r["answer_type"], empty=""),
        "c_or_d": "c" if r.get("map_type") == "continuous" else "d",
        "relative_region": "Y" if r.get("relative_region") else "N",
        "question_id": r["question_id"],
        "answer_type": r["answer_type"],
        "split": r.get("split") or "",
        "variant": r.get("variant") or "",
        "counterfactual": r.get("counterfactual_set") or r.get("counterfactual") or "",
    }


def map_metadata(bench: Benchmark, map_id: str) -> dict[str, Any]:
    """MAPWise-schema metadata of one map, from the spec stored beside its image."""
    from mapgen.mapwise.schema import spec_to_mapwise
    from mapgen.spec import load_spec

    return spec_to_mapwise(load_spec(bench.root / MAPS_DIR / map_json_name(map_id)))


def write(bench: Benchmark, dest: Path, **_: Any) -> None:
    """Write the per-country folders into ``dest``."""
    if not bench.question_records:
        raise ExportError(f"{bench.root} has no questions to export.")
    countries = sorted({r["country"] for r in bench.question_records})
    for country in countries:
        folder = dest / country
        records = [mapwise_row(r) for r in bench.question_records if r["country"] == country]
        frame = pd.DataFrame(records, columns=list(COLUMNS))
        frame["template_no"] = frame["template_no"].astype("Int64")
        folder.mkdir(parents=True)
        frame.to_csv(folder / "questions.csv", index=False)
        write_json_atomic(folder / "questions.json", records, sort_keys=False, ensure_ascii=False, newline=True)
        map_ids = list(dict.fromkeys(r["map_id"] for r in records))
        copy_images(bench, folder, map_ids)
        for map_id in map_ids:
            write_json_atomic(folder / "metadata" / f"{map_id}.json", map_metadata(bench, map_id), sort_keys=False,
                              ensure_ascii=False, newline=True)
