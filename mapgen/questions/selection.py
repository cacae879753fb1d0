"""Choosing a benchmark's questions from every image's candidates: coverage, answer balance, few degenerate answers.

Each image of a build offers candidate questions (every template that can be asked there, with parameters
searched by the engine); :func:`select_questions` picks at most ``per_image`` per image so that, per country,

1. every template with candidates is asked at least ``min_per_template`` times when its candidates allow
   (scarcest templates first, so they get the images they need); then every answer type the country has is
   raised to ``min_per_answer_type`` questions when its candidates allow (scarcest type first; each pick goes to
   the type's least-asked template, under the same answer-balance rules, and counts as one of that template's
   turns below, taken early); then all templates are filled in turns, the least-asked first, so templates end
   up evenly represented;
2. within a template the variant (annotated, unannotated, hatched, counterfactual kinds) asked least so far is
   preferred;
3. answers stay balanced: binary templates alternate Yes and No (a template short of its minimum may take more of
   one answer; Yes and No end equal over all countries); any other answer
   holds at most ``max(max_answer_share, 1 / k)`` of its template's questions (k = distinct answers the
   template has in the country); empty lists hold at most ``max_empty_share`` of a list template, zero counts
   at most ``max_zero_share`` of a count template.

Deterministic in the records and ``seed``; records come back in their input order.
"""

from __future__ import annotations

import bisect
import json
import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _TemplatePool:
    """One template's candidates in one country, by answer then variant, and what has been picked."""

    answer_type: str
    buckets: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    size: int = 0
    picked: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # answer key -> ids
    total: int = 0  # questions picked (kept equal to the sum over ``picked``)
    variants: Counter = field(default_factory=Counter)
    degenerate: int = 0
    degenerate_keys: set[str] = field(default_factory=set)  # answers that are an empty list or a zero count
    exhausted: bool = False
    relaxed: bool = False  # coverage phase, when balanced picks ran out: yes/no answers may run ahead
    ahead: int = 0  # fill turns taken early by the answer-type floor (skipped in the fill)
    levels: dict[int, list[tuple[float, str]]] | None = None  # picks so far -> (tiebreak, answer key), sorted


@dataclass(frozen=True)
class SelectionRules:
    """How many questions per image and per template, and the answer-share caps."""

    per_image: int
    min_per_template: int = 5
    min_per_answer_type: int = 0
    max_answer_share: float = 0.25
    max_empty_share: float = 0.04
    max_zero_share: float = 0.10


def answer_key(record: dict[str, Any]) -> str:
    """A hashable form of a record's answer."""
    return json.dumps(record["answer"], sort_keys=True)


def _degenerate(record: dict[str, Any]) -> bool:
    kind, answer = record["answer_type"], record["answer"]
    return (kind == "list" and not answer) or (kind == "count" and answer == 0)


def _pools(records: Iterable[dict[str, Any]], rng: random.Random) -> dict[str, _TemplatePool]:
    pools: dict[str, _TemplatePool] = {}
    for r in records:
        pool = pools.get(r["template_id"])
        if pool is None:
            pool = pools[r["template_id"]] = _TemplatePool(r["answer_type"])
        key = answer_key(r)
        pool.buckets.setdefault(key, {}).setdefault(str(r.get("variant")), []).append(r)
        pool.size += 1
        if _degenerate(r):
            pool.degenerate_keys.add(key)
    for pool in pools.values():
        for by_variant in pool.buckets.values():
            for items in by_variant.values():
                rng.shuffle(items)
                items.reverse()  # popped from the end
    return pools


def _admits(pool: _TemplatePool, key: str, degenerate: bool, rules: SelectionRules) -> bool:
    """Whether one more question with answer ``key`` keeps the template's answers balanced."""
    mine = len(pool.picked.get(key, ()))
    n = pool.total + 1
    if pool.answer_type == "binary":
        other = max((len(v) for k, v in pool.picked.items() if k != key), default=0)
        return pool.relaxed or mine <= other
    share = max(rules.max_answer_share, 1 / max(1, len(pool.buckets)))
    if mine + 1 > max(1, math.ceil(share * n)):
        return False
    if degenerate:
        limit = rules.max_empty_share if pool.answer_type == "list" else rules.max_zero_share
        return pool.degenerate + 1 <= math.floor(limit * n)
    return True


def _levels(pool: _TemplatePool, rng: random.Random) -> dict[int, list[tuple[float, str]]]:
    """The template's answer keys by how often each was picked, each level in tiebreak order (drawn once, in
    bucket order, on the first pick)."""
    if pool.levels is None:
        pool.levels = {0: sorted((rng.random(), k) for k in pool.buckets)}
    return pool.levels


def _take(by_variant: dict[str, list[dict[str, Any]]], pool: _TemplatePool, room: dict[str, int]) -> dict | None:
    """The next candidate of one answer from the least-used variant whose image has room (full images dropped)."""
    for variant in sorted(by_variant, key=lambda v: (pool.variants[v], v)):
        items = by_variant[variant]
        while items and room.get(items[-1]["map_id"], 0) <= 0:
            items.pop()  # that image is full for good
        if items:
            pool.variants[variant] += 1
            return items.pop()
    return None


def _pick(pool: _TemplatePool, room: dict[str, int], rules: SelectionRules, rng: random.Random) -> dict | None:
    """Pick one candidate of a template (least-used admissible answer, least-used variant, an image with room).

    Answer keys sit in ``pool.levels`` by pick count, so a pick costs about one look at the keys it passes over
    (answers with no candidate left are dropped for good) instead of a sort of every answer of the template."""
    levels = _levels(pool, rng)
    for count in sorted(levels):
        level, i = levels[count], 0
        while i < len(level):
            entry = level[i]
            key = entry[1]
            degenerate = key in pool.degenerate_keys
            if not _admits(pool, key, degenerate, rules):
                i += 1
                continue
            record = _take(pool.buckets[key], pool, room)
            del level[i]  # picked (moves up a level) or exhausted (gone)
            if record is None:
                continue
            bisect.insort(levels.setdefault(count + 1, []), entry)
            if not level:
                del levels[count]
            room[record["map_id"]] -= 1
            pool.picked[key].append(record["question_id"])
            pool.total += 1
            pool.degenerate += degenerate
            return record
        if not level:
            del levels[count]
    return None


def _coverage_target(pool: _TemplatePool, rules: SelectionRules) -> int:
    n = rules.min_per_template
    return n + (n % 2) if pool.answer_type == "binary" else n


def _select_country(records: Sequence[dict[str, Any]], room: dict[str, int], rules: SelectionRules,
                    rng: random.Random) -> dict[str, _TemplatePool]:
    pools = _pools(records, rng)
    order = sorted(pools, key=lambda t: (pools[t].size, t))  # scarcest first
    for t in order:  # 1. coverage: each template up to its minimum, scarcest first
        pool = pools[t]
        for relaxed in (False, True):  # yes/no: balanced first; then either answer (evened across countries)
            pool.relaxed = relaxed
            while pool.total < _coverage_target(pool, rules) and _pick(pool, room, rules, rng):
                pass
        pool.relaxed = False
    _raise_answer_types(pools, room, rules, rng)  # 1b. every answer type up to its floor
    progress = True
    while progress:  # 2. fill in turns, the least-asked template first
        progress = False
        for t in sorted(order, key=lambda t: (pools[t].total, pools[t].size, t)):
            if pools[t].ahead and not pools[t].exhausted:  # a turn the floor took early
                pools[t].ahead -= 1
                progress = True
            elif not pools[t].exhausted:
                if _pick(pools[t], room, rules, rng) is None:
                    pools[t].exhausted = True
                else:
                    progress = True
    return pools


def _raise_answer_types(pools: dict[str, _TemplatePool], room: dict[str, int], rules: SelectionRules,
                        rng: random.Random) -> None:
    """Every answer type up to ``rules.min_per_answer_type`` questions where its candidates allow: the scarcest
    type first, each pick from the type's least-asked template that can still give one (one with a single answer
    last; answer balance kept; yes/no templates take a Yes and a No together)."""
    by_type: dict[str, list[str]] = defaultdict(list)
    for t in sorted(pools):
        by_type[pools[t].answer_type].append(t)
    for kind in sorted(by_type, key=lambda k: (sum(pools[t].size for t in by_type[k]), k)):
        templates, able = by_type[kind], list(by_type[kind])
        while able and sum(pools[t].total for t in templates) < rules.min_per_answer_type:
            t = min(able, key=lambda t: (pools[t].total, len(pools[t].buckets) < 2, pools[t].size, t))
            pool = pools[t]
            if _pick(pool, room, rules, rng) is None:
                able.remove(t)  # no admissible candidate with room left now (phase 2 may still try it)
                continue
            pool.ahead += 1
            if pool.answer_type == "binary" and pool.total % 2:  # its pair, the other answer (a lone one is evened
                pool.ahead += _pick(pool, room, rules, rng) is not None  # away across countries)


def _even_binary(pools: dict[str, dict[str, _TemplatePool]], rules: SelectionRules) -> None:
    """Equal Yes and No per yes/no template over all countries: the surplus answer goes from the countries
    holding most of the template first, a country's minimum kept while others can give (picked last goes first)."""
    templates = {t for by_t in pools.values() for t, p in by_t.items() if p.answer_type == "binary"}
    for t in sorted(templates):
        holders = [by_t[t] for _, by_t in sorted(pools.items()) if t in by_t]
        totals: Counter = Counter()
        for pool in holders:
            totals.update({k: len(v) for k, v in pool.picked.items()})
        if len(totals) < 2:  # one answer only: nothing to balance it with
            for pool in holders:
                pool.picked.clear()
            continue
        (top, n_top), (_, n_other) = totals.most_common(2)
        excess = n_top - n_other
        for keep_minimum in (True, False):
            for pool in sorted(holders, key=lambda p: -p.total):
                floor_ = _coverage_target(pool, rules) if keep_minimum else 0
                while excess > 0 and pool.picked.get(top) and pool.total > floor_:
                    pool.picked[top].pop()
                    pool.total -= 1
                    excess -= 1


def select_questions(records: Sequence[dict[str, Any]], rules: SelectionRules, seed: int = 0) -> list[dict[str, Any]]:
    """The chosen records (input order kept); see the module doc for the rules."""
    room = {r["map_id"]: rules.per_image for r in records}
    by_country: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_country[str(r.get("country"))].append(r)
    pools = {c: _select_country(by_country[c], room, rules, random.Random(f"{seed}:{c}")) for c in sorted(by_country)}
    _even_binary(pools, rules)
    chosen = {i for by_t in pools.values() for pool in by_t.values() for ids in pool.picked.values() for i in ids}
    return [r for r in records if r["question_id"] in chosen]


def coverage(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Questions per country and template."""
    out: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        out[str(r.get("country"))][r["template_id"]] += 1
    return {c: dict(sorted(v.items())) for c, v in sorted(out.items())}
