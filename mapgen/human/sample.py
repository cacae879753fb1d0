"""A seeded sample of a benchmark's questions for people, stratified the way MAPWise drew its human baseline.

MAPWise (Section 6) gave three annotators 150 questions per country, drawn "uniformly stratified" over maps,
templates, answer types and map types. :func:`stratified_sample` does that per country:

1. **Answer types** get equal quotas (``n`` split evenly over the types the country has; a type with too few
   questions gives its unused quota to the others, evenly), so shares stay within ±10 % of equal.
2. Within a type, questions are taken one at a time, each time the one whose strata are least represented so
   far: its template first, then its map type (discrete / continuous), counterfactual set, variant (annotated,
   unannotated, hatched, counterfactual kind), relative-region flag and map — the lexicographic order of their
   counts in the sample so far (:data:`STRATA`). Ties are broken by a seeded shuffle, so the sample is
   reproducible (same seed, same benchmark → same ids) yet not biased to build order.

With ``maps`` (MAPWise: 75 maps per country) the maps are chosen first, in turn from each map type × variant
stratum, each turn the stratum's map that best fills the answer-type quotas and the templates still missing
(:func:`choose_maps`), and the questions are then drawn from those maps only.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mapgen.eval.score import counterfactual_group
from mapgen.questions.record import ANSWER_TYPES, Question

STRATA: tuple[str, ...] = ("template", "map_type", "counterfactual", "variant", "relative_region", "map")
"""The strata balanced within an answer type, most important first."""


def strata_of(q: Question) -> dict[str, str]:
    """The stratum of ``q`` on each axis of :data:`STRATA`."""
    return {"template": q.template_id, "map_type": q.map_type, "counterfactual": counterfactual_group(q),
            "variant": str(q.variant or ("annotated" if q.annotated else "unannotated")),
            "relative_region": str(bool(q.relative_region)), "map": q.map_id}


def type_quotas(available: dict[str, int], n: int) -> dict[str, int]:
    """Equal quotas over the answer types in ``available`` (counts per type) summing to ``min(n, total)``; a type
    short of questions gives what it cannot fill to the others, evenly (remainders to the types in
    :data:`ANSWER_TYPES` order)."""
    quotas = dict.fromkeys(available, 0)
    left = min(n, sum(available.values()))
    while left > 0:
        open_types = [t for t in _ordered(available) if quotas[t] < available[t]]
        share, extra = divmod(left, len(open_types))
        for i, t in enumerate(open_types):
            quotas[t] += min(share + (i < extra), available[t] - quotas[t])
        left = min(n, sum(available.values())) - sum(quotas.values())
    return quotas


def _ordered(types: Iterable[str]) -> list[str]:
    order = {t: i for i, t in enumerate(ANSWER_TYPES)}
    return sorted(types, key=lambda t: (order.get(t, len(order)), t))


@dataclass
class _Tally:
    counts: dict[str, Counter[str]]

    def key(self, strata: dict[str, str]) -> tuple[int, ...]:
        return tuple(self.counts[axis][strata[axis]] for axis in STRATA)

    def add(self, strata: dict[str, str]) -> None:
        for axis in STRATA:
            self.counts[axis][strata[axis]] += 1


def _pick(pool: list[Question], quota: int, tally: _Tally) -> list[Question]:
    """``quota`` questions of ``pool`` (already shuffled), each the least represented one so far."""
    chosen: list[Question] = []
    left = [(q, strata_of(q)) for q in pool]
    for _ in range(quota):
        best = min(range(len(left)), key=lambda i: tally.key(left[i][1]))
        q, strata = left.pop(best)
        tally.add(strata)
        chosen.append(q)
    return chosen


def country_sample(questions: Sequence[Question], n: int, rng: random.Random) -> list[Question]:
    """The stratified sample of one country's ``questions`` (see the module doc)."""
    by_type: dict[str, list[Question]] = {}
    for q in questions:
        by_type.setdefault(q.answer_type, []).append(q)
    quotas = type_quotas({t: len(qs) for t, qs in by_type.items()}, n)
    tally = _Tally({axis: Counter() for axis in STRATA})
    chosen: list[Question] = []
    for t in _ordered(by_type):
        pool = sorted(by_type[t], key=lambda q: q.question_id)
        rng.shuffle(pool)
        chosen += _pick(pool, quotas[t], tally)
    return chosen


def choose_maps(questions: Sequence[Question], maps: int, rng: random.Random, n: int | None = None) -> set[str]:
    """``maps`` map ids of ``questions`` taken in turn from each (map type, variant) stratum, in a seeded order,
    so a capped sample still spans discrete and continuous, annotated, unannotated, hatched and counterfactual
    maps. With ``n`` (the sample's size) each turn takes the stratum's map that best fills what the sample still
    lacks: answer types short of their quotas (:func:`type_quotas`) and templates not yet held, each weighted by
    how much of what is left of it is needed, so types and templates held by few maps get them first."""
    strata: dict[tuple[str, str], list[str]] = {}
    held: dict[str, Counter[tuple[str, str]]] = {}
    for q in sorted(questions, key=lambda q: q.map_id):
        key = (q.map_type, strata_of(q)["variant"])
        if q.map_id not in held:
            strata.setdefault(key, []).append(q.map_id)
        held.setdefault(q.map_id, Counter()).update([("type", str(q.answer_type)), ("template", q.template_id)])
    left: Counter[tuple[str, str]] = Counter()
    for holds in held.values():
        left.update(holds)
    need: Counter[tuple[str, str]] = Counter()
    if n:
        types = {t: k for (axis, t), k in left.items() if axis == "type"}
        need.update({("type", t): k for t, k in type_quotas(types, n).items()})
        need.update({key: 1 for key in left if key[0] == "template"})
    queues = [rng.sample(ids, len(ids)) for _, ids in sorted(strata.items())]
    chosen: list[str] = []
    while len(chosen) < maps and any(queues):
        for queue in queues:
            if queue and len(chosen) < maps:
                best = max(range(len(queue)), key=lambda i: (_fill(held[queue[i]], need, left), i))
                map_id = queue.pop(best)  # ties: the seeded order's next map
                need -= held[map_id]
                left -= held[map_id]
                chosen.append(map_id)
    return set(chosen)


def _fill(holds: Counter[tuple[str, str]], need: Counter[tuple[str, str]], left: Counter[tuple[str, str]]) -> float:
    """How well a map holding ``holds`` (questions per answer type and per template) fills what is still needed."""
    return sum(min(k, need[key]) * need[key] / left[key] for key, k in holds.items() if need[key] > 0)


def stratified_sample(questions: Sequence[Question], n: int, seed: int = 0, maps: int | None = None) -> list[Question]:
    """``n`` questions per country (all of a country that has fewer), stratified as the module doc says, in a
    seeded shuffled order (the order people see them in); ``maps`` caps the maps per country (MAPWise: 75),
    chosen first (:func:`choose_maps`)."""
    if n < 1:
        raise ValueError(f"-n {n}: a sample needs at least 1 question per country; give -n 150 (MAPWise's size)")
    if maps is not None and maps < 1:
        raise ValueError(f"--maps {maps}: give at least 1 map per country (MAPWise: 75), or leave it out")
    rng = random.Random(seed)
    chosen: list[Question] = []
    for country in sorted({str(q.country) for q in questions}):
        pool = [q for q in questions if str(q.country) == country]
        if maps is not None:
            kept = choose_maps(pool, maps, rng, n)
            pool = [q for q in pool if q.map_id in kept]
        chosen += country_sample(pool, n, rng)
    rng.shuffle(chosen)
    return chosen


def shares(questions: Sequence[Question], axis: str) -> dict[str, float]:
    """Share of ``questions`` per value of ``axis`` (a Question attribute or a :data:`STRATA` axis)."""
    values = [strata_of(q)[axis] if axis in STRATA else str(getattr(q, axis)) for q in questions]
    counts = Counter(values)
    return {k: counts[k] / len(values) for k in sorted(counts)} if values else {}
