"""Baselines that answer without looking at the image; both return ``{question_id: text}``.

Predictions are written as the prompts ask models to answer (``{"answer": ...}``), so they go through the same
extraction and scoring as model output.

``random_baseline`` — a uniformly random valid answer per answer type, seeded per question (the same
``seed`` gives the same answers whatever the order or subset of questions):

- ``binary``: Yes or No.
- ``count``: an integer uniform in ``0..N``, N = the number of regions on the map.
- ``single``: one candidate uniform over the map's legend labels when the gold answer is a legend label,
  else over the map's region names.
- ``list``: a size ``k`` uniform in ``0..N``, then a uniform ``k``-subset of the map's region names.
- ``ranking``: a uniform permutation of the items the question asks to rank (one item per rank).
- ``range``: a uniform choice among the map's legend labels (discrete) or tick intervals (continuous).

Candidates come from the map spec (``maps/<map_id>.json``: region codes → atlas names, legend labels,
counterfactual names) when the benchmark has one, and are completed by every answer item seen on the same map
in the question set (so candidates are known even without specs).

``prior_baseline`` — the most frequent answer per ``template_id`` in the reference questions (the ``train``
split when the set has one, else the evaluated set itself — a leaky upper bound on answer priors, say so when
reporting). A template absent from the reference falls back to the most frequent answer of its answer type.
Ties break on the answer's JSON text (smallest first) so results are deterministic.
"""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mapgen.questions.record import Question, format_answer

TRAIN_SPLIT = "train"
SpecLookup = Callable[[str], Mapping[str, Any] | None]


def _flatten(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _flatten(v)]
    return [str(value)]


# ------------------------------------------------------------------------------------------- candidates


@dataclass
class MapCandidates:
    """Valid answer items of one map."""

    regions: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    n_regions: int = 0

    def add_regions(self, items: Iterable[str]) -> None:
        for item in items:
            if item not in self.regions:
                self.regions.append(item)

    def add_labels(self, items: Iterable[str]) -> None:
        for item in items:
            if item not in self.labels:
                self.labels.append(item)


def _spec_regions(spec: Mapping[str, Any]) -> list[str]:
    from mapgen.eval.prompts import _atlas_names

    codes = list((spec.get("values") or {}).keys())
    cf = spec.get("counterfactual") or {}
    fake = cf.get("names", {}) if isinstance(cf, Mapping) else {}
    real = _atlas_names(str(spec.get("atlas") or ""))
    return [str(fake.get(c) or real.get(c) or c) for c in codes]


def _spec_labels(spec: Mapping[str, Any]) -> list[str]:
    legend = spec.get("legend") or {}
    labels = [str(c["label"]) for c in legend.get("classes") or () if c.get("label")]
    if not labels:
        ticks = [str(t) for t in legend.get("tick_labels") or ()]
        labels = [f"{a}-{b}" for a, b in zip(ticks, ticks[1:])]
    return labels


def map_candidates(
    questions: Sequence[Question], spec_of: SpecLookup | None = None
) -> dict[str, MapCandidates]:
    """Candidates per map id: from the spec (when ``spec_of`` finds one) plus answers seen on that map."""
    out: dict[str, MapCandidates] = {}
    for q in questions:
        if q.map_id not in out:
            cands = out[q.map_id] = MapCandidates()
            spec = spec_of(q.map_id) if spec_of else None
            if spec:
                cands.add_regions(_spec_regions(spec))
                cands.add_labels(_spec_labels(spec))
                cands.n_regions = len(cands.regions)
    for q in questions:  # labels first, so a single answer that is a legend label is not taken for a region
        if q.answer_type == "range":
            out[q.map_id].add_labels(_flatten(q.answer))
    for q in questions:
        cands = out[q.map_id]
        if q.answer_type in ("list", "ranking") or (
            q.answer_type == "single" and str(q.answer) not in cands.labels
        ):
            cands.add_regions(_flatten(q.answer))
    for cands in out.values():
        cands.n_regions = max(cands.n_regions, len(cands.regions))
    return out


# ------------------------------------------------------------------------------------------- random


def _rng(seed: int, question_id: str) -> random.Random:
    return random.Random(seed * 1_000_003 + zlib.crc32(question_id.encode("utf-8")))


def random_answer(q: Question, cands: MapCandidates, rng: random.Random) -> Any:
    """One uniformly random valid answer for ``q`` (see the module docstring)."""
    if q.answer_type == "binary":
        return rng.choice(["Yes", "No"])
    if q.answer_type == "count":
        return rng.randint(0, max(cands.n_regions, 1))
    if q.answer_type == "single":
        gold = _flatten(q.answer)
        pool = cands.labels if gold and gold[0] in cands.labels else cands.regions
        return rng.choice(pool or gold or [""])
    if q.answer_type == "list":
        k = rng.randint(0, len(cands.regions))
        return rng.sample(cands.regions, k)
    if q.answer_type == "ranking":
        items = _flatten(q.answer)
        rng.shuffle(items)
        return [[i] for i in items]
    if q.answer_type == "range":
        return rng.choice(cands.labels or _flatten(q.answer) or [""])
    raise ValueError(f"unknown answer type {q.answer_type!r}")


def random_baseline(
    questions: Iterable[Question], seed: int = 0, spec_of: SpecLookup | None = None
) -> dict[str, str]:
    """Uniformly random valid answers, seeded per question."""
    qs = list(questions)
    cands = map_candidates(qs, spec_of)
    return {
        q.question_id: format_answer(
            random_answer(q, cands[q.map_id], _rng(seed, q.question_id)), q.answer_type
        )
        for q in qs
    }


# ------------------------------------------------------------------------------------------- prior


def _key(answer: Any) -> str:
    return json.dumps(answer, sort_keys=True, ensure_ascii=False)


def _most_frequent(answers: Iterable[Any]) -> Any:
    counts = Counter(_key(a) for a in answers)
    if not counts:
        return None
    best = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return json.loads(best)


def _answer_key(q: Question) -> Any:
    """The answer with list items sorted (lists are unordered), so equal lists count together."""
    if q.answer_type == "list" and isinstance(q.answer, (list, tuple)):
        return sorted(str(a) for a in q.answer)
    return q.answer


def prior_answers(reference: Sequence[Question]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Most frequent answer per template id and per answer type in ``reference``."""
    by_template: dict[str, list[Any]] = {}
    by_type: dict[str, list[Any]] = {}
    for q in reference:
        by_template.setdefault(q.template_id, []).append(_answer_key(q))
        by_type.setdefault(q.answer_type, []).append(_answer_key(q))
    return (
        {t: _most_frequent(a) for t, a in by_template.items()},
        {t: _most_frequent(a) for t, a in by_type.items()},
    )


def prior_baseline(questions: Iterable[Question], train: Iterable[Question] | None = None) -> dict[str, str]:
    """Most frequent answer per template (from ``train``, else the ``train`` split, else the set itself).

    A template missing from the reference takes the reference's most frequent answer of its answer type; an
    answer type missing from it too falls back to the evaluated set (template, then type).
    """
    qs = list(questions)
    reference = list(train) if train is not None else [q for q in qs if q.split == TRAIN_SPLIT] or qs
    lookups = [*prior_answers(reference), *prior_answers(qs)]
    out: dict[str, str] = {}
    for q in qs:
        keys = (q.template_id, q.answer_type, q.template_id, q.answer_type)
        answer = next((table[k] for table, k in zip(lookups, keys) if k in table), None)
        out[q.question_id] = format_answer(answer, q.answer_type)
    return out


BASELINES = ("random", "prior")


def run_baseline(
    name: str,
    questions: Sequence[Question],
    seed: int = 0,
    spec_of: SpecLookup | None = None,
    train: Iterable[Question] | None = None,
) -> dict[str, str]:
    """Predictions of baseline ``name`` (``random`` or ``prior``). The pixel-reading oracle is scored from the
    predictions file ``mapgen audit`` writes (``mapgen eval BENCH --predictions AUDIT/predictions.jsonl``)."""
    if name == "random":
        return random_baseline(questions, seed=seed, spec_of=spec_of)
    if name == "prior":
        return prior_baseline(questions, train=train)
    raise ValueError(f"unknown baseline {name!r}; known: {', '.join(BASELINES)}")
