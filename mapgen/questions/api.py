"""The question engine's public API: everything code outside :mod:`mapgen.questions` may use (ARCHITECTURE.md §5).

:mod:`mapgen.questions` re-exports exactly these names (``__all__``); modules elsewhere in mapgen import them
from there (or from here) and never from ``engine``, ``functions``, ``templates``, ``selection`` or ``io``
(``tests/test_architecture.py`` enforces it). :mod:`mapgen.questions.record` (the Question record) and
:mod:`mapgen.questions.sandbox` (the sandbox texts render in, with its budgets; prompt texts use it too) stay
importable on their own.

- templates as data: :class:`Template`, :class:`Param`, :class:`Wording`, :class:`TemplateSet`,
  :func:`load_templates`, :func:`lint_file`, the shipped files and the template language's fixed words;
- asking: :func:`ask` one question, :func:`reask` a question record on another (e.g. counterfactual) map,
  :func:`instantiate` / :func:`generate_questions` draw questions, :func:`balance`, :func:`select_questions`;
- programs: :func:`trace` runs a template's program (steps, answer, regions read), :func:`answer_key`,
  :func:`hinges_on` (the hinge check: which unreadable regions an answer depends on), :func:`contested_hinges`
  (the contested borders it depends on), :func:`source_domain`
  (a parameter's ``from`` expression evaluated on a map);
- reading: :func:`reading` is how the engine reads a Scene (:class:`Reading`: levels, tolerance, legend
  intervals, groups; its decisions raise :class:`Invalid` within the reading tolerance, which :func:`register`
  turns into :data:`INVALID`);
- extending: :func:`register` adds a function to the library (a pack's ``functions.py`` uses it);
  :func:`hue_spread` and :data:`SINGLE_HUE_MAX_SPREAD` its one-hue rule;
- the function library's signatures (:func:`function_signatures`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from mapgen.questions.engine import REFUSALS as _REFUSALS
from mapgen.questions.engine import (
    Unaskable,
    ask,
    balance,
    generate_questions,
    hinges_on_illegible,
    instantiate,
    run_program,
)
from mapgen.questions.engine import answer_key as _answer_key
from mapgen.questions.engine import eval_node as _eval_node
from mapgen.questions.functions import (
    FUNCTIONS,
    INVALID,
    PERCEPTUAL_TOLERANCE,
    SINGLE_HUE_MAX_SPREAD,
    hue_spread,
    reading,
    register,
)
from mapgen.questions.functions.scene_facts import with_borders_flipped
from mapgen.questions.io import read_jsonl, write_jsonl
from mapgen.questions.packs import Pack, PackError, copy_pack, open_pack, write_starter
from mapgen.questions.preview import rejections
from mapgen.questions.reading import Estimate, Invalid, Reading
from mapgen.questions.record import ANSWER_TYPES, Question
from mapgen.questions.selection import SelectionRules, select_questions
from mapgen.questions.templates import (
    DEFAULT_VALUES,
    TEXT_GLOBALS,
    VQA_TYPES,
    Param,
    Template,
    TemplateError,
    TemplateSet,
    Wording,
    builtin_files,
    check_packs,
    language_files,
    lint_file,
    lint_language_file,
    lint_packs,
    load_language,
    load_templates,
    node_text,
    open_packs,
    range_end,
)
from mapgen.scene import Scene

__all__ = [
    "ANSWER_TYPES",
    "DEFAULT_VALUES",
    "Domain",
    "Estimate",
    "FUNCTIONS",
    "FunctionSignature",
    "INVALID",
    "Invalid",
    "PERCEPTUAL_TOLERANCE",
    "Pack",
    "PackError",
    "Param",
    "ProgramRun",
    "Question",
    "Reading",
    "SINGLE_HUE_MAX_SPREAD",
    "SelectionRules",
    "Step",
    "TEXT_GLOBALS",
    "Template",
    "TemplateError",
    "TemplateSet",
    "Unaskable",
    "VQA_TYPES",
    "Wording",
    "answer_key",
    "ask",
    "balance",
    "builtin_files",
    "check_packs",
    "contested_hinges",
    "copy_pack",
    "function_signatures",
    "generate_questions",
    "hinges_on",
    "hue_spread",
    "instantiate",
    "language_files",
    "lint_file",
    "lint_language_file",
    "lint_packs",
    "load_language",
    "load_templates",
    "open_pack",
    "open_packs",
    "range_end",
    "read_jsonl",
    "reading",
    "reask",
    "refusal_counts",
    "register",
    "rejections",
    "select_questions",
    "source_domain",
    "trace",
    "write_jsonl",
    "write_starter",
]


# ---------------------------------------------------------------------------------------------- programs


@dataclass(frozen=True)
class Step:
    """One program step that ran: its name, its call as written in the template, and its result."""

    name: str
    call: str
    result: Any


@dataclass(frozen=True)
class ProgramRun:
    """A template's program run on a map with given parameters.

    ``ok`` is False when a step came out invalid (``failed_step``: ``"name = call"``) or, every step having run,
    a constraint failed (``failed_step`` None); ``steps`` are the steps that ran, in order; ``reads`` the regions
    whose level the program read.
    """

    answer: Any
    ok: bool
    steps: tuple[Step, ...]
    failed_step: str | None
    reads: frozenset[str]


def trace(template: Template, scene: Scene, params: Mapping[str, Any]) -> ProgramRun:
    """Run ``template``'s program (and constraints) on ``scene`` with ``params``: the program trace."""
    ctx = reading(scene)
    answer, env = run_program(template, ctx, dict(params))
    steps: list[Step] = []
    failed = None
    for name, node in template.program:
        if name not in env:
            failed = f"{name} = {node_text(node)}"
            break
        steps.append(Step(name, node_text(node), env[name]))
    ok = answer is not INVALID
    return ProgramRun(answer if ok else None, ok, tuple(steps), failed, frozenset(ctx.reads))


def answer_key(answer: object) -> Hashable:
    """A program answer with sets sorted, so two runs compare and hash alike."""
    return _answer_key(answer)


def hinges_on(template: Template, scene: Scene, params: Mapping[str, Any], unreadable: Collection[str]) -> list[str]:
    """The regions of ``unreadable`` on which the question hinges, sorted: those it names or, when it names none,
    those its program reads if its answer changes once they are treated as unreadable (left out of the legible
    regions, then each given any other legend level — the engine's own rule for illegible regions)."""
    ctx = reading(scene)
    params = dict(params)
    answer, _ = run_program(template, ctx, params)
    failed = frozenset(unreadable)
    read = sorted(ctx.reads & failed)
    named = sorted({v for v in params.values() if isinstance(v, str)} & failed)
    if named or not read:
        return named
    blind = replace(ctx, legible=ctx.legible - failed, reads=set(), cache={})
    other, _ = run_program(template, blind, params)
    if other is INVALID or answer is INVALID or _answer_key(other) != _answer_key(answer):
        return read
    return read if hinges_on_illegible(template, blind, params, other) else []


def contested_hinges(template: Template, scene: Scene, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The contested pairs of ``scene`` (``Scene.contested``) whose counting as a border alone changes the answer
    of ``template`` with ``params`` (the engine asks no question that hinges on any; readers use this to say
    which)."""
    ctx = reading(scene)
    params = dict(params)
    answer, _ = run_program(template, ctx, params)
    out = []
    for pair in scene.contested:
        other, _ = run_program(template, with_borders_flipped(ctx, [pair]), params)
        if other is INVALID or _answer_key(other) != _answer_key(answer):
            out.append(pair)
    return out


@dataclass(frozen=True)
class Domain:
    """A parameter's ``from`` expression as written and the values it gives on one map."""

    text: str
    values: frozenset[Any]


def source_domain(template: Template, param: str, scene: Scene, params: Mapping[str, Any]) -> Domain | None:
    """The values parameter ``param``'s ``from`` expression gives on ``scene`` with the other ``params`` (not
    narrowed to legible regions); None when the parameter has none or the expression is invalid there. Raises
    KeyError for a parameter the template does not have."""
    found = [p.source for p in template.params if p.name == param]
    if not found:
        raise KeyError(f"template {template.id} has no parameter {param!r}")
    source = found[0]
    if source is None:
        return None
    values = _eval_node(reading(scene), source, dict(params))
    return None if values is INVALID else Domain(node_text(source), frozenset(values))


def reask(
    question: Question,
    scene: Scene,
    templates: TemplateSet | Mapping[str, Template],
    *,
    original: Scene | None = None,
    seed: int = 0,
) -> Question:
    """``question`` asked again on ``scene``: the same template, parameters (carried over from ``original``, the
    Scene they were chosen on) and text variant (records without one: the seeded draw of ``seed``). Raises
    :class:`Unaskable` saying why when it cannot be asked there."""
    if isinstance(templates, TemplateSet):
        template = next((t for t in templates if t.id == question.template_id), None)
    else:
        template = templates.get(question.template_id)
    if template is None:
        raise Unaskable("template", f"template {question.template_id!r} is not in the template set")
    return ask(template, scene, question.params, question.text_variant, seed=seed, original=original)


# ---------------------------------------------------------------------------------------------- library


@dataclass(frozen=True)
class FunctionSignature:
    """A library function programs may call: name, argument types, result type, docstring."""

    name: str
    args: tuple[str, ...]
    returns: str
    doc: str


def function_signatures() -> list[FunctionSignature]:
    """Every function of the library, by name."""
    return [FunctionSignature(f.name, f.args, f.returns, f.doc) for f in sorted(FUNCTIONS.values(), key=lambda f: f.name)]


def refusal_counts() -> Counter[str]:
    """A snapshot of the draws :func:`ask` refused in this process so far, by reason (``reading:<axis>``,
    ``illegible``, ``contested``, …); a caller takes the difference of two snapshots."""
    return Counter(_REFUSALS)
