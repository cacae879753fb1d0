"""Detailed captions (VRSBench): gold from the Scene's description, scored with BLEU, METEOR, ROUGE-L and CIDEr
(:mod:`~mapgen.tasks.caption.scores`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.tasks.base import (
    HarnessMetric,
    LmmsEvalHooks,
    Metric,
    OwnPromptTask,
    TaskScores,
    VlmEvalKitTable,
    record_id,
)
from mapgen.tasks.rows import COMMON_COLUMNS, common_fields
from mapgen.tasks.vrsbench import image_notes, task_prompt_text

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark
    from mapgen.tasks.base import EvalScope, ImageContext, Record, Texts

COLUMNS: tuple[str, ...] = (*COMMON_COLUMNS, "caption", "prompt")
TRAINING_TURN = "[caption] Describe this map in detail."


def reference_caption(record: Mapping[str, Any]) -> str:
    """The caption of a caption record (VRSBench eval records keep it in ``ground_truth``)."""
    return str(record.get("caption") or record.get("ground_truth") or "")


def _references(record: Mapping[str, Any]) -> list[str]:
    value = record.get("ground_truth", record.get("caption", record.get("captions", "")))
    return [value] if isinstance(value, str) else [str(v) for v in value]



class CaptionTask(OwnPromptTask):
    """One detailed caption per image."""

    name = "caption"
    lmms_eval = LmmsEvalHooks("mapgen_doc_to_text", "mapgen_caption_process_results",
                              tuple(HarnessMetric(m, m) for m in ("caption_bleu4", "caption_meteor", "caption_rouge_l",
                                                                  "caption_cider")), target="caption")
    vlmevalkit = VlmEvalKitTable("_CAPTION", lambda r: {"question": r["prompt"], "answer": r["caption"],
                                                        "category": "caption"})
    record_file = "captions.jsonl"
    columns = COLUMNS
    label = "Captions"
    noun = "captions"
    site_field = "captions"
    metrics = (*(Metric(f"BLEU-{n}", "corpus") for n in range(1, 5)), Metric("METEOR", "corpus"),
               Metric("ROUGE-L"), Metric("CIDEr", "corpus"))

    def gold(self, image: ImageContext) -> list[Record]:
        from mapgen.describe.records import caption_eval_record

        notes = image_notes(image)
        record = caption_eval_record(notes, image.meta["image"]) | image.meta
        return [record | {"short_caption": notes["captions"]["short"]}]

    def counts(self, records: Sequence[Record]) -> dict[str, Any]:
        return {self.key: len(records)}

    def row(self, record: Record, bench: Benchmark) -> Record:
        return common_fields(record, bench) | {"caption": reference_caption(record),
                                               "prompt": task_prompt_text(record, self.name, "")}

    def turn(self, record: Record, bench: Benchmark) -> tuple[str, str]:
        return TRAINING_TURN, reference_caption(record)

    def parse(self, reply: str | None, record: Record | None = None) -> str:
        from mapgen.tasks.caption.scores import caption_text

        return caption_text(reply)

    def score(self, scope: EvalScope, texts: Texts) -> TaskScores:
        """Corpus metrics over every caption record (when some has a reply) and per-item rows."""
        from mapgen.tasks.caption.scores import caption_scores

        records = self.records(scope.bench)
        if not any(record_id(r) in texts for r in records):  # texts may be on disk: looked up, not listed
            return TaskScores()
        refs = {record_id(r): _references(r) for r in records}
        try:
            result = caption_scores(refs, {i: texts.get(i) for i in refs})
        except ImportError as exc:
            return TaskScores(summary={"error": "caption metrics need pycocoevalcap (pip install "
                                                f"'mapgen[eval]'): {exc}"})
        return TaskScores(summary=result.scores | {"tokenizer": result.tokenizer},
                          item_tables={"caption_scores": result.per_item})

    def site_view(self, bench: Benchmark, map_ids: Sequence[str], eval_dir: Path | None = None) -> dict[str, Any]:
        """The captions of each map (detailed and short)."""
        out: dict[str, list[dict[str, Any]]] = {mid: [] for mid in map_ids}
        for c in self.records(bench):
            out.setdefault(str(c.get("map_id")), []).append({"text": c.get("ground_truth", ""),
                                                             "short": c.get("short_caption")})
        return out

    def overview(self, summary: Mapping[str, Any], seed: int = 0) -> dict[str, Any] | None:
        if "CIDEr" not in summary:
            return None
        cider = summary["CIDEr"]
        return {"task": "Captions", "n": int(summary.get("n", 0) or 0), "metric": "CIDEr ×100",
                "score": math.nan if cider is None else float(cider) * 100, "95 % interval": "-",
                "random": math.nan, "prior": math.nan, "chance": math.nan}

    def section(self, summary: Mapping[str, Any]) -> list[str]:
        import pandas as pd

        from mapgen.eval.report import markdown_table

        cap = pd.DataFrame([{k: summary[k] for k in summary if k not in ("tokenizer",)}])
        return ["## Captions (VRSBench)", "", markdown_table(cap), ""]

