"""Scoring in bounded memory: the per-question frame spooled to disk, only the report's columns held.

``mapgen eval`` scores a benchmark of any size this way (:func:`mapgen.evaluation.run_eval` with
``keep_frame=False``). The questions are streamed from ``questions.jsonl`` (never all held, as records or as
:class:`~mapgen.questions.record.Question` objects) and scored :data:`CHUNK` at a time by the code that scores
them in memory (:func:`~mapgen.eval.score.evaluate`, and for the reference rows the random baseline's reply and the
analytic chance of each question). Each chunk's frame goes whole into a :class:`ScoreSpool` (an unnamed temporary
file, gone when closed), from which ``scores.csv`` is written chunk by chunk, each column typed as pandas types the
whole column. Of each chunk only what the report's tables, plots and bootstrap intervals read is kept
(:class:`StreamedScores`), and made into frames once at the end by the same construction as the whole frame's. The
files written are byte-identical to those of a report of the whole frame (:func:`~mapgen.eval.report.write_report`).

What stays in memory per question while the questions stream: 4 bytes per group column (:class:`Coded`: answer
type, map type, hatched, annotated, country, relative region, counterfactual set, difficulty, style), ~36 bytes.
The flags, the 15 scores and the 8 scores each of the random and chance references go to a :class:`ColumnSpool`
(a temporary file) and are read back when the report is made: the frame's once (~200 bytes a question with its
group columns, held while the report is written), each reference's when the report reads it (not kept:
:class:`SpooledReferences`). The gold of a question, its record, its scored row and what the process-wide caches
made of it (:data:`PER_QUESTION_CACHES`) are dropped with its chunk; a map's facts (for the references) are kept
for the last :data:`MAPS_KEPT` maps only. Bootstrap intervals draw their resamples a block at a time
(:func:`mapgen.eval.bootstrap.resample_blocks`).

Replies are joined to the questions through a :class:`~mapgen.eval.replies.ReplyStore` (a temporary SQLite table:
the predictions file is streamed into it, or a baseline's replies as they are made), each question's reply taken
once, and the replies no question took listed from it when read (the run's unmatched predictions).
"""

from __future__ import annotations

import itertools
import os
import pickle
import tempfile
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, Protocol

import pandas as pd

from mapgen.benchmark import DEFAULT_STYLE, QUESTIONS_FILE
from mapgen.caches import clear
from mapgen.eval.metrics import METRICS_BY_TYPE
from mapgen.eval.replies import ReplyStore
from mapgen.eval.score import GROUP_COLUMNS, Report, as_question, counterfactual_group, evaluate

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark
    from mapgen.questions.record import Question


class EvalScope(Protocol):
    """What a streamed run reads of :class:`mapgen.tasks.EvalScope` (the tasks sit a floor above)."""

    @property
    def bench(self) -> Benchmark: ...

    @property
    def split(self) -> str | None: ...

    @property
    def limit(self) -> int | None: ...

    @property
    def seed(self) -> int: ...

CHUNK = 2000
"""Questions scored (and spooled) at a time."""

MAPS_KEPT = 64
"""Maps whose facts (regions, legend) the reference rows keep at once; questions come in map order."""

PER_QUESTION_CACHES = ("eval.metrics.gold", "mapgen.eval.answers._extract_cached", "mapgen.eval.answers._parse_cached",
                       "mapgen.legend.grammar._find_ranges")
"""Process-wide caches (:func:`mapgen.caches.caches`) whose entries are one question's or one reply's: emptied after
each chunk (bounded, but their bounds are tens of thousands of entries)."""

METRIC_COLUMNS: tuple[str, ...] = tuple(dict.fromkeys(m for names in METRICS_BY_TYPE.values() for m in names))
FLAG_COLUMNS: tuple[str, ...] = ("parse_ok", "unparsed", "missing")
REFERENCE_SCORES: tuple[str, ...] = ("main", "binary_exact", "single_recall", "count_exact", "range_score",
                                     "list_precision", "list_recall", "ranking_rwp")
"""The scores of the random and chance frames the report reads (its paper tables' and the mean main score)."""


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


class Coded:
    """One column of Python values held as ``int32`` codes of its distinct values (4 bytes a row)."""

    def __init__(self) -> None:
        self.codes = array("i")
        self.values: list[Any] = []
        self._index: dict[tuple[type, Any], int] = {}

    def extend(self, values: Iterable[Any]) -> None:
        for value in values:
            key = (type(value), "nan" if value != value else value)  # NaN is no key of itself; True is not 1
            code = self._index.get(key)
            if code is None:
                code = self._index[key] = len(self.values)
                self.values.append(value)
            self.codes.append(code)

    def decoded(self) -> list[Any]:
        """The values, one a row (a list for pandas to type, as it types the column of a whole frame)."""
        values = self.values
        return [values[code] for code in self.codes]


class ColumnSpool:
    """Columns of one type appended a chunk at a time to an unnamed temporary file (never resident while the
    questions stream), read back once as one ``columns × rows`` array (the layout of a pandas block: the frame made
    of it copies nothing). Needs no bound of the rows in advance."""

    def __init__(self, columns: tuple[str, ...], dtype: str = "float64") -> None:
        import numpy as np

        self.columns, self.dtype, self.rows = columns, np.dtype(dtype), 0
        self._file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (open for the spool's life)
        self._chunks: list[tuple[int, int]] = []  # (offset, rows) of each chunk: its columns one after another

    def extend(self, frame: pd.DataFrame) -> None:
        offset = self._file.seek(0, 2)
        for column in self.columns:
            self._file.write(frame[column].to_numpy(dtype=self.dtype).tobytes())
        self._chunks.append((offset, len(frame)))
        self.rows += len(frame)

    def values(self) -> Any:
        """Every row of every column, read from the file: a ``columns × rows`` array."""
        import numpy as np

        out = np.empty((len(self.columns), self.rows), dtype=self.dtype)
        size, at = self.dtype.itemsize, 0
        for offset, count in self._chunks:
            self._file.seek(offset)
            block = np.frombuffer(self._file.read(len(self.columns) * count * size), dtype=self.dtype)
            out[:, at:at + count] = block.reshape(len(self.columns), count)
            at += count
        return out

    def frame(self) -> pd.DataFrame:
        """The columns as a frame (read from the file each time)."""
        return pd.DataFrame(self.values().T, columns=list(self.columns))


class SpooledReferences(Mapping[str, pd.DataFrame]):
    """The random and chance frames of a streamed run, each made from its :class:`ColumnSpool` when looked up (not
    kept: the report reads one at a time), its group columns those of the run's frame (copy-on-write)."""

    def __init__(self, groups: pd.DataFrame, spools: Mapping[str, ColumnSpool]) -> None:
        self._groups, self._spools = groups, dict(spools)

    def __getitem__(self, name: str) -> pd.DataFrame:
        return pd.concat([self._groups, self._spools[name].frame()], axis=1)

    def __iter__(self) -> Iterator[str]:
        return iter(self._spools)

    def __len__(self) -> int:
        return len(self._spools)


class StreamedScores:
    """The run's question frame built chunk by chunk: whole rows spooled, the report's columns kept compact
    (group columns as :class:`Coded`, flags and scores in :class:`ColumnSpool` s on disk) and made into frames once
    at the end (the references' each time they are read: :class:`SpooledReferences`)."""

    def __init__(self, styles: Mapping[str, str]) -> None:
        self.spool = ScoreSpool()
        self.styles = styles
        self.groups: dict[str, Coded] = {c: Coded() for c in (*GROUP_COLUMNS, "difficulty", *(["style"] if styles else []))}
        self.flags = ColumnSpool(FLAG_COLUMNS, "bool")
        self.scores = {"": ColumnSpool(("main", *METRIC_COLUMNS)), "random": ColumnSpool(REFERENCE_SCORES),
                       "chance": ColumnSpool(REFERENCE_SCORES)}
        self.with_refs = True

    def _group_values(self, questions: list[Question]) -> dict[str, list[Any]]:
        """The group columns of ``questions`` as :func:`mapgen.eval.score.evaluate`'s frame has them."""
        out: dict[str, list[Any]] = {c: [getattr(q, c) for q in questions] for c in GROUP_COLUMNS}
        out["counterfactual"] = [counterfactual_group(q) for q in questions]
        out["difficulty"] = [q.difficulty_bucket for q in questions]
        if self.styles:  # builds that draw map styles: the report breaks scores down by style
            out["style"] = [self.styles.get(q.map_id, DEFAULT_STYLE) for q in questions]
        return out

    def add(self, questions: list[Question], texts: Mapping[str, str | None], references: Callable[..., Any]) -> None:
        """Score one chunk: its frame spooled, its report columns and its references' scores kept."""
        frame = evaluate(questions, texts).frame
        groups = self._group_values(questions)
        if "style" in groups:
            frame["style"] = groups["style"]
        self.spool.add(frame)
        for column, coded in self.groups.items():
            coded.extend(groups[column])
        self.flags.extend(frame)
        self.scores[""].extend(frame)
        if self.with_refs:
            try:
                refs = references(questions, frame)
            except ValueError:  # a map JSON missing: no reference rows at all (as in memory)
                self.with_refs = False
            else:
                for name, ref in refs.items():
                    self.scores[name].extend(ref)
        clear(*PER_QUESTION_CACHES)  # the chunk's questions are gone: what was cached of them too

    def result(self) -> tuple[pd.DataFrame, Mapping[str, pd.DataFrame]]:
        """The report frame and the reference frames (report columns only; no references when a map JSON is
        missing), read from disk when looked up; they share the frame's group columns (copy-on-write: never
        copied)."""
        groups = pd.DataFrame(index=pd.RangeIndex(self.flags.rows))
        for column in list(self.groups):  # one column's values listed at a time
            groups[column] = self.groups.pop(column).decoded()
        frame = pd.concat([groups, self.flags.frame(), self.scores[""].frame()], axis=1)
        refs = SpooledReferences(groups, {n: self.scores[n] for n in ("random", "chance")}) if self.with_refs else {}
        return frame, refs


def random_answers(scope: EvalScope) -> ReplyStore:
    """The random baseline's replies to the run's questions (:func:`~mapgen.eval.baselines.random_baseline`'s),
    the questions streamed and the replies held on disk."""
    from mapgen.eval.baselines import facts_lookup, random_text

    bench = scope.bench
    facts = facts_lookup(lambda m: bench.spec(m, keep=False), keep=MAPS_KEPT)
    return ReplyStore((q.question_id, random_text(q, facts, scope.seed)) for q in iter_run_questions(scope))


def arrow_pool_returning_memory() -> None:
    """Have Arrow allocate with the C library's ``malloc`` from now on (pandas holds its strings in Arrow arrays),
    unless ``$ARROW_DEFAULT_MEMORY_POOL`` names a pool. Arrow's default pool (mimalloc) keeps the memory the report's
    group-bys free, so the process's peak grew with the questions (+9 to 11 % from 9k to 27k questions, +6 % with
    ``malloc``, which gives large blocks back); the pool changes no value."""
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    try:
        import pyarrow
    except ImportError:  # pandas without Arrow: nothing to set
        return
    pyarrow.set_memory_pool(pyarrow.system_memory_pool())


def stream_scores(scope: EvalScope, texts: Mapping[str, str | None],
                  other_ids: Collection[str]) -> tuple[Report, Mapping[str, pd.DataFrame]]:
    """The run's open-form question scores in bounded memory: a :class:`Report` whose ``frame`` holds the report
    columns and whose ``spool`` the whole rows, and the random and chance frames (report columns; none when a map
    JSON is missing). Replies under ``other_ids`` belong to other tasks."""
    from mapgen.eval.baselines import facts_lookup

    arrow_pool_returning_memory()
    bench = scope.bench
    facts = facts_lookup(lambda m: bench.spec(m, keep=False), keep=MAPS_KEPT)
    scores = StreamedScores(bench.map_styles)

    def references(questions: list[Question], frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return _references(questions, frame, facts, scope.seed)

    replies = ReplyStore.of(texts)  # on disk: each question's reply taken once, the rest listed at the end
    replies.mark_other(other_ids)
    stream = iter_run_questions(scope)
    while chunk := list(itertools.islice(stream, CHUNK)):
        scores.add(chunk, replies.take([q.question_id for q in chunk]), references)
    if not scores.spool._count:
        scores.add([], {}, references)
    frame, refs = scores.result()
    return Report(frame=frame, unmatched_predictions=replies.untaken(), spool=scores.spool), refs
