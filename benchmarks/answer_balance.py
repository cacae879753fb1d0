"""Answer balance, coverage and printed numbers of a built benchmark (issue 36 item 3).

    python benchmarks/answer_balance.py BENCH [--before OLD_BENCH] [--json out.json]

Prints, from the build's ``questions.jsonl`` (and its maps' JSON):

- **balance**: per yes/no or choice template (``binary``, and ``single`` templates answering with words: legend
  kind, spacing) the share of its most common answer, overall and per country; the goal is at most 60 %;
- **coverage**: per country, how often each MAPWise template number (1-43, as the templates use them) is asked;
  the goal is at least 5 each;
- **near ties**: the independent check of ``scripts/question_quality.py`` (goal 0);
- **printed unlike the legend**: range and number answers holding a number the map's legend does not print that
  way (``-3.2`` where the legend prints ``-3.20``; goal 0), among the chosen and among all candidate questions;
- with ``--before``: the answers that changed between two builds of the same config, by reason, on the candidate
  questions of ``units/`` (a question is the same when its map, template and parameters are).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mapgen.legend.grammar import find_ranges, printed_numbers

GOAL_SHARE, GOAL_COVERAGE = 0.60, 5
#: A ``single`` template with at most this many distinct answers in the build answers with words (a choice).
CHOICE_MAX_ANSWERS = 4
_NUMBER = re.compile(r"-?\$?\d[\d,]*(?:\.\d+)?[kMBT]?%?")


def load_questions(bench: Path) -> list[dict[str, Any]]:
    with (bench / "questions.jsonl").open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def candidates(bench: Path) -> Iterator[dict[str, Any]]:
    """Every candidate question the build's units recorded."""
    for path in sorted((bench / "units").glob("*.json")):
        yield from json.loads(path.read_text(encoding="utf-8"))["questions"]


def choice_templates(questions: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Template id → answer type of the yes/no and choice templates (module docstring)."""
    answers: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, str] = {}
    for q in questions:
        answers[q["template_id"]].add(json.dumps(q["answer"]))
        kinds[q["template_id"]] = q["answer_type"]
    return {t: k for t, k in kinds.items()
            if k == "binary" or (k == "single" and len(answers[t]) <= CHOICE_MAX_ANSWERS
                                 and not any(_NUMBER.fullmatch(json.loads(a)) for a in answers[t]))}


def balance(questions: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per yes/no or choice template: n, the most common answer and its share, overall and per country."""
    kinds = choice_templates(questions)
    out: dict[str, dict[str, Any]] = {}
    for t in sorted(kinds):
        mine = [q for q in questions if q["template_id"] == t]
        answer, top = Counter(str(q["answer"]) for q in mine).most_common(1)[0]
        per: dict[str, float] = {}
        for country in sorted({q["country"] for q in mine}):
            theirs = Counter(str(q["answer"]) for q in mine if q["country"] == country)
            per[country] = round(theirs.most_common(1)[0][1] / sum(theirs.values()), 3)
        out[t] = {"n": len(mine), "top": answer, "share": round(top / len(mine), 3), "per_country": per}
    return out


def coverage(questions: list[dict[str, Any]]) -> dict[str, dict[int, int]]:
    """Questions per country and MAPWise template number."""
    numbers = sorted({q["mapwise_template"] for q in questions if q.get("mapwise_template") is not None})
    per = Counter((q["country"], q["mapwise_template"]) for q in questions)
    return {c: {n: per[(c, n)] for n in numbers} for c in sorted({q["country"] for q in questions})}


def legend_texts(bench: Path, map_id: str, cache: dict[str, set[str]]) -> set[str]:
    """The numbers a map's legend prints, as printed (class labels; tick labels of a colour bar)."""
    if map_id not in cache:
        legend = json.loads((bench / "maps" / f"{map_id}.json").read_text(encoding="utf-8"))["spec"]["legend"]
        labels = [c["label"] for c in legend["classes"]] + list(legend.get("tick_labels") or ())
        texts = set()
        for label in labels:
            try:
                texts |= {n.text for n in printed_numbers(label) if n is not None}
            except ValueError:
                continue
        cache[map_id] = texts
    return cache[map_id]


def printed_unlike_legend(bench: Path, questions: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Per template, the range / number answers holding a number the legend does not print that way."""
    out: dict[str, list[str]] = defaultdict(list)
    cache: dict[str, set[str]] = {}
    for q in questions:
        answer = q["answer"]
        if q["answer_type"] == "range" or (q["answer_type"] == "single" and isinstance(answer, str)
                                           and _NUMBER.fullmatch(answer)):
            printed = legend_texts(bench, q["map_id"], cache)
            try:
                numbers = {n.text for n in printed_numbers(str(answer)) if n is not None}
            except ValueError:
                numbers = {str(answer)}
            if numbers - printed:
                out[q["template_id"]].append(f"{q['map_id']}: {answer!r}")
    return dict(out)


def near_ties(bench: Path) -> int:
    """Near ties by ``scripts/question_quality.py`` (its own independent check)."""
    path = Path(__file__).resolve().parents[1] / "scripts" / "question_quality.py"
    spec = importlib.util.spec_from_file_location("question_quality", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return int(module.quality(bench)["near_tie_total"])


def _texts(answer: str) -> list[str]:
    try:
        return [n.text for n in printed_numbers(answer) if n is not None]
    except ValueError:
        return []


def _why(was: Any, now: Any, template: str) -> str:
    """Why an answer changed: the same numbers joined otherwise, the same numbers printed otherwise, or not."""
    if not (isinstance(was, str) and isinstance(now, str) and find_ranges(was) == find_ranges(now) and find_ranges(now)):
        return f"answer changed: {template}"
    if _texts(was) == _texts(now):
        return "same numbers, joined as the legend's labels join them"
    return "same numbers, printed as the legend prints them"


def changes(before: Path, after: Path) -> dict[str, Any]:
    """Candidate answers that changed between two builds, by reason (same map, template and parameters)."""
    def key(q: dict[str, Any]) -> str:
        return json.dumps([q["map_id"], q["template_id"], q["params"]], sort_keys=True)

    old = {key(q): q for q in candidates(before)}
    reasons: Counter = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    new_keys = set()
    for q in candidates(after):
        k = key(q)
        new_keys.add(k)
        was = old.get(k)
        if was is None:
            reason = f"newly asked: {q['template_id']}"
        elif was["answer"] != q["answer"]:
            reason = _why(was["answer"], q["answer"], q["template_id"])
        elif was["question"] != q["question"]:
            reason = "question text: numbers printed as the legend prints them"
        else:
            continue
        reasons[reason] += 1
        if len(examples[reason]) < 3:
            examples[reason].append(f"{q['map_id']}: {was and was['answer']!r} -> {q['answer']!r}"
                                    if was else f"{q['map_id']}: {q['answer']!r}")
    for k, q in old.items():
        if k not in new_keys:
            reason = f"no longer asked: {q['template_id']}"
            reasons[reason] += 1
            if len(examples[reason]) < 3:
                examples[reason].append(f"{q['map_id']}: was {q['answer']!r}")
    return {"by_reason": dict(reasons.most_common()), "examples": dict(examples)}


def report(bench: Path, before: Path | None = None) -> dict[str, Any]:
    questions = load_questions(bench)
    cov = coverage(questions)
    bal = balance(questions)
    unlike = printed_unlike_legend(bench, questions)
    out: dict[str, Any] = {
        "questions": len(questions),
        "balance": bal,
        "over_goal_share": sorted(t for t, b in bal.items() if b["share"] > GOAL_SHARE),
        "coverage_min": {c: min(v.values()) for c, v in cov.items()},
        "coverage_below_goal": {c: sorted(n for n, k in v.items() if k < GOAL_COVERAGE) for c, v in cov.items()},
        "coverage": cov,
        "near_ties": near_ties(bench),
        "printed_unlike_legend": {t: len(v) for t, v in unlike.items()},
        "printed_unlike_legend_examples": {t: v[:3] for t, v in unlike.items()},
        "printed_unlike_legend_candidates": {t: len(v) for t, v in
                                             printed_unlike_legend(bench, list(candidates(bench))).items()},
    }
    if before is not None:
        out["changes"] = changes(before, bench)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", type=Path)
    parser.add_argument("--before", type=Path, default=None, help="a build of the same config to compare with")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    r = report(args.bench, args.before)
    if args.json:
        args.json.write_text(json.dumps(r, indent=1), encoding="utf-8")
    print(f"{r['questions']} questions")
    print(f"balance (most common answer's share; goal <= {GOAL_SHARE:.0%}):")
    for t, b in r["balance"].items():
        per = ", ".join(f"{c} {s:.0%}" for c, s in b["per_country"].items())
        print(f"  {b['share']:6.1%}  {t:34s} n={b['n']:4d}  {b['top']!r:20s} ({per})")
    print(f"templates over {GOAL_SHARE:.0%}: {', '.join(r['over_goal_share']) or '-'}")
    for c, n in r["coverage_min"].items():
        below = ", ".join(map(str, r["coverage_below_goal"][c])) or "-"
        print(f"coverage {c}: min {n} per MAPWise number; under {GOAL_COVERAGE}: {below}")
    print(f"near ties: {r['near_ties']}")
    unlike = r["printed_unlike_legend"]
    print(f"range/number answers printed unlike the legend: {sum(unlike.values())}"
          + "".join(f"\n  {n:4d}  {t}  e.g. {r['printed_unlike_legend_examples'][t][0]}" for t, n in unlike.items()))
    print("... among the candidate questions: "
          + (", ".join(f"{t} {n}" for t, n in r["printed_unlike_legend_candidates"].items()) or "0"))
    if "changes" in r:
        print("candidate answers changed, by reason:")
        for reason, n in r["changes"]["by_reason"].items():
            print(f"  {n:5d}  {reason}  e.g. {r['changes']['examples'].get(reason, [''])[0]}")


if __name__ == "__main__":
    main()
