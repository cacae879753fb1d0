"""Figures of the table-extraction task on a built benchmark (docs/tasks-and-evaluation.md "Table extraction").

Run: ``python benchmarks/extraction_figures.py BENCH [--seeds 10] [--rounds 3]`` on a folder built with
``tasks: [..., extraction]``.

Prints:

- the gold tables: how many, rows per table, regions left out as illegible, N/A rows, per map variant;
- the random baseline (mean over ``--seeds`` seeds) beside its analytic chance, per map variant, in %;
- with a train split: on the held-out tables the train-split prior (:mod:`mapgen.tasks.extraction.baselines`), the
  random baseline and the chance level, the prior's permutation null (its expected score if region identity
  carried no information: :func:`~mapgen.tasks.extraction.scores.permutation_null`), and the prior on the held-out
  tables whose statistic no train map shows;
- scoring throughput: every table answered in five reply formats (Markdown with chatter, CSV in a fence, a JSON
  object, JSON rows, bullets naming regions by code), parsed and scored by :func:`score_tables`; tables/s over
  ``--rounds`` rounds (best round, process CPU time).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
import time
from collections.abc import Callable

from mapgen.benchmark import load_benchmark
from mapgen.tasks import get_task
from mapgen.tasks.extraction.baselines import prior_replies
from mapgen.tasks.extraction.scores import (
    chance_summary,
    permutation_null,
    random_replies,
    score_tables,
    summarize,
)

VARIANTS = ("discrete", "hatched", "continuous")
MAIN = {"discrete": "class_accuracy", "hatched": "class_accuracy", "continuous": "within_tolerance"}


def variant(table: dict) -> str:
    return "hatched" if table["hatched"] else table["map_type"]


def cell(table: dict, row: dict) -> str:
    if table["map_type"] == "discrete":
        return row["class"]
    return "N/A" if row["value"] is None else f"{row['value']:,.3f}"


def markdown(t: dict) -> str:
    body = [f"| {r['region']} | {cell(t, r)} |" for r in t["rows"]]
    return "\n".join(["Here is the table:", "", "| Region | Reading |", "|---|---|", *body, "", "Hope this helps."])


def csv_fenced(t: dict) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([["region", "value"], *([r["region"], cell(t, r)] for r in t["rows"])])
    return f"```csv\n{out.getvalue()}```"


def json_object(t: dict) -> str:
    return json.dumps({"answer": {r["region"]: cell(t, r) for r in t["rows"]}})


def json_rows(t: dict) -> str:
    return json.dumps([{"region": r["region"], "value": cell(t, r)} for r in t["rows"]])


def bullets(t: dict) -> str:
    return "\n".join(f"- {r['accepted'][-1]}: {cell(t, r)}" for r in t["rows"])


FORMATS: tuple[Callable[[dict], str], ...] = (markdown, csv_fenced, json_object, json_rows, bullets)


def gold_figures(tables: list[dict]) -> None:
    print("gold tables")
    for v in VARIANTS:
        members = [t for t in tables if variant(t) == v]
        if not members:
            continue
        rows = [len(t["rows"]) for t in members]
        omitted = sum(len(t["omitted"]) for t in members) / sum(len(t["rows"]) + len(t["omitted"]) for t in members)
        na = sum(r.get("class", "") == "N/A" or ("value" in r and r["value"] is None) for t in members for r in t["rows"])
        print(f"  {v:<11} {len(members):5d} tables, {statistics.mean(rows):5.1f} rows/table, "
              f"{100 * omitted:4.1f} % of regions illegible (left out), {na} N/A rows")


def baseline_figures(tables: list[dict], seeds: int) -> None:
    chance = chance_summary(tables)
    runs = [summarize(score_tables(tables, random_replies(tables, seed=s)), tables) for s in range(seeds)]
    print(f"random baseline (mean of {seeds} seeds) vs analytic chance, %")
    for v in VARIANTS:
        if v not in chance:
            continue
        for metric in chance[v]:
            if metric == "n":
                continue
            empirical = statistics.mean(r[v][metric] for r in runs)
            print(f"  {v:<11} {metric:<17} random {100 * empirical:6.2f}   chance {100 * chance[v][metric]:6.2f}")


def _main_of(summary: dict, v: str) -> float:
    return 100 * summary[v][MAIN[v]] if v in summary else float("nan")


def prior_figures(bench, tables: list[dict]) -> None:
    train = [t for t in tables if t.get("split") == "train"]
    test = [t for t in tables if t.get("split") not in (None, "train")]
    if not train or not test:
        print("prior: no train and held-out split of gold tables")
        return
    replies = prior_replies(test, train)
    prior = summarize(score_tables(test, replies), test)
    rand, chance = summarize(score_tables(test, random_replies(test, 0)), test), chance_summary(test)
    null = {v: statistics.mean(permutation_null(t, replies[t["question_id"]]) for t in test if variant(t) == v)
            for v in VARIANTS if v in prior}
    stat_of = {m["map_id"]: m.get("statistic") for m in bench.maps}
    seen = {stat_of.get(t["map_id"]) for t in train}
    unseen = [t for t in test if stat_of.get(t["map_id"]) not in seen]
    fresh = summarize(score_tables(unseen, prior_replies(unseen, train)), unseen) if unseen else {}
    print(f"held-out tables: {len(test)} (train tables: {len(train)}); main score in % (class accuracy / within τ)")
    for v in VARIANTS:
        if v in prior:
            extra = f"   prior, unseen statistics {_main_of(fresh, v):6.2f} (n={fresh.get(v, {}).get('n', 0)})"
            print(f"  {v:<11} prior {_main_of(prior, v):6.2f}   random {_main_of(rand, v):6.2f}   chance "
                  f"{_main_of(chance, v):6.2f}   prior's permutation null {100 * null[v]:6.2f}{extra}")
    if "continuous" in prior:
        print(f"  continuous MAE (% span): prior {100 * prior['continuous']['mae_share']:.2f}   random "
              f"{100 * rand['continuous']['mae_share']:.2f}   chance {100 * chance['continuous']['mae_share']:.2f}")


def throughput(tables: list[dict], rounds: int) -> None:
    replies = [(fmt.__name__, {t["question_id"]: fmt(t) for t in tables}) for fmt in FORMATS]
    best, perfect = float("inf"), True
    for _ in range(rounds):
        start = time.process_time()
        for _, texts in replies:
            perfect &= all(s.main == 1.0 for s in score_tables(tables, texts))
        best = min(best, time.process_time() - start)
    n = len(tables) * len(FORMATS)
    print(f"scoring: {n} replies ({len(FORMATS)} formats) in {best:.2f} s CPU = {n / best:,.0f} tables/s; "
          f"every gold reply scores 1.0: {perfect}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    bench = load_benchmark(args.bench)
    tables = get_task("extraction").records(bench)
    if not tables:
        raise SystemExit(f"{args.bench} has no extraction.jsonl: build it with tasks: [..., extraction].")
    gold_figures(tables)
    baseline_figures(tables, args.seeds)
    prior_figures(bench, tables)
    throughput(tables, args.rounds)


if __name__ == "__main__":
    main()
