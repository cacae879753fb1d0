"""Counterfactual maps (MAPWise §7): imaginary names, shuffled names, jumbled values, and the original control.

A counterfactual is a new :class:`MapSpec` whose ``counterfactual`` field tells :func:`mapgen.scene.build_scene`
which display name (``names``) and which annotation text (``labels``) each region code carries; geography
(shapes, borders, groups, positions) always stays with the shapes. Jumbled maps keep the real names and permute
the values. Every transform is seeded and reproducible: randomness comes from ``random.Random`` seeded with a
string (stable across Python runs), and regions are processed in sorted code order, never dict order.

How sets are marked (``spec.extra["counterfactual_set"] = {"kind", "seed", "source_map_id"}`` on every spec made
here; read it with :func:`counterfactual_kind`):

- ``imaginary`` / ``shuffled`` / ``jumbled``: ``spec.counterfactual["kind"]`` is the kind.
- ``original`` (the control, MAPWise's ``orgs/``): ``spec.counterfactual`` is ``None`` so the Scene and the
  question engine treat it exactly as a real map; only ``extra["counterfactual_set"]["kind"] == "original"`` and
  the ``-original`` map id mark it.

Imaginary names: syllables ``onset + nucleus (+ coda)`` from small tables, 2–3 syllables, sometimes a classical
ending ("-ia", "-ora", …), one title-cased word of 4–10 letters. A name is kept only if it is
*pronounceable* (:func:`is_pronounceable`: letters only, no three consonants and no three vowels in a row),
free of a small blocklist of offensive substrings, not a real spelling (name, alias, code, group, neighbouring
country) of any built-in atlas or of the map's own atlas (compared with :func:`normalize_name`), not close to
one (``difflib`` ratio < 0.85), and not close to another imaginary name of the same map. Codes for annotated maps
are two uppercase letters, unique per map, taken from the name when possible (first two letters, then first
letter + a later letter, as USPS codes are), never equal to a real code or two-letter alias of any built-in
atlas — so "CA" never labels a region that is not California.

Sets (:func:`make_counterfactual_set`, ``mapgen counterfactual``): each source map is drawn annotated as the
control and each kind into ``out_dir/maps/``, and every question of the original map is re-asked on each
(:func:`reinstantiate`): the same template, the same parameters (region codes name the same *shape*; a
``bordering <name>`` group is re-named after its centre shape's new name), the same text variant, and an answer
computed by running the program on the counterfactual Scene — never copied. A question the program rejects
there (a tie, a failed constraint, an unreadable difference) is recorded in ``skipped.jsonl`` with the reason.
Each record of ``questions.jsonl`` carries ``original_question_id``, ``original_answer``, ``answer_changed``
(the answer as written differs) and ``answer_changed_beyond_names`` (the program's answer in codes differs, i.e.
not only by renaming), ``prompt_note`` and its ``dictionary``. Like the build, ``counterfactual`` is ``None``
for the control and ``counterfactual_set`` names the kind of every record.
"""

from __future__ import annotations

import difflib
import json
import math
import random
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

from mapgen.files import sha256_file, write_json_atomic, write_jsonl_atomic
from mapgen.geo.atlas import BUILTIN, Atlas, list_atlases, load_atlas
from mapgen.geo.names import normalize_name
from mapgen.questions import (
    INVALID,
    Question,
    Template,
    TemplateSet,
    context,
    generate_questions,
    load_templates,
)
from mapgen.questions.engine import (
    evaluate,
    hinges_on_illegible,
    make_question,
    param_domain,
    question_rng,
    render_text,
    run_program,
)
from mapgen.questions.templates import node_text
from mapgen.scene import Scene, build_scene
from mapgen.spec import MapSpec, load_spec

Kind = Literal["imaginary", "shuffled", "jumbled"]
KINDS: tuple[str, ...] = ("imaginary", "shuffled", "jumbled")
#: Kinds that rename regions (the Scene accepts only the map's own names on these).
NAME_KINDS: frozenset[str] = frozenset({"imaginary", "shuffled"})
CONTROL = "original"

SIMILARITY_CUTOFF = 0.85
MAX_ATTEMPTS = 20_000

_ONSETS = (
    "", "", "b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
    "br", "dr", "gr", "kr", "tr", "pl", "st", "th", "sh", "ch",
)
_NUCLEI = ("a", "a", "a", "e", "e", "i", "i", "o", "o", "u", "ai", "ou")
_CODAS = ("", "", "", "", "", "n", "n", "r", "r", "l", "s", "m")
_ENDINGS = ("ia", "ora", "is", "an", "ar", "eth", "ine", "os", "und", "ella", "ona", "ir")
_VOWELS = frozenset("aeiou")
#: Substrings a name must not contain (checked on the lower-cased name).
BLOCKLIST = (
    "anal", "anus", "arse", "ass", "bitch", "butt", "cock", "crap", "cum", "cunt", "damn", "dick", "dildo", "fag",
    "fuck", "fuk", "gay", "hell", "homo", "jew", "kill", "kkk", "nazi", "negr", "nig", "penis", "piss", "poo",
    "porn", "pussy", "rape", "sex", "shit", "slut", "tit", "twat", "vagin", "whore", "wank",
)


# --- real spellings -----------------------------------------------------------------------------------------


def _atlas_spellings(atlas: Atlas) -> set[str]:
    """Every real spelling of an atlas: codes, names, aliases, group names and aliases, neighbouring countries."""
    out = {atlas.title, atlas.name}
    for code in atlas.codes:
        out.update((code, atlas.names[code], *atlas.aliases.get(code, ())))
    for group in atlas.groups.values():
        out.update((group.name, *group.aliases))
    out.update(atlas.bordering_countries)
    return out


@cache
def _builtin_spellings() -> frozenset[str]:
    """Normalised real spellings of all built-in atlases."""
    raw: set[str] = set()
    for name in list_atlases():
        raw |= _atlas_spellings(load_atlas(name))
    return frozenset(normalize_name(s) for s in raw if normalize_name(s))


def real_spellings(atlas: Atlas) -> frozenset[str]:
    """Normalised spellings an imaginary name or code must avoid (all built-in atlases plus ``atlas``)."""
    extra = frozenset() if atlas.name in BUILTIN else frozenset(normalize_name(s) for s in _atlas_spellings(atlas))
    return _builtin_spellings() | extra


# --- imaginary names ----------------------------------------------------------------------------------------


def is_pronounceable(name: str) -> bool:
    """Letters only, 4–10 of them, no three consonants and no three vowels in a row (``y`` counts as consonant)."""
    word = name.lower()
    if not (word.isascii() and word.isalpha() and 4 <= len(word) <= 10):
        return False
    run_kind, run = None, 0
    for ch in word:
        kind = ch in _VOWELS
        run = run + 1 if kind == run_kind else 1
        run_kind = kind
        if run >= 3:
            return False
    return True


def is_offensive(name: str) -> bool:
    """True when the name contains a blocklisted substring."""
    word = normalize_name(name)
    return any(bad in word for bad in BLOCKLIST)


def _similar(a: str, b: str) -> bool:
    matcher = difflib.SequenceMatcher(None, a, b)
    return (
        matcher.real_quick_ratio() >= SIMILARITY_CUTOFF
        and matcher.quick_ratio() >= SIMILARITY_CUTOFF
        and matcher.ratio() >= SIMILARITY_CUTOFF
    )


def _candidate(rng: random.Random) -> str:
    """One raw syllable-built word (not yet checked)."""
    count = rng.choice((2, 2, 2, 3))
    parts = [rng.choice(_ONSETS) + rng.choice(_NUCLEI) + rng.choice(_CODAS) for _ in range(count - 1)]
    onset = rng.choice(_ONSETS)
    last = onset + (rng.choice(_ENDINGS) if rng.random() < 0.3 else rng.choice(_NUCLEI) + rng.choice(_CODAS))
    return "".join([*parts, last]).capitalize()


def _acceptable(name: str, real: frozenset[str], taken: list[str]) -> bool:
    key = normalize_name(name)
    if not is_pronounceable(name) or is_offensive(name) or key in real:
        return False
    return not any(_similar(key, other) for other in (*taken, *real) if len(other) > 3)


def _code_candidates(name: str) -> list[str]:
    """Two-letter codes from a name: first two letters, then first letter + each later letter."""
    word = name.upper()
    return list(dict.fromkeys(word[0] + ch for ch in word[1:]))


def _pick_code(name: str, rng: random.Random, used: set[str], real: frozenset[str]) -> str:
    for code in _code_candidates(name):
        if code not in used and code.lower() not in real:
            return code
    pool = [a + b for a in string.ascii_uppercase for b in string.ascii_uppercase]
    free = [c for c in pool if c not in used and c.lower() not in real]
    if not free:
        raise ValueError("No free two-letter code left for an imaginary region.")
    return rng.choice(free)


def imaginary_names(atlas: Atlas | str, seed: int, n: int | None = None) -> dict[str, tuple[str, str]]:
    """Region code → (imaginary name, two-letter code) for every region (or the first ``n`` in sorted code order).

    Depends only on the atlas name, its codes and ``seed``: all maps of one atlas in a set share one dictionary,
    and the result for ``n`` is a prefix of the full one.
    """
    atlas = load_atlas(atlas) if isinstance(atlas, str) else atlas
    codes = sorted(atlas.codes)[: len(atlas.codes) if n is None else n]
    rng = random.Random(f"mapgen-imaginary:{atlas.name}:{seed}")
    real = real_spellings(atlas)
    taken: list[str] = []
    used: set[str] = set()
    out: dict[str, tuple[str, str]] = {}
    for code in codes:
        name = _fresh_name(rng, real, taken)
        taken.append(normalize_name(name))
        label = _pick_code(name, rng, used, real)
        used.add(label)
        out[code] = (name, label)
    return out


def _fresh_name(rng: random.Random, real: frozenset[str], taken: list[str]) -> str:
    for _ in range(MAX_ATTEMPTS):
        name = _candidate(rng)
        if _acceptable(name, real, taken):
            return name
    raise RuntimeError(f"Could not invent a new name after {MAX_ATTEMPTS} attempts.")


# --- permutations -------------------------------------------------------------------------------------------


def random_derangement(items: list[str], rng: random.Random) -> dict[str, str]:
    """A uniformly random derangement of ``items`` (item → item it takes from), by rejection sampling.

    Shuffles until no item maps to itself; the accepted permutations are uniform over all derangements and the
    expected number of shuffles is about e ≈ 2.72. Needs at least two items.
    """
    if len(items) < 2:
        raise ValueError("A derangement needs at least two items.")
    while True:
        perm = items[:]
        rng.shuffle(perm)
        if all(a != b for a, b in zip(items, perm)):
            return dict(zip(items, perm))


def shuffled_names(atlas: Atlas | str, seed: int) -> dict[str, str]:
    """Shape code → code whose real name (and code) the shape wears; a uniform derangement of the atlas codes."""
    atlas = load_atlas(atlas) if isinstance(atlas, str) else atlas
    return random_derangement(sorted(atlas.codes), random.Random(f"mapgen-shuffled:{atlas.name}:{seed}"))


def jumbled_values(spec: MapSpec, seed: int) -> dict[str, float]:
    """The spec's values permuted among the regions that have one (a derangement when ≥ 2 do); N/A stays N/A.

    The multiset of values is unchanged, so every value still lies in the (unchanged) legend. Regions whose
    value equals the value they receive look the same; a derangement guarantees only that every value moves.
    """
    valued = sorted(c for c, v in spec.values.items() if not math.isnan(v))
    out = dict(spec.values)
    if len(valued) < 2:
        return out
    perm = random_derangement(valued, random.Random(f"mapgen-jumbled:{spec.map_id}:{seed}"))
    for code, source in perm.items():
        out[code] = spec.values[source]
    return out


# --- specs --------------------------------------------------------------------------------------------------


def _set_marker(kind: str, seed: int | None, spec: MapSpec) -> dict[str, Any]:
    return {"kind": kind, "seed": seed, "source_map_id": spec.map_id}


def make_counterfactual(spec: MapSpec, kind: Kind, seed: int) -> MapSpec:
    """A new spec of the given kind (id ``{map_id}-{kind}-s{seed}``); same atlas, legend, style and title."""
    if kind not in KINDS:
        raise ValueError(f"Unknown counterfactual kind {kind!r}; use one of {', '.join(KINDS)}.")
    if spec.counterfactual:
        raise ValueError(f"Map {spec.map_id} is already a {spec.counterfactual.get('kind')} counterfactual.")
    marker = _set_marker(kind, seed, spec)
    cf: dict[str, Any] = dict(marker)
    values = spec.values
    atlas = spec.load_atlas()
    if kind == "imaginary":
        invented = imaginary_names(atlas, seed)
        cf |= {"names": {c: n for c, (n, _) in invented.items()}, "labels": {c: lab for c, (_, lab) in invented.items()}}
    elif kind == "shuffled":
        perm = shuffled_names(atlas, seed)
        cf |= {"names": {c: atlas.names[src] for c, src in perm.items()}, "labels": dict(perm)}
    else:
        values = jumbled_values(spec, seed)
        cf["moved_from"] = _moved_from(spec.values, values)
    return replace(
        spec,
        map_id=f"{spec.map_id}-{kind}-s{seed}",
        values=values,
        counterfactual=cf,
        extra=spec.extra | {"counterfactual_set": marker},
    )


def _moved_from(before: dict[str, float], after: dict[str, float]) -> dict[str, bool]:
    """Which regions' values changed (jumbled maps), for linking answers that must differ."""
    return {c: not _same(before[c], after[c]) for c in sorted(before)}


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def original_control(spec: MapSpec) -> MapSpec:
    """The control map (MAPWise ``orgs/``): the same map under id ``{map_id}-original``, real names, real values.

    ``counterfactual`` stays ``None`` so every consumer treats it as a real map; the set membership is recorded
    in ``extra["counterfactual_set"]`` (kind ``original``).
    """
    if spec.counterfactual:
        raise ValueError(f"Map {spec.map_id} is a counterfactual; make the control from the original map.")
    return replace(
        spec, map_id=f"{spec.map_id}-{CONTROL}", extra=spec.extra | {"counterfactual_set": _set_marker(CONTROL, None, spec)}
    )


def counterfactual_kind(spec: MapSpec) -> str | None:
    """``imaginary``/``shuffled``/``jumbled``/``original`` for specs made here; ``None`` for ordinary maps."""
    if spec.counterfactual:
        return str(spec.counterfactual.get("kind"))
    marker = spec.extra.get("counterfactual_set") or {}
    return marker.get("kind")


# --- dictionary and prompt ----------------------------------------------------------------------------------


def name_dictionary(spec: MapSpec) -> dict[str, Any]:
    """The name dictionary of a renamed map: real name → {code, name shown on the map, label drawn on it}.

    Maps that keep real names (jumbled, original, ordinary) get an empty ``regions`` mapping.
    """
    cf = spec.counterfactual or {}
    atlas = spec.load_atlas()
    names, labels = cf.get("names", {}), cf.get("labels", {})
    regions = {
        atlas.names[c]: {"code": c, "name": names[c], "label": labels.get(c, c)} for c in atlas.codes if c in names
    }
    return {
        "kind": counterfactual_kind(spec),
        "atlas": spec.atlas,
        "seed": cf.get("seed"),
        "source_map_id": cf.get("source_map_id"),
        "regions": regions,
    }


def prompt_note(spec: MapSpec) -> str:
    """The instruction MAPWise put into prompts for this kind of map ("" for real maps)."""
    kind = counterfactual_kind(spec)
    word = spec.load_atlas().region_word
    if kind == "imaginary":
        mapping = {real: f"{e['name']} ({e['label']})" for real, e in name_dictionary(spec)["regions"].items()}
        return (
            f"The map in the image uses fictional names for each {word} as given in this dictionary "
            f"(real name: fictional name (code on the map)). Use these fictional names and this dictionary while "
            f"analysing the map, and answer with the fictional names: {json.dumps(mapping, ensure_ascii=False)}"
        )
    if kind == "shuffled":
        return (
            f"The {word} names on this map have been shuffled: each {word} is labelled with the name of another "
            f"{word}. Use the names and codes as they appear on the map, not real geography, when answering."
        )
    if kind == "jumbled":
        return (
            f"The values on this map are fictional: they have been shuffled among the {word}s. Answer from the map "
            f"and its legend, not from what you know about the {word}s."
        )
    return ""


# --- re-instantiating questions -----------------------------------------------------------------------------


class _FixedChoice:
    """Stands in for the engine's rng when rendering text: always picks text variant ``index``."""

    def __init__(self, index: int) -> None:
        self.index = index

    def randrange(self, n: int) -> int:
        return min(self.index, n - 1)


class Skip(Exception):
    """A question that cannot be re-instantiated on a counterfactual map; ``kind`` is a short category."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


def translate_params(template: Template, params: Mapping[str, Any], original: Scene, scene: Scene) -> dict[str, Any]:
    """The original's parameters on ``scene``: the same shapes, legend classes and choices.

    Region parameters are codes, so they already name the same shape. ``bordering <region>`` groups are named
    after a region's display name and are re-named after the same shape's name on ``scene``.
    """
    octx, ctx = context(original), context(scene)
    by_centre = {code: name for name, code in ctx.group_centre.items()}
    out: dict[str, Any] = {}
    for p in template.params:
        if p.name not in params:
            raise Skip("parameter", f"parameter {p.name} is missing from the original question")
        value = params[p.name]
        if p.type == "Region" and value not in scene.regions:
            raise Skip("parameter", f"region {value!r} is not on this map")
        if p.type == "RegionGroup" and value in octx.group_centre:
            centre = octx.group_centre[value]
            if centre not in by_centre:
                raise Skip("parameter", f"no 'bordering' group around shape {centre} on this map")
            value = by_centre[centre]
        elif p.type == "RegionGroup" and value not in ctx.groups:
            raise Skip("parameter", f"group {value!r} is not on this map")
        out[p.name] = value
    return out


def _check_domains(template: Template, scene: Scene, params: dict[str, Any]) -> None:
    """Every parameter must be a candidate the engine itself could have drawn on ``scene``."""
    ctx, env = context(scene), {}
    for p in template.params:
        if params[p.name] not in param_domain(p, ctx, env):
            raise Skip("parameter", f"{p.name}={params[p.name]!r} is not a candidate on this map")
        env[p.name] = params[p.name]


def _why_invalid(template: Template, scene: Scene, env: dict[str, Any]) -> Skip:
    """Which program step or constraint rejected a run (``env`` holds the steps that completed)."""
    for name, node in template.program:
        if name not in env:
            return Skip("invalid", f"step {name} = {node_text(node)} is INVALID on this map (a tie, a degenerate "
                                   "set or a difference too small to read)")
    for node in template.constraints:
        ok = evaluate(context(scene), node, dict(env))
        if ok is INVALID or not ok:
            return Skip("constraint", f"constraint {node_text(node)} fails on this map")
    return Skip("invalid", "the program returned INVALID")


def text_variant(template: Template, original: Scene, params: Mapping[str, Any], text: str) -> int | None:
    """Index of the text variant that produced ``text`` on the original map (None when none matches)."""
    octx = context(original)
    for i in range(len(template.text.get(original.map_type, ()))):
        if render_text(template, octx, dict(params), _FixedChoice(i)) == text:
            return i
    return None


def reinstantiate(question: Question, template: Template, original: Scene, scene: Scene, seed: int = 0) -> Question:
    """The original ``question`` asked on ``scene``: same template, parameters (same shapes) and wording,
    answered by running the program on ``scene``. Raises :class:`Skip` saying why when that is impossible."""
    if not template.applies_to(scene.map_type):
        raise Skip("template", f"template {template.id} does not apply to {scene.map_type} maps")
    params = translate_params(template, question.params, original, scene)
    _check_domains(template, scene, params)
    ctx = context(scene)
    answer, env = run_program(template, ctx, dict(params))
    if answer is INVALID:
        raise _why_invalid(template, scene, env)
    if hinges_on_illegible(template, ctx, params, answer):
        raise Skip("illegible", "the answer depends on a region too small to read")
    variant = text_variant(template, original, question.params, question.question)
    rng = question_rng(seed, scene, template) if variant is None else _FixedChoice(variant)
    return make_question(template, ctx, params, env, answer, rng)


def program_answer(question: Question | Mapping[str, Any]) -> Any:
    """The raw program answer (region codes, class indices) from a question's trace; None when absent."""
    trace = question.program if isinstance(question, Question) else question.get("program", [])
    return next((s.get("result") for s in trace if s.get("step") == "answer"), None)


# --- counterfactual sets ------------------------------------------------------------------------------------

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
    if include_original:
        wanted.add(CONTROL)
    return [k for k in SET_KINDS if k in wanted]


def _as_spec(source: MapSpec | str | Path) -> MapSpec:
    spec = source if isinstance(source, MapSpec) else load_spec(source)
    if spec.counterfactual:
        raise ValueError(f"Map {spec.map_id} is already a counterfactual; give the original map.")
    return spec


def _template_index(templates: TemplateSet | Iterable[Template] | str | Path | None) -> dict[str, Template]:
    if templates is None or isinstance(templates, (str, Path)):
        templates = load_templates(templates)
    return {t.id: t for t in templates}


def original_scene(spec: MapSpec) -> Scene:
    """The Scene of a map with the legibility its render has (same atlas and page layout, nothing written)."""
    from mapgen.render.api import get_canvas, scene_with_pixels

    atlas = spec.load_atlas()
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
) -> CounterfactualSet:
    """Render every source map as each counterfactual kind (plus the ``original`` control) into
    ``out_dir/maps/`` and re-ask the original map's questions on each, answers recomputed.

    Sources are drawn annotated (like the build's counterfactual units). The original questions of a source are
    ``original_questions[map_id]`` when given (e.g. a benchmark's), else generated on the source map with
    ``templates``, ``per_template`` and ``seed``. Writes ``maps.jsonl``, ``questions.jsonl``,
    ``originals.jsonl``, ``skipped.jsonl``, ``dictionaries/<map_id>.json`` and ``set.json`` (last, with
    counts and file hashes), every file atomically; the same inputs and seed give the same bytes.
    """
    from mapgen.render import render

    out = Path(out_dir)
    order = set_kinds(kinds, include_original)
    index = _template_index(templates)
    result = CounterfactualSet(out)
    files: dict[str, str] = {}
    for source in sources:
        base = _as_spec(source).with_style(annotated=True)
        scene0 = original_scene(base)
        originals = _originals(base, scene0, index, per_template, seed, original_questions)
        result.originals += [q.to_dict() for q in originals]
        for kind in order:
            cf = original_control(base) if kind == CONTROL else make_counterfactual(base, kind, seed)  # type: ignore[arg-type]
            rendered = render(cf, out / "maps" / f"{cf.map_id}.png")
            book = _write_dictionary(cf, out)
            for path in (rendered.image, rendered.mask, rendered.json, book):
                files[path.relative_to(out).as_posix()] = sha256_file(path)
            map_record = _map_record(cf, base, kind, seed)
            result.maps.append(map_record)
            _ask(result, originals, index, scene0, rendered.scene, cf, map_record, seed)
    _write_set(result, files, order, seed, per_template)
    return result


def _originals(
    base: MapSpec, scene: Scene, index: dict[str, Template], per_template: int, seed: int,
    given: Mapping[str, Sequence[Question]] | None,
) -> list[Question]:
    """The source map's questions: given ones (benchmark) or generated on its Scene."""
    if given and given.get(base.map_id):
        return list(given[base.map_id])
    return generate_questions(scene, list(index.values()), per_template=per_template, seed=seed)


def _write_dictionary(spec: MapSpec, out: Path) -> Path:
    path = out / "dictionaries" / f"{spec.map_id}.json"
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
        "image": f"maps/{cf.map_id}.png",
        "dictionary": f"dictionaries/{cf.map_id}.json",
    }


def _ask(
    result: CounterfactualSet, originals: list[Question], index: dict[str, Template], scene0: Scene, scene: Scene,
    cf: MapSpec, map_record: dict[str, Any], seed: int,
) -> None:
    """Re-ask every original question on one counterfactual map; record it, or record why it was skipped."""
    note = prompt_note(cf)
    for oq in originals:
        link = {"original_question_id": oq.question_id, "counterfactual_set": map_record["counterfactual_set"]}
        try:
            template = index.get(oq.template_id)
            if template is None:
                raise Skip("template", f"template {oq.template_id!r} is not in the template set")
            q = reinstantiate(oq, template, scene0, scene, seed)
        except Skip as skip:
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
    tables = {"maps.jsonl": result.maps, "questions.jsonl": result.questions, "originals.jsonl": result.originals,
              "skipped.jsonl": result.skipped}
    for name, records in tables.items():
        write_jsonl_atomic(out / name, records)
        files[name] = sha256_file(out / name)
    write_json_atomic(out / "set.json", {
        "kinds": kinds,
        "seed": seed,
        "per_template": per_template,
        "sources": list(dict.fromkeys(m["source_map_id"] for m in result.maps)),
        "counts": result.summary(),
        "files": dict(sorted(files.items())),
    })
