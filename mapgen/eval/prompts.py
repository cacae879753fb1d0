"""Prompt strategies: files in ``templates/prompts/`` rendered for one question.

A strategy is a YAML file ``<name>.yaml`` with ``text`` (a jinja2 template, sandboxed, undefined variables
are errors), optional ``system``, ``description``, ``vars`` (extra template variables) and
``example_images`` (paths, relative to the file, of images sent before the map); or a ``<name>.txt`` file
whose whole content is ``text``. Shipped: ``direct`` (answer only), ``cot`` (zero-shot chain-of-thought),
``eer`` (MAPWise's Explicit Extraction and Reasoning), ``fewshot_text`` (one worked example on a map
described in words), ``fewshot_image`` (one worked example on a separate example image shipped with mapgen: a
map of the imaginary Gridland in the question's variant, with an answer the question engine computed when it
was made; see :mod:`mapgen.eval.examples`), and one strategy per other task, named after it (``caption`` and ``grounding``, the
VRSBench tasks; the table task's, the whole map read back as a Markdown table). A strategy file with
``generated_example: true`` gets that example: its image is sent first and the template sees ``example``
(``question``, ``answer`` as ``{"answer": ...}``, ``country_name``, ``region``, ``regions``). Users add strategies by dropping files
into a folder listed in ``$MAPGEN_PROMPTS`` (``os.pathsep``-separated, searched first) or by passing a file
path as the strategy.

A strategy's texts render in the question texts' sandbox (:mod:`mapgen.questions.sandbox`), with its budget of
work (a loop nested too deep fails in one line instead of hanging) and an output budget of :data:`MAX_PROMPT`
characters. Its ``example_images`` must be PNG or JPEG images inside the strategy file's folder (symbolic links resolved): a
path that leaves it, or a file that is no image, is refused, so a strategy never sends a file from elsewhere.

Template variables: ``question``, ``answer_type``, ``map_type``, ``hatched``, ``annotated``, ``country``,
``country_name``, ``region``/``regions`` (``state``/``states``, ...), ``map_hint``, ``answer_format``,
``counterfactual``, ``counterfactual_note`` (with the name dictionary appended), ``name_dictionary``,
``final_json``, ``final_json_last_line``, plus the strategy's ``vars``. The shared pieces live in
``templates/prompts/_common.yaml`` and are themselves templates.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from jinja2 import StrictUndefined

from mapgen.caches import memo
from mapgen.eval.examples import example_for
from mapgen.questions.record import Question
from mapgen.questions.sandbox import TextLimitError, TextSandbox
from mapgen.renamed_regions import renamed_regions
from mapgen.resources import template_path
from mapgen.yamlio import safe_load, yaml_problem

PROMPTS_ENV = "MAPGEN_PROMPTS"
_ENV = TextSandbox(undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
#: The most characters a prompt text may render to.
MAX_PROMPT = 100_000


@dataclass(frozen=True)
class Prompt:
    """What a model is sent: ``text`` (user turn), the map image, optional system text and example images."""

    text: str
    image_path: Path | None = None
    system: str | None = None
    strategy: str = ""
    question_id: str = ""
    example_images: tuple[Path, ...] = field(default=())

    @property
    def images(self) -> tuple[Path, ...]:
        """Every image in sending order (examples first, then the map)."""
        return (*self.example_images, *((self.image_path,) if self.image_path else ()))

    def show(self) -> str:
        """Human-readable dump (``mapgen prompt`` prints this)."""
        parts = []
        if self.system:
            parts.append(f"[system]\n{self.system}")
        for i, image in enumerate(self.images, start=1):
            parts.append(f"[image {i}] {image}")
        parts.append(f"[user]\n{self.text}")
        return "\n\n".join(parts)


@dataclass(frozen=True)
class Strategy:
    """A loaded prompt strategy file."""

    name: str
    text: str
    path: Path | None = None
    system: str | None = None
    description: str = ""
    task: str = "vqa"
    vars: Mapping[str, Any] = field(default_factory=dict)
    example_images: tuple[Path, ...] = ()
    generated_example: bool = False


# ------------------------------------------------------------------------------------------- loading


def _user_dirs() -> list[Path]:
    raw = os.environ.get(PROMPTS_ENV, "")
    return [Path(p) for p in raw.split(os.pathsep) if p.strip()]


def _shipped_dir() -> Path:
    return Path(str(template_path("prompts")))


def _strategy_files() -> dict[str, Path]:
    """Strategy name → file, user folders overriding shipped ones."""
    found: dict[str, Path] = {}
    for folder in [_shipped_dir(), *reversed(_user_dirs())]:
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.suffix in (".yaml", ".yml", ".txt") and not path.name.startswith("_"):
                found[path.stem] = path
    return found


def list_strategies() -> list[str]:
    """Names of every available prompt strategy."""
    return sorted(_strategy_files())


def _read_strategy(path: Path) -> Strategy:
    """The strategy in ``path``, parsed once per file version (an export renders a prompt per question)."""
    stat = path.stat()
    return _parse_strategy(path, stat.st_mtime_ns, stat.st_size)


@memo(64)
def _parse_strategy(path: Path, mtime_ns: int, size: int) -> Strategy:
    if path.suffix == ".txt":
        return Strategy(name=path.stem, text=path.read_text(encoding="utf-8"), path=path)
    try:
        data = safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"prompt strategy {path} is not valid YAML: {yaml_problem(exc)}") from None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        raise ValueError(f"prompt strategy {path} needs a 'text' template")
    images = tuple(_example_image(path, str(p)) for p in data.get("example_images") or ())
    return Strategy(
        name=str(data.get("name") or path.stem),
        text=data["text"],
        path=path,
        system=data.get("system"),
        description=str(data.get("description") or ""),
        task=str(data.get("task") or "vqa"),
        vars=data.get("vars") or {},
        example_images=images,
        generated_example=bool(data.get("generated_example", False)),
    )


def _example_image(strategy: Path, name: str) -> Path:
    """An ``example_images`` entry of the strategy file ``strategy``: a file inside its folder, else ValueError."""
    folder = strategy.parent.resolve()
    image = (folder / name).resolve()
    if not image.is_relative_to(folder):
        raise ValueError(f"prompt strategy {strategy}: example_images: {name!r} resolves to {str(image)!r}, outside "
                         f"the strategy's folder {str(folder)!r} (a strategy sends only images beside it); copy the "
                         "image into that folder and name it relative to it")
    if not image.is_file():
        raise ValueError(f"prompt strategy {strategy}: example_images: no image file {str(image)!r}; name a file "
                         "relative to the strategy's folder")
    with image.open("rb") as fh:
        head = fh.read(8)
    if not head.startswith(_IMAGE_MAGIC):  # a model is sent its bytes: a text file beside the strategy is no image
        raise ValueError(f"prompt strategy {strategy}: example_images: {name!r} is not a PNG or JPEG image; name "
                         "an image file")
    return image


_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")
"""The first bytes of a PNG and of a JPEG file."""


def load_strategy(strategy: str | Path | Strategy) -> Strategy:
    """A strategy by name (see :func:`list_strategies`) or by file path."""
    if isinstance(strategy, Strategy):
        return strategy
    path = Path(strategy)
    if path.suffix in (".yaml", ".yml", ".txt") and path.is_file():
        return _read_strategy(path)
    files = _strategy_files()
    if str(strategy) not in files:
        raise ValueError(f"unknown prompt strategy {str(strategy)!r}; known: {', '.join(sorted(files))}")
    return _read_strategy(files[str(strategy)])


@memo(1)
def _common() -> dict[str, Any]:
    return safe_load((_shipped_dir() / "_common.yaml").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------- names


@memo(8)
def atlas_names(atlas: str) -> dict[str, str]:
    """``{code: name}`` of a built-in atlas (``{}`` for an unknown or user atlas: codes stand for names)."""
    from mapgen.geo.atlas import builtin_atlas

    found = builtin_atlas(atlas)
    return {} if found is None else dict(found.names)  # an unknown or user atlas: codes stand for names


def _spec_dictionary(spec: Mapping[str, Any]) -> dict[str, str]:
    """``{real name: "name (label drawn on the map)"}`` of a spec's renamed regions (keys are codes when the
    atlas is unknown here)."""
    cf = spec.get("counterfactual") or {}
    names = cf.get("names") if isinstance(cf, Mapping) else None
    if not names:
        return {}
    real = atlas_names(str(spec.get("atlas") or "")) or {code: code for code in sorted(names)}
    return {
        name: f"{e['name']} ({e['label']})" if e.get("label") else str(e["name"])
        for name, e in renamed_regions(cf, real).items()
    }


def prompt_names(question: Question, spec: Mapping[str, Any] | None = None) -> dict[str, str]:
    """``{real name: name on the map}`` for a counterfactual question, ``{}`` when there is none.

    Looked up in order: a ``name_dictionary`` attribute or ``params["name_dictionary"]`` of the question, then
    the map's spec (``spec``: a map JSON of the benchmark, the spec itself or nested under ``"spec"``), whose
    counterfactual names and labels give ``"name (label drawn on the map)"``.
    """
    own = getattr(question, "name_dictionary", None) or (question.params or {}).get("name_dictionary")
    if isinstance(own, Mapping) and own:
        return {str(k): str(v) for k, v in own.items()}
    spec = spec or {}
    return _spec_dictionary(spec.get("spec") or spec)


# ------------------------------------------------------------------------------------------- rendering


@memo(256)
def _compiled(template: str) -> Any:
    return _ENV.from_string(template)


def _render(template: str, context: Mapping[str, Any], where: object = "") -> str:
    """A prompt text rendered within the sandbox's budgets (a breach is one line naming ``where``)."""
    import jinja2

    try:
        return _ENV.render_limited(_compiled(template), dict(context), max_output=MAX_PROMPT).strip()
    except TextLimitError as exc:
        message = str(exc).replace("question text", "prompt text")
        raise ValueError(f"prompt strategy {where}: {message}" if where else message) from None
    except jinja2.TemplateError as exc:  # the sandbox's refusal, an undefined name, a syntax error
        fix = "fix the text" + (f"; it may use {', '.join(sorted(context))}"
                                if isinstance(exc, jinja2.UndefinedError) else "")
        raise ValueError(f"prompt strategy {where}: text rejected: {exc}; {fix}" if where
                         else f"prompt text rejected: {exc}; {fix}") from None


def _format_type(question: Question) -> str:
    """The answer format a question asks for: ``mcq`` for a multiple-choice twin, else its answer type."""
    return "mcq" if any(str(t).startswith("mcq:") for t in question.tags or ()) else question.answer_type


def _answer_format(common: Mapping[str, Any], answer_type: str, map_type: str) -> str:
    fmt = common["answer_formats"].get(answer_type)
    if fmt is None:
        raise ValueError(f"no answer format for answer type {answer_type!r}")
    return fmt.get(map_type, fmt.get("discrete", "")) if isinstance(fmt, Mapping) else fmt


def _counterfactual_note(common: Mapping[str, Any], kind: str | None, names: Mapping[str, str]) -> str:
    if not kind:
        return ""
    notes = common["counterfactual_notes"]
    note = notes.get(kind, notes["default"])
    if names:
        note += (
            "\n" + common["dictionary_intro"] + "\n" + json.dumps(dict(names), ensure_ascii=False, indent=1)
        )
    return note


def prompt_context(
    question: Question, strategy: Strategy, names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Every variable a strategy template can use."""
    common = _common()
    country = str(question.country or "").lower()
    words = common["region_words"].get(country, common["region_words"]["default"])
    ctx: dict[str, Any] = {
        **dict(strategy.vars),
        "question": question.question,
        "question_id": question.question_id,
        "answer_type": question.answer_type,
        "map_type": question.map_type,
        "hatched": bool(question.hatched),
        "annotated": bool(question.annotated),
        "country": country,
        "country_name": common["countries"].get(country, str(question.country or "a country")),
        "region": words[0],
        "regions": words[1],
        "counterfactual": question.counterfactual,
        "name_dictionary": dict(names or {}),
    }
    hint_key = "hatched" if question.hatched and question.map_type == "discrete" else question.map_type
    pieces = {
        "map_hint": common["map_hints"].get(hint_key, ""),
        "answer_format": _answer_format(common, _format_type(question), question.map_type)
        if strategy.task == "vqa"
        else "",
        "counterfactual_note": _counterfactual_note(common, question.counterfactual, names or {}),
        "final_json": common["final_json"],
        "final_json_last_line": common["final_json_last_line"],
    }
    for key, value in pieces.items():
        ctx[key] = _render(value, ctx)
    return ctx


def example_context(question: Question) -> tuple[dict[str, Any], Path]:
    """Template variables of the shipped worked example (``example``) and its image."""
    ex = example_for(question)
    words = _common()["region_words"]
    singular, plural = words.get(ex.country, words["default"])
    context = {
        "question": ex.question.question,
        "answer": ex.answer_text,
        "answer_type": ex.question.answer_type,
        "country": ex.country,
        "country_name": ex.country_name,
        "region": singular,
        "regions": plural,
    }
    return context, ex.image


def render_prompt(
    question: Question | Mapping[str, Any],
    strategy: str | Path | Strategy = "direct",
    *,
    bench: Any = None,
    image_path: str | Path | None = None,
    names: Mapping[str, str] | None = None,
) -> Prompt:
    """The prompt for ``question`` under ``strategy``.

    ``bench`` (a :class:`~mapgen.benchmark.Benchmark`) supplies the image and the map spec (for the
    counterfactual name dictionary); ``image_path`` and ``names`` override them.
    """
    q = question if isinstance(question, Question) else Question.from_dict(dict(question))
    strat = load_strategy(strategy)
    if bench is not None:
        image_path = image_path or bench.image_path(q.map_id)
        if names is None and q.counterfactual:
            names = prompt_names(q, bench.spec(q.map_id))
    if names is None and q.counterfactual:
        names = prompt_names(q)
    ctx = prompt_context(q, strat, names)
    examples = strat.example_images
    if strat.generated_example:
        ctx["example"], image = example_context(q)
        examples = (image, *examples)
    return Prompt(
        text=_render(strat.text, ctx, strat.path or strat.name),
        image_path=Path(image_path) if image_path else None,
        system=_render(strat.system, ctx, strat.path or strat.name) if strat.system else None,
        strategy=strat.name,
        question_id=q.question_id,
        example_images=examples,
    )


def task_question(record: Mapping[str, Any], task: str, bench: Any = None) -> Question:
    """A stand-in Question for a caption/grounding record so the same renderer can prompt it.

    The country comes from the record, else from the map spec's atlas when ``bench`` is given.
    """
    map_id = str(record.get("map_id") or Path(str(record.get("image_id") or "")).stem)
    country = record.get("country") or (
        (bench.spec(map_id) or {}).get("atlas") if bench is not None else None
    )
    return Question(
        question_id=str(record.get("question_id") or record.get("id") or ""),
        map_id=map_id,
        template_id=task,
        mapwise_template=None,
        question=str(record.get("question") or record.get("ref") or ""),
        answer=None,
        answer_type="single",
        map_type=str(record.get("map_type") or "discrete"),  # type: ignore[arg-type]
        country=str(country or ""),
        hatched=bool(record.get("hatched", False)),
    )
