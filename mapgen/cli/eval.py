"""``mapgen eval`` (score predictions, a model or a baseline on a benchmark) and ``mapgen prompt``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from mapgen.benchmark import load_benchmark
from mapgen.cli.limits import SEED, Finite, bounded
from mapgen.eval.baselines import BASELINES
from mapgen.eval.clients import MAX_CONCURRENCY, MAX_RETRIES, MAX_TIMEOUT
from mapgen.eval.prompts import Prompt, list_strategies
from mapgen.evaluation import (
    SHOWN,
    EvalReport,
    PredictionsFile,
    PredictionSource,
    WrittenPredictions,
    check_options,
    prediction_source,
    reads,
    run_eval,
)
from mapgen.files import refuse_inside, staging_folder
from mapgen.tasks import Task, record_id, tasks


@click.command("eval")
@click.argument("bench", type=click.Path(exists=True))
@click.option(
    "--predictions", type=click.Path(exists=True, dir_okay=False), help="JSONL of {question_id, prediction}."
)
@click.option("--human", "human", type=click.Path(exists=True, file_okay=False),
              help="A `mapgen human score` report: score the people's majority answers on their questions.")
@click.option("--beside", "beside", multiple=True, metavar="[NAME=]DIR",
              help="With --human: an eval folder (a model, random, prior, pixel) set beside the human row on the "
                   "same questions (sources.md); repeatable.")
@click.option("--model", help="Model to query, e.g. openai:gpt-4o-mini (any OpenAI-compatible server).")
@click.option(
    "--baseline",
    type=click.Choice([*BASELINES, "pixel"]),
    help="random (chance), prior (train split's most frequent answer per template; scored on the held-out split) "
    "or pixel (the audit's pixel oracle, the upper bound).",
)
@click.option(
    "--base-url",
    help="Server URL, e.g. http://localhost:8000/v1 (default $MAPGEN_BASE_URL/$OPENAI_BASE_URL).",
)
@click.option(
    "--api-key-env",
    default=None,
    help="Environment variable holding the API key (default $MAPGEN_API_KEY/$OPENAI_API_KEY).",
)
@click.option(
    "--prompt",
    "prompt",
    default="direct",
    show_default=True,
    help="Prompt strategy name or file (see `mapgen prompt --list`).",
)
@click.option("--concurrency", type=bounded(1, MAX_CONCURRENCY), default=4, show_default=True,
              help="Model requests in flight.")
@click.option("--timeout", type=Finite(0, MAX_TIMEOUT), default=120.0, show_default=True, help="Seconds per model request.")
@click.option("--retries", type=bounded(0, MAX_RETRIES), default=3, show_default=True,
              help="Retries per failed model request.")
@click.option(
    "--cache", type=click.Path(dir_okay=False), help="Response cache JSONL (default OUT/model_cache.jsonl)."
)
@click.option("--split", help="Evaluate only this split.")
@click.option("--limit", type=bounded(1, None), help="Evaluate only the first N questions.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the random baseline.")
@click.option(
    "--box-scale",
    type=click.Choice(["percent", "pixels"]),
    default="percent",
    show_default=True,
    help="Unit of predicted grounding boxes.",
)
@click.option(
    "--format",
    "form",
    type=click.Choice(["open", "mcq"]),
    default="open",
    show_default=True,
    help="mcq: score the multiple-choice form (letter answers) of single, range, count and binary questions.",
)
@click.option("--no-plots", is_flag=True, help="Skip the PNG plots.")
@click.option(
    "-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False),
    help="Report folder (new or empty, unless --force; written whole or not at all).",
)
@click.option("--force", is_flag=True, help="Replace a non-empty report folder (once the new report is complete).")
def eval_command(
    bench: str,
    predictions: str | None,
    human: str | None,
    beside: tuple[str, ...],
    model: str | None,
    baseline: str | None,
    base_url: str | None,
    api_key_env: str | None,
    prompt: str,
    concurrency: int,
    timeout: float,
    retries: int,
    cache: str | None,
    split: str | None,
    limit: int | None,
    seed: int,
    box_scale: str,
    form: str,
    no_plots: bool,
    out_dir: str,
    force: bool,
) -> None:
    """Score BENCH against --predictions, a --model or a --baseline and write a report folder."""
    import os

    if sum(x is not None for x in (predictions, human, model, baseline)) != 1:
        raise click.UsageError("give exactly one of --predictions, --human, --model and --baseline")
    if beside and human is None:
        raise click.UsageError("--beside sets eval folders beside a human row: give it with --human REPORT")
    if model is None and prompt != "direct":  # only a model is sent prompts: a strategy here would be ignored
        raise click.UsageError(f"--prompt {prompt} applies to --model only (predictions and baselines are sent no "
                               "prompt); leave it out")
    if predictions and any(staging_folder(p) for p in Path(predictions).absolute().parents):
        raise ValueError(f"--predictions {predictions} lies in the staging folder of a run that did not finish; "
                         "give the predictions file of a finished run (run it again if it was stopped)")
    api_key = os.environ.get(api_key_env) if api_key_env else None
    source: PredictionSource = PredictionsFile("")  # the pixel oracle's file, once the checks below pass
    if human is not None:
        from mapgen.human.source import human_predictions

        source = human_predictions(human, beside, plots=not no_plots)
    elif baseline != "pixel":
        source = prediction_source(predictions, model, baseline, prompt=prompt, base_url=base_url, api_key=api_key,
                                   concurrency=concurrency, timeout=timeout, max_retries=retries, cache=cache)
    verify = "all" if baseline == "pixel" else reads(source)  # the oracle reads the images
    folder = load_benchmark(bench, verify=verify, lazy=True).require_records()  # not a benchmark, or tampered: one line
    if human is not None:  # the questions people answered, and only those
        from mapgen.human.source import human_benchmark

        folder = human_benchmark(folder, human)
    check_options(folder, split, limit, out_dir)  # before the oracle or a model writes anything
    if cache:
        refuse_inside(cache, folder.root, "the benchmark folder", "--cache")
        refuse_inside(cache, out_dir, "the report folder", "--cache")  # replaced whole by a run (its default cache is kept)
    if baseline == "pixel":
        source = WrittenPredictions(lambda out: pixel_predictions(bench, out), "baseline: pixel, audit/predictions.jsonl")
    report = run_eval(folder, source, out_dir, seed=seed, split=split, limit=limit, box_scale=box_scale,
                      plots=not no_plots, form=form, force=force, keep_frame=human is not None)  # --human: whole
    echo_report(report, out_dir)


def echo_report(report: EvalReport, out_dir: str) -> None:
    """What ``mapgen eval`` prints of a run: counts and score, each task's line, the problems found (unreadable
    prediction lines located, the first few) and the report folder."""
    s = report.summary()
    click.echo(
        f"{s['n']} questions, score {s['score']:.4f}; unparsed {s['unparsed']}, missing {s['missing']}, "
        f"unknown ids {s['unmatched_predictions']}"
    )
    for task in tasks():
        line = task.echo(report.extra[task.key]) if report.extra.get(task.key) else None
        if line:
            click.echo(line)
    for key in ("duplicate_predictions", "invalid_prediction_lines", "model_failures"):
        if report.extra.get(key):
            click.echo(f"{key.replace('_', ' ')}: {report.extra[key]}{_located(report, key)}")
    if report.extra.get("beside"):  # a human result: its row beside the other sources (mapgen.human.beside)
        click.echo(f"human beside the other sources on the same questions: {Path(out_dir) / 'sources.md'}")
    click.echo(f"report: {out_dir}")


def _located(report: EvalReport, key: str) -> str:
    """The first few unreadable prediction lines, ``file:line: reason`` (skipped: scored as missing)."""
    if key != "invalid_prediction_lines":
        return ""
    problems = [p for p in report.extra.get("prediction_problems", []) if not p.startswith("duplicate ")]
    shown = "; ".join(problems[:SHOWN]) + ("; …" if len(problems) > SHOWN else "")
    return f" (skipped, scored as missing: {shown})" if shown else ""


def pixel_predictions(bench: str, out_dir: Path | None) -> Path:
    """Run the pixel oracle (``mapgen audit``) into ``OUT/audit`` (``out_dir``: the report's staging folder)
    and return its predictions file."""
    from mapgen.audit.audit import audit_benchmark

    result = audit_benchmark(bench, out_dir=None if out_dir is None else out_dir / "audit")
    return result.paths["predictions"]


@click.command("prompt")
@click.argument("bench", type=click.Path(exists=True), required=False)
@click.option("--prompt", "prompt", default="direct", show_default=True, help="Prompt strategy name or file.")
@click.option("--question", "question_id", help="Question id (or the id of another task's record).")
@click.option("--template", "template_id", help="Without BENCH: ask this template of --map and show its prompt.")
@click.option("--map", "map_json", type=click.Path(exists=True, dir_okay=False),
              help="A map JSON (from `mapgen render`) to ask --template of.")
@click.option("--templates", "packs", multiple=True, type=click.Path(exists=True),
              help="Template pack(s) holding --template, repeatable (with the built-in templates). "
                   "A pack's functions.py is Python and runs when the pack is named.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Seed of the question asked with --map.")
@click.option("--json", "as_json", is_flag=True, help="Print the prompt as JSON.")
@click.option("--list", "list_only", is_flag=True, help="List the prompt strategies.")
def prompt_command(
    bench: str | None, prompt: str, question_id: str | None, template_id: str | None, map_json: str | None,
    packs: tuple[str, ...], seed: int, as_json: bool, list_only: bool,
) -> None:
    """Print exactly what a model is sent for one question of BENCH.

    With --template and --map instead of BENCH (for a template author): the prompt of a question that template,
    built-in or from --templates packs, asks of one map."""
    if list_only:
        for name in list_strategies():
            click.echo(name)
        return
    if bench is None and template_id and map_json:
        _show_prompt(_template_prompt(template_id, map_json, packs, seed, prompt), as_json)
        return
    if bench is None or question_id is None:
        raise click.UsageError("give BENCH and --question, or --template and --map (or --list)")
    if packs or template_id or map_json:
        raise click.UsageError("--template, --map and --templates ask a fresh question: give them without BENCH "
                               "(BENCH's questions were asked when it was built, packs included)")
    b = load_benchmark(bench, verify="records")
    records: dict[str, tuple[Task, dict]] = {}
    for task in tasks():  # a question id wins over another task's record of the same id
        for r in task.records(b):
            records.setdefault(record_id(r), (task, r))
    if question_id not in records:
        try:
            b.question(question_id)
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
    task, record = records[question_id]
    _show_prompt(task.prompt(record, b, prompt), as_json)


def _template_prompt(template_id: str, map_json: str, packs: tuple[str, ...], seed: int, strategy: str) -> Prompt:
    """The prompt of the first question ``template_id`` (built-in or from ``packs``) asks of ``map_json``."""
    from mapgen.eval.prompts import render_prompt
    from mapgen.questions import instantiate, load_templates, rejections
    from mapgen.scene import load_scene

    template = (load_templates(list(packs), builtin=True) if packs else load_templates()).get(template_id)
    scene = load_scene(map_json)
    asked = instantiate(template, scene, 1, seed, max_answer_share=1.0, attempts=200)
    if not asked:
        why = "; ".join(rejections(template, scene, attempts=200, seed=seed))
        raise ValueError(f"{template_id} asks nothing of {map_json} ({why}); try another map or seed")
    image = Path(map_json).with_suffix(".png")
    return render_prompt(asked[0], strategy, image_path=image if image.is_file() else None)


def _show_prompt(rendered: Prompt, as_json: bool) -> None:
    if as_json:
        data = {
            "question_id": rendered.question_id,
            "strategy": rendered.strategy,
            "system": rendered.system,
            "images": [str(p) for p in rendered.images],
            "text": rendered.text,
        }
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(rendered.show())
