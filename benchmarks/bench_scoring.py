"""Scoring throughput of the MAPWise metrics (target >= 50,000 predictions/s; caption metrics excluded).

Run: ``python benchmarks/bench_scoring.py [--n 100000] [--rounds 3] [--profile]``.

Questions are real: :func:`mapgen.questions.generate_questions` on discrete, continuous and hatched scenes of
all three countries (every answer type, in the engine's mix). They are copied under new ids up to ``--n``
questions, and each gets one model-like response drawn (seeded) from a realistic mix:

- 40 % direct answers ``{"answer": ...}`` (the gold answer, or a wrong valid one from the random baseline);
- 30 % chain-of-thought text that is unique per question, ending in a JSON answer;
- 15 % ``Final answer: ...`` lines, 10 % markdown/prose answers, 5 % refusals and garbage.

The timing covers :func:`mapgen.eval.score.evaluate` end to end (extraction, normalisation, every metric of the
answer type, the report frame), after one warm-up round on other ids. Both wall-clock and process CPU time are
printed; the verdict uses CPU time so that other work on a shared machine does not decide it (on an idle
machine the two agree).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import json
import pstats
import random
import time
from collections.abc import Callable

from mapgen.data.curated import list_stats
from mapgen.eval.baselines import random_baseline
from mapgen.eval.score import evaluate
from mapgen.questions import Question, generate_questions
from mapgen.questions.record import format_answer
from mapgen.scene import build_scene
from mapgen.spec import make_spec

TARGET = 50_000
MAPS: dict[str, dict] = {}
"""map_id → map JSON (``{"spec": ...}``) of the scenes the questions are asked on (the random answers read it)."""


def real_questions(max_stats: int = 2) -> list[Question]:
    """Questions on discrete, continuous and hatched scenes of the first curated statistics of each country."""
    out: list[Question] = []
    for country in ("usa", "india", "china"):
        for info in list_stats(country)[:max_stats]:
            for kind in ({"legend": "discrete"}, {"legend": "continuous"}, {"hatched": True}):
                spec = make_spec(country, info.id, classes=5, **kind)
                qs = generate_questions(build_scene(spec), per_template=2, seed=len(out))
                MAPS.update({q.map_id: {"spec": spec.to_dict()} for q in qs})
                out += qs
    return out


def _plain(answer_json: str) -> str:
    value = json.loads(answer_json)["answer"]
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _cot(q: Question, answer_json: str, rng: random.Random) -> str:
    steps = [
        f"Step 1: the legend of map {q.map_id} has {rng.randint(3, 7)} classes, darker means higher.",
        f"Step 2: I look at the regions the question ({q.question_id}) mentions and read their shades.",
        f"Step 3: the value near the top of the scale is about {rng.uniform(0, 1e6):.1f}.",
        "Step 4: putting this together.",
    ]
    return "\n".join(steps) + f"\nSo the final answer is:\n```json\n{answer_json}\n```"


STYLES: list[tuple[float, Callable[[Question, str, random.Random], str]]] = [
    (0.40, lambda q, a, rng: a),
    (0.30, _cot),
    (0.15, lambda q, a, rng: f"Final answer: {_plain(a)}"),
    (0.05, lambda q, a, rng: f"**Answer:** {_plain(a)}\n\nI hope this helps."),
    (0.05, lambda q, a, rng: f"Looking at the map carefully, the answer is {_plain(a)}."),
    (0.05, lambda q, a, rng: rng.choice(["I cannot determine this from the image.", "", "}{ not json"])),
]


def make_predictions(questions: list[Question], seed: int = 0) -> dict[str, str]:
    """One response per question in the mix above (half of the answers right, half random)."""
    rng = random.Random(seed)
    wrong = random_baseline(questions, MAPS.get, seed=seed)
    weights = [w for w, _ in STYLES]
    out = {}
    for q in questions:
        answer = format_answer(q.answer, q.answer_type) if rng.random() < 0.5 else wrong[q.question_id]
        style = rng.choices(STYLES, weights)[0][1]
        out[q.question_id] = style(q, answer, rng)
    return out


def replicate(questions: list[Question], n: int, tag: str) -> list[Question]:
    """``n`` questions: copies of ``questions`` under new ids (``tag`` keeps rounds apart)."""
    return [
        dataclasses.replace(questions[i % len(questions)], question_id=f"{tag}-{i}") for i in range(n)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100_000, help="predictions per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="print the top functions of one round")
    args = ap.parse_args()
    base = real_questions()
    warm = replicate(base, min(args.n, 5_000), "warm")
    evaluate(warm, make_predictions(warm, seed=99))
    rounds = [replicate(base, args.n, f"r{r}") for r in range(args.rounds)]
    preds = [make_predictions(qs, seed=r) for r, qs in enumerate(rounds)]
    kinds = sorted({q.answer_type for q in base})
    print(f"{len(base)} distinct questions ({', '.join(kinds)}), {args.n} predictions per round")
    if args.profile:
        cProfile.runctx("evaluate(rounds[0], preds[0])", globals(), locals(), "/tmp/bench_scoring.prof")
        pstats.Stats("/tmp/bench_scoring.prof").sort_stats("tottime").print_stats(20)
        return
    best_cpu = best_wall = 0.0
    for qs, ps in zip(rounds, preds):
        wall, cpu = time.perf_counter(), time.process_time()
        report = evaluate(qs, ps)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        best_cpu, best_wall = max(best_cpu, len(qs) / cpu), max(best_wall, len(qs) / wall)
        s = report.summary()
        print(
            f"  {len(qs)} predictions: {wall:.2f} s wall ({len(qs) / wall:,.0f}/s), {cpu:.2f} s CPU "
            f"({len(qs) / cpu:,.0f}/s); score {s['score']:.3f}, unparsed {s['unparsed']}"
        )
    verdict = "OK" if best_cpu >= TARGET else "BELOW TARGET"
    print(
        f"scoring throughput: {best_cpu:,.0f} predictions/s CPU ({best_wall:,.0f}/s wall), "
        f"target {TARGET:,}: {verdict}"
    )


if __name__ == "__main__":
    main()
