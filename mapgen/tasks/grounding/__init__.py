"""Visual grounding (VRSBench): referring expressions with their boxes, from the Scene's description; scored by
IoU, Acc@0.5 and Acc@0.7 split unique / non-unique (:mod:`~mapgen.tasks.grounding.scores`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.benchmark import record_image_id
from mapgen.tasks.base import (
    HarnessMetric,
    LmmsEvalHooks,
    Metric,
    Task,
    TaskScores,
    VlmEvalKitTable,
    record_id,
)
from mapgen.tasks.grounding.rows import COLUMNS, box_percent, box_text, expression_text, grounding_row
from mapgen.tasks.vrsbench import image_notes

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark
    from mapgen.eval.prompts import Prompt
    from mapgen.tasks.base import EvalScope, ImageContext, Record, Texts
    from mapgen.tasks.grounding.scores import Box



class GroundingTask(Task):
    """Referring expressions (``referring_per_map`` per image) with their boxes."""

    name = "grounding"
    lmms_eval = LmmsEvalHooks("mapgen_grounding_doc_to_text", "mapgen_grounding_process_results",
                              tuple(HarnessMetric(m, "mean") for m in ("grounding_acc50", "grounding_acc70",
                                                                       "grounding_iou")))
    vlmevalkit = VlmEvalKitTable("_GROUNDING", lambda r: {
        "question": r["expression"], "answer": json.dumps(r["box_percent"]),
        "category": "unique" if r["unique"] else "non-unique"})
    record_file = "grounding.jsonl"
    columns = COLUMNS
    label = "Grounding"
    noun = "grounding records"
    site_field = "boxes"
    metrics = (Metric("acc@0.5"), Metric("acc@0.7"), Metric("mean_iou"))

    def gold(self, image: ImageContext) -> list[Record]:
        from mapgen.describe.records import grounding_eval_records

        notes = image_notes(image)
        referring = {r["question_id"]: r for r in notes["referring"]}
        out = []
        for record in grounding_eval_records(notes, image.meta["image"]):
            ref = referring[record["question_id"]]
            out.append(record | image.meta | {"target_code": ref["target_code"], "expression_type": ref["type"],
                                              "program": ref["program"]})
        return out

    def counts(self, records: Sequence[Record]) -> dict[str, Any]:
        return {self.key: len(records)}

    def row(self, record: Record, bench: Benchmark) -> Record:
        return grounding_row(record, bench)

    def export_record(self, record: Record, bench: Benchmark) -> Record:
        return record | {"box_percent": box_percent(record, bench)}

    def turn(self, record: Record, bench: Benchmark) -> tuple[str, str]:
        return f"[refer] give me the location of <p>{expression_text(record)}</p>", box_text(box_percent(record, bench))

    def prompt(self, record: Record, bench: Benchmark | None, strategy: str = "direct") -> Prompt:
        from mapgen.eval.prompts import render_prompt, task_question

        chosen = self.name if strategy == "direct" else strategy
        return render_prompt(task_question(record, self.name, bench), chosen, bench=bench)

    def prompts(self, scope: EvalScope, strategy: str = "direct") -> list[Prompt]:
        return [self.prompt(r, scope.bench) for r in self.records(scope.bench)]

    def parse(self, reply: str | None, record: Record | None = None) -> Box | None:
        from mapgen.eval.answers import parse_box

        return parse_box(reply)

    def score(self, scope: EvalScope, texts: Texts) -> TaskScores:
        """Summary (with the Acc@0.5 bootstrap interval) and per-record rows, when some record has a reply."""
        from mapgen.eval.bootstrap import mean_ci
        from mapgen.eval.metrics import accuracy_at
        from mapgen.tasks.grounding.scores import grounding_scores, image_size_of

        bench, records = scope.bench, self.records(scope.bench)
        if not any(record_id(r) in texts for r in records):  # texts may be on disk: looked up, not listed
            return TaskScores()

        def size(record: Mapping[str, Any]) -> tuple[int, int] | None:
            if record.get("width") and record.get("height"):
                return int(record["width"]), int(record["height"])
            return image_size_of(bench.image_path(record_image_id(dict(record))))

        summary, rows = grounding_scores(records, texts, size, scope.box_scale)
        out: dict[str, Any] = summary | {"box_scale": scope.box_scale}
        if rows:
            out["acc@0.5_ci"] = mean_ci([accuracy_at([r["iou"]], 0.5) for r in rows], scope.seed, "tasks|grounding")
        return TaskScores(summary=out, item_tables={"grounding_scores": rows})

    def site_view(self, bench: Benchmark, map_ids: Sequence[str], eval_dir: Path | None = None) -> dict[str, Any]:
        """The boxes of each map with their expressions (drawn over the image)."""
        out: dict[str, list[dict[str, Any]]] = {mid: [] for mid in map_ids}
        for g in self.records(bench):
            if g.get("box"):
                out.setdefault(str(g.get("map_id")), []).append({"text": g.get("question", ""), "box": g["box"]})
        return out

    def overview(self, summary: Mapping[str, Any], seed: int = 0) -> dict[str, Any] | None:
        from mapgen.eval.report import interval_text, percent

        if not summary.get("n"):
            return None
        return {"task": "Grounding", "n": int(summary["n"]), "metric": "Acc@0.5",
                "score": percent(summary.get("acc@0.5")), "95 % interval": interval_text(summary.get("acc@0.5_ci")),
                "random": float("nan"), "prior": float("nan"), "chance": float("nan")}

    def section(self, summary: Mapping[str, Any]) -> list[str]:
        from mapgen.eval.report import markdown_table
        from mapgen.tasks.grounding.scores import grounding_table

        return ["## Grounding (VRSBench)", "", markdown_table(grounding_table(summary)), ""]

