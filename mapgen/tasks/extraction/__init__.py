"""Table extraction: the whole map read back as a ``region → class / value`` table.

Its files: :mod:`~mapgen.tasks.extraction.gold` (the gold table of a Scene), :mod:`~.parse` (any reply → rows),
:mod:`~.scores` (metrics, chance, readings), :mod:`~.baselines` (random and train-split prior replies from a
view without the gold cells), :mod:`~.rows` (flat export rows) and :mod:`~.report` (its report pieces).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.tasks.base import HarnessMetric, LmmsEvalHooks, Metric, OwnPromptTask, TaskScores, VlmEvalKitTable
from mapgen.tasks.extraction.rows import COLUMNS, table_row

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark
    from mapgen.tasks.base import EvalScope, ImageContext, Record, Texts
    from mapgen.tasks.extraction.parse import ParsedTable

TRAIN_SPLIT = "train"
READINGS = "extraction_readings"
"""The per-table records of a report folder (``extraction_readings.jsonl``): each gold table beside the reply's
parsed table (the report site shows them)."""



class ExtractionTask(OwnPromptTask):
    """Gold tables from the Scene (legible regions only); scored by class accuracy / share within τ."""

    name = "extraction"
    lmms_eval = LmmsEvalHooks("mapgen_doc_to_text", "mapgen_extraction_process_results", (
        HarnessMetric("extraction_score", "mean"),
        *(HarnessMetric(f"extraction_{m}", "mean_present", higher_is_better=m != "mae_share")
          for m in ("class_accuracy", "pair_f1", "within_tolerance", "mae_share"))))
    vlmevalkit = VlmEvalKitTable("_EXTRACTION", lambda r: {
        "question": r["prompt"], "answer": r["answer"], "category": "hatched" if r["hatched"] else r["map_type"]},
        section="extraction")
    record_file = "extraction.jsonl"
    columns = COLUMNS
    label = "Table extraction"
    noun = "gold tables"
    site_field = "table"
    baselines = ("random", "prior")
    metrics = (Metric("class_accuracy"), Metric("pair_precision"), Metric("pair_recall"), Metric("pair_f1"),
               Metric("within_tolerance"), Metric("mae_share", higher_is_better=False))

    def gold(self, image: ImageContext) -> list[Record]:
        from mapgen.tasks.extraction.gold import gold_table

        meta = image.meta
        return [gold_table(image.scene) | {"image_id": meta["image"]} | meta]

    def row(self, record: Record, bench: Benchmark) -> Record:
        return table_row(record, bench, self.prompt(record, None).text)

    def turn(self, record: Record, bench: Benchmark) -> tuple[str, str]:
        return f"[table] {record['question']}", str(record["ground_truth"])

    def parse(self, reply: str | None, record: Record | None = None) -> ParsedTable:
        from mapgen.tasks.extraction.parse import parse_table

        return parse_table(reply)

    def of_split(self, bench: Benchmark, split: str | None) -> list[Record]:
        """The gold tables of ``split`` (all of them when None)."""
        return [r for r in self.records(bench) if split is None or r.get("split") == split]

    def score(self, scope: EvalScope, texts: Texts) -> TaskScores:
        """The summary, per-table score rows and readings of the run's split; the summary carries the train-split
        prior's row when the split is a held-out one (not ``train``, not all)."""
        from mapgen.tasks.extraction.scores import extraction_summary, table_readings

        records = self.of_split(scope.bench, scope.split)
        if not any(r["question_id"] in texts for r in records):  # texts may be on disk: looked up, not listed
            return TaskScores(item_records={READINGS: []})
        held_out = scope.split is not None and scope.split != TRAIN_SPLIT
        train = self.of_split(scope.bench, TRAIN_SPLIT) if held_out else []
        summary, rows = extraction_summary(records, texts, scope.seed, train=train)
        readings = [table_readings(r, texts.get(r["question_id"])) for r in records]
        return TaskScores(summary=summary, item_tables={"extraction_scores": rows},
                          item_records={READINGS: readings})

    def baseline(self, scope: EvalScope, name: str) -> dict[str, str]:
        """``random`` or ``prior`` (learned from the train split's tables) replies to the split's tables."""
        from mapgen.tasks.extraction.baselines import prior_replies, random_replies

        records = self.of_split(scope.bench, scope.split)
        if not records or name not in self.baselines:
            return {}
        if name == "random":
            return random_replies(records, scope.seed)
        return prior_replies(records, self.of_split(scope.bench, TRAIN_SPLIT))

    def overview(self, summary: Mapping[str, Any], seed: int = 0) -> dict[str, Any] | None:
        from mapgen.tasks.extraction.report import overview_row

        return overview_row(summary)

    def section(self, summary: Mapping[str, Any]) -> list[str]:
        from mapgen.tasks.extraction.report import section

        return section(summary)

    def plots(self, summary: Mapping[str, Any], folder: Path) -> dict[str, Path]:
        from mapgen.tasks.extraction.report import write_plot

        return {"plot_extraction": write_plot(summary, folder)}

    def site_view(self, bench: Benchmark, map_ids: Sequence[str], eval_dir: Path | None = None) -> dict[str, Any]:
        """Each map's gold table beside the run's parsed reply (``eval_dir``'s readings), else alone."""
        from mapgen.tasks.extraction.report import eval_readings, site_table

        gold = {str(r["map_id"]): r for r in self.records(bench)}
        readings = eval_readings(eval_dir) if eval_dir is not None else {}
        return {mid: site_table(gold.get(mid), readings.get(mid)) for mid in map_ids}

    def echo(self, summary: Mapping[str, Any]) -> str | None:
        from mapgen.tasks.extraction.report import echo_line

        return echo_line(summary)

