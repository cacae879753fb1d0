"""Scoring in bounded memory: the per-question frame spooled to disk, only the report's columns held.

``mapgen eval`` scores a benchmark of any size this way (:func:`mapgen.evaluation.run_eval` with
``keep_frame=False``). The questions are streamed from ``questions.jsonl`` (never all held, as records or as
:class:`~mapgen.questions.record.Question` objects) and scored :data:`CHUNK` at a time by the code that scores
them in memory (:func:`~mapgen.eval.score.evaluate`, and for the reference rows the random baseline's reply and the
analytic chance of each question). Each chunk's frame goes whole into a :class:`ScoreSpool` (an unnamed temporary
file, gone when closed), from which ``scores.csv`` is written chunk by chunk; of each frame only the columns the
report's tables, plots and bootstrap intervals read stay in memory (:data:`REPORT_COLUMNS`, and for the random and
chance references :data:`REFERENCE_COLUMNS`). The files written are byte-identical to those of a report of the
whole frame (:func:`~mapgen.eval.report.write_report`): every value is computed by the same code on the same
question, and each column gets the type pandas gives the whole column (:meth:`ScoreSpool.dtypes`).

What stays in memory per question: its row of the report columns (a handful of short strings and flags and 14
floats), twice more for the references (8 floats each beside the same strings), and the row's values in each
bootstrap cell while that cell is drawn; plus the predictions (id → reply text, read before scoring) and, per
map, its ``maps.jsonl`` record. The gold of a question, its record and its scored row are dropped with its chunk;
a map's facts (for the references) are kept for the last :data:`MAPS_KEPT` maps only.
"""

from __future__ import annotations

import itertools
import pickle
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

import pandas as pd

from mapgen.benchmark import DEFAULT_STYLE, QUESTIONS_FILE
from mapgen.eval.metrics import METRICS_BY_TYPE, clear_gold_cache
from mapgen.eval.score import GROUP_COLUMNS, Report, as_question, evaluate

if TYPE_CHECKING:
    from mapgen.questions.record import Question
    from mapgen.tasks.base import EvalScope

CHUNK = 2000
"""Questions scored (and spooled) at a time."""

MAPS_KEPT = 64
"""Maps whose facts (regions, legend) the reference rows keep at once; questions come in map order."""

METRIC_COLUMNS: tuple[str, ...] = tuple(dict.fromkeys(m for names in METRICS_BY_TYPE.values() for m in names))
REPORT_COLUMNS: tuple[str, ...] = (*GROUP_COLUMNS, "difficulty", "style", "parse_ok", "unparsed", "missing", "main",
                                   *METRIC_COLUMNS)
"""The columns of the per-question frame the report reads (``style`` only in builds that draw map styles)."""
REFERENCE_COLUMNS: tuple[str, ...] = (*GROUP_COLUMNS, "difficulty", "style", "main", "binary_exact", "single_recall",
                                      "count_exact", "range_score", "list_precision", "list_recall", "ranking_rwp")
"""The columns of the random and chance frames the report reads (its paper tables' and the mean main score)."""


# ------------------------------------------------------------------------------------------- spool


def _samples(series: pd.Series) -> dict[tuple[type, bool], Any]:
    """One value of each kind in ``series`` (type, missing or not): what pandas reads to type a column."""
    if series.dtype == object:
        out: dict[tuple[type, bool], Any] = {}
        for value in series.tolist():
            out.setdefault((type(value), value is None or value != value), value)
        return out
    values = series.head(1).tolist() + ([None] if series.hasnans else [])
    return {(type(v), v is None or v != v): v for v in values}


class ScoreSpool:
    """Frames of consecutive rows of one table, pickled into an unnamed temporary file as they come and read back
    one at a time, each column typed as pandas types the whole column (:meth:`dtypes`)."""

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (open for the spool's life; close())
        self._count = 0
        self._seen: dict[str, set[Any]] = {}
        self._samples: dict[str, dict[tuple[type, bool], Any]] = {}

    def add(self, frame: pd.DataFrame) -> None:
        """Append ``frame`` (its columns those of the first frame added)."""
        pickle.dump(frame, self._file, protocol=pickle.HIGHEST_PROTOCOL)
        self._count += 1
        for column in frame.columns:
            self._seen.setdefault(column, set()).add(frame[column].dtype)
            self._samples.setdefault(column, {}).update(_samples(frame[column]))

    def dtypes(self) -> dict[str, Any]:
        """Each column's type had its values come in one list (pandas' inference over one value of each kind)."""
        out = {}
        for column, seen in self._seen.items():
            samples = list(self._samples[column].values())
            out[column] = next(iter(seen)) if len(seen) == 1 else pd.Series(samples).dtype
        return out

    def frames(self) -> Iterator[pd.DataFrame]:
        """The frames added, in order, each with the whole columns' types."""
        dtypes = self.dtypes()
        self._file.seek(0)
        for _ in range(self._count):
            yield typed(pickle.load(self._file), dtypes)
        self._file.seek(0, 2)

    def close(self) -> None:
        self._file.close()


def typed(frame: pd.DataFrame, dtypes: Mapping[str, Any]) -> pd.DataFrame:
    """``frame`` with each column of ``dtypes`` cast to its type where it differs."""
    changed = {c: t for c, t in dtypes.items() if c in frame and frame[c].dtype != t}
    return frame.astype(changed) if changed else frame


def joined(parts: list[pd.DataFrame], dtypes: Mapping[str, Any]) -> pd.DataFrame:
    """The rows of ``parts`` as one frame with the whole columns' types (``parts`` emptied as it goes)."""
    if not parts:
        return pd.DataFrame()
    frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0].reset_index(drop=True)
    parts.clear()
    return typed(frame, dtypes)


# ------------------------------------------------------------------------------------------- questions


def iter_run_questions(scope: EvalScope) -> Iterator[Question]:
    """The questions of the run's split (the first ``limit``), streamed from the folder in file order."""
    records = scope.bench.iter_records(QUESTIONS_FILE)
    questions = (as_question(r) for r in records)
    chosen = (q for q in questions if scope.split is None or q.split == scope.split)
    return itertools.islice(chosen, scope.limit) if scope.limit is not None else chosen


def _references(questions: list[Question], frame: pd.DataFrame, facts: Callable[[str], Any],
                seed: int) -> dict[str, pd.DataFrame]:
    """The random and chance frames of one chunk (as :func:`mapgen.tasks.vqa.scores.chance_references` makes)."""
    from mapgen.eval.baselines import answer_space, random_text
    from mapgen.eval.chance import chance_frame, expected_scores

    texts: dict[str, str | None] = {q.question_id: random_text(q, facts, seed) for q in questions}
    chances = {q.question_id: expected_scores(q, answer_space(q, facts(q.map_id))) for q in questions}
    return {"random": evaluate(questions, texts).frame, "chance": chance_frame(frame, chances)}


class StreamedScores:
    """The run's question frame built chunk by chunk: whole rows spooled, report columns kept."""

    def __init__(self, styles: Mapping[str, str]) -> None:
        self.spool = ScoreSpool()
        self.styles = styles
        self.kept: list[pd.DataFrame] = []
        self.refs: dict[str, list[pd.DataFrame]] = {"random": [], "chance": []}
        self.with_refs = True

    def _styled(self, frame: pd.DataFrame) -> pd.DataFrame:
        if self.styles:  # builds that draw map styles: the report breaks scores down by style
            frame["style"] = [self.styles.get(m, DEFAULT_STYLE) for m in frame["map_id"]]
        return frame

    def add(self, questions: list[Question], texts: Mapping[str, str | None], references: Callable[..., Any]) -> None:
        """Score one chunk: its frame spooled, its report columns and its references kept."""
        frame = self._styled(evaluate(questions, texts).frame)
        self.spool.add(frame)
        self.kept.append(frame[[c for c in REPORT_COLUMNS if c in frame]].copy())
        if self.with_refs:
            try:
                refs = references(questions, frame)
            except ValueError:  # a map JSON missing: no reference rows at all (as in memory)
                self.with_refs, self.refs = False, {}
            else:
                for name, ref in refs.items():
                    ref = self._styled(ref)
                    self.refs[name].append(ref[[c for c in REFERENCE_COLUMNS if c in ref]].copy())
        clear_gold_cache()  # the chunk's questions are gone: their compiled golds too

    def result(self) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
        """The report frame and the reference frames (report columns only)."""
        dtypes = self.spool.dtypes()
        frame = joined(self.kept, dtypes)
        return frame, {name: joined(parts, dtypes) for name, parts in self.refs.items()}


def stream_scores(scope: EvalScope, texts: Mapping[str, str | None],
                  other_ids: Collection[str]) -> tuple[Report, dict[str, pd.DataFrame]]:
    """The run's open-form question scores in bounded memory: a :class:`Report` whose ``frame`` holds the report
    columns and whose ``spool`` the whole rows, and the random and chance frames (report columns; none when a map
    JSON is missing). Replies under ``other_ids`` belong to other tasks."""
    from mapgen.eval.baselines import facts_lookup

    bench = scope.bench
    facts = facts_lookup(lambda m: bench.spec(m, keep=False), keep=MAPS_KEPT)
    scores = StreamedScores(bench.map_styles)

    def references(questions: list[Question], frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return _references(questions, frame, facts, scope.seed)

    seen: set[str] = set()
    stream = iter_run_questions(scope)
    while chunk := list(itertools.islice(stream, CHUNK)):
        own = {q.question_id: texts.get(q.question_id) for q in chunk if q.question_id not in other_ids}
        seen.update(qid for qid in own if qid in texts)
        scores.add(chunk, {k: v for k, v in own.items() if k in texts}, references)
    if not scores.spool._count:
        scores.add([], {}, references)
    frame, refs = scores.result()
    unmatched = sorted(str(k) for k in texts if k not in other_ids and k not in seen)
    return Report(frame=frame, unmatched_predictions=unmatched, spool=scores.spool), refs
