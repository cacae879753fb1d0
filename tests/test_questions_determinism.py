"""Questions do not depend on the process: the same Scene and seed give the same records under any string-hash
seed (set iteration order differs between processes, e.g. build workers)."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import json
from mapgen.data.curated import list_stats
from mapgen.questions import generate_questions
from mapgen.scene import build_scene
from mapgen.spec import make_spec
out = []
for country in ("usa", "india"):
    stat = list_stats(country)[0].id
    for kind in ({"legend": "discrete"}, {"legend": "continuous"}):
        scene = build_scene(make_spec(country, stat, classes=5, **kind))
        out += [q.to_dict() for q in generate_questions(scene, per_template=2, seed=3)]
print(json.dumps(out, sort_keys=True))
"""


def _run(hash_seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return done.stdout


def test_questions_are_the_same_under_any_hash_seed() -> None:
    first = _run("1")
    assert len(first) > 10_000 and first == _run("2")
