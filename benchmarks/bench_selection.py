"""How the benchmark's question selection scales with the number of candidates (it should be about linear).

Run: ``python benchmarks/bench_selection.py BUILD [--config CONFIG] [--fractions 0.1,0.3,1]`` on a finished build
(e.g. ``mapgen build train -o train/``): the candidates are read back from the build's ``units/`` records in plan
order, and :func:`mapgen.tasks.vqa.gold.balance_set` (what the build's last stage runs, in one process) is timed on the first
units of each country, for each fraction. Prints candidates, chosen questions, CPU seconds and CPU microseconds per
candidate; a per-candidate cost that grows with the fraction means selection has turned superlinear.
On the train config (560,850 candidates, 116,976 chosen) it took about 5 of the build's 16 minutes before selection
kept its answer keys by pick count (9 µs a candidate at 28k candidates, growing with the set); 4.5 CPU s after
(8 µs a candidate at every fraction).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from mapgen.build.plan import plan
from mapgen.config import load_config
from mapgen.tasks.vqa.gold import balance_set


def candidates(build: Path, config, fraction: float) -> list[dict]:
    """The first ``fraction`` of each country's units' candidate questions, in plan order."""
    units = plan(config)
    by_country: dict[str, list] = {}
    for unit in units:
        by_country.setdefault(unit.country, []).append(unit)
    keep = {u.unit_id for us in by_country.values() for u in us[: max(1, round(fraction * len(us)))]}
    return [q for u in units if u.unit_id in keep
            for q in json.loads((build / "units" / f"{u.unit_id}.json").read_text())["questions"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--config", help="the build's config (default: the one its manifest records)")
    parser.add_argument("--fractions", default="0.1,0.3,1")
    args = parser.parse_args()
    manifest = json.loads((args.build / "manifest.json").read_text())
    config = load_config(args.config or manifest["config"])
    print(f"{'fraction':>8} {'candidates':>11} {'chosen':>8} {'CPU s':>7} {'µs/candidate':>13}")
    for fraction in (float(f) for f in args.fractions.split(",")):
        records = candidates(args.build, config, fraction)
        start = time.process_time()
        chosen = balance_set(records, config)
        cpu = time.process_time() - start
        print(f"{fraction:>8.2f} {len(records):>11,} {len(chosen):>8,} {cpu:>7.1f} {1e6 * cpu / len(records):>13.1f}")


if __name__ == "__main__":
    main()
