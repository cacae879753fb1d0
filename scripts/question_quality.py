"""Question-quality figures of a built benchmark: coverage per country x template, degenerate answers, near ties.

Run: ``python scripts/question_quality.py BENCH [--json out.json]``. Prints

- coverage: questions per (country, template record) and the minimum over the templates of each country;
- degenerate answers: the share of list answers that are empty and of count answers that are 0;
- with ``--perturb``: questions whose answer changes on some reading of the map within the tolerance;
- near ties, checked independently of the question engine from each map's values (continuous maps: tolerance
  tau = 5 % of the colour-bar span; a value read off the bar may be off by tau): rankings with "=" between
  regions of different values (continuous) or different classes (discrete), and yes/no comparisons of two
  regions' values (templates 18, 19, 42) whose answer a reading within tau could flip (|difference| < 2 tau
  for higher/lower). On discrete maps two regions of one class are equal as shown, so "X higher than Y" is "No"
  there by definition and not counted.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from mapgen.questions import load_templates
from mapgen.questions.engine import run_program
from mapgen.questions.functions import reading
from mapgen.questions.robustness import changed_answers
from mapgen.scene import Scene, load_scene

TAU = 0.05
PAIR_TEMPLATES = {"neighbour_comparison": [("X", "C", "Y")], "region_comparison": [("X", "C", "Y")],
                  "two_comparisons": [("X", "C1", "Y"), ("X", "C2", "Z")]}


def near_ties(q: dict[str, Any], scene: Scene) -> list[str]:
    """Why question ``q`` hinges on a near tie (empty when it does not)."""
    cont = scene.map_type == "continuous"
    span = scene.legend.vmax - scene.legend.vmin
    val = {c: r.value for c, r in scene.regions.items()}
    cls = {c: r.class_index for c, r in scene.regions.items()}
    out = []
    if q["template_id"] == "group_ranking":
        names = {r.name: c for c, r in scene.regions.items()}
        for group in q["answer"]:
            codes = [names[n] for n in group]
            if len(codes) > 1 and (cont and len({val[c] for c in codes}) > 1
                                   or not cont and len({cls[c] for c in codes}) > 1):
                out.append("ranking '=' between different " + ("values" if cont else "classes"))
    for x, c, y in PAIR_TEMPLATES.get(q["template_id"], []):
        a, b, cmp = q["params"][x], q["params"][y], q["params"][c]
        if cmp == "similar":
            continue
        if cont and abs(val[a] - val[b]) < 2 * TAU * span:
            out.append(f"{cmp} between values {abs(val[a] - val[b]) / span:.1%} of the span apart")

    return out


def unstable(questions: list[dict[str, Any]], bench: Path, scenes: dict[str, Scene]) -> list[str]:
    """Questions whose program answer changes on some reading of the map within the tolerance (the engine's own
    check, :mod:`mapgen.questions.robustness`, run on the built maps)."""
    templates = load_templates()
    rng = random.Random(0)
    out = []
    for q in questions:
        if q["map_id"] not in scenes:
            scenes[q["map_id"]] = load_scene(bench / "maps" / f"{q['map_id']}.json")
        t, scene = templates.get(q["template_id"]), scenes[q["map_id"]]
        answer, _ = run_program(t, reading(scene).as_reader(), dict(q["params"]))
        if changed_answers(t, scene, q["params"], answer, rng, n=6):
            out.append(q["question_id"])
    return out


def quality(bench: Path, perturb: bool = False) -> dict[str, Any]:
    """The figures of one benchmark folder."""
    questions = [json.loads(line) for line in (bench / "questions.jsonl").open()]
    templates = [t.id for t in load_templates()]
    countries = sorted({q["country"] for q in questions})
    per = Counter((q["country"], q["template_id"]) for q in questions)
    coverage = {c: {t: per[(c, t)] for t in templates} for c in countries}
    lists = [q for q in questions if q["answer_type"] == "list"]
    counts = [q for q in questions if q["answer_type"] == "count"]
    scenes: dict[str, Scene] = {}
    ties: dict[str, list[str]] = defaultdict(list)
    for q in questions:
        if q["template_id"] not in PAIR_TEMPLATES and q["template_id"] != "group_ranking":
            continue
        if q["map_id"] not in scenes:
            scenes[q["map_id"]] = load_scene(bench / "maps" / f"{q['map_id']}.json")
        for why in near_ties(q, scenes[q["map_id"]]):
            ties[f"{q['template_id']}: {why.split(' between')[0]} ({q['map_type']})"].append(q["question_id"])
    changed = unstable(questions, bench, scenes) if perturb else None
    return {
        "questions": len(questions),
        "answer_changes_within_tolerance": None if changed is None else len(changed),
        "answer_change_examples": (changed or [])[:5],
        "coverage_min": {c: min(v.values()) for c, v in coverage.items()},
        "coverage_below_5": {c: sorted(t for t, n in v.items() if n < 5) for c, v in coverage.items()},
        "coverage": coverage,
        "empty_lists": f"{sum(not q['answer'] for q in lists)}/{len(lists)}",
        "empty_list_share": round(sum(not q["answer"] for q in lists) / max(1, len(lists)), 4),
        "zero_counts": f"{sum(q['answer'] == 0 for q in counts)}/{len(counts)}",
        "zero_count_share": round(sum(q["answer"] == 0 for q in counts) / max(1, len(counts)), 4),
        "empty_without_none": sum(not q["answer"] and "None" not in q["accepted_answers"] for q in lists),
        "near_ties": {k: len(v) for k, v in sorted(ties.items())},
        "near_tie_total": len({i for v in ties.values() for i in v}),
        "near_tie_examples": {k: v[:3] for k, v in sorted(ties.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("bench", type=Path)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--perturb", action="store_true", help="also re-answer every question on readings of its map")
    args = ap.parse_args()
    report = quality(args.bench, args.perturb)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    print(f"{report['questions']} questions")
    for c, n in report["coverage_min"].items():
        print(f"coverage {c}: min {n} per template; under 5: {', '.join(report['coverage_below_5'][c]) or '-'}")
    print(f"empty lists {report['empty_lists']} ({report['empty_list_share']:.1%}), "
          f"zero counts {report['zero_counts']} ({report['zero_count_share']:.1%}), "
          f"empty answers without 'None' accepted: {report['empty_without_none']}")
    print(f"near ties: {report['near_tie_total']}")
    if report["answer_changes_within_tolerance"] is not None:
        print(f"answers changing on a reading within the tolerance: {report['answer_changes_within_tolerance']}")
    for k, n in report["near_ties"].items():
        print(f"  {n:4d}  {k}")


if __name__ == "__main__":
    main()
