"""Questions generated per second on real Scenes of all three countries (target >= 5,000/s).

Run: ``python benchmarks/bench_questions.py [--per-template 2] [--rounds 3]``. Scenes (curated statistics,
discrete, continuous and hatched legends) are built once; the timing covers ``generate_questions`` only, with a
new seed per round, after one warm-up round (template compilation, per-atlas centroids).
"""

from __future__ import annotations

import argparse
import time

from mapgen.data.curated import list_stats
from mapgen.questions import generate_questions, load_templates
from mapgen.scene import build_scene
from mapgen.spec import make_spec


def real_scenes(max_stats: int = 3) -> list:
    """Discrete, continuous and hatched scenes of the first curated statistics of each country."""
    scenes = []
    for country in ("usa", "india", "china"):
        for info in list_stats(country)[:max_stats]:
            for kind in ({"legend": "discrete"}, {"legend": "continuous"}, {"hatched": True}):
                scenes.append(build_scene(make_spec(country, info.id, classes=5, **kind)))
    return scenes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--per-template", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    templates = load_templates()
    scenes = real_scenes()
    for scene in scenes:  # warm-up
        generate_questions(scene, templates, per_template=args.per_template, seed=-1)
    total, start = 0, time.perf_counter()
    for seed in range(args.rounds):
        for scene in scenes:
            total += len(generate_questions(scene, templates, per_template=args.per_template, seed=seed))
    elapsed = time.perf_counter() - start
    print(f"{total} questions on {len(scenes)} scenes x {args.rounds} rounds in {elapsed:.2f} s: "
          f"{total / elapsed:,.0f} questions/s")


if __name__ == "__main__":
    main()
