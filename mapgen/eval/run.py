"""Evaluation runs: benchmark + (predictions file | model | baseline) → scores → report folder.

:func:`run_eval` loads the benchmark, gets predictions from exactly one source, scores the questions
(:func:`~mapgen.eval.score.evaluate`), the VRSBench caption and grounding tasks when the benchmark has them and
predictions exist for them, and writes the report (:func:`~mapgen.eval.report.write_report`) when ``out_dir``
is given. Bad input never stops a run: unreadable prediction lines, duplicates (the last one wins), unknown
ids, unparseable answers and failed model requests are counted and listed in the summary.

Prediction files: JSONL with one ``{"question_id": ..., "prediction": ...}`` per line (``id`` for the id and
``response``/``output``/``text``/``answer`` for the text are accepted too; a non-string value is read as its
JSON text), or a JSON object ``{question_id: prediction}``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mapgen.benchmark import Benchmark, load_benchmark, record_image_id
from mapgen.eval.baselines import TRAIN_SPLIT, facts_lookup, random_baseline, run_baseline
from mapgen.eval.bootstrap import mean_ci
from mapgen.eval.captions import caption_scores, grounding_scores, image_size_of, record_id
from mapgen.eval.chance import chance_frame, chance_scores
from mapgen.eval.clients import Completion, OpenAIClient, make_client
from mapgen.eval.mcq import MCQ_TYPES, choices_for, mcq_question, random_letters, score_mcq
from mapgen.eval.metrics import METRICS_BY_TYPE, accuracy_at
from mapgen.eval.prompts import Prompt, render_prompt, task_question
from mapgen.eval.report import write_report
from mapgen.eval.score import Report, evaluate
from mapgen.eval.table_baselines import prior_replies, random_replies
from mapgen.eval.table_scores import extraction_summary, table_readings
from mapgen.files import iter_json_lines, read_json, write_jsonl_atomic
from mapgen.questions.record import Question

ID_KEYS = ("question_id", "id")
TEXT_KEYS = ("prediction", "response", "output", "text", "answer")
PREDICTIONS_OUT = "predictions.jsonl"
MCQ_FORM = "mcq"
FORMS = ("open", MCQ_FORM)
_ALL_METRICS = tuple(m for names in METRICS_BY_TYPE.values() for m in names)
CACHE_OUT = "model_cache.jsonl"


@dataclass
class EvalReport(Report):
    """A :class:`~mapgen.eval.score.Report` plus run information (``extra`` goes into ``summary.json``)."""

    extra: dict[str, Any] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    references: dict[str, Any] = field(default_factory=dict)
    """Report frames of the same questions under the random baseline (``random``) and at analytic chance
    (``chance``); report tables show them beside each group."""
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Per-item JSON records written beside the report as ``<name>.jsonl`` (``extraction_readings``: each gold
    table beside the reply's parsed table, read by the report site)."""


@dataclass
class Predictions:
    """Predictions read from a file, with what was wrong in it."""

    texts: dict[str, str | None] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)


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


def _add(preds: Predictions, qid: Any, value: Any) -> None:
    key = str(qid)
    if key in preds.texts:
        preds.duplicates.append(key)
    preds.texts[key] = _as_text(value)


def _add_record(preds: Predictions, where: str, record: Any) -> None:
    has_id, qid = _first(record, ID_KEYS) if isinstance(record, dict) else (False, None)
    if not has_id or qid is None:
        preds.invalid.append(f"{where}: no question_id")
        return
    has_text, value = _first(record, TEXT_KEYS)
    if not has_text:
        preds.invalid.append(f"{where}: no prediction for {qid!r}")
    _add(preds, qid, value)


def load_predictions(path: str | Path) -> Predictions:
    """Read a predictions file (JSONL records, a JSON list of records or a JSON ``{id: text}`` object).

    Bad lines are recorded in ``invalid`` rather than raised; a record without a text counts as missing.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"predictions file not found: {path}")
    preds = Predictions()
    if path.suffix == ".json":
        data = read_json(path)
        if isinstance(data, dict):
            for qid, value in data.items():
                _add(preds, qid, value)
        elif isinstance(data, list):
            for number, record in enumerate(data, start=1):
                _add_record(preds, f"record {number}", record)
        else:
            raise ValueError(f"{path}: expected a JSON object or a list of records")
        return preds
    for number, record, error in iter_json_lines(path):
        if error is not None:
            preds.invalid.append(f"line {number}: not valid JSON ({error})")
            continue
        _add_record(preds, f"line {number}", record)
    return preds


def write_predictions(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write ``{question_id, prediction, ...}`` records as JSONL (keys in the order given)."""
    return write_jsonl_atomic(path, rows, sort_keys=False, ensure_ascii=False)


# ------------------------------------------------------------------------------------------- model


def build_prompts(
    bench: Benchmark, questions: Sequence[Question], prompt: str, tasks: Sequence[str]
) -> list[Prompt]:
    """Every prompt a model run sends: the questions, then caption and grounding records."""
    prompts = [render_prompt(q, prompt, bench=bench) for q in questions] if "vqa" in tasks else []
    for task, records in (("caption", bench.captions), ("grounding", bench.grounding),
                          ("extraction", bench.extraction)):
        if task in tasks:
            prompts += [render_prompt(task_question(r, task, bench), task, bench=bench) for r in records]
    return prompts


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


# ------------------------------------------------------------------------------------------- tasks


def _caption_refs(record: Mapping[str, Any]) -> list[str]:
    value = record.get("ground_truth", record.get("caption", record.get("captions", "")))
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _score_captions(bench: Benchmark, texts: Mapping[str, str | None]) -> tuple[dict[str, Any], list[dict]]:
    ids = {record_id(r) for r in bench.captions}
    if not ids & set(texts):
        return {}, []
    refs = {record_id(r): _caption_refs(r) for r in bench.captions}
    try:
        result = caption_scores(refs, {i: texts.get(i) for i in refs})
    except ImportError as exc:
        return {"error": f"caption metrics need pycocoevalcap (pip install 'mapgen[eval]'): {exc}"}, []
    return result.scores | {"tokenizer": result.tokenizer}, result.per_item


def _score_grounding(
    bench: Benchmark, texts: Mapping[str, str | None], box_scale: str
) -> tuple[dict[str, Any], list[dict]]:
    ids = {record_id(r) for r in bench.grounding}
    if not ids & set(texts):
        return {}, []

    def size(record: Mapping[str, Any]) -> tuple[int, int] | None:
        if record.get("width") and record.get("height"):
            return int(record["width"]), int(record["height"])
        return image_size_of(bench.image_path(record_image_id(dict(record))))

    summary, rows = grounding_scores(bench.grounding, texts, size, box_scale)
    return summary | {"box_scale": box_scale}, rows


# ------------------------------------------------------------------------------------------- entry point


def _held_out_split(bench: Benchmark) -> str | None:
    """The split the prior baseline is scored on by default: the first one that is not ``train``."""
    return next((s for s in bench.splits() if s != TRAIN_SPLIT), None)


def select_questions(bench: Benchmark, split: str | None = None, limit: int | None = None) -> list[Question]:
    """The questions to evaluate (one split, the first ``limit``)."""
    questions = [q for q in bench.questions if split is None or q.split == split]
    return questions[:limit] if limit is not None else questions


def run_eval(
    bench: str | Path | Benchmark,
    predictions: str | Path | Mapping[str, str | None] | None = None,
    model: str | None = None,
    baseline: str | None = None,
    prompt: str = "direct",
    out_dir: str | Path | None = None,
    *,
    client: OpenAIClient | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    concurrency: int = 4,
    timeout: float = 120.0,
    max_retries: int = 3,
    cache: str | Path | None = None,
    seed: int = 0,
    split: str | None = None,
    limit: int | None = None,
    tasks: Sequence[str] = ("vqa", "caption", "grounding", "extraction"),
    box_scale: str = "percent",
    plots: bool = True,
    form: str = "open",
) -> EvalReport:
    """Evaluate one prediction source on a benchmark; writes the report folder when ``out_dir`` is given.

    Exactly one of ``predictions`` (a file or a ``{question_id: text}`` mapping), ``model`` (``openai:NAME``,
    served at ``base_url``), ``client`` or ``baseline`` (``random`` or ``prior``) must be given. ``form="mcq"``
    scores the multiple-choice form (:mod:`mapgen.eval.mcq`) of the single, range, count and binary questions.
    """
    sources = [s for s in (predictions, model, baseline, client) if s is not None]
    if len(sources) != 1:
        raise ValueError("give exactly one of predictions, model (or client) and baseline")
    bench = bench if isinstance(bench, Benchmark) else load_benchmark(bench)
    if baseline == "prior" and split is None:
        split = _held_out_split(bench)
    questions = _form_questions(select_questions(bench, split, limit), form)
    out = Path(out_dir) if out_dir is not None else None
    extra: dict[str, Any] = {"benchmark": str(bench.root), "split": split, "form": form, "seed": seed}
    if predictions is not None:
        texts = _given_predictions(predictions, extra)
    elif baseline is not None:
        texts = _baseline_predictions(bench, questions, baseline, seed, extra)
    else:
        if client is None:
            cache_path = cache if cache is not None else (out / CACHE_OUT if out is not None else None)
            client = make_client(str(model), base_url=base_url, api_key=api_key, timeout=timeout,
                                 max_retries=max_retries, cache=cache_path)
        asked = mcq_run(bench, questions, seed) if form == MCQ_FORM else questions
        texts = _model_run(bench, asked, client, prompt, tasks, concurrency, out, extra)
    report, item_tables = score_run(bench, questions, texts, extra, box_scale)
    if out is not None:
        report.paths = write_report(report, out, extra, plots=plots, item_tables=item_tables,
                                    item_records=report.records)
    return report


def _form_questions(questions: list[Question], form: str) -> list[Question]:
    """The questions a form scores: all of them (``open``), those with an MCQ form (``mcq``)."""
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; known: {', '.join(FORMS)}")
    return [q for q in questions if q.answer_type in MCQ_TYPES] if form == MCQ_FORM else questions


def _given_predictions(
    predictions: str | Path | Mapping[str, str | None], extra: dict[str, Any]
) -> dict[str, str | None]:
    """Predictions from a mapping or a file; notes the source and the file's problems in ``extra``."""
    if isinstance(predictions, Mapping):
        preds = Predictions(texts={str(k): _as_text(v) for k, v in predictions.items()})
        extra["source"] = "predictions (in memory)"
    else:
        preds = load_predictions(predictions)
        extra["source"] = f"predictions: {predictions}"
    extra["duplicate_predictions"] = len(preds.duplicates)
    extra["invalid_prediction_lines"] = len(preds.invalid)
    extra["prediction_problems"] = (preds.invalid + [f"duplicate {d!r}" for d in preds.duplicates])[:100]
    return preds.texts


def _baseline_predictions(
    bench: Benchmark, questions: Sequence[Question], baseline: str, seed: int, extra: dict[str, Any]
) -> dict[str, str | None]:
    """A baseline's answers (the train split as its prior when the benchmark has one)."""
    train = [q for q in bench.questions if q.split == TRAIN_SPLIT]
    texts: dict[str, str | None]
    if baseline == "random" and extra.get("form") == MCQ_FORM:
        texts = dict(random_letters(questions, facts_lookup(bench.spec), seed=seed))
    else:
        answers = run_baseline(baseline, questions, seed=seed, map_of=bench.spec, train=train) if questions else {}
        texts = dict(answers)
    texts |= table_baseline(bench, baseline, extra.get("split"), seed)
    extra |= {"source": f"baseline: {baseline}", "seed": seed}
    return texts


def _tables_of(bench: Benchmark, split: str | None) -> list[dict[str, Any]]:
    return [r for r in bench.extraction if split is None or r.get("split") == split]


def table_baseline(bench: Benchmark, baseline: str, split: str | None, seed: int = 0) -> dict[str, str]:
    """The extraction baseline's replies to the gold tables of ``split``: ``random`` or ``prior`` (learned from
    the train split's tables, :mod:`mapgen.eval.table_baselines`); none for other baselines or without tables."""
    records = _tables_of(bench, split)
    if not records or baseline not in ("random", "prior"):
        return {}
    if baseline == "random":
        return random_replies(records, seed)
    return prior_replies(records, _tables_of(bench, TRAIN_SPLIT))


def _model_run(
    bench: Benchmark,
    questions: Sequence[Question],
    client: OpenAIClient,
    prompt: str,
    tasks: Sequence[str],
    concurrency: int,
    out: Path | None,
    extra: dict[str, Any],
) -> dict[str, str | None]:
    """Ask the model every prompt; notes the run in ``extra`` and writes its raw predictions into ``out``."""
    prompts = build_prompts(bench, questions, prompt, tasks)
    texts, failures, results = model_predictions(client, prompts, concurrency)
    extra |= {"source": f"model: {client.model}", "prompt": prompt, "base_url": client.base_url}
    extra |= {
        "model_failures": len(failures),
        "failures": failures,
        "cached_responses": sum(r.cached for r in results),
    }
    if out is not None:
        rows = [{"question_id": r.question_id, "prediction": r.text, "error": r.error} for r in results]
        write_predictions(out / PREDICTIONS_OUT, rows)
    return texts


def score_run(
    bench: Benchmark,
    questions: Sequence[Question],
    texts: Mapping[str, str | None],
    extra: dict[str, Any],
    box_scale: str = "percent",
) -> tuple[EvalReport, dict[str, list[dict]]]:
    """Score the questions and, when the benchmark has them, the caption and grounding tasks; returns the report
    and the per-item caption and grounding score rows."""
    task_ids = {record_id(r) for r in (*bench.captions, *bench.grounding, *bench.extraction)}
    vqa_texts = {k: v for k, v in texts.items() if k not in task_ids}
    seed = int(extra.get("seed") or 0)
    if extra.get("form") == MCQ_FORM:
        base = score_mcq(questions, vqa_texts, facts_lookup(bench.spec), seed=seed)
    else:
        base = evaluate(questions, vqa_texts)
    report = EvalReport(frame=base.frame, unmatched_predictions=base.unmatched_predictions, extra=extra)
    report.references = chance_references(bench, questions, base.frame, seed, extra.get("form"))
    captions, caption_rows = _score_captions(bench, texts) if bench.captions else ({}, [])
    grounding, grounding_rows = _score_grounding(bench, texts, box_scale) if bench.grounding else ({}, [])
    if grounding_rows:
        grounding["acc@0.5_ci"] = mean_ci([accuracy_at([r["iou"]], 0.5) for r in grounding_rows], seed,
                                          "tasks|grounding")
    if captions:
        extra["captions"] = captions
    if grounding:
        extra["grounding"] = grounding
    tables, table_rows, readings = _score_extraction(bench, texts, seed, extra.get("split"))
    if tables:
        extra["extraction"] = tables
    report.records = {"extraction_readings": readings}
    return report, {"caption_scores": caption_rows, "grounding_scores": grounding_rows,
                    "extraction_scores": table_rows}


def _score_extraction(
    bench: Benchmark, texts: Mapping[str, str | None], seed: int, split: str | None = None
) -> tuple[dict, list[dict], list[dict]]:
    """The table-extraction summary, per-table score rows and per-table readings (:func:`table_readings`) of
    ``split`` (all tables when None), when the benchmark has gold tables and some reply. The summary carries the
    train-split prior's row when ``split`` is a held-out split (not ``train``, not all)."""
    records = _tables_of(bench, split)
    if not {r["question_id"] for r in records} & set(texts):
        return {}, [], []
    held_out = split is not None and split != TRAIN_SPLIT
    train = _tables_of(bench, TRAIN_SPLIT) if held_out else []
    summary, rows = extraction_summary(records, texts, seed, train=train)
    return summary, rows, [table_readings(r, texts.get(r["question_id"])) for r in records]


def chance_references(
    bench: Benchmark, questions: Sequence[Question], frame: Any, seed: int = 0, form: str | None = None
) -> dict[str, Any]:
    """Report frames of the same questions scored by the random baseline (``random``: empirical) and by its exact
    expectation (``chance``: analytic; 1 / options in MCQ form); empty when a question's map JSON is missing."""
    try:
        if form == MCQ_FORM:
            facts = facts_lookup(bench.spec)
            choices = choices_for(questions, facts, seed=seed)
            chances = {qid: dict.fromkeys(_ALL_METRICS, 1 / len(c.options)) for qid, c in choices.items()}
            random_frame = score_mcq(questions, random_letters(questions, facts, seed=seed), facts, seed=seed).frame
        else:
            chances = chance_scores(questions, bench.spec)
            random_frame = evaluate(questions, random_baseline(questions, bench.spec, seed=seed)).frame
    except ValueError:
        return {}
    return {"random": random_frame, "chance": chance_frame(frame, chances)}


def mcq_run(bench: Benchmark, questions: Sequence[Question], seed: int) -> list[Question]:
    """The questions a multiple-choice run asks: the MCQ twins of the single, range, count and binary ones."""
    choices = choices_for(questions, facts_lookup(bench.spec), seed=seed)
    return [mcq_question(q, choices[q.question_id]) for q in questions if q.question_id in choices]
