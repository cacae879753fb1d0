"""End-to-end build throughput (issue: benchmark builds).

    python benchmarks/bench_build.py mapwise            # the MAPWise config end to end, stage breakdown
    python benchmarks/bench_build.py synthetic --questions 20000
    python benchmarks/bench_build.py scaling            # wall time with 1 and 2 workers on the same config

Prints wall time, the CPU time of this process and its workers (steadier than wall time on a shared machine),
images/questions per second and the time per stage (summed over workers).
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from mapgen.build import build


def synthetic_config(questions: int, per_image: int = 10) -> dict:
    """Synthetic statistics only, annotated images only, ``per_image`` questions each (set-level answer
    balancing keeps about 80% of them, hence the margin)."""
    maps = max(1, round(questions / (0.8 * per_image) / 3))
    country = {"statistics": {"curated": [], "synthetic": {"count": 25, "spatial": [0.0, 0.5, 0.9]}}}
    return {
        "name": f"synthetic-{questions}",
        "seed": 1,
        "countries": [{"name": n, "maps": maps, **country} for n in ("usa", "india", "china")],
        "variants": {"unannotated": False, "hatched": False},
        "questions": {"per_image": per_image, "per_template": 1, "max_answer_share": 0.5},
        "tasks": ["vqa"],
    }


def cpu_seconds() -> float:
    """User + system CPU time of this process and of its finished child processes (the build's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(config, workers: int, label: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        start, cpu = time.perf_counter(), cpu_seconds()
        report = build(config, Path(tmp) / "bench", workers=workers, progress=False)
        wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    c = report.manifest["counts"]
    stages = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(report.timings.items()))
    print(f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU with {workers} worker(s); {c['maps']} images "
          f"({c['maps'] / wall:.1f}/s), {c['questions']} questions, {c['captions']} captions, "
          f"{c['grounding']} grounding records")
    print(f"  stages (summed over workers): {stages}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["mapwise", "synthetic", "scaling"])
    parser.add_argument("--questions", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.what == "mapwise":
        run("mapwise", args.workers, "configs/mapwise.yaml")
    elif args.what == "synthetic":
        run(synthetic_config(args.questions), args.workers, f"synthetic {args.questions}-question build")
    else:
        config = synthetic_config(3000)
        one = run(config, 1, "scaling, 1 worker")
        two = run(config, 2, "scaling, 2 workers")
        print(f"1 → 2 workers: wall time ratio {one / two:.2f}x")


if __name__ == "__main__":
    main()
