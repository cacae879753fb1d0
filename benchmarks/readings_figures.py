"""Declared-readings figures of a built benchmark (issue 36 item 1: every answer holds under every reading).

    python benchmarks/readings_figures.py BENCH_DIR [--main MAIN_BENCH_DIR]
    python benchmarks/readings_figures.py --build OUT_DIR [--workers 2] [--main MAIN_BENCH_DIR]

Prints for BENCH_DIR (``--build`` first builds the default config, ``configs/mapwise.yaml``, into OUT_DIR):

- ``draws_refused_by_reason``: the question draws the engine refused while building, per reason (the build log's
  count; ``reading:<axis>`` are the declared readings of ``templates/readings.yaml`` and the groups files);
- ``questions``, and ``differ_under_a_reading``: the questions whose answer differs under some declared reading
  (each re-asked on its map's render JSON, pixel facts included, under every reading its program consults), by
  axis — 0 when the engine kept its promise.

With ``--main`` (a benchmark built by another version, e.g. main before the readings): the same re-check of its
questions (``main_differ_under_a_reading``: the answers this version drops, by axis), and the comparison of the two
question sets by map and text (``answers_changed``: same map and text, another answer; ``dropped`` / ``added``
per template).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from mapgen.build import build
from mapgen.questions import load_templates
from mapgen.questions.engine import reading_disagreements
from mapgen.questions.readings import axis_of
from mapgen.scene import Scene, load_scene

DEFAULT_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "mapwise.yaml"


def questions(folder: Path) -> list[dict[str, Any]]:
    """The question records of a built folder."""
    return [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]


def differing(folder: Path) -> tuple[Counter[str], int]:
    """Questions whose answer differs under a declared reading, by axis (a question counts once per axis), and
    how many questions were re-checked."""
    templates = {t.id: t for t in load_templates()}
    scenes: dict[str, Scene] = {}
    by_axis: Counter[str] = Counter()
    records = questions(folder)
    for q in records:
        t = templates.get(q["template_id"])
        if t is None:
            continue
        if q["map_id"] not in scenes:
            scenes[q["map_id"]] = load_scene(folder / "maps" / f"{q['map_id']}.json")
        try:
            found = reading_disagreements(t, scenes[q["map_id"]], q["params"])
        except (KeyError, ValueError):  # a parameter this version no longer draws (another version's build)
            continue
        for axis in sorted({axis_of(key) for key, _ in found}):
            by_axis[axis] += 1
    return by_axis, len(records)


def compare(new: list[dict[str, Any]], old: list[dict[str, Any]]) -> dict[str, Any]:
    """Answers changed (same map and text), and questions dropped / added per template."""
    key = {(q["map_id"], q["question"]): q for q in new}
    old_key = {(q["map_id"], q["question"]): q for q in old}
    changed = Counter(q["template_id"] for k, q in old_key.items() if k in key and key[k]["answer"] != q["answer"])
    dropped = Counter(q["template_id"] for k, q in old_key.items() if k not in key)
    added = Counter(q["template_id"] for k, q in key.items() if k not in old_key)
    return {"answers_changed": dict(changed), "dropped": dict(sorted(dropped.items())),
            "added": dict(sorted(added.items()))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, nargs="?")
    ap.add_argument("--build", type=Path, help="build configs/mapwise.yaml into this folder first")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--main", type=Path, help="a benchmark built by another version, to compare with")
    args = ap.parse_args(argv)
    folder = args.build or args.folder
    if folder is None:
        ap.error("give BENCH_DIR or --build OUT_DIR")
    if args.build:
        build(str(DEFAULT_CONFIG), args.build, workers=args.workers, force=True, progress=False)
    log = json.loads((folder / "build_log.json").read_text(encoding="utf-8"))
    by_axis, n = differing(folder)
    out: dict[str, Any] = {"draws_refused_by_reason": log.get("draws_refused_by_reason"),
                           "questions": n, "differ_under_a_reading": dict(by_axis)}
    if args.main:
        main_axis, main_n = differing(args.main)
        out |= {"main_questions": main_n, "main_differ_under_a_reading": dict(main_axis)}
        out |= compare(questions(folder), questions(args.main))
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
