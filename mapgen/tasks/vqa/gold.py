"""VQA gold: every template the engine can ask on an image's Scene, the optional pixel-oracle audit, and the
selection of the benchmark's questions over the whole build (:func:`balance_set`)."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.tasks.base import ImageContext

if TYPE_CHECKING:
    from mapgen.config import BuildConfig
    from mapgen.questions import TemplateSet


def unit_questions(scene: Any, seed: int, config: BuildConfig, meta: dict[str, Any],
                   folder: Path | None = None) -> list[dict[str, Any]]:
    """Candidate questions for one image: every template the engine can ask there (``per_template`` each, twice
    as many for yes/no templates so both answers can be offered; parameters searched with the unit's seed).
    :func:`balance_set` chooses ``per_image`` of them per image. ``folder``: the build folder, whose copies of
    the config's template packs are asked (:func:`mapgen.packs.build_templates`)."""
    from mapgen.packs import build_templates
    from mapgen.questions import instantiate

    q = config.questions
    templates = offered_templates(build_templates(config, folder)[1], q.templates_per_image, seed,
                                  str(meta.get("variant")))
    questions = []
    for t in templates:
        n = q.per_template * (2 if t.answer_type == "binary" else 1)
        questions += instantiate(t, scene, n, seed=seed, max_answer_share=q.max_answer_share)
    records = []
    for question in questions:
        record = question.to_dict()
        record.update({k: v for k, v in meta.items() if k != "counterfactual"})
        record["counterfactual"] = meta["counterfactual"] if meta["counterfactual"] != "original" else None
        record["counterfactual_set"] = meta["counterfactual"]
        records.append(record)
    return records


#: The slice of a map's template order each variant takes (a counterfactual map takes the first, like the
#: annotated map it redraws, so every kind of a map is asked the same templates).
VARIANT_SLICES = {"annotated": 0, "unannotated": 1, "hatched": 2}


def offered_templates(templates: TemplateSet | list[Any], per_image: int | str, seed: int,
                      variant: str) -> list[Any]:
    """The templates an image draws candidates from (``questions.templates_per_image``): all, or ``per_image``
    of them, a slice of the map's template order (shuffled by the unit's ``seed``) that each variant of the map
    takes in turn (:data:`VARIANT_SLICES`), wrapping round; in the templates' own order."""
    listed = list(templates)
    if per_image == "all" or int(per_image) >= len(listed):
        return listed
    order = sorted(range(len(listed)), key=lambda i: listed[i].id)
    random.Random(f"{seed}:templates").shuffle(order)
    start = VARIANT_SLICES.get(variant, 0) * int(per_image)
    chosen = {order[(start + k) % len(order)] for k in range(int(per_image))}
    return [t for i, t in enumerate(listed) if i in chosen]


def audit_questions(image: ImageContext, records: list[dict[str, Any]], mode: str,
                    templates: TemplateSet | None = None) -> list[dict[str, Any]]:
    """Pixel-oracle audit of one image's questions, read from the render in memory when the image carries it
    (else from its PNG): ``flag`` adds an ``audit`` field, ``drop`` keeps only the questions the oracle recovers
    from the image (``templates``: the build's, default the built-in ones)."""
    from mapgen.audit.audit import audit_map, audit_question, audit_render
    from mapgen.questions import load_templates

    if not records:
        return records
    map_audit = audit_render(image.render) if image.render is not None else audit_map(image.image)
    templates = templates or load_templates()
    kept = []
    for record in records:
        row = audit_question(record, map_audit, templates)
        if mode == "drop" and not row["recoverable"]:
            continue
        if mode == "flag":
            record = record | {"audit": {"recoverable": row["recoverable"], "reasons": row["reasons"],
                                         "flags": row["flags"]}}
        kept.append(record)
    return kept


def image_questions(image: ImageContext) -> list[dict[str, Any]]:
    """The candidate questions of one rendered image, audited when the config asks (timed as ``questions`` and
    ``audit``)."""
    config = image.config
    if not config.questions.per_image:
        return []
    start = time.perf_counter()
    questions = unit_questions(image.scene, image.seed, config, image.meta, image.folder)
    image.timings["questions"] += time.perf_counter() - start
    if config.audit != "off":
        start = time.perf_counter()
        from mapgen.packs import build_templates

        every = build_templates(config, image.folder)[0] if config.questions.packs else None
        questions = audit_questions(image, questions, config.audit, every)
        image.timings["audit"] += time.perf_counter() - start
    return questions


def balance_set(records: list[dict[str, Any]], config: BuildConfig) -> list[dict[str, Any]]:
    """The benchmark's questions chosen from every image's candidates, per split
    (:func:`mapgen.questions.select_questions`: at most ``per_image`` per image, every template at
    least ``min_per_template`` times per country where its candidates allow, answers balanced, empty lists and
    zero counts rare); order kept."""
    from mapgen.questions import SelectionRules, select_questions

    q = config.questions
    rules = SelectionRules(per_image=q.per_image, min_per_template=q.min_per_template,
                           min_per_answer_type=q.min_per_answer_type,
                           max_answer_share=q.max_answer_share, max_empty_share=q.max_empty_share,
                           max_zero_share=q.max_zero_share)
    kept: set[str] = set()
    for split in sorted({r["split"] for r in records}):
        subset = [r for r in records if r["split"] == split]
        kept |= {r["question_id"] for r in select_questions(subset, rules, seed=config.seed)}
    return [r for r in records if r["question_id"] in kept]


def question_counts(questions: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The manifest's question counts: in all, and per country, variant, split, map type, answer type and
    template (one pass: ``questions`` may be streamed from a file)."""
    keys = (("country", "country"), ("variant", "variant"), ("split", "split"), ("map_type", "map_type"),
            ("answer_type", "answer_type"), ("template", "mapwise_template"))
    tallies: dict[str, Counter[str]] = {name: Counter() for name, _ in keys}
    n = 0
    for r in questions:
        n += 1
        for name, key in keys:
            tallies[name][str(r.get(key))] += 1
    return {"questions": n} | {f"questions_by_{name}": dict(sorted(tallies[name].items())) for name, _ in keys}
