"""How much the templates share the function library: the share of called functions serving one template.

Run: ``python benchmarks/function_reuse.py [FILE ...] [--alternatives PROPOSED.yaml]``.
Counts the functions the templates' program steps call (nested calls included; ``from:`` domain helpers and
constraints are not program steps and are left out), how many templates call each, and the share of them that
serve exactly one template (issue 26's goal: at most a third). ``--alternatives`` first replaces the programs
of the templates it lists (id -> ``{program: [{step: call}, ...]}``), to measure a re-expression before shipping
it (then prove it answers the same: tests/test_questions_reexpressed.py).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

from mapgen.questions import load_templates
from mapgen.questions.templates import Node, calls_in, parse_expr


def programs(files: list[str] | None = None, alternatives: str | None = None) -> dict[str, list[Node]]:
    """Each template's program steps as nodes (by id), with the alternative programs swapped in."""
    out = {t.id: [node for _, node in t.program] for t in load_templates(files or None)}
    if alternatives:
        for tid, steps in (yaml.safe_load(Path(alternatives).read_text(encoding="utf-8")) or {}).items():
            out[tid] = [parse_expr(call) for step in steps["program"] for call in step.values()]
    return out


def reuse(progs: dict[str, list[Node]]) -> dict[str, Any]:
    """Functions called, the templates calling each, and the single-template share."""
    callers: dict[str, set[str]] = defaultdict(set)
    for tid, nodes in progs.items():
        for node in nodes:
            for name in calls_in(node):
                callers[name].add(tid)
    single = sorted(f for f, ids in callers.items() if len(ids) == 1)
    calls = Counter(sum(1 for node in nodes for _ in calls_in(node)) for nodes in progs.values())
    return {
        "templates": len(progs),
        "functions_called": len(callers),
        "single_template": single,
        "share": len(single) / len(callers) if callers else 0.0,
        "calls_per_program": dict(sorted(calls.items())),
        "callers": {f: sorted(ids) for f, ids in sorted(callers.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("files", nargs="*", help="template files (default: the built-in templates)")
    ap.add_argument("--alternatives", help="YAML: template id -> {program: [...]} to measure instead")
    args = ap.parse_args()
    r = reuse(programs(args.files, args.alternatives))
    print(f"{r['templates']} templates; calls per program: {r['calls_per_program']}")
    print(f"{len(r['single_template'])} of {r['functions_called']} called functions serve a single template "
          f"({r['share']:.1%}; goal <= 33.3%): {', '.join(r['single_template'])}")


if __name__ == "__main__":
    main()
