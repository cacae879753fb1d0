"""Instantiation: sample typed parameters, run the program on the Scene, reject, balance, render text.

Rejection (CLEVR-style, a rejected draw is simply skipped): a library function returned INVALID (ties where one
answer is asked, degenerate sets, continuous comparisons closer than the perceptual tolerance), a constraint is
false, the answer changes when an illegible region the program read takes any other legend level or when a
contested border is counted the other way, the answer changes under another declared reading of a word, a
direction or a group the program consulted (:mod:`mapgen.questions.readings`), the same question text was
already produced, or the answer already fills its share (binary: at most half Yes / half No
per template and map; other types: at most ``max_answer_share`` of a template's questions on one map).
Everything is seeded by ``(seed, map_id, template id)``: the same Scene and seed give the same questions.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from mapgen.geo.languages import DEFAULT_LANGUAGE
from mapgen.legend import parse_label, printed_numbers
from mapgen.questions.fence import PackCodeError
from mapgen.questions.functions import FUNCTIONS, INVALID, Reading, reading
from mapgen.questions.functions.scene_facts import contested_flips, flip_borders, watch_borders
from mapgen.questions.readings import axes, axis_of
from mapgen.questions.record import Question
from mapgen.questions.sandbox import TEXT_ENV
from mapgen.questions.templates import (
    Language,
    Node,
    Param,
    Template,
    TemplateSet,
    load_language,
    load_templates,
    node_text,
)
from mapgen.scene import Scene

#: Draws per wanted question before giving up on a template/map.
ATTEMPTS_PER_QUESTION = 30
MIN_ATTEMPTS = 60
DEFAULT_MAX_ANSWER_SHARE = 0.5


P = ParamSpec("P")
R = TypeVar("R")


def _naming_template(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` (whose first argument is a Template) naming that template in a pack function's failure."""

    @wraps(fn)
    def named(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except PackCodeError as exc:
            raise exc.in_template(getattr(args[0], "id", "?")) from None

    return named


# ---------------------------------------------------------------------------------------------- evaluation


def eval_node(ctx: Reading, node: Node, env: dict[str, Any]) -> Any:
    """Evaluate one program node; INVALID propagates."""
    kind = node[0]
    if kind == "ref":
        return env[node[1]]
    if kind == "lit":
        return node[1]
    args = []
    for a in node[2]:  # references and literals inline (the hot path: most arguments are one of them)
        sub = a[0]
        v = env[a[1]] if sub == "ref" else a[1] if sub == "lit" else eval_node(ctx, a, env)
        if v is INVALID:
            return INVALID
        args.append(v)
    return FUNCTIONS[node[1]].fn(ctx, *args)


@_naming_template
def run_program(template: Template, ctx: Reading, params: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Execute the program (and constraints); returns (answer or INVALID, env of step results)."""
    answer, env, _ = _run(template, ctx, params)
    return answer, env


def _run(template: Template, ctx: Reading, params: dict[str, Any]) -> tuple[Any, dict[str, Any], Unaskable | None]:
    """:func:`run_program`, plus why the run was rejected (None when it was not)."""
    env = dict(params)
    ctx.reads = set()
    ctx.consulted = set()
    for i, (name, node) in enumerate(template.program):
        value = eval_node(ctx, node, env)
        if value is INVALID:
            return INVALID, env, Unaskable("invalid", f"step {name} = {_call_texts(template)[i]} is INVALID on this "
                                                      "map (a near tie, a degenerate set or an answer forced by "
                                                      "construction)")
        env[name] = value
    for c in template.constraints:
        ok = eval_node(ctx, c, env)
        if ok is INVALID or not ok:
            return INVALID, env, Unaskable("constraint", f"constraint {node_text(c)} fails on this map")
    return env["answer"], env, None


def _alternatives(ctx: Reading) -> list[tuple[float | None, float]]:
    """Other (level, value) pairs an unreadable region could have: every class (discrete); the ends and middle
    of the colour bar and the middle of every tick interval, so it may fall in any range (continuous); N/A."""
    cached = ctx.fixed.get("alternatives")
    if cached is not None:
        return cached
    legend = ctx.scene.legend
    if ctx.discrete:
        out: list[tuple[float | None, float]] = [(float(c.index), (c.lower + c.upper) / 2) for c in legend.classes]
        out += [(None, math.nan)]
    else:
        lo, hi = legend.vmin, legend.vmax
        marks = [lo, (lo + hi) / 2, hi] + [(a + b) / 2 for a, b in ctx.intervals]
        out = [(v, v) for v in dict.fromkeys(marks)]
        out += [(None, math.nan)]
    ctx.fixed["alternatives"] = out
    return out


def hinges_on_illegible(template: Template, ctx: Reading, params: dict[str, Any], answer: Any) -> bool:
    """True when an illegible region the program read — or all of them at once — could change the answer."""
    if ctx.legible.issuperset(ctx.reads):
        return False
    unreadable = [c for c in ctx.reads if c not in ctx.legible]
    if any(v in unreadable for v in params.values() if isinstance(v, str)):
        return True
    # all of them together (misreads of tiny regions tend to go one way), then each unreadable region alone; the
    # answer hinges if any changes it, so the order only decides how soon a hinge is found: the likeliest first
    groups = ([unreadable] if len(unreadable) > 1 else []) + [[code] for code in unreadable]
    key = answer_key(answer)
    n = len(_alternatives(ctx))
    for codes in groups:
        for i in (n - 1, *range(n - 1)):  # N/A (the last alternative) first: it most often ends the check
            other, _ = run_program(template, _alternative(ctx, codes, i), params)
            if other is INVALID or answer_key(other) != key:
                return True
    return False


def _alternative(ctx: Reading, codes: list[str], i: int) -> Reading:
    """:meth:`Reading.copy_with` of ``codes`` taking alternative ``i`` of :func:`_alternatives`, kept in ``ctx.cache``
    so that every question re-checked on the same copy shares its cache (the copy's facts are the same whatever
    the program; a run resets its reads)."""
    cache_key = ("illegible alternative", frozenset(codes), i)
    alt = ctx.cache.get(cache_key)
    if alt is None:
        level, value = _alternatives(ctx)[i]
        alt = ctx.cache[cache_key] = ctx.copy_with(codes, level, value)
    return alt


def hinges_on_contested(
    template: Template, ctx: Reading, params: dict[str, Any], answer: Any, seen: set[str] | None = None
) -> bool:
    """True when the answer changes (or cannot be given) once a contested pair of the map — each alone, then all
    at once — is counted the other way: a border where the map has none (ARCHITECTURE.md §3).

    A flip whose border facts (:func:`~mapgen.questions.functions.scene_facts.contested_flips`) the program does
    not read on the map's own borders cannot change its answer, and is not re-run. ``seen`` are those reads when
    known (the run that gave the answer, on :func:`~mapgen.questions.functions.scene_facts.watch_borders`);
    otherwise they are learnt from the first run on a flipped copy that read no flipped fact: up to its first
    read of one, a run on a flipped copy is the run on the map's own borders, so that run was it."""
    if not may_hinge_on_contested(template, ctx):
        return False
    key = answer_key(answer)
    for flip, changed in contested_flips(ctx):
        if seen is not None and seen.isdisjoint(changed):
            continue
        alt, watch = flip_borders(ctx, flip)
        other, _ = run_program(template, alt, params)
        if other is INVALID or answer_key(other) != key:
            return True
        if seen is None and watch.read.isdisjoint(watch.changed):
            seen = set(watch.read)
    return False


def _run_watched(
    template: Template, ctx: Reading, params: dict[str, Any]
) -> tuple[Any, dict[str, Any], Unaskable | None, set[str] | None]:
    """:func:`_run`, plus the border facts the program read when its answer could hinge on a contested border
    (run on :func:`~mapgen.questions.functions.scene_facts.watch_borders`; None otherwise). ``ctx.reads`` are the
    run's reads either way."""
    if not may_hinge_on_contested(template, ctx):
        return (*_run(template, ctx, params), None)
    watched, watch = watch_borders(ctx)
    answer, env, why = _run(template, watched, params)
    ctx.reads, ctx.consulted = watched.reads, watched.consulted
    return answer, env, why, set(watch.read)


def may_hinge_on_contested(template: Template, ctx: Reading) -> bool:
    """Whether the map has contested pairs and the program reads borders (functions marked relative) or a group:
    a program that reads neither cannot hinge on a contested border."""
    if not ctx.scene.contested:
        return False
    reads = template._compiled.get("reads borders")
    if reads is None:
        reads = template._compiled["reads borders"] = [
            template.relative or any(p.type == "RegionGroup" for p in template.params)]
    return bool(reads[0])


def reading_alternatives(ctx: Reading, key: str) -> list[str]:
    """The other readings of a consulted key: an axis's alternatives, or a group's alternative memberships."""
    if axis_of(key) != key:
        return list(ctx.group_readings.get(key.split(":", 1)[1], {}))
    return [a.name for a in axes()[key].alternatives]


def hinges_on_reading(template: Template, ctx: Reading, params: dict[str, Any], answer: Any) -> tuple[str, str] | None:
    """The first (consulted key, reading) under which the answer changes or cannot be given: each declared
    reading the run consulted (``ctx.consulted``) and the template's wording does not name, taken alone; None
    when the answer holds under every one."""
    consulted = sorted(ctx.consulted - template.reads_as.keys())
    if not consulted:
        return None
    key = answer_key(answer)
    for name in consulted:
        for alt in reading_alternatives(ctx, name):
            other, _ = run_program(template, ctx.taking({name: alt}), params)
            if other is INVALID or answer_key(other) != key:
                return name, alt
    return None


def reading_disagreements(template: Template, scene: Scene, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every (consulted key, reading) under which the answer of ``template`` with ``params`` on ``scene`` differs
    from mapgen's own (the audit of a built question: empty when it holds under every declared reading)."""
    ctx = reading(scene)
    if template.reads_as:
        ctx = ctx.taking(dict(template.reads_as))
    answer, _, why, _ = _run_watched(template, ctx, dict(params))
    if why is not None:
        return []
    key, out = answer_key(answer), []
    for name in sorted(ctx.consulted - template.reads_as.keys()):
        for alt in reading_alternatives(ctx, name):
            other, _ = run_program(template, ctx.taking({name: alt}), dict(params))
            if other is INVALID or answer_key(other) != key:
                out.append((name, alt))
    return out


#: Draws the engine refused since the process started, by reason: ``illegible``, ``contested`` and
#: ``reading:<axis>`` (a build records each unit's share: ``mapgen info``).
REFUSALS: Counter[str] = Counter()
COUNTED_KINDS = ("illegible", "contested", "reading")


_PLAIN = frozenset((str, int, float, bool, type(None)))


def answer_key(answer: Any) -> Any:
    """An answer with sets sorted, so two runs of a program compare and hash alike."""
    if type(answer) in _PLAIN:
        return answer
    if isinstance(answer, (set, frozenset)):
        return tuple(sorted(answer))
    if isinstance(answer, (list, tuple)):
        return tuple(answer_key(a) for a in answer)
    return answer


# ---------------------------------------------------------------------------------------------- sampling


def param_domain(p: Param, ctx: Reading, env: dict[str, Any]) -> list[Any]:
    """Every value parameter ``p`` may take on this scene, given the parameters already chosen in ``env`` (cached
    per Reading under the parameters it refers to; do not change the list)."""
    key = (id(p), *[env[r] for r in p.refs])
    hit = ctx.cache.get(key)
    if hit is None:  # the entry holds the parameter, so its id names no other object while the entry lives
        hit = ctx.cache[key] = (p, _domain(p, ctx, env))
    return hit[1]


def _domain(p: Param, ctx: Reading, env: dict[str, Any]) -> list[Any]:
    if p.source is not None:
        return _source_domain(p, p.source, ctx, env)
    if p.type == "Region":
        return _cached(ctx, "readable", lambda: FUNCTIONS["readable_regions"].fn(ctx))
    if p.type == "RegionGroup":
        return _cached(ctx, ("groups", p.min_members), lambda: _group_domain(ctx, p.min_members))
    if p.type == "LegendClass":
        return list(range(len(ctx.intervals)))
    if p.type == "Number":
        return _cached(ctx, ("domain", "Number"), lambda: [v for v, _ in ctx.thresholds])
    return list(p.values)


def _source_domain(p: Param, source: Node, ctx: Reading, env: dict[str, Any]) -> list[Any]:
    dom = eval_node(ctx, source, env)
    if dom is INVALID:
        return []
    dom = list(dom) if not isinstance(dom, (set, frozenset)) else sorted(dom)
    if p.type == "Region":
        dom = [c for c in dom if c in ctx.legible and ctx.level.get(c) is not None]
    return dom


def _cached(ctx: Reading, key: Any, make: Any) -> Any:
    """``ctx.cache[key]``, made by ``make()`` the first time."""
    hit = ctx.cache.get(key, _MISSING)
    if hit is _MISSING:
        hit = ctx.cache[key] = make()
    return hit


_MISSING = object()


def _group_domain(ctx: Reading, min_members: int) -> list[str]:
    out = []
    for name, mem in ctx.groups.items():
        if len(mem) < min_members:
            continue
        if ctx.group_kind[name] == "region_border" and ctx.group_centre.get(name) not in ctx.legible:
            continue
        out.append(name)
    return out


def sample_params(template: Template, ctx: Reading, rng: random.Random) -> dict[str, Any] | None:
    """One random draw of every parameter (None when some domain is empty)."""
    env: dict[str, Any] = {}
    for p in template.params:
        dom = param_domain(p, ctx, env)
        if not dom:
            return None
        if p.prefer_first and rng.random() < p.prefer_first:
            env[p.name] = dom[0]
        else:
            env[p.name] = dom[rng.randrange(len(dom))]
    return env


# ---------------------------------------------------------------------------------------------- text and answers


def _phrase(p: Param, value: Any, ctx: Reading, lang: Language | None = None) -> str:
    if p.type == "Region":
        return ctx.scene.local_name(value) if lang is not None else ctx.name(value)
    if p.type == "RegionGroup":  # "bordering Canada", "on the West Coast", "in the South region"
        if lang is not None:
            return _local_group(value, ctx, lang)
        return _cached(ctx, ("group phrase", value),
                       lambda: ctx.scene.group_phrase(value, "question", kind=ctx.group_kind.get(value, "")))
    if p.type == "LegendClass":
        return ctx.interval_labels[value]
    if p.type == "Number":
        return dict(ctx.thresholds).get(value) or ctx.num(value * (ctx.scene.legend.label_scale or 1.0))
    return str(value)


def _local_group(value: str, ctx: Reading, lang: Language) -> str:
    """A group in the map's language: "bordering <region>" by the region's local name, curated groups and
    "bordering <country>" by the names file (see :meth:`Language.group_phrase` for the forms)."""
    kind = ctx.group_kind.get(value, "")
    if value in ctx.group_centre:
        return lang.group_phrase("bordering", ctx.scene.local_name(ctx.group_centre[value]))
    form = "bordering" if kind in ("foreign_border", "region_border") else "lake" if kind == "lake" else "default"
    native = ctx.scene.native
    if native is None:
        raise ValueError(f"group {value!r} in the map's language needs the scene's native names")
    return lang.group_phrase(form, native.group(value))


def scene_language(scene: Scene) -> Language | None:
    """The Language a scene's questions are asked in (``None`` for English)."""
    return None if scene.language == DEFAULT_LANGUAGE else load_language(scene.language)


def _interval_ends(ctx: Reading, idx: int) -> tuple[str, str]:
    """The printed low and high ends of legend range ``idx`` (cached per Reading)."""
    return _cached(ctx, ("interval ends", idx), lambda: _printed_ends(ctx, idx))


def _printed_ends(ctx: Reading, idx: int) -> tuple[str, str]:
    if ctx.discrete:
        lo, hi = printed_numbers(ctx.interval_labels[idx])
        return lo.text if lo is not None else "", hi.text if hi is not None else ""
    labels = ctx.scene.legend.tick_labels
    return labels[idx], labels[idx + 1]


def render_text(template: Template, ctx: Reading, params: dict[str, Any], variant: int) -> str:
    """Render text variant ``variant`` (the last one when there are fewer) in the scene's language."""
    scene = ctx.scene
    lang = scene_language(scene)
    key = scene.map_type if lang is None else f"{lang.code}:{scene.map_type}"
    compiled = template._compiled.get(key)
    if compiled is None:
        variants = template.text[scene.map_type] if lang is None else lang.variants(template)[scene.map_type]
        compiled = [(TEXT_ENV if lang is None else lang.env).compile_text(t) for t in variants]
        template._compiled[key] = compiled
    word, plural = (scene.region_word, scene.region_words) if lang is None else lang.region_word(scene.region_word)
    values = {p.name: _phrase(p, params[p.name], ctx, lang) for p in template.params}
    for p in template.params:
        if p.type == "LegendClass":
            values[f"{p.name}_low"], values[f"{p.name}_high"] = _interval_ends(ctx, params[p.name])
    values.update(state=word, states=plural, State=word.capitalize(), States=plural.capitalize())
    text = " ".join(TEXT_ENV.render_limited(compiled[min(variant, len(compiled) - 1)], values, template.id).split())
    return text if lang is None else lang.finish(f" {text} ").strip()


def _jsonable(v: Any) -> Any:
    if isinstance(v, (set, frozenset)):
        return sorted(_jsonable(x) for x in v)
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _range_answer(ctx: Reading, value: Any) -> tuple[str, list[float | None]]:
    if isinstance(value, tuple):
        return value[0], list(value[1])
    label = ctx.interval_labels[value]
    if ctx.discrete:
        lo, hi = parse_label(label)
        return label, [lo, hi]
    labels = ctx.scene.legend.tick_labels
    return label, [parse_label(labels[value])[0], parse_label(labels[value + 1])[0]]


def canonical_answer(template: Template, ctx: Reading, answer: Any) -> tuple[Any, dict[str, list[str]], Any]:
    """(canonical answer, accepted answers, bounds) for a program result."""
    scene = ctx.scene
    kind = template.answer_type
    accepted: dict[str, list[str]] = {}

    lang = scene_language(scene)

    def region(code: str) -> str:
        if lang is not None:  # the local name, with local and English spellings accepted
            name = scene.local_name(code)
            accepted[name] = [s for s in scene.local_spellings(code) if s != name]
            return name
        name = scene.regions[code].name
        accepted[name] = [s for s in ctx.spellings(code) if s != name]
        return name

    if kind == "binary":
        return ("Yes" if answer else "No"), {}, None
    if kind == "count":
        return int(answer), {}, None
    if kind == "range":
        label, bounds = _range_answer(ctx, answer)
        lo, hi = bounds
        accepted[label] = [f"{ctx.num(lo)} - {ctx.num(hi)}"] if lo is not None and hi is not None else []
        return label, accepted, bounds
    if kind == "ranking":
        return [[region(c) for c in sorted(g)] for g in answer], accepted, None
    if kind == "list":
        if not answer:  # an empty answer is explicit: "None" (and its spellings) is accepted
            none = ["none", f"no {scene.region_words}", "nothing", "empty", *(lang.none if lang else ())]
            return [], {"None": none}, None
        return sorted(region(c) for c in answer), accepted, None
    # single
    if isinstance(answer, str) and answer in scene.regions:
        return region(answer), accepted, None
    if isinstance(answer, float):
        text = dict(ctx.thresholds).get(answer) or ctx.num(answer * (scene.legend.label_scale or 1.0))
        return text, {}, None
    text = str(answer)
    canon = text[:1].upper() + text[1:]
    return canon, {canon: [text, *(lang.answers.get(text, ()) if lang else ())]}, None


def _trace(template: Template, env: dict[str, Any]) -> list[dict[str, Any]]:
    steps = [{"param": p.name, "type": p.type, "value": _jsonable(env[p.name])} for p in template.params]
    steps += [{"step": name, "call": call, "result": _jsonable(env[name])}
              for (name, _), call in zip(template.program, _call_texts(template))]
    return steps


def _call_texts(template: Template) -> list[str]:
    """The program steps as text (cached on the template)."""
    calls = template._compiled.get("calls")
    if calls is None:
        calls = template._compiled["calls"] = [node_text(node) for _, node in template.program]
    return calls


def _uses_region_border_group(template: Template, params: dict[str, Any], ctx: Reading) -> bool:
    return any(
        p.type == "RegionGroup" and ctx.group_kind.get(params[p.name]) == "region_border" for p in template.params
    )


# ---------------------------------------------------------------------------------------------- asking


class Unaskable(ValueError):
    """Why a question cannot be asked on a Scene; ``kind`` is a short category: ``template``, ``parameter``,
    ``invalid`` (a program step), ``constraint``, ``illegible``, ``contested`` (the answer hinges on a contested
    border), ``reading`` (it changes under another declared reading; ``reason`` starts ``reading:<axis>``) or
    ``declined`` (``accept`` said no)."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason

    @property
    def counted_as(self) -> str:
        """The refusal's reason as counted: its kind, or ``reading:<axis>``."""
        return self.reason.split(" ", 1)[0] if self.kind == "reading" else self.kind


def question_rng(seed: int, scene: Scene, template: Template) -> random.Random:
    """The seeded generator of one template on one map (parameter draws and text variants)."""
    return random.Random(f"{seed}:{scene.map_id}:{template.id}")


@_naming_template
def ask(
    template: Template,
    scene: Scene,
    params: Mapping[str, Any],
    variant: int | random.Random | None = None,
    *,
    seed: int = 0,
    reader: bool = False,
    original: Scene | None = None,
    accept: Callable[[Any], bool] | None = None,
    decline_first: bool = False,
) -> Question:
    """The question of ``template`` with ``params`` on ``scene``, answered by running its program there.

    ``variant`` is the text variant's index, or a generator to draw it from (default: the seeded generator of
    ``seed``, the map and the template). ``original`` is the Scene the parameters were chosen on (re-asking on a
    changed map): they are carried over (:func:`carry_params`) and must be values the engine could draw on
    ``scene``. ``reader=True`` answers without the generation-time reading margin, as someone reading the map
    would (the pixel oracle). ``accept`` sees the program's answer before the text is drawn; with
    ``decline_first`` before the illegible, contested and reading checks too, so a draw it declines costs no
    re-run (and is counted as declined, not under those reasons). Raises :class:`Unaskable` saying why when the
    question cannot be asked.
    """
    if not template.applies_to(scene.map_type):
        raise Unaskable("template", f"template {template.id} does not apply to {scene.map_type} maps")
    lang = scene_language(scene)
    if lang is not None and not lang.has_text(template):
        raise Unaskable("template", f"template {template.id} has no {lang.name} text ({lang.source})")
    ctx = reading(scene).as_reader() if reader else reading(scene)
    if template.reads_as:  # the wording names these readings: the program runs under them
        ctx = ctx.taking(dict(template.reads_as))
    if original is not None:
        params = carry_params(template, params, reading(original), ctx)
        _check_domains(template, ctx, params)
    params = dict(params)
    answer, env, why, seen = _run_watched(template, ctx, params)
    if why is not None:
        raise why
    if decline_first and accept is not None and not accept(answer):
        raise Unaskable("declined", "the answer was declined")
    if hinges_on_illegible(template, ctx, params, answer):
        raise Unaskable("illegible", "the answer depends on a region too small to read")
    if hinges_on_contested(template, ctx, params, answer, seen):
        raise Unaskable("contested", "the answer depends on a contested border")
    other = hinges_on_reading(template, ctx, params, answer)
    if other is not None:
        name, alt = other
        raise Unaskable("reading", f"reading:{axis_of(name)} (the answer changes when {name} is read as {alt!r})")
    if not decline_first and accept is not None and not accept(answer):
        raise Unaskable("declined", "the answer was declined")
    if not isinstance(variant, int):
        variant = (variant or question_rng(seed, scene, template)).randrange(len(template.text[scene.map_type]))
    return make_question(template, ctx, params, env, answer, variant)


def carry_params(template: Template, params: Mapping[str, Any], original: Reading, ctx: Reading) -> dict[str, Any]:
    """Parameters chosen on ``original`` as values on ``ctx``: the same shapes, legend classes and choices.

    Region parameters are codes, so they already name the same shape. ``bordering <region>`` groups are named
    after a region's display name and are re-named after the same shape's name on ``ctx``.
    """
    by_centre = {code: name for name, code in ctx.group_centre.items()}
    out: dict[str, Any] = {}
    for p in template.params:
        if p.name not in params:
            raise Unaskable("parameter", f"parameter {p.name} is missing from the original question")
        value = params[p.name]
        if p.type == "Region" and value not in ctx.scene.regions:
            raise Unaskable("parameter", f"region {value!r} is not on this map")
        if p.type == "RegionGroup" and value in original.group_centre:
            centre = original.group_centre[value]
            if centre not in by_centre:
                raise Unaskable("parameter", f"no 'bordering' group around shape {centre} on this map")
            value = by_centre[centre]
        elif p.type == "RegionGroup" and value not in ctx.groups:
            raise Unaskable("parameter", f"group {value!r} is not on this map")
        out[p.name] = value
    return out


def _check_domains(template: Template, ctx: Reading, params: Mapping[str, Any]) -> None:
    """Every parameter must be a candidate the engine itself could have drawn on ``ctx``."""
    env: dict[str, Any] = {}
    for p in template.params:
        if params[p.name] not in param_domain(p, ctx, env):
            raise Unaskable("parameter", f"{p.name}={params[p.name]!r} is not a candidate on this map")
        env[p.name] = params[p.name]


def make_question(
    template: Template, ctx: Reading, params: dict[str, Any], env: dict[str, Any], answer: Any, variant: int
) -> Question:
    """The Question record of a finished program run (text variant ``variant``, answer formatted, trace kept)."""
    scene = ctx.scene
    text = render_text(template, ctx, params, variant)
    canon, accepted, bounds = canonical_answer(template, ctx, answer)
    digest = hashlib.sha1(f"{scene.map_id}|{template.id}|{text}".encode()).hexdigest()[:10]
    relative = template.relative or _uses_region_border_group(template, params, ctx)
    return Question(
        question_id=f"{scene.map_id}-{template.id}-{digest}",
        map_id=scene.map_id,
        template_id=template.id,
        mapwise_template=template.mapwise,
        question=text,
        answer=canon,
        answer_type=template.answer_type,  # type: ignore[arg-type]
        map_type=scene.map_type,  # type: ignore[arg-type]
        country=scene.country,
        accepted_answers=accepted,
        bounds=bounds,
        relative_region=relative,
        hatched=scene.hatched,
        annotated=scene.annotated,
        counterfactual=scene.counterfactual,
        params={p.name: _jsonable(params[p.name]) for p in template.params},
        program=_trace(template, env),
        tags=list(template.tags),
        text_variant=min(variant, len(template.text[scene.map_type]) - 1),
        difficulty=difficulty(template, ctx, params),
    )


def _calls(node: Node) -> int:
    return 0 if node[0] in ("ref", "lit") else 1 + sum(_calls(a) for a in node[2])


def _program_steps(template: Template) -> int:
    """Function calls of the program (cached on the template)."""
    steps = template._compiled.get("steps")
    if steps is None:
        steps = template._compiled["steps"] = [sum(_calls(node) for _, node in template.program)]
    return steps[0]


def difficulty(template: Template, ctx: Reading, params: dict[str, Any]) -> dict[str, Any]:
    """Difficulty features of an answered question: regions and legend classes its program read, the smallest
    gap between two values it read in tolerances (continuous maps), whether an illegible region lies among or
    next to the regions it names, and its program steps (function calls)."""
    levels = sorted(lv for lv in (ctx.level.get(c) for c in ctx.reads) if lv is not None)
    gap = None
    if not ctx.discrete and len(levels) > 1 and ctx.tau > 0:
        gap = round(min(b - a for a, b in zip(levels, levels[1:])) / ctx.tau, 2)
    named = {v for p in template.params if p.type == "Region" for v in [params[p.name]]}
    near = set(named) | {n for c in named for n in ctx.scene.regions[c].neighbors}
    return {
        "regions_read": len(set(ctx.reads)),
        "classes_read": len({int(x) for x in levels}) if ctx.discrete else None,
        "min_gap_tolerances": gap,
        "illegible_nearby": not (ctx.legible.issuperset(near) and ctx.legible.issuperset(ctx.reads)),
        "program_steps": _program_steps(template),
    }


# ---------------------------------------------------------------------------------------------- instantiation


@dataclass
class _Quota:
    """Answer balancing of one template on one map: each answer at most ``cap`` times."""

    cap: int
    answer_type: str = ""
    counts: Counter = field(default_factory=Counter)
    last: Any = None

    def admits(self, answer: Any) -> bool:
        self.last = answer_key(answer)
        return self.counts[self.last] < self.cap and not is_degenerate_answer(answer, self.answer_type)


def is_degenerate_answer(answer: Any, answer_type: str) -> bool:
    """An empty list or a zero count (instantiation keeps them aside and uses them only when nothing else is
    found; the build's selection caps their share)."""
    if answer_type == "list":
        return not answer
    return answer_type == "count" and answer == 0


@_naming_template
def instantiate(
    template: Template,
    scene: Scene,
    n: int = 2,
    seed: int = 0,
    max_answer_share: float = DEFAULT_MAX_ANSWER_SHARE,
    attempts: int | None = None,
) -> list[Question]:
    """Up to ``n`` questions of one template on one Scene (fewer when the map cannot support more)."""
    if not template.applies_to(scene.map_type) or n <= 0:
        return []
    ctx = reading(scene)
    rng = question_rng(seed, scene, template)
    budget = attempts or max(MIN_ATTEMPTS, ATTEMPTS_PER_QUESTION * n)
    share = 0.5 if template.answer_type == "binary" else max_answer_share
    quota = _Quota(max(1, math.ceil(n * share)), template.answer_type)
    seen_params: set[tuple] = set()
    kept: dict[str, Question] = {}  # by text
    spare: list[dict[str, Any]] = []  # parameters whose answer had filled its share
    for _ in range(budget):
        if len(kept) >= n:
            break
        params = sample_params(template, ctx, rng)
        if params is None or not _first_time(template, params, seen_params):
            continue
        try:
            # a draw the quota declines changes nothing unless it may become a spare: decline it before the
            # (costly) illegible, contested and reading checks
            early = template.answer_type == "binary" or len(spare) >= n
            q = ask(template, scene, params, rng, accept=quota.admits, decline_first=early)
        except Unaskable as no:
            if no.kind in COUNTED_KINDS:
                REFUSALS[no.counted_as] += 1
            if no.kind == "declined" and template.answer_type != "binary" and len(spare) < n:
                spare.append(params)
            continue
        if q.question not in kept:
            kept[q.question] = q
            quota.counts[quota.last] += 1
    for params in spare:
        if len(kept) >= n:
            break
        q = ask(template, scene, params, rng)
        kept.setdefault(q.question, q)
    return list(kept.values())[:n]


def _first_time(template: Template, params: dict[str, Any], seen: set[tuple]) -> bool:
    """Whether this parameter draw is new (and remember it)."""
    try:  # plain values (codes, group names, numbers, words) are their own key
        key = tuple([params[p.name] for p in template.params])
        hash(key)
    except TypeError:
        key = tuple([answer_key(params[p.name]) for p in template.params])
    if key in seen:
        return False
    seen.add(key)
    return True


def _select(templates: TemplateSet | Iterable[Template] | str | None) -> list[Template]:
    if templates is None:
        return list(load_templates())
    if isinstance(templates, str):
        return list(load_templates(templates))
    return list(templates)


def generate_questions(
    scene: Scene,
    templates: TemplateSet | Iterable[Template] | str | None = None,
    per_template: int = 2,
    seed: int = 0,
    max_answer_share: float = DEFAULT_MAX_ANSWER_SHARE,
) -> list[Question]:
    """Questions of every applicable template on a Scene (``templates``: a TemplateSet, list or file path)."""
    out: list[Question] = []
    for t in _select(templates):
        out += instantiate(t, scene, per_template, seed, max_answer_share)
    return out


def balance(questions: Sequence[Question], max_share: float = 0.25, seed: int = 0) -> list[Question]:
    """Answer balancing across a set: per template, binary answers cut to equal Yes/No counts and any other
    answer capped at ``max_share`` of the template's questions (at least one each). Order is kept."""
    rng = random.Random(seed)
    by_template: dict[str, list[int]] = {}
    for i, q in enumerate(questions):
        by_template.setdefault(q.template_id, []).append(i)
    keep: set[int] = set()
    for idxs in by_template.values():
        by_answer: dict[Any, list[int]] = {}
        for i in idxs:
            by_answer.setdefault(answer_key(_hashable(questions[i].answer)), []).append(i)
        if questions[idxs[0]].answer_type == "binary":
            cap = min((len(v) for v in by_answer.values()), default=0) if len(by_answer) == 2 else 0
        else:
            cap = max(1, int(max_share * len(idxs)))
        for v in by_answer.values():
            chosen = v if len(v) <= cap else rng.sample(v, cap)
            keep.update(chosen)
    return [q for i, q in enumerate(questions) if i in keep]


def _hashable(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    return v
