"""MAPWise's counterfactual maps (``dataset/counter_factuals/<kind>/``): which name is printed on which shape, and
whether the values are known.

What each kind changes (MAPWise paper §7; established on repo-sample's 4 maps per kind: their CSVs, json_data and
PNGs, each against the ``orgs`` control of the same map number):

- ``orgs``: nothing (the original map, real names); the maps are ``dataset/usa``'s, numbered alike.
- ``img``: each state is printed with the first two letters of an invented name (``MO`` on Illinois for "Moxie");
  the questions and answers use the full invented name. Values and classes are the original map's.
- ``shuff``: real state names are printed on the wrong shapes (``PA`` on South Carolina); the questions use the
  printed name. Values and classes stay with the shapes.
- ``jumb``: real names on their own shapes, values permuted between states: the PNG's colours change, and the
  jumbled values are in no file but the PNG (the released kind has no metadata; ``dataset/usa/metadata`` holds
  the original values). ``original_data_answer`` is the answer on the original map.

Which printed name sits on which shape is not in MAPWise's files, except through the questions: a counterfactual
question is the ``orgs`` question of the same map and template with each state written by the name printed on its
shape (checked against the PNGs of map 10436). :func:`aligned_names` reads that substitution: the ``orgs``
question's text between its state names must reappear verbatim, and what fills each gap is the printed name of
that state. With OCR the importer also reads the label printed on each shape (:mod:`mapgen.recheck.printed_labels`):
``shuff`` labels are real postal codes (the name is the state's), ``img`` labels are the first two letters of an
invented name the map's questions or answers use (:func:`names_from_labels`); where the questions and the image
contradict each other the image is not used for that map (:func:`contradictions`). A shape neither source
establishes, or named two ways, stays *unestablished*: its name is the placeholder ``name-unknown-<code>``, and the
recheck calls any verdict that needs it ambiguous. mapgen's own export records the printed
name of every shape in ``metadata/`` (``printed_name``, ``printed_label``), which :func:`printed_from_metadata`
reads instead.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mapgen.caches import memo
from mapgen.geo.atlas import Atlas, load_atlas

NAME_KINDS: dict[str, str] = {"img": "imaginary", "shuff": "shuffled"}
"""MAPWise kinds that print other names on the shapes → mapgen's counterfactual kind."""
UNKNOWN = "name-unknown-"
"""Prefix of the placeholder name (and label) of a shape whose printed name the files do not establish
(``name-unknown-UT``: unlike ``?UT`` it normalises to nothing a real label could be)."""
JUMBLED_UNKNOWN = (
    "jumbled values are drawn in the image only: MAPWise released no metadata for counter_factuals/jumb (the "
    "values in dataset/usa/metadata are the original ones)")


def unknown_name(code: str) -> str:
    """The placeholder name of a shape whose printed name is not established."""
    return f"{UNKNOWN}{code}"


def is_unknown(name: str) -> bool:
    return str(name).startswith(UNKNOWN)


@dataclass
class PrintedNames:
    """Per map reference: state code → the name printed on its shape, as far as the files establish it."""

    names: dict[str, dict[str, str]] = field(default_factory=dict)
    conflicts: dict[str, list[str]] = field(default_factory=dict)  # map ref → names found two ways (dropped)

    def to_dict(self) -> dict[str, Any]:
        return {"names": self.names, "conflicts": self.conflicts}


@memo(1024)
def _name_pattern(atlas_name: str) -> tuple[re.Pattern[str], dict[str, str]]:
    atlas = load_atlas(atlas_name)
    by_name = {atlas.names[c]: c for c in atlas.codes}
    alternation = "|".join(re.escape(n) for n in sorted(by_name, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternation})(?![\w-])"), by_name


def substitution(original: str, changed: str, atlas_name: str = "usa") -> list[tuple[str, str]] | None:
    """(state code, what ``changed`` writes in its place) for each state the ``original`` question names, when
    ``changed`` is ``original`` with only those names replaced; None when the texts differ elsewhere."""
    pattern, by_name = _name_pattern(atlas_name)
    found = list(pattern.finditer(original))
    if not found:
        return None
    pieces, last = [], 0
    for m in found:
        pieces.append(re.escape(original[last:m.start()]))
        last = m.end()
    pieces.append(re.escape(original[last:]))
    match = re.fullmatch("(.+?)".join(pieces), changed.strip()) if len(pieces) > 1 else None
    if match is None:
        return None
    return [(by_name[m.group(1)], match.group(i).strip()) for i, m in enumerate(found, start=1)]


def _valid(kind: str, name: str, atlas: Atlas) -> bool:
    """A printed name a kind can print: a real state name (``shuff``), an invented word (``img``)."""
    real = name in atlas.names.values()
    return real if kind == "shuff" else (not real and bool(re.fullmatch(r"[A-Z][A-Za-z' -]{1,30}", name)))


def aligned_names(kind: str, rows: Iterable[tuple[str, str, str]], control: Iterable[tuple[str, str, str]],
                  atlas_name: str = "usa") -> PrintedNames:
    """Printed names of a name kind (``img``/``shuff``) from its question rows ``(map ref, template, question)``
    aligned, in order, with the ``orgs`` control's rows of the same map and template."""
    atlas = load_atlas(atlas_name)
    pending: dict[tuple[str, str], list[str]] = defaultdict(list)
    for ref, template, question in control:
        pending[(ref, template)].append(question)
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for ref, template, question in rows:
        queue = pending.get((ref, template)) or []
        original = queue.pop(0) if queue else None
        for code, name in (substitution(original, question, atlas_name) or []) if original else []:
            if _valid(kind, name, atlas):
                seen[ref][code].add(name)
    return _one_to_one(seen)


def _one_to_one(seen: dict[str, dict[str, set[str]]]) -> PrintedNames:
    """Keep the shapes with exactly one printed name that no other shape of the map also wears."""
    out = PrintedNames()
    for ref in sorted(seen):
        wearers: dict[str, set[str]] = defaultdict(set)
        for code, names in seen[ref].items():
            for name in names:
                wearers[name].add(code)
        keep = {c: next(iter(n)) for c, n in seen[ref].items() if len(n) == 1 and len(wearers[next(iter(n))]) == 1}
        dropped = sorted({n for c, ns in seen[ref].items() if c not in keep for n in ns})
        out.names[ref] = dict(sorted(keep.items()))
        if dropped:
            out.conflicts[ref] = dropped
    return out


def printed_label(kind: str, name: str, code: str, atlas: Atlas) -> str:
    """The annotation printed with a name: ``shuff`` the real state's postal code, ``img`` its first two letters
    (as on repo-sample's PNGs)."""
    if is_unknown(name):
        return name
    if kind == "shuff":
        return next((c for c in atlas.codes if atlas.names[c] == name), code)
    return name[:2].upper()


def counterfactual_record(kind: str, names: dict[str, str], atlas: Atlas, source: str,
                          labels: dict[str, str] | None = None) -> dict[str, Any]:
    """``spec.counterfactual`` for a name kind: every shape's printed name and label (placeholders where not
    established; ``labels`` as recorded, else :func:`printed_label`) and which shapes are established."""
    full = {c: names.get(c, unknown_name(c)) for c in atlas.codes}
    labels = labels or {}
    return {
        "kind": NAME_KINDS[kind],
        "names": full,
        "labels": {c: labels.get(c) or printed_label(kind, n, c, atlas) for c, n in full.items()},
        "established": sorted(names),
        "source": source,
    }


def printed_from_metadata(meta: dict[str, Any], atlas: Atlas) -> tuple[dict[str, str], dict[str, str]] | None:
    """(code → printed name, code → printed label) from metadata that records them (mapgen's export:
    ``printed_name`` and ``printed_label`` per region); None when it does not."""
    names, labels = {}, {}
    for rec in meta.get("data", []):
        if "printed_name" in rec:
            code = atlas.resolve(str(rec["region"]))
            names[code] = str(rec["printed_name"])
            labels[code] = str(rec.get("printed_label") or "")
    return (names, labels) if names else None


# --- names read off the PNGs ----------------------------------------------------------------------------------


def answer_names(text: str) -> list[str]:
    """Capitalised names in an answer cell ("Valara, Kryon" → both; numbers, ranges, Yes/No left out)."""
    items = (p.strip() for p in re.split(r",|\band\b", text or ""))
    return [p for p in items if re.fullmatch(r"[A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)*", p) and p not in ("Yes", "No")]


def names_from_labels(kind: str, labels: dict[str, str], atlas: Atlas, candidates: Iterable[str]) -> dict[str, str]:
    """Code → printed name from the labels read on the shapes: ``shuff`` a label is a real state's code; ``img``
    a label is the first two letters of one of ``candidates`` (names the map's questions and answers use), kept
    when exactly one candidate has them."""
    if kind == "shuff":
        return {c: atlas.names[label] for c, label in labels.items() if label in atlas.names}
    by_label: dict[str, set[str]] = defaultdict(set)
    for name in candidates:
        by_label[name[:2].upper()].add(name)
    return {c: next(iter(by_label[label])) for c, label in labels.items() if len(by_label.get(label, ())) == 1}


def contradictions(kind: str, names: dict[str, str], labels: dict[str, str], atlas: Atlas) -> list[str]:
    """Shapes whose name from the questions would print another label than the one read on the image."""
    return sorted(c for c, name in names.items() if c in labels and printed_label(kind, name, c, atlas) != labels[c])


def merge_names(aligned: dict[str, str], from_labels: dict[str, str]) -> dict[str, str]:
    """Both readings together, keeping only names worn by one shape (a clash leaves both shapes unknown)."""
    seen: dict[str, dict[str, set[str]]] = {"_": defaultdict(set)}
    for source in (aligned, from_labels):
        for code, name in source.items():
            seen["_"][code].add(name)
    return _one_to_one(seen).names.get("_", {})
