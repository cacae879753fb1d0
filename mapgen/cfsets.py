"""Counterfactual sets (``mapgen counterfactual``): maps drawn as each counterfactual kind, questions re-asked.

Each source map is drawn annotated as the control (``original``) and as each kind (:mod:`mapgen.counterfactual`)
into ``out_dir/maps/``, and every question of the original map is re-asked on each with
:func:`mapgen.questions.ask`: the same template, the same parameters (region codes name the same *shape*; a
``bordering <name>`` group is re-named after its centre shape's new name), the same text variant, and an answer
computed by running the program on the counterfactual Scene — never copied. A question the program rejects
there (a tie, a failed constraint, an unreadable difference) is recorded in ``skipped.jsonl`` with the reason.
Each record of ``questions.jsonl`` carries ``original_question_id``, ``original_answer``, ``answer_changed``
(the answer as written differs) and ``answer_changed_beyond_names`` (the program's answer in codes differs, i.e.
not only by renaming), ``prompt_note`` and its ``dictionary``. Like the build, ``counterfactual`` is ``None``
for the control and ``counterfactual_set`` names the kind of every record.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mapgen.benchmark import (
    DICTIONARIES_DIR,
    MAPS_DIR,
    MAPS_FILE,
    ORIGINALS_FILE,
    QUESTIONS_FILE,
    SET_FILE,
    SET_KIND,
    SKIPPED_FILE,
    NotABenchmarkError,
    image_rel,
    load_benchmark,
    map_json_name,
)
from mapgen.counterfactual import (
    CONTROL,
    KINDS,
    make_counterfactual,
    name_dictionary,
    original_control,
    prompt_note,
)
from mapgen.files import atomic_folder, sha256_file, write_json_atomic, write_jsonl_atomic
from mapgen.mapwise.schema import load_map_spec
from mapgen.questions import (
    Question,
    Template,
    TemplateSet,
    Unaskable,
    generate_questions,
    load_templates,
    reask,
)
from mapgen.render import render
from mapgen.render.api import get_canvas, scene_with_pixels
from mapgen.scene import Scene, build_scene
from mapgen.spec import MapSpec


def program_answer(question: Question | Mapping[str, Any]) -> Any:
    """The raw program answer (region codes, class indices) from a question's trace; None when absent."""
    trace = question.program if isinstance(question, Question) else question.get("program", [])
    return next((s.get("result") for s in trace if s.get("step") == "answer"), None)


#: Every kind a set can hold, in output order (the control first).
SET_KINDS: tuple[str, ...] = (CONTROL, *KINDS)


@dataclass
class CounterfactualSet:
    """What :func:`make_counterfactual_set` wrote into ``out_dir`` (records as written)."""

    out_dir: Path
    maps: list[dict[str, Any]] = field(default_factory=list)
    questions: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    originals: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Per kind: maps, questions, answers changed (literally / beyond renaming), skips by category."""
        out: dict[str, Any] = {}
        for kind in dict.fromkeys(m["counterfactual_set"] for m in self.maps):
            qs = [q for q in self.questions if q["counterfactual_set"] == kind]
            skips = [s for s in self.skipped if s["counterfactual_set"] == kind]
            out[kind] = {
                "maps": sum(m["counterfactual_set"] == kind for m in self.maps),
                "questions": len(qs),
                "answer_changed": sum(q["answer_changed"] for q in qs),
                "answer_changed_beyond_names": sum(q["answer_changed_beyond_names"] for q in qs),
                "skipped": dict(sorted(Counter(s["reason_kind"] for s in skips).items())),
            }
        return out


def set_kinds(kinds: Iterable[str], include_original: bool = True) -> list[str]:
    """Requested kinds validated and put in :data:`SET_KINDS` order (the control added unless excluded)."""
    wanted = {k.strip() for k in kinds if k.strip()}
    unknown = sorted(wanted - set(SET_KINDS))
    if unknown:
        raise ValueError(f"Unknown counterfactual kind(s) {', '.join(unknown)}; use {', '.join(SET_KINDS)}.")
    if not wanted:
        raise ValueError(f"No counterfactual kind given (--kind); use one or more of {', '.join(SET_KINDS)}.")
    if include_original:
        wanted.add(CONTROL)
    return [k for k in SET_KINDS if k in wanted]


def _as_spec(source: MapSpec | str | Path) -> MapSpec:
    spec = source if isinstance(source, MapSpec) else load_map_spec(source)
    if spec.counterfactual:
        raise ValueError(f"Map {spec.map_id} is already a counterfactual; give the original map.")
    return spec


def _template_index(templates: TemplateSet | Iterable[Template] | str | Path | None) -> dict[str, Template]:
    if templates is None or isinstance(templates, (str, Path)):
        templates = load_templates(templates)
    return {t.id: t for t in templates}


def original_scene(spec: MapSpec) -> Scene:
    """The Scene of a map with the legibility its render has (same atlas and page layout, nothing written)."""
    atlas = spec.get_atlas()
    return scene_with_pixels(build_scene(spec, atlas), get_canvas(atlas, spec.style))


def make_counterfactual_set(
    sources: Sequence[MapSpec | str | Path],
    kinds: Iterable[str] = KINDS,
    seed: int = 0,
    out_dir: str | Path = "counterfactual",
    per_template: int = 1,
    templates: TemplateSet | Iterable[Template] | str | Path | None = None,
    include_original: bool = True,
    original_questions: Mapping[str, Sequence[Question]] | None = None,
    force: bool = False,
) -> CounterfactualSet:
    """Render every source map as each counterfactual kind (plus the ``original`` control) into
    ``out_dir/maps/`` and re-ask the original map's questions on each, answers recomputed.

    Sources are drawn annotated (like the build's counterfactual units). The original questions of a source are
    ``original_questions[map_id]`` when given (e.g. a benchmark's), else generated on the source map with
    ``templates``, ``per_template`` and ``seed``. Writes ``maps.jsonl``, ``questions.jsonl``,
    ``originals.jsonl``, ``skipped.jsonl``, ``dictionaries/<map_id>.json`` and ``set.json`` (last, with
    counts and file hashes); the folder is written whole or not at all (:func:`mapgen.files.atomic_folder`: a
    non-empty one is refused unless ``force``); the same inputs and seed give the same bytes.
    """
    order = set_kinds(kinds, include_original)
    index = _template_index(templates)
    with atomic_folder(out_dir, replace=force, kind=SET_KIND) as tmp:
        result = CounterfactualSet(tmp)
        _fill_set(result, sources, order, index, seed, per_template, original_questions)
    result.out_dir = Path(out_dir)
    return result


def _fill_set(result: CounterfactualSet, sources: Sequence[MapSpec | str | Path], order: list[str],
              index: dict[str, Template], seed: int, per_template: int,
              original_questions: Mapping[str, Sequence[Question]] | None) -> None:
    """Render and ask every source map's set into ``result.out_dir``, then write the set's records."""
    out = result.out_dir
    files: dict[str, str] = {}
    for source in sources:
        base = _as_spec(source).with_style(annotated=True)
        scene0 = original_scene(base)
        originals = _originals(base, scene0, index, per_template, seed, original_questions)
        result.originals += [q.to_dict() for q in originals]
        for kind in order:
            cf = original_control(base) if kind == CONTROL else make_counterfactual(base, kind, seed)  # type: ignore[arg-type]
            rendered = render(cf, out / image_rel(cf.map_id))
            book = _write_dictionary(cf, out)
            for path in (rendered.image, rendered.mask, rendered.json, book):
                files[path.relative_to(out).as_posix()] = sha256_file(path)
            map_record = _map_record(cf, base, kind, seed)
            result.maps.append(map_record)
            _ask(result, originals, index, scene0, rendered.scene, cf, map_record, seed)
    _write_set(result, files, order, seed, per_template)


def _originals(
    base: MapSpec, scene: Scene, index: dict[str, Template], per_template: int, seed: int,
    given: Mapping[str, Sequence[Question]] | None,
) -> list[Question]:
    """The source map's questions: given ones (benchmark) or generated on its Scene."""
    if given and given.get(base.map_id):
        return list(given[base.map_id])
    return generate_questions(scene, list(index.values()), per_template=per_template, seed=seed)


def _write_dictionary(spec: MapSpec, out: Path) -> Path:
    path = out / _dictionary_rel(spec.map_id)
    write_json_atomic(path, name_dictionary(spec))
    return path


def _map_record(cf: MapSpec, base: MapSpec, kind: str, seed: int) -> dict[str, Any]:
    return {
        "map_id": cf.map_id,
        "source_map_id": base.map_id,
        "variant": kind,
        "counterfactual": None if kind == CONTROL else kind,
        "counterfactual_set": kind,
        "seed": seed,
        "country": base.atlas,
        "map_type": cf.legend.kind,
        "annotated": cf.style.annotated,
        "hatched": cf.legend.hatched,
        "statistic": cf.stat.id,
        "title": cf.title,
        "image": image_rel(cf.map_id),
        "dictionary": _dictionary_rel(cf.map_id),
    }


def _ask(
    result: CounterfactualSet, originals: list[Question], index: dict[str, Template], scene0: Scene, scene: Scene,
    cf: MapSpec, map_record: dict[str, Any], seed: int,
) -> None:
    """Re-ask every original question on one counterfactual map; record it, or record why it was skipped.

    Same template, parameters (the same shapes) and text variant (records without one: the seeded draw)."""
    note = prompt_note(cf)
    for oq in originals:
        link = {"original_question_id": oq.question_id, "counterfactual_set": map_record["counterfactual_set"]}
        try:
            q = reask(oq, scene, index, original=scene0, seed=seed)
        except Unaskable as skip:
            result.skipped.append(link | {"map_id": cf.map_id, "template_id": oq.template_id, "params": oq.params,
                                          "reason_kind": skip.kind, "reason": skip.reason})
            continue
        result.questions.append(_question_record(q, oq, map_record, note))


def _question_record(q: Question, oq: Question, map_record: dict[str, Any], note: str) -> dict[str, Any]:
    keys = ("variant", "counterfactual_set", "source_map_id", "image", "dictionary")
    return q.to_dict() | {k: map_record[k] for k in keys} | {
        "split": oq.split,
        "original_question_id": oq.question_id,
        "original_question": oq.question,
        "original_answer": oq.answer,
        "answer_changed": q.answer != oq.answer,
        "answer_changed_beyond_names": program_answer(q) != program_answer(oq),
        "prompt_note": note,
    }


def _write_set(result: CounterfactualSet, files: dict[str, str], kinds: list[str], seed: int,
               per_template: int) -> None:
    out = result.out_dir
    tables = {MAPS_FILE: result.maps, QUESTIONS_FILE: result.questions, ORIGINALS_FILE: result.originals,
              SKIPPED_FILE: result.skipped}
    for name, records in tables.items():
        write_jsonl_atomic(out / name, records)
        files[name] = sha256_file(out / name)
    write_json_atomic(out / SET_FILE, {
        "kinds": kinds,
        "seed": seed,
        "per_template": per_template,
        "sources": list(dict.fromkeys(m["source_map_id"] for m in result.maps)),
        "counts": result.summary(),
        "files": dict(sorted(files.items())),
    })


def _dictionary_rel(map_id: str) -> str:
    return f"{DICTIONARIES_DIR}/{map_id}.json"


# --- benchmark folders as sources ---------------------------------------------------------------------------


def benchmark_sources(folder: str | Path) -> list[Path]:
    """Render JSONs of a benchmark's base maps: its ``annotated`` variants, else every non-counterfactual map."""
    bench = load_benchmark(folder)
    records = bench.maps
    if not records:
        raise NotABenchmarkError(f"{folder} has no {MAPS_FILE}: not a mapgen benchmark folder.")
    chosen = [r for r in records if r.get("variant") == "annotated"]
    if not chosen:
        chosen = [r for r in records if not r.get("counterfactual") and r.get("variant") != CONTROL]
    if not chosen:
        raise ValueError(f"{folder}: no base maps to make counterfactuals from.")
    return [bench.root / MAPS_DIR / map_json_name(r["map_id"]) for r in chosen]


def benchmark_questions(folder: str | Path) -> dict[str, list[Question]]:
    """A benchmark's questions grouped by map id (empty when it has none)."""
    grouped: dict[str, list[Question]] = defaultdict(list)
    for q in load_benchmark(folder).questions:
        grouped[q.map_id].append(q)
    return dict(grouped)


def counterfactual_set(source: str | Path, fresh_questions: bool = False, **options: Any) -> CounterfactualSet:
    """:func:`make_counterfactual_set` of a spec/render JSON, or of a benchmark folder's annotated base maps
    re-asking the benchmark's own questions (new ones with ``fresh_questions``); ``options`` are passed on."""
    source = Path(source)
    if not source.is_dir():
        return make_counterfactual_set([source], **options)
    originals = None if fresh_questions else benchmark_questions(source)
    packs = load_benchmark(source).pack_paths()
    if packs and options.get("templates") is None:  # the benchmark's own templates: built-in and its packs
        options["templates"] = load_templates(packs, builtin=True)
    return make_counterfactual_set(benchmark_sources(source), original_questions=originals, **options)
