"""Evaluation runs: benchmark + a prediction source → scores → report folder.

:func:`run_eval` loads the benchmark, gets replies from one :data:`PredictionSource` (a predictions file or
mapping, a baseline, a model by name or a ready client), lets every registered task (:mod:`mapgen.tasks`) score
the replies to its records (VQA gives the per-question frame, :func:`~mapgen.eval.score.evaluate`), and writes the
report (:func:`~mapgen.eval.report.write_report`) when ``out_dir`` is given. It sits on the consumers' floor
(ARCHITECTURE.md §1), above the tasks it loops over and the ``eval`` modules they use.

A run trusts nothing it reads, and refuses before it writes anything (:class:`EvalInputError`, one line naming
the problem and the fix): a benchmark whose files fail their manifest checksums (:func:`mapgen.benchmark.
verify_folder`), an unknown split, a limit below 1, a report folder inside the benchmark, and predictions that
are empty, that name ids this benchmark does not have (another benchmark's) or that give one id twice. Unreadable
prediction lines are skipped and located (``file:line: reason``, :attr:`Predictions.invalid`); unparseable
answers and failed model requests are counted and listed in the summary.

Prediction files: JSONL with one ``{"question_id": ..., "prediction": ...}`` per line (``id`` for the id and
``response``/``output``/``text``/``answer`` for the text are accepted too; a non-string value is read as its
JSON text), or a JSON object ``{question_id: prediction}``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mapgen.benchmark import EVAL_KIND, Benchmark, Verify, load_benchmark
from mapgen.eval.clients import Completion, OpenAIClient, make_client
from mapgen.eval.prompts import Prompt
from mapgen.eval.replies import ReplyStore
from mapgen.eval.report import write_report
from mapgen.eval.score import Report, evaluate
from mapgen.files import atomic_folder, iter_json_lines, read_json, refuse_inside, write_jsonl_atomic
from mapgen.suggest import did_you_mean
from mapgen.tasks import EvalScope, Task, TaskScores, record_id
from mapgen.tasks import tasks as registered

ID_KEYS = ("question_id", "id")
TEXT_KEYS = ("prediction", "response", "output", "text", "answer")
PREDICTIONS_OUT = "predictions.jsonl"
CACHE_OUT = "model_cache.jsonl"
TRAIN_SPLIT = "train"
HELD_OUT_BASELINES = ("prior",)
"""Baselines learned from the train split: scored on the first other split unless the run names one."""


@dataclass
class EvalReport(Report):
    """A :class:`~mapgen.eval.score.Report` plus run information (``extra`` goes into ``summary.json``)."""

    extra: dict[str, Any] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    references: Mapping[str, Any] = field(default_factory=dict)
    """Report frames of the same questions under the random baseline (``random``) and at analytic chance
    (``chance``); report tables show them beside each group."""
    item_tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Per-item score tables written beside the report as ``<name>.csv`` (each task's
    :attr:`~mapgen.tasks.TaskScores.item_tables`)."""
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Per-item JSON records written beside the report as ``<name>.jsonl`` (each task's
    :attr:`~mapgen.tasks.TaskScores.item_records`, e.g. the gold tables beside the parsed replies)."""


SHOWN = 3
"""How many offending ids or lines a refusal names."""


class EvalInputError(ValueError):
    """An evaluation input refused before anything is written (the message names the problem and the fix)."""


@dataclass
class Predictions:
    """Predictions read from a file, with what was wrong in it: ``duplicates`` (each id given again),
    ``invalid`` (``file:line: reason`` of each unreadable line), ``places`` (where each id given more than once
    was given: the file is read again for them, so a file of distinct ids costs no place per line). The texts are
    held on disk (:class:`~mapgen.eval.replies.ReplyStore`), not in memory."""

    texts: ReplyStore = field(default_factory=ReplyStore)
    duplicates: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    places: dict[str, list[str]] = field(default_factory=dict)


# ------------------------------------------------------------------------------------------- predictions


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _first(record: Mapping[str, Any], keys: Sequence[str]) -> tuple[bool, Any]:
    for key in keys:
        if key in record:
            return True, record[key]
    return False, None


def _record_id(record: Any) -> Any:
    """The id a prediction record gives (``None``: none)."""
    return _first(record, ID_KEYS)[1] if isinstance(record, dict) else None


def _record_reply(invalid: list[str], where: str, record: Any) -> tuple[str, str | None] | None:
    """``(id, text)`` of one prediction record (``None``: unreadable, noted in ``invalid``)."""
    qid = _record_id(record)
    if qid is None:
        what = "no question_id" if isinstance(record, dict) else f"a JSON {type(record).__name__}, not an object"
        invalid.append(f"{where}: {what}")
        return None
    has_text, value = _first(record, TEXT_KEYS)
    if not has_text:
        invalid.append(f"{where}: no prediction for {qid!r} (give it as \"prediction\")")
    return str(qid), _as_text(value)


def _located(path: Path, data: Any = None) -> Iterator[tuple[str, Any, str | None]]:
    """``(where, record, error)`` of each record of a predictions file of records (``data``: a JSON list read)."""
    if data is not None:
        for number, record in enumerate(data, start=1):
            yield f"{path}: record {number}", record, None
        return
    for number, record, error in iter_json_lines(path):
        yield f"{path}:{number}", record, error


def _replies(path: Path, invalid: list[str], data: Any = None) -> Iterator[tuple[str, str | None]]:
    """``(id, text)`` of each readable record of a predictions file of records, streamed (bad ones noted)."""
    for where, record, error in _located(path, data):
        if error is not None:
            invalid.append(f"{where}: not valid JSON ({error})")
            continue
        if (reply := _record_reply(invalid, where, record)) is not None:
            yield reply


def _places(path: Path, ids: set[str], data: Any = None) -> dict[str, list[str]]:
    """Where each of ``ids`` is given in the file (read again)."""
    places: dict[str, list[str]] = {}
    for where, record, error in _located(path, data):
        qid = None if error is not None else _record_id(record)
        if qid is not None and str(qid) in ids:
            places.setdefault(str(qid), []).append(where)
    return places


def load_predictions(path: str | Path) -> Predictions:
    """Read a predictions file (JSONL records, a JSON list of records or a JSON ``{id: text}`` object).

    Bad lines are recorded in ``invalid`` rather than raised; a record without a text counts as missing. A JSONL
    file is streamed into the store (a JSON file is parsed whole first).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"predictions file not found: {path}")
    preds = Predictions()
    data = read_json(path) if path.suffix == ".json" else None
    if isinstance(data, dict):
        preds.texts.add((str(qid), _as_text(value)) for qid, value in data.items())
    elif path.suffix == ".json" and not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON object or a list of records")
    else:
        preds.texts.add(_replies(path, preds.invalid, data))
    preds.duplicates = preds.texts.duplicates()
    if preds.duplicates and not isinstance(data, dict):
        preds.places = _places(path, set(preds.duplicates), data)
    return preds


def _few(items: Sequence[str], total: int | None = None) -> str:
    """The first :data:`SHOWN` of ``items`` (of ``total``, by default as many as ``items``) and how many more."""
    total = len(items) if total is None else total
    shown = ", ".join(items[:SHOWN])
    return shown + (f", … ({total - SHOWN} more)" if total > SHOWN else "")


def _line_numbers(places: Sequence[str]) -> str:
    return ", ".join(p.rsplit(":", 1)[-1].strip() if ":" in p else p for p in places)


def check_predictions(preds: Predictions, source: str, bench: Benchmark) -> None:
    """Refuse (:class:`EvalInputError`) predictions that hold none, that give one id twice (named with their
    lines) or that name ids this benchmark has no record of (counted, a few shown)."""
    if not preds.texts:
        broken = f" ({len(preds.invalid)} unreadable lines: {_few(preds.invalid)})" if preds.invalid else ""
        raise EvalInputError(f"{source} holds no prediction{broken}; write one JSON object per line, "
                             '{"question_id": ..., "prediction": "<model text>"}')
    if preds.invalid and not preds.texts.has_text():
        raise EvalInputError(f"{source} holds no prediction text ({len(preds.invalid)} unreadable lines: "
                             f"{_few(preds.invalid)}); give each line a \"prediction\"")
    if preds.duplicates:
        twice = list(dict.fromkeys(preds.duplicates))
        named = [f"{qid!r} (lines {_line_numbers(preds.places.get(qid, []))})" for qid in twice]
        raise EvalInputError(f"{source} gives {len(twice)} ids more than once: {_few(named)}; keep one prediction "
                             "per id (eval never picks one for you)")
    for task in registered():  # the benchmark's records streamed past the ids given (on disk), never all held
        preds.texts.mark_known(record_id(r) for r in task.iter_records(bench))
    foreign = preds.texts.unknown_count()
    if foreign:
        shown = [repr(q) for q in preds.texts.unknown(SHOWN + 1)]
        raise EvalInputError(f"{foreign} of {len(preds.texts)} prediction ids in {source} are not ids of the "
                             f"benchmark {bench.root} ({_few(shown, foreign)}): predictions of another "
                             "benchmark? Score them against the benchmark they were made for, or remove those lines")


def write_predictions(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write ``{question_id, prediction, ...}`` records as JSONL (keys in the order given)."""
    return write_jsonl_atomic(path, rows, sort_keys=False, ensure_ascii=False)


# ------------------------------------------------------------------------------------------- model


def build_prompts(scope: EvalScope, strategy: str, chosen: Sequence[Task]) -> list[Prompt]:
    """Every prompt a model run sends: each chosen task's, in registry order (VQA's under ``strategy``)."""
    return [p for task in chosen for p in task.prompts(scope, strategy)]


def model_predictions(
    client: OpenAIClient, prompts: Sequence[Prompt], concurrency: int = 4
) -> tuple[dict[str, str | None], list[dict[str, str]], list[Completion]]:
    """Ask the model every prompt; returns predictions, failures ``{question_id, error}`` and completions."""
    lock = threading.Lock()
    done: list[Completion] = []

    def keep(result: Completion) -> None:
        with lock:
            done.append(result)

    results = client.complete_many(prompts, concurrency=concurrency, on_result=keep)
    texts = {r.question_id: r.text for r in results}
    failures = [{"question_id": r.question_id, "error": r.error or ""} for r in results if not r.ok]
    return texts, failures, results


# ------------------------------------------------------------------------------------------- prediction sources


@dataclass(frozen=True)
class Gathered:
    """A source's replies by record id and what it notes about them (into ``summary.json``)."""

    texts: Mapping[str, str | None]
    info: dict[str, Any]


@dataclass(frozen=True)
class PredictionsFile:
    """Replies read from a predictions file (see the module docstring)."""

    path: str | Path

    def gather(self, scope: EvalScope, chosen: Sequence[Task], out: Path | None) -> Gathered:
        preds = load_predictions(self.path)
        check_predictions(preds, str(self.path), scope.bench)
        return _noted(preds, f"predictions: {self.path}")


@dataclass(frozen=True)
class PredictionTexts:
    """Replies given in memory, ``{record id: text}``."""

    texts: Mapping[str, Any]

    def gather(self, scope: EvalScope, chosen: Sequence[Task], out: Path | None) -> Gathered:
        preds = Predictions(texts=ReplyStore((str(k), _as_text(v)) for k, v in self.texts.items()))
        check_predictions(preds, "the predictions given", scope.bench)
        return _noted(preds, "predictions (in memory)")


def _noted(preds: Predictions, source: str) -> Gathered:
    problems = (preds.invalid + [f"duplicate {d!r}" for d in preds.duplicates])[:100]
    return Gathered(preds.texts, {"source": source, "duplicate_predictions": len(preds.duplicates),
                                  "invalid_prediction_lines": len(preds.invalid), "prediction_problems": problems})


@dataclass(frozen=True)
class Baseline:
    """An image-blind baseline by name (``random``, ``prior``): each task answers with its own."""

    name: str

    def gather(self, scope: EvalScope, chosen: Sequence[Task], out: Path | None) -> Gathered:
        replies = (pair for task in chosen for pair in task.baseline(scope, self.name).items())
        texts = ReplyStore(replies)  # on disk; a later task's reply to an id replaces an earlier one's, as in a dict
        return Gathered(texts, {"source": f"baseline: {self.name}", "seed": scope.seed})


@dataclass(frozen=True)
class ModelClient:
    """A ready model client (an OpenAI-compatible chat endpoint) asked every chosen task's prompts."""

    client: OpenAIClient
    prompt: str = "direct"
    concurrency: int = 4

    def gather(self, scope: EvalScope, chosen: Sequence[Task], out: Path | None) -> Gathered:
        """Ask the model; writes its raw replies into ``out`` (``predictions.jsonl``)."""
        client = self.client
        texts, failures, results = model_predictions(client, build_prompts(scope, self.prompt, chosen),
                                                     self.concurrency)
        if results and len(failures) == len(results):
            raise EvalInputError(f"all {len(results)} requests to the model {client.model!r} at {client.base_url} "
                                 f"failed (first: {failures[0]['error'][:200]}); nothing was scored: check that the "
                                 "server runs and that --base-url, --model and the API key are right")
        info = {"source": f"model: {client.model}", "prompt": self.prompt, "base_url": client.base_url,
                "model_failures": len(failures), "failures": failures,
                "cached_responses": sum(r.cached for r in results)}
        if out is not None:
            rows = [{"question_id": r.question_id, "prediction": r.text, "error": r.error} for r in results]
            write_predictions(out / PREDICTIONS_OUT, rows)
        return Gathered(texts, info)


@dataclass(frozen=True)
class Model:
    """A model by name (``openai:NAME``) served at ``base_url``; its responses cached in ``cache`` (default
    ``OUT/model_cache.jsonl``)."""

    name: str
    prompt: str = "direct"
    base_url: str | None = None
    api_key: str | None = None
    concurrency: int = 4
    timeout: float = 120.0
    max_retries: int = 3
    cache: str | Path | None = None

    def gather(self, scope: EvalScope, chosen: Sequence[Task], out: Path | None) -> Gathered:
        cache = self.cache if self.cache is not None else (out / CACHE_OUT if out is not None else None)
        client = make_client(self.name, base_url=self.base_url, api_key=self.api_key, timeout=self.timeout,
                             max_retries=self.max_retries, cache=cache)
        if not client.api_key and "api.openai.com" in client.base_url:  # would wait out every request's timeout
            raise EvalInputError(f"no API key for {client.base_url} (model {self.name!r}): set $OPENAI_API_KEY or "
                                 "--api-key-env NAME, or give --base-url of your own server")
        return ModelClient(client, self.prompt, self.concurrency).gather(scope, chosen, out)


@dataclass(frozen=True)
class WrittenPredictions:
    """Replies a callable writes into the report folder first (``write(out)`` returns the predictions file, e.g.
    the pixel oracle's audit in ``OUT/audit``), then read as a predictions file; ``label`` names it in the summary
    (the path it was written to is a staging folder's)."""

    write: Callable[[Path | None], Path]
    label: str

    def gather(self, scope: EvalScope, chosen: Sequence[Task], out: Path | None) -> Gathered:
        gathered = PredictionsFile(self.write(out)).gather(scope, chosen, out)
        return Gathered(gathered.texts, gathered.info | {"source": self.label})


PredictionSource = PredictionsFile | PredictionTexts | Baseline | Model | ModelClient | WrittenPredictions
"""Where a run's replies come from: exactly one of these."""


def prediction_source(
    predictions: str | Path | Mapping[str, Any] | None = None,
    model: str | None = None,
    baseline: str | None = None,
    client: OpenAIClient | None = None,
    **model_options: Any,
) -> PredictionSource:
    """The source of exactly one of ``predictions`` (a file or a mapping), ``model``, ``client`` and ``baseline``
    (``ValueError`` otherwise); ``model_options`` go to :class:`Model` / :class:`ModelClient`."""
    given = [s for s in (predictions, model, baseline, client) if s is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of predictions, model (or client) and baseline")
    if client is not None:
        return ModelClient(client, **{k: v for k, v in model_options.items() if k in ("prompt", "concurrency")})
    if model is not None:
        return Model(model, **model_options)
    if baseline is not None:
        return Baseline(baseline)
    if isinstance(predictions, Mapping):
        return PredictionTexts(predictions)
    return PredictionsFile(str(predictions))


# ------------------------------------------------------------------------------------------- entry point


def reads(source: PredictionSource) -> Verify:
    """What a run with ``source`` reads of the benchmark, so verifies first: the images too when a model is
    shown them, else the records and map JSONs."""
    return "all" if isinstance(source, (Model, ModelClient)) else "records"


def check_options(bench: Benchmark, split: str | None, limit: int | None, out_dir: str | Path | None) -> None:
    """Refuse (:class:`EvalInputError`) a split the benchmark does not have (with the closest name), a limit
    below 1 and a report folder that is the benchmark folder or inside it."""
    splits = bench.splits()
    if split is not None and split not in splits:
        if not splits:
            raise EvalInputError(f"unknown split {split!r}: the questions of {bench.root} have no split; leave "
                                 "--split out")
        raise EvalInputError(f"unknown split {split!r} of {bench.root}{did_you_mean(split, splits)}")
    if limit is not None and limit < 1:
        raise EvalInputError(f"--limit {limit}: give at least 1 (the number of questions to evaluate), or leave "
                             "it out to evaluate them all")
    if out_dir is not None:
        try:
            refuse_inside(out_dir, bench.root, "the benchmark folder")
        except ValueError as exc:
            raise EvalInputError(str(exc)) from None


def held_out_split(bench: Benchmark) -> str | None:
    """The split a train-learned baseline is scored on by default: the first one that is not ``train``."""
    return next((s for s in bench.splits() if s != TRAIN_SPLIT), None)


def run_eval(
    bench: str | Path | Benchmark,
    source: PredictionSource,
    out_dir: str | Path | None = None,
    *,
    split: str | None = None,
    limit: int | None = None,
    seed: int = 0,
    form: str = "open",
    box_scale: str = "percent",
    tasks: Sequence[str] | None = None,
    plots: bool = True,
    force: bool = False,
    keep_frame: bool = True,
) -> EvalReport:
    """Evaluate one prediction source on a benchmark; writes the report folder when ``out_dir`` is given.

    ``split``/``limit`` select the questions (a train-learned baseline defaults to the held-out split);
    ``form="mcq"`` scores the multiple-choice form (:mod:`mapgen.eval.mcq`) of the single, range, count and binary
    questions; ``tasks`` names the tasks a model or baseline answers (all by default). Every registered task
    scores the replies to its records. A benchmark given by path is verified first (:func:`reads`); bad options
    and predictions are refused before anything is written (:class:`EvalInputError`). The report folder is
    written all-or-nothing (:func:`mapgen.files.atomic_folder`: a non-empty one is refused unless ``force``, one
    run per folder, a model's response cache kept across runs into it).

    ``keep_frame=False`` scores the open-form questions in bounded memory (:mod:`mapgen.eval.stream`, what
    ``mapgen eval`` runs; load the benchmark with ``lazy=True`` so its questions are never all read): the same
    report files, but the returned report's ``frame`` holds only the columns the report reads.
    """
    bench = bench if isinstance(bench, Benchmark) else load_benchmark(bench, verify=reads(source))
    check_options(bench, split, limit, out_dir)
    if isinstance(source, Baseline) and source.name in HELD_OUT_BASELINES and split is None:
        split = held_out_split(bench)
    scope = EvalScope(bench, split=split, limit=limit, seed=seed, form=form, box_scale=box_scale,
                      stream=not keep_frame)
    if out_dir is None:
        return _run(scope, source, tasks, None, plots)
    with atomic_folder(out_dir, replace=force, kind=EVAL_KIND, carry=(CACHE_OUT,)) as tmp:
        report = _run(scope, source, tasks, tmp, plots)
    final = Path(out_dir)
    report.paths = {name: final / path.relative_to(tmp) for name, path in report.paths.items()}
    return report


def _run(scope: EvalScope, source: PredictionSource, tasks: Sequence[str] | None, out: Path | None,
         plots: bool) -> EvalReport:
    """Gather the replies, score them and (into ``out``) write the report."""
    gathered = source.gather(scope, registered(tasks), out)
    base = {"benchmark": str(scope.bench.root), "split": scope.split, "form": scope.form, "seed": scope.seed}
    report = score_run(scope, gathered.texts, base | gathered.info)
    if out is not None:
        report.paths = write_report(report, out, report.extra, plots=plots, item_tables=report.item_tables,
                                    item_records=report.records, tasks=registered())
    return report


def score_run(scope: EvalScope, texts: Mapping[str, str | None], extra: Mapping[str, Any]) -> EvalReport:
    """Every registered task's scores of ``texts``: the per-question frame (and its references) of the task that
    gives one, each task's summary under its key in ``extra``, its per-item tables and records."""
    results: list[tuple[Task, TaskScores]] = [(task, task.score(scope, texts)) for task in registered()]
    framed = next((r for _, r in results if r.frame is not None), None)
    if framed is None:
        framed = TaskScores(frame=evaluate([], {}).frame)
    summaries = {task.key: r.summary for task, r in results if r.summary}
    report = EvalReport(frame=framed.frame, unmatched_predictions=framed.unmatched_predictions,
                        extra=dict(extra) | summaries, references=framed.references, spool=framed.spool)
    for _, r in results:
        report.item_tables |= r.item_tables
        report.records |= r.item_records
    return report
