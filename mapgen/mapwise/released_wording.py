"""A question in MAPWise's released wording, from the template YAML (no question engine involved).

mapgen's question text is a rendering of one of the template's ``text`` variants; this module matches the text
against that variant to recover each slot's phrase (region names, group phrases, legend ranges, comparison
words), then writes the template's first generation-ready ``mapwise_wordings`` entry with those phrases:

- ``(a|b)`` takes the first alternative, or the connector a filtered comparison phrase ended with
  (``{{ C1 | than }}`` → "higher than": the wording ``{{ C1 }} value (than|as|to)`` gets "higher … than"), or,
  for a group of connectors after a bare comparison word, that word's connector ("higher … than", "similar … to");
- ``[optional]`` parts are kept when they are words (``[the ]``, ``[distinct ]``) and dropped when they are
  punctuation, single letters or hold alternatives (``[,]``, ``[s]``, ``colo[u]r``, ``[have |has ]``);
- ``{{ states }}`` is MAPWise's word, "states", in every country (its China questions say "states" too).

Other wordings describe how MAPWise's questions may be phrased (for the recheck's parser) and are never used to
write. A question whose template has no marked wording, or whose text cannot be matched, keeps mapgen's text,
with China's "province(s)" written "state(s)" as MAPWise does.
"""

from __future__ import annotations

import re
from typing import Any

from mapgen.caches import memo
from mapgen.resources import template_path
from mapgen.yamlio import safe_load

_TOKEN = re.compile(r"{{\s*(?P<slot>\w+)\s*(?:\|\s*(?P<filter>\w+)\s*)?}}|(?P<op>[\[\]()|])|(?P<lit>[^{\[\]()|]+|{)")
_JINJA_SLOT = re.compile(r"{{\s*(?P<slot>\w+)\s*(?:\|\s*(?P<filter>\w+)\s*)?}}")
_GLOBALS = {"state": "state", "states": "states", "State": "State", "States": "States"}
_CONNECTORS = ("than", "as", "to")
_CONNECTOR_OF = {"higher": "than", "lower": "than", "similar": "to"}
"""The connector a bare comparison word takes in MAPWise's questions ("higher … than", "similar … to")."""
RELEASED = "MAPWise's released wording"
"""The ``note`` that marks a ``mapwise_wordings`` entry as the form the MAPWise export writes."""
_SPECIAL = ("drop", "implied", "fixed", "choices", "yes_if")


@memo(1)
def template_records() -> dict[str, dict[str, Any]]:
    """The raw template records shipped with mapgen, by id (``text`` and ``mapwise_wordings`` are what is read)."""
    out = {}
    for f in sorted(template_path("questions").iterdir(), key=lambda f: f.name):
        if f.name.endswith(".yaml"):
            for rec in (safe_load(f.read_text(encoding="utf-8")) or {}).get("templates", []):
                out[rec["id"]] = rec
    return out


def _variant(rec: dict[str, Any], map_type: str, index: int) -> str | None:
    text = rec.get("text")
    variants = text.get(map_type) if isinstance(text, dict) else text
    if not variants:
        return None
    return str(variants[min(int(index or 0), len(variants) - 1)])


def slot_phrases(variant: str, question: str) -> dict[str, tuple[str, str]] | None:
    """Slot → (phrase, filter) of ``question`` read as a rendering of the jinja ``variant`` (None: no match)."""
    if "{%" in variant:
        return None
    parts, filters, seen = [], {}, set()
    pos = 0
    flat = " ".join(variant.split())
    for m in _JINJA_SLOT.finditer(flat):
        parts.append(re.escape(flat[pos:m.start()]).replace(r"\ ", r"\s+"))
        name = m["slot"]
        if name in _GLOBALS:
            parts.append(r"\w+")
        elif name in seen:
            parts.append(rf"(?P={name})")
        else:
            seen.add(name)
            filters[name] = m["filter"] or ""
            connector = r"\s(?:than|as|to)" if filters[name] == "than" else ""  # "higher than", "similar to"
            parts.append(rf"(?P<{name}>.+?{connector})")
        pos = m.end()
    parts.append(re.escape(flat[pos:]).replace(r"\ ", r"\s+"))
    match = re.fullmatch("".join(parts), " ".join(question.split()))
    if match is None:
        return None
    return {name: (match[name], filters[name]) for name in seen}


def _parse(tokens: list[re.Match[str]], i: int) -> tuple[list[Any], int]:
    """Wording tokens → nested nodes: strings, ("slot", name), ("opt", [alts]), ("alt", [alts])."""
    alts: list[list[Any]] = [[]]
    while i < len(tokens):
        m = tokens[i]
        op = m["op"]
        if op in ("]", ")"):
            return alts, i
        i += 1
        if op == "|":
            alts.append([])
        elif op in ("[", "("):
            inner, i = _parse(tokens, i)
            alts[-1].append(("opt" if op == "[" else "alt", inner))
            i += 1
        elif m["slot"]:
            alts[-1].append(("slot", m["slot"]))
        else:
            alts[-1].append(m["lit"])
    return alts, i


class _Writer:
    """Writes one wording's node tree with the slot phrases into ``out``. A filtered comparison phrase ending in
    a connector ("higher than") gives the connector to the next ``(than|as|to)`` group, which then takes it."""

    def __init__(self, phrases: dict[str, tuple[str, str]]) -> None:
        self.phrases = phrases
        self.out: list[str] = []
        self.pending: tuple[int, str, str] | None = None  # (out index, phrase without connector, connector)
        self.compared = ""  # first word of the last slot phrase: a bare comparison word picks the connector

    def nodes(self, nodes: list[Any]) -> None:
        for n in nodes:
            self.node(n)

    def node(self, node: Any) -> None:
        if isinstance(node, str):
            self.out.append(node)
            return
        kind, body = node
        if kind == "slot":
            self.slot(body)
        elif kind == "alt":
            words = ["".join(a for a in alt if isinstance(a, str)).strip() for alt in body]
            if self.pending is not None and self.pending[2] in words:
                index, base, connector = self.pending
                self.out[index], self.pending = base, None
                self.nodes(body[words.index(connector)])
            elif set(words) <= set(_CONNECTORS) and self.compared in _CONNECTOR_OF:
                self.nodes(body[words.index(_CONNECTOR_OF[self.compared])])
            else:
                self.nodes(body[0])
        elif _keeps(body):
            self.nodes(body[0])

    def slot(self, name: str) -> None:
        if name in _GLOBALS:
            self.out.append(_GLOBALS[name])
            return
        phrase, flt = self.phrases[name]
        self.compared = phrase.split(" ", 1)[0].lower()
        words = phrase.rsplit(" ", 1)
        if flt and len(words) == 2 and words[1] in _CONNECTORS:
            self.pending = (len(self.out), words[0], words[1])
        self.out.append(phrase)


def _keeps(alts: list[list[Any]]) -> bool:
    """An optional part is written when it is plain words (no alternatives, slots or punctuation only)."""
    if len(alts) != 1 or not all(isinstance(a, str) for a in alts[0]):
        return False
    text = "".join(alts[0]).strip()
    return len(text) >= 3 and text.replace(" ", "").isalpha()


def _usable(wording: Any, map_type: str, phrases: dict[str, tuple[str, str]]) -> str | None:
    """The text of a wording marked as MAPWise's released one that can be written for this question."""
    if not isinstance(wording, dict) or wording.get("note") != RELEASED or any(wording.get(k) for k in _SPECIAL):
        return None
    if map_type not in (wording.get("map_types") or (map_type,)):
        return None
    wording = wording["text"]
    slots = {m["slot"] for m in _TOKEN.finditer(wording) if m["slot"]} - set(_GLOBALS)
    return wording if slots <= set(phrases) else None


def write_wording(wording: str, phrases: dict[str, tuple[str, str]]) -> str:
    """One MAPWise wording written with the slot phrases (see the module docstring for the rules)."""
    tree, _ = _parse(list(_TOKEN.finditer(wording)), 0)
    writer = _Writer(phrases)
    writer.nodes(tree[0])
    text = re.sub(r"\s+([,.?:])", r"\1", " ".join("".join(writer.out).split()))
    return text[:1].upper() + text[1:]


def states_word(text: str, country: str) -> str:
    """MAPWise's word for regions: "state(s)" in every country (China's released questions included)."""
    if country != "china":
        return text
    text = re.sub(r"\bprovinces\b", "states", text)
    text = re.sub(r"\bProvinces\b", "States", text)
    text = re.sub(r"\bprovince\b", "state", text)
    return re.sub(r"\bProvince\b", "State", text)


def mapwise_text(record: dict[str, Any]) -> str:
    """A question record's text in MAPWise's released wording (mapgen's text when no wording fits)."""
    country = str(record.get("country") or "")
    rec = template_records().get(str(record.get("template_id")))
    map_type = str(record.get("map_type") or "discrete")
    variant = _variant(rec, map_type, record.get("text_variant") or 0) if rec else None
    phrases = slot_phrases(variant, record["question"]) if variant else None
    if phrases is None or rec is None:
        return states_word(record["question"], country)
    for wording in rec.get("mapwise_wordings") or []:
        usable = _usable(wording, map_type, phrases)
        if usable is not None:
            return states_word(write_wording(usable, phrases), country)
    return states_word(record["question"], country)
