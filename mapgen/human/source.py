"""A human result as an evaluation source: ``mapgen eval BENCH --human REPORT/`` scores the people's majority
answers (``REPORT/predictions.jsonl`` of ``mapgen human score``) on exactly the questions they were given, so
the human row sits beside the models', random's, prior's and the pixel oracle's rows of the same questions.

A question without a majority answer has no line in the predictions file and scores 0 as missing — the human
baseline's own rule (:mod:`mapgen.human.score`). The run also sets the human row beside other eval folders of the
same benchmark on the same questions (``--beside``, :mod:`mapgen.human.beside`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mapgen.benchmark import QUESTIONS_FILE, TASK_FILES, Benchmark
from mapgen.evaluation import Gathered, PredictionsFile, score_run
from mapgen.files import read_jsonl
from mapgen.human.beside import Beside, check_labels, read_beside, write_beside
from mapgen.tasks import EvalScope, Task

MAJORITY_FILE = "majority.jsonl"
PREDICTIONS_FILE = "predictions.jsonl"


class HumanReportError(ValueError):
    """A folder that is not a ``mapgen human score`` report of this benchmark (the message names the fix)."""


def human_question_ids(report: str | Path) -> list[str]:
    """The ids of the questions a human report scored (its ``majority.jsonl``)."""
    path = Path(report) / MAJORITY_FILE
    if not path.is_file() or not (Path(report) / PREDICTIONS_FILE).is_file():
        raise HumanReportError(f"{report} has no {MAJORITY_FILE} and {PREDICTIONS_FILE}: not a human report; give "
                               "the folder `mapgen human score … -o REPORT` wrote")
    return [str(r["question_id"]) for r in read_jsonl(path)]


def human_benchmark(bench: Benchmark, report: str | Path) -> Benchmark:
    """``bench`` narrowed to the questions of the human ``report`` (the other tasks' records left out)."""
    ids = set(human_question_ids(report))
    foreign = sorted(ids - set(bench.by_id))
    if foreign:
        raise HumanReportError(f"{len(foreign)} questions of the human report {report} are not in {bench.root} "
                               f"(e.g. {foreign[0]!r}): score it against the benchmark its kit was sampled from")
    records = [r for r in bench.question_records if r["question_id"] in ids]
    questions = [q for q in bench.questions if q.question_id in ids]
    empty: dict[str, list[dict[str, Any]]] = {name: [] for name in TASK_FILES.values() if name != QUESTIONS_FILE}
    return dataclasses.replace(bench, question_records=records, questions=questions, _records=empty)


@dataclass(frozen=True)
class HumanAnswers(PredictionsFile):
    """The majority answers of a human report (``path``: the report folder's predictions file), labelled
    ``human`` in the run's summary, with the ``beside`` sources set beside them (:mod:`mapgen.human.beside`;
    ``plots``: draw ``plots/sources.png``)."""

    beside: tuple[Beside, ...] = field(default=())
    plots: bool = True

    def gather(self, scope: EvalScope, chosen: Sequence[Task], out: Path | None) -> Gathered:
        gathered = super().gather(scope, chosen, out)
        report = Path(self.path).parent
        human = score_run(scope, gathered.texts, {})  # the human row of the side-by-side tables
        tables = write_beside(human.frame, human.references, self.beside, report, out, self.plots, scope.seed)
        return Gathered(gathered.texts, gathered.info | {"source": f"human: {report} (majority)", "beside": tables})


def human_predictions(report: str | Path, beside: Sequence[str] = (), plots: bool = True) -> HumanAnswers:
    """The majority answers of a human report as an evaluation source, with the eval folders ``beside`` (each
    ``DIR`` or ``NAME=DIR``) read and restricted to the report's questions (refused before anything is written)."""
    ids = human_question_ids(report)
    sources = tuple(read_beside(spec, ids) for spec in beside)
    check_labels(sources)
    return HumanAnswers(Path(report) / PREDICTIONS_FILE, sources, plots)
