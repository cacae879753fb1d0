"""Questions generated per second on real Scenes of all three countries (target >= 5,000/s).

Run: ``python benchmarks/bench_questions.py [--per-template 2] [--rounds 3] [--drawn]``. Scenes (curated
statistics, discrete, continuous and hatched legends) are built once; the timing covers ``generate_questions``
only, with a new seed per round, after one warm-up round (template compilation, per-atlas centroids).
``--drawn`` gives the scenes the pixel facts of their 800x600 page (legibility, drawn positions), as the build's
question stage has them: questions are then also checked against every illegible region (``hinges_on_illegible``).
Both wall-clock and CPU seconds are printed (the CPU figure is the one to quote on a shared machine).
"""

from __future__ import annotations

import argparse
import time

from mapgen.data.curated import list_stats
from mapgen.questions import generate_questions, load_templates
from mapgen.scene import build_scene
from mapgen.spec import make_spec


def real_scenes(max_stats: int = 3, drawn: bool = False) -> list:
    """Discrete, continuous and hatched scenes of the first curated statistics of each country."""
    scenes = []
    for country in ("usa", "india", "china"):
        for info in list_stats(country)[:max_stats]:
            for kind in ({"legend": "discrete"}, {"legend": "continuous"}, {"hatched": True}):
                spec = make_spec(country, info.id, classes=5, **kind)
                scenes.append(_drawn(spec) if drawn else build_scene(spec))
    return scenes


def _drawn(spec):
    """The scene with the pixel facts of its page (no PNG written)."""
    from mapgen.render.api import get_canvas, scene_with_pixels

    atlas = spec.load_atlas()
    return scene_with_pixels(build_scene(spec, atlas), get_canvas(atlas, spec.style))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--per-template", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--drawn", action="store_true", help="scenes with pixel facts (legibility), as in a build")
    args = ap.parse_args()
    templates = load_templates()
    scenes = real_scenes(drawn=args.drawn)
    for scene in scenes:  # warm-up
        generate_questions(scene, templates, per_template=args.per_template, seed=-1)
    total, start, cpu = 0, time.perf_counter(), time.process_time()
    for seed in range(args.rounds):
        for scene in scenes:
            total += len(generate_questions(scene, templates, per_template=args.per_template, seed=seed))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"{total} questions on {len(scenes)} {'drawn ' if args.drawn else ''}scenes x {args.rounds} rounds in "
          f"{elapsed:.2f} s ({cpu:.2f} CPU s): {total / elapsed:,.0f} questions/s, {total / cpu:,.0f} per CPU s")


if __name__ == "__main__":
    main()
