"""The ambiguity rule, checked from outside: re-answer a question on other readings of its map.

A reader of a continuous map knows each value only to within the tolerance τ; a reader of a discrete map knows
only each value's class. :func:`readings` draws such readings of a Scene (the corners of the tolerance box
first, where a near tie flips, then random points), and :func:`changed_answers` re-runs a question's program on
each, answering exactly (no tolerance, :meth:`Reading.with_values <mapgen.questions.functions.Reading.with_values>`).
A question the engine asks must give the same answer on every reading — what the tolerance property test and
``scripts/question_quality.py`` check.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from mapgen.questions.engine import answer_key, run_program
from mapgen.questions.functions import INVALID, Reading, reading
from mapgen.questions.templates import Template
from mapgen.scene import Scene


def _discrete_range(ctx: Reading, code: str, lv: float) -> tuple[float, float]:
    """Where a reader may place a region of a discrete map (``lv`` its class): its class's printed range (with
    its true value)."""
    v = ctx.value[code]
    lo, hi = ctx.printed[int(lv)] if ctx.printed else (None, None)
    lo = v if lo is None else min(lo, v)
    hi = v if hi is None else max(hi, v)
    return lo, hi


def readings(ctx: Reading, rng: random.Random, n: int = 8) -> Iterator[Reading]:
    """``n`` readings of a map: every valued region moved within τ (continuous; all up, all down, random
    corners, then random points) or anywhere in its class's printed range (discrete)."""
    valued = {c: lv for c, lv in ctx.level.items() if lv is not None}
    for k in range(n):
        moved: dict[str, float] = {}
        for c, lv in valued.items():
            v = ctx.value[c]
            if ctx.discrete:
                lo, hi = _discrete_range(ctx, c, lv)
                moved[c] = v if lo == hi else rng.uniform(lo, hi)
            elif k == 0 or k == 1:
                moved[c] = v + (ctx.tau if k == 0 else -ctx.tau)
            elif k < n // 2 + 1:
                moved[c] = v + rng.choice((-ctx.tau, ctx.tau))
            else:
                moved[c] = v + rng.uniform(-ctx.tau, ctx.tau)
        yield ctx.with_values(moved)


def changed_answers(
    template: Template, scene: Scene, params: dict[str, Any], answer: Any, rng: random.Random, n: int = 8
) -> list[Any]:
    """The answers (program results; INVALID included) that readings of ``scene`` give instead of ``answer``."""
    out = []
    want = answer_key(answer)
    for other in readings(reading(scene), rng, n):
        got, _ = run_program(template, other, dict(params))
        if got is INVALID or answer_key(got) != want:
            out.append(got)
    return out

