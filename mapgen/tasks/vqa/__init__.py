"""Visual question answering: MAPWise-style questions from the templates, asked on each image's Scene by the
question engine; scored per question by the metrics of :mod:`mapgen.eval.metrics` (the report's per-question
frame, paper tables and plots)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mapgen.benchmark import QUESTIONS_FILE
from mapgen.tasks.base import HarnessMetric, LmmsEvalHooks, Metric, Task, VlmEvalKitTable, record_id
from mapgen.tasks.registry import tasks
from mapgen.tasks.vqa.gold import balance_set, image_questions, question_counts
from mapgen.tasks.vqa.rows import COLUMNS, answer_text, question_row

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark
    from mapgen.config import BuildConfig
    from mapgen.eval.prompts import Prompt
    from mapgen.tasks.base import EvalScope, ImageContext, Record, TaskScores, Texts


def _metrics() -> tuple[Metric, ...]:
    from mapgen.eval.metrics import METRICS_BY_TYPE, metric_info

    names = dict.fromkeys(m for ms in METRICS_BY_TYPE.values() for m in ms)
    out = []
    for name in names:
        info = metric_info(name)
        out.append(Metric(name, "mean" if info.aggregation.__name__ == "mean" else "corpus", info.higher_is_better))
    return tuple(out)



class VqaTask(Task):
    """Questions with canonical and accepted answers; the run's per-question frame."""

    name = "vqa"
    lmms_eval = LmmsEvalHooks("mapgen_doc_to_text", "mapgen_process_results",
                              (HarnessMetric("mapgen_score", "mapgen_aggregate"), HarnessMetric("mapgen_parse_ok", "mean")))
    vlmevalkit = VlmEvalKitTable("", lambda r: {"question": r["question"], "answer": r["answer"],
                                                "category": r["answer_type"]})
    record_file = QUESTIONS_FILE
    columns = COLUMNS
    label = "VQA"
    noun = "questions"
    baselines = ("random", "prior")
    selection_fields = ("question_id", "template_id", "answer_type", "answer", "variant", "map_id", "country",
                        "split")

    @property
    def metrics(self) -> tuple[Metric, ...]:  # type: ignore[override]
        return _metrics()

    def gold(self, image: ImageContext) -> list[Record]:
        return image_questions(image)

    def select(self, records: list[Record], config: BuildConfig) -> list[Record]:
        return balance_set(records, config)

    def counts(self, records: Sequence[Record]) -> dict[str, Any]:
        return question_counts(records)

    def records(self, bench: Benchmark) -> list[Record]:
        return bench.question_records

    def iter_records(self, bench: Benchmark) -> Iterator[Record]:
        return bench.iter_records(QUESTIONS_FILE)

    def row(self, record: Record, bench: Benchmark) -> Record:
        return question_row(record, bench)

    def turn(self, record: Record, bench: Benchmark) -> tuple[str, str]:
        return record["question"], answer_text(record["answer"], record["answer_type"])

    def prompt(self, record: Record, bench: Benchmark | None, strategy: str = "direct") -> Prompt:
        from mapgen.eval.prompts import render_prompt

        return render_prompt(record, strategy, bench=bench)

    def prompts(self, scope: EvalScope, strategy: str = "direct") -> list[Prompt]:
        from mapgen.eval.prompts import render_prompt
        from mapgen.tasks.vqa.scores import asked_questions

        return [render_prompt(q, strategy, bench=scope.bench) for q in asked_questions(scope)]

    def parse(self, reply: str | None, record: Record | None = None) -> Any:
        from mapgen.eval.answers import extract_answer

        return extract_answer(reply, str((record or {}).get("answer_type") or "single"))

    def score(self, scope: EvalScope, texts: Texts) -> TaskScores:
        from mapgen.tasks.vqa.scores import score_questions

        others = {record_id(r) for t in tasks() if t is not self for r in t.iter_records(scope.bench)}
        return score_questions(scope, texts, others)

    def baseline(self, scope: EvalScope, name: str) -> Mapping[str, str | None]:
        from mapgen.tasks.vqa.scores import baseline_answers

        return baseline_answers(scope, name)

