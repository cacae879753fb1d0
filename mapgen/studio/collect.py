"""What the studio page shows: the maps (rendered once by mapgen) and, for each template of the packs, the
questions the engine asks on each map with their gold answers and program traces, why its other draws were
refused, and the lint messages naming it. Everything goes through the question engine's public API."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mapgen.questions import (
    Question,
    Template,
    TemplateError,
    check_packs,
    instantiate,
    load_templates,
    open_packs,
    rejections,
)
from mapgen.render import render
from mapgen.scene import Scene
from mapgen.spec import MapSpec, make_spec

#: The maps a studio shows when none are named: a discrete and a continuous US map and a discrete Indian one.
DEFAULT_MAPS: tuple[tuple[str, str, Literal["discrete", "continuous"]], ...] = (
    ("usa", "population_2020", "discrete"),
    ("usa", "population_2020", "continuous"),
    ("india", "population_2011", "discrete"),
)


@dataclass(frozen=True)
class StudioMap:
    """One map of the page: its id and title, the PNG mapgen rendered and the Scene (with pixel facts) of it."""

    map_id: str
    title: str
    png: bytes
    scene: Scene


def default_maps() -> list[StudioMap]:
    """The :data:`DEFAULT_MAPS`, rendered."""
    specs = [make_spec(country, stat, legend=kind, map_id=f"{country}-{stat}-{kind}", annotated=True)
             for country, stat, kind in DEFAULT_MAPS]
    return _rendered(specs)


def load_maps(paths: Iterable[str | Path]) -> list[StudioMap]:
    """The maps of map JSON files (a spec, MAPWise metadata or the JSON ``mapgen render`` writes), rendered."""
    from mapgen.mapwise.schema import load_map_spec

    return _rendered([load_map_spec(p) for p in paths])


def _rendered(specs: Sequence[MapSpec]) -> list[StudioMap]:
    """Each spec rendered to PNG (in a scratch folder that is removed after)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="mapgen-studio-") as tmp:
        for i, spec in enumerate(specs):
            result = render(spec, Path(tmp) / f"{i}.png")
            out.append(StudioMap(spec.map_id or f"map-{i + 1}", spec.title or spec.map_id or "", result.png,
                                 result.scene))
    return out


def studio_view(packs: Sequence[str | Path], maps: Sequence[StudioMap], per_map: int = 3, seed: int = 0,
                attempts: int = 200) -> dict[str, Any]:
    """The page's content: ``packs`` (the paths as given), ``error`` (a pack that cannot be opened), ``problems``
    (every lint line), ``templates`` (one view each, :func:`template_view`) and ``maps`` (id, title, map type)."""
    view: dict[str, Any] = {"packs": [str(p) for p in packs], "error": None, "problems": [], "templates": [],
                            "maps": [{"id": m.map_id, "title": m.title, "map_type": m.scene.map_type} for m in maps]}
    try:
        opened = open_packs(packs)
    except TemplateError as exc:
        view["error"] = str(exc)
        return view
    problems, templates = check_packs(opened, load_templates(), include_base=True)
    sources = {str(f) for pack in opened for f in pack.template_files}
    view["problems"] = problems
    view["templates"] = [template_view(t, maps, problems, per_map, seed, attempts)
                         for t in templates if t.source in sources]
    return view


def template_view(template: Template, maps: Sequence[StudioMap], problems: Sequence[str], per_map: int, seed: int,
                  attempts: int) -> dict[str, Any]:
    """One template: what it is (texts, parameters, program), the lint lines naming it and, per map, its
    questions and refusals."""
    data = template.to_dict()
    return {
        "id": template.id, "answer_type": template.answer_type, "map_types": list(template.map_types),
        "mapwise": template.mapwise, "texts": text_groups(template), "params": data["params"], "program": data["program"],
        "constraints": data["constraints"],
        "lint": [p for p in problems if f"template {template.id}:" in p],
        "maps": [_on_map(template, i, m, per_map, seed, attempts) for i, m in enumerate(maps)],
    }


def text_groups(template: Template) -> list[tuple[str, list[str]]]:
    """The template's text variants as ``(label, variants)``: English per map type (map types with the same
    variants together), then each language of its pack's ``lang/`` files."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for map_type, variants in template.to_dict()["text"].items():
        groups.setdefault(tuple(variants), []).append(map_type)
    out = [(f"{' and '.join(types)} maps", list(variants)) for variants, types in groups.items()]
    for code, texts in sorted(template.translations.items()):
        if isinstance(texts, dict):
            out += [(f"{code}, {map_type} maps", [str(v) for v in variants]) for map_type, variants in texts.items()]
        else:
            out.append((code, [str(v) for v in texts]))
    return out


def _on_map(template: Template, index: int, studio_map: StudioMap, per_map: int, seed: int,
            attempts: int) -> dict[str, Any]:
    """The template on one map: its questions and why draws were refused (or why it is not asked there)."""
    scene = studio_map.scene
    out: dict[str, Any] = {"map": index, "applies": template.applies_to(scene.map_type), "questions": [],
                           "refusals": [], "error": None}
    if not out["applies"]:
        return out
    try:  # a template being written may fail in any way: the page says how, the studio keeps running
        questions = instantiate(template, scene, per_map, seed, max_answer_share=1.0, attempts=attempts)
        out["refusals"] = rejections(template, scene, attempts=attempts, seed=seed)
    except Exception as exc:  # noqa: BLE001
        out["error"] = f"{type(exc).__name__}: {exc}"
        return out
    out["questions"] = [question_view(q) for q in questions]
    return out


def question_view(question: Question) -> dict[str, Any]:
    """A question as the page shows it: text, text variant, gold answer, other accepted answers, trace lines."""
    return {"text": question.question, "variant": question.text_variant, "answer": shown(question.answer),
            "accepted": {shown(k): [shown(v) for v in vs] for k, vs in question.accepted_answers.items()},
            "trace": [_trace_line(step) for step in question.program]}


def _trace_line(step: dict[str, Any]) -> dict[str, str]:
    """A program trace entry: a parameter drawn (``X (Region) = AZ``) or a step run (``answer = call → result``)."""
    if "param" in step:
        return {"name": f"{step['param']} ({step.get('type', '')})", "call": "", "result": shown(step.get("value"))}
    return {"name": str(step.get("step", "")), "call": str(step.get("call", "")), "result": shown(step.get("result"))}


def shown(value: Any) -> str:
    """A value as text: a string as it is, anything else as JSON (sets sorted)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=str)
    return json.dumps(value, ensure_ascii=False, default=str)
