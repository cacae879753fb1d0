"""Why a template cannot be asked on a map: the reasons its draws were rejected, counted (``templates preview``)."""

from __future__ import annotations

from collections import Counter

from mapgen.questions.engine import Unaskable, ask, param_domain, question_rng, sample_params
from mapgen.questions.functions import reading
from mapgen.questions.templates import Template
from mapgen.scene import Scene


def rejections(template: Template, scene: Scene, attempts: int = 200, seed: int = 0) -> list[str]:
    """One line per reason the engine rejected a draw of ``template`` on ``scene``, most frequent first, each
    with how many of ``attempts`` draws it stopped (an empty parameter domain or a map type is one line)."""
    if not template.applies_to(scene.map_type):
        return [f"the template is asked on {', '.join(template.map_types)} maps; this map is {scene.map_type}"]
    ctx = reading(scene)
    env: dict = {}
    rng = question_rng(seed, scene, template)
    for p in template.params:
        dom = param_domain(p, ctx, env)
        if not dom:
            return [f"parameter {p.name} ({p.type}) has no candidate on this map"
                    + (" (its from: gives none)" if p.source is not None else "")]
        env[p.name] = dom[rng.randrange(len(dom))]
    reasons: Counter[str] = Counter()
    for _ in range(attempts):
        params = sample_params(template, ctx, rng)
        if params is None:
            reasons["a parameter had no candidate for the earlier ones drawn"] += 1
            continue
        try:
            ask(template, scene, params, rng)
        except Unaskable as no:
            reasons[no.reason] += 1
        else:
            reasons["asked"] += 1
    return [f"{reason}: {n} of {attempts} draws" for reason, n in reasons.most_common()]
