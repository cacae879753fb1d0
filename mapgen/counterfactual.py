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
*pronounceable* (:func:`is_pronounceable`: letters only, no three consonants and no three vowels in a row), not
a real place anywhere, a common word in a language of the builds or offensive (:func:`mapgen.name_checks.refusal`,
checked against world lists shipped in ``data/names/``), not a real spelling (name, alias, code, group,
neighbouring country) of any built-in atlas or of the map's own atlas (compared with :func:`normalize_name`), not
close to one (``difflib`` ratio < 0.85), and not close to another imaginary name of the same map. The label an
annotated map prints is the name's first two letters (:func:`label_of`, as MAPWise prints them); names are redrawn
until the labels of one map are unique, none equal to a real code or two-letter alias of any built-in atlas — so
"CA" never labels a region that is not California — and none a reserved word (:data:`RESERVED_WORDS`: the legend's
N/A words and the answer words Yes/No), so no region is labelled "NA" (which reads as the N/A key) or named "None".
Names and labels are unique per map, so no region wears another region's label or name.

Sets of counterfactual maps with their re-asked questions are assembled by :mod:`mapgen.cfsets`; re-asking a
question on a changed map is :func:`mapgen.questions.ask`.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from typing import Any, Literal

from mapgen.caches import memo
from mapgen.geo.atlas import BUILTIN, Atlas, as_atlas, list_atlases, shipped_atlas
from mapgen.geo.names import normalize_name
from mapgen.legend.grammar import NA_WORDS
from mapgen.name_checks import BLOCKLIST as BLOCKLIST  # re-exported: the offensive substrings
from mapgen.name_checks import CloseSpellings, refusal
from mapgen.name_checks import is_offensive as is_offensive
from mapgen.renamed_regions import renamed_regions
from mapgen.spec import MapSpec

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
#: Normalised words no imaginary name or code may be: the legend's N/A words ("NA", "N/A", "No data", "None", …)
#: and the answer words of yes/no questions.
RESERVED_WORDS: frozenset[str] = frozenset(
    key for key in (normalize_name(w) for w in (*NA_WORDS, "yes", "no")) if key
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


@memo(1024)
def _builtin_spellings() -> frozenset[str]:
    """Normalised real spellings of all built-in atlases."""
    raw: set[str] = set()
    for name in list_atlases():
        raw |= _atlas_spellings(shipped_atlas(name))
    return frozenset(normalize_name(s) for s in raw if normalize_name(s))


def real_spellings(atlas: Atlas) -> frozenset[str]:
    """Normalised spellings an imaginary name or code must avoid (all built-in atlases plus ``atlas``, and the
    :data:`RESERVED_WORDS`)."""
    extra = frozenset() if atlas.name in BUILTIN else frozenset(normalize_name(s) for s in _atlas_spellings(atlas))
    return _with_builtins(extra)


@memo(1024)
def _with_builtins(extra: frozenset[str]) -> frozenset[str]:
    """One object per set of extra spellings, so :func:`_close_reals` finds its index by identity."""
    return _builtin_spellings() | extra | RESERVED_WORDS


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


def _candidate(rng: random.Random) -> str:
    """One raw syllable-built word (not yet checked)."""
    count = rng.choice((2, 2, 2, 3))
    parts = [rng.choice(_ONSETS) + rng.choice(_NUCLEI) + rng.choice(_CODAS) for _ in range(count - 1)]
    onset = rng.choice(_ONSETS)
    last = onset + (rng.choice(_ENDINGS) if rng.random() < 0.3 else rng.choice(_NUCLEI) + rng.choice(_CODAS))
    return "".join([*parts, last]).capitalize()


def _acceptable(name: str, real: frozenset[str], taken: CloseSpellings) -> bool:
    key = normalize_name(name)
    if not is_pronounceable(name) or key in real or refusal(name):
        return False
    return not (taken.close_to(key) or _close_reals(real).close_to(key))


@memo(1024)
def _close_reals(real: frozenset[str]) -> CloseSpellings:
    """The real spellings indexed for closeness, once per set of them."""
    return CloseSpellings(real, SIMILARITY_CUTOFF)


def label_of(name: str) -> str:
    """The label an imaginary region wears on annotated maps: its name's first two letters (MAPWise's rule)."""
    return name[:2].upper()


def imaginary_names(atlas: Atlas | str, seed: int, n: int | None = None) -> dict[str, tuple[str, str]]:
    """Region code → (imaginary name, two-letter code) for every region (or the first ``n`` in sorted code order).

    Depends only on the atlas name, its codes and ``seed``: all maps of one atlas in a set share one dictionary,
    and the result for ``n`` is a prefix of the full one.
    """
    atlas = as_atlas(atlas)
    codes = sorted(atlas.codes)[: len(atlas.codes) if n is None else n]
    rng = random.Random(f"mapgen-imaginary:{atlas.name}:{seed}")
    real = real_spellings(atlas)
    taken = CloseSpellings(cutoff=SIMILARITY_CUTOFF)
    used: set[str] = set()
    out: dict[str, tuple[str, str]] = {}
    for code in codes:
        name = _fresh_name(rng, real, taken, used)
        taken.add(normalize_name(name))
        used.add(label_of(name))
        out[code] = (name, label_of(name))
    return out


def _fresh_name(rng: random.Random, real: frozenset[str], taken: CloseSpellings, used: set[str]) -> str:
    """A new acceptable name whose label (first two letters) is free: not used on the map, not a real spelling."""
    for _ in range(MAX_ATTEMPTS):
        name = _candidate(rng)
        label = label_of(name)
        if label not in used and label.lower() not in real and _acceptable(name, real, taken):
            return name
    raise RuntimeError(f"Could not invent a new name with a free two-letter label after {MAX_ATTEMPTS} attempts "
                       f"({len(used)} labels taken): names start with about 140 free labels, so imaginary maps fit "
                       "atlases of up to about 140 regions.")


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
    atlas = as_atlas(atlas)
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
    atlas = spec.get_atlas()
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
    atlas = spec.get_atlas()
    regions = renamed_regions(cf, {c: atlas.names[c] for c in atlas.codes})
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
    word = spec.get_atlas().region_word
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
