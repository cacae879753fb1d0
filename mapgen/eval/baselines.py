"""Baselines that answer without looking at the image; each returns ``{question_id: text}``.

Predictions are written as the prompts ask models to answer (``{"answer": ...}``), so they go through the same
answer reading and scoring as model output. No baseline reads a gold answer of the question it answers.

``random_baseline`` — uniform over the question's *answer space*, built from what a model is shown: the map
(``maps/<map_id>.json`` of the benchmark: its regions and their names, counterfactual names included, and its
legend) and the question's own parameters (the items a ranking question names, the two numbers a "closer to A
or B" question offers). Seeded per question: the same ``seed`` gives the same answers whatever the order or
subset of questions. Answer spaces (:func:`answer_space`):

- ``binary``: Yes or No.
- ``count``: an integer uniform in ``0..N``, N = the number of regions on the map.
- ``single``: a region of the map; "discrete or continuous" and "evenly spaced or gaps" questions: their two
  words; "closer to A or B": A or B.
- ``list``: a size ``k`` uniform in ``0..N``, then a uniform ``k``-subset of the map's regions.
- ``ranking``: a uniform permutation of the regions the question names.
- ``range``: a legend class label (discrete) or an interval between adjacent colour-bar ticks (continuous);
  "overall range of the legend": any span from one legend bound to a higher one.

``prior_baseline`` — the most frequent answer per ``template_id`` among the ``train`` split's questions
(ties break on the answer's JSON text, smallest first), applied to the other questions; a template absent from
the train split takes the train split's most frequent answer of its answer type. It needs a train split.

:mod:`mapgen.eval.chance` computes the exact expected score of the random baseline (the analytic chance level).
"""

from __future__ import annotations

import itertools
import json
import random
import zlib
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mapgen.eval.prompts import atlas_names
from mapgen.questions.record import Question, format_answer

TRAIN_SPLIT = "train"
MapLookup = Callable[[str], Mapping[str, Any] | None]
"""``map_id`` → the map's JSON (spec nested under ``"spec"``), ``None`` when the benchmark has none."""

FIXED_CHOICES: dict[str, tuple[str, ...]] = {
    "legend_kind": ("Discrete", "Continuous"),
    "legend_spacing": ("Evenly spaced", "Significant gaps"),
}
"""Answer function → the words its question offers (single-answer questions that do not ask for a region)."""


# ------------------------------------------------------------------------------------------- map facts


@dataclass(frozen=True)
class MapFacts:
    """What a model sees of one map: region names by code, legend range labels and legend bounds."""

    names: dict[str, str] = field(default_factory=dict)
    labels: tuple[str, ...] = ()
    bounds: tuple[float, ...] = ()

    @property
    def regions(self) -> list[str]:
        return list(self.names.values())


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _legend_facts(legend: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    classes = [c for c in legend.get("classes") or () if c.get("label")]
    if classes:
        bounds = {float(c[k]) for c in classes for k in ("lower", "upper") if c.get(k) is not None}
        return tuple(str(c["label"]) for c in classes), tuple(sorted(bounds))
    ticks = [str(t) for t in legend.get("tick_labels") or ()]
    values = tuple(float(t) for t in legend.get("ticks") or ())
    return tuple(f"{a}-{b}" for a, b in zip(ticks, ticks[1:])), values


def map_facts(map_json: Mapping[str, Any]) -> MapFacts:
    """The facts of a map JSON as written beside each image (``{"spec": {...}, ...}``)."""
    spec = map_json.get("spec")
    if not isinstance(spec, Mapping):
        raise ValueError("map JSON without a 'spec' object: not a map file written by mapgen render/build")
    cf = spec.get("counterfactual") or {}
    fake = cf.get("names") or {} if isinstance(cf, Mapping) else {}
    real = {**atlas_names(str(spec.get("atlas") or "")), **local_names(spec)}
    names = {str(c): str(fake.get(c) or real.get(c) or c) for c in (spec.get("values") or {})}
    labels, bounds = _legend_facts(spec.get("legend") or {})
    return MapFacts(names=names, labels=labels, bounds=bounds)


def local_names(spec: Mapping[str, Any]) -> dict[str, str]:
    """``{code: name}`` in the language a map's questions are asked in (``style.language``; empty for English),
    so baselines and multiple-choice options name regions as the questions' answers do."""
    language = str((spec.get("style") or {}).get("language") or "en")
    if language == "en":
        return {}
    from mapgen.geo.languages import native_names

    names = native_names(language)
    return dict(names.names) if names is not None else {}


def facts_lookup(map_of: MapLookup, keep: int | None = None) -> Callable[[str], MapFacts]:
    """``map_id`` → :class:`MapFacts`, read once per map (``keep``: only the last ``keep`` maps used are kept, for a
    reader passing over the questions in map order in bounded memory); a missing map JSON is a ``ValueError``
    naming it."""
    cache: OrderedDict[str, MapFacts] = OrderedDict()

    def facts(map_id: str) -> MapFacts:
        if map_id in cache:
            cache.move_to_end(map_id)
            return cache[map_id]
        data = map_of(map_id)
        if not data:
            raise ValueError(
                f"no map JSON for {map_id!r}: the random baseline and the chance level read each question's "
                "answer space from maps/<map_id>.json (rebuild the benchmark with `mapgen build`)"
            )
        cache[map_id] = found = map_facts(data)
        if keep is not None and len(cache) > keep:
            cache.popitem(last=False)
        return found

    return facts


# ------------------------------------------------------------------------------------------- answer spaces


@dataclass(frozen=True)
class AnswerSpace:
    """The answers a question allows: ``choice`` (one of ``items``), ``subset`` (any subset of ``items``, size
    uniform in 0..len) or ``permutation`` (an order of ``items``, one per rank)."""

    kind: str
    items: tuple[Any, ...]


def answer_function(q: Question) -> str:
    """The name of the function whose result is the answer (the template's, not the result)."""
    step = next((s for s in reversed(q.program or []) if s.get("step") == "answer"), None)
    call = str(step.get("call", "")) if step else ""
    return call.split("(", 1)[0].strip()


def _spans(bounds: Sequence[float]) -> tuple[str, ...]:
    return tuple(f"{_number(a)} - {_number(b)}" for a, b in itertools.combinations(sorted(bounds), 2))


def _single_items(q: Question, facts: MapFacts) -> tuple[Any, ...]:
    fn = answer_function(q)
    if fn in FIXED_CHOICES:
        return FIXED_CHOICES[fn]
    if fn == "closer_number":
        return tuple(_number(q.params[k]) for k in ("A", "B"))
    return tuple(facts.regions)


def _ranking_items(q: Question, facts: MapFacts) -> tuple[str, ...]:
    codes = [v for k, v in sorted((q.params or {}).items()) if isinstance(v, str) and v in facts.names and k != "R"]
    return tuple(facts.names[c] for c in codes)


def answer_space(q: Question, facts: MapFacts) -> AnswerSpace:
    """The answer space of ``q`` on its map (see the module docstring); never reads the answer."""
    kind = q.answer_type
    if kind == "binary":
        return AnswerSpace("choice", ("Yes", "No"))
    if kind == "count":
        return AnswerSpace("choice", tuple(range(len(facts.names) + 1)))
    if kind == "single":
        return AnswerSpace("choice", _single_items(q, facts))
    if kind == "range":
        spans = answer_function(q) == "legend_span"
        return AnswerSpace("choice", _spans(facts.bounds) if spans else facts.labels)
    if kind == "list":
        return AnswerSpace("subset", tuple(facts.regions))
    if kind == "ranking":
        return AnswerSpace("permutation", _ranking_items(q, facts))
    raise ValueError(f"unknown answer type {kind!r}")


# ------------------------------------------------------------------------------------------- random


def _rng(seed: int, question_id: str) -> random.Random:
    return random.Random(seed * 1_000_003 + zlib.crc32(question_id.encode("utf-8")))


def random_answer(space: AnswerSpace, rng: random.Random) -> Any:
    """One uniformly random answer from ``space`` (an empty choice space gives ``""``)."""
    items = list(space.items)
    if space.kind == "choice":
        return rng.choice(items) if items else ""
    if space.kind == "subset":
        return rng.sample(items, rng.randint(0, len(items)))
    rng.shuffle(items)
    return [[i] for i in items]


def random_text(q: Question, facts: Callable[[str], MapFacts], seed: int = 0) -> str:
    """The random baseline's reply to one question (``facts``: a :func:`facts_lookup`)."""
    return format_answer(random_answer(answer_space(q, facts(q.map_id)), _rng(seed, q.question_id)), q.answer_type)


def random_baseline(questions: Iterable[Question], map_of: MapLookup, seed: int = 0) -> dict[str, str]:
    """Uniformly random answers from each question's answer space, seeded per question."""
    facts = facts_lookup(map_of)
    return {q.question_id: random_text(q, facts, seed) for q in questions}


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


def prior_baseline(questions: Iterable[Question], train: Sequence[Question]) -> dict[str, str]:
    """The train split's most frequent answer per template (else per answer type) for every question."""
    if not train:
        raise ValueError("the prior baseline learns from a train split and this benchmark has none "
                         "(give the config a split, e.g. split: {ratios: {train: 0.5, test: 0.5}})")
    by_template, by_type = prior_answers(train)
    return {
        q.question_id: format_answer(by_template.get(q.template_id, by_type.get(q.answer_type)), q.answer_type)
        for q in questions
    }


BASELINES = ("random", "prior")


def run_baseline(
    name: str,
    questions: Sequence[Question],
    seed: int = 0,
    map_of: MapLookup | None = None,
    train: Sequence[Question] = (),
) -> dict[str, str]:
    """Predictions of baseline ``name`` (``random`` needs ``map_of``, ``prior`` a ``train`` split). The pixel
    oracle (``mapgen eval BENCH --baseline pixel``) is run by the command line through ``mapgen.audit``."""
    if name == "random":
        if map_of is None:
            raise ValueError("the random baseline needs the benchmark's map JSONs (map_of)")
        return random_baseline(questions, map_of, seed=seed)
    if name == "prior":
        return prior_baseline(questions, train)
    raise ValueError(f"unknown baseline {name!r}; known: {', '.join(BASELINES)}")
