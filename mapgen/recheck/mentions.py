"""What a MAPWise question mentions, found slot by slot: regions, groups, legend ranges, numbers and words.

The question is read left to right into :class:`Mention` records, each with the kind of template slot it can
fill (``region``, ``group``, ``range``, ``open`` (an open range or threshold: "above 10k", "> 60k"),
``rank`` ("the second highest range"), ``number``, ``count``, ``comparison``, ``extreme``, ``direction``):

- regions and countries through the map's gazetteer (names, aliases, codes written in capitals), with fuzzy
  matching for misspellings ("Karanataka", "Canda"; difflib ratio >= :data:`FUZZY_CUTOFF`);
- groups by their curated names and aliases (the atlas's and MAPWise's, :mod:`mapgen.mapwise.aliases`), and by
  construction: a border word before a region or country ("bordering Kansas", "the Mexico border"), a
  direction from a region ("states north of Delhi"), "its neighbours", "either A or B" (a union), "excluding
  missing values" (the group's members with data) — the derived groups are returned with their members;
- numbers and ranges as written (:func:`mapgen.legend.grammar.find_ranges` grammar);
- typos are corrected against the words of the templates and the gazetteer (a word of the shipped common-word
  list, :func:`mapgen.name_checks.is_common_word`, is never corrected).

:func:`read_mentions` returns the mentions in text order; :mod:`mapgen.recheck.slots` fills templates with them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mapgen.caches import memo
from mapgen.geo.gazetteer import RegionGroup
from mapgen.mapwise.aliases import MapwiseAliases
from mapgen.name_checks import is_common_word
from mapgen.scene import Scene

FUZZY_CUTOFF = 0.85
"""difflib similarity a misspelt name must reach to be read as a region or country (Karanataka = Karnataka)."""
TYPO_CUTOFF = 0.8
"""Similarity a misspelt template word must reach (leasest = least, bodering = bordering)."""


@dataclass
class Mention:
    """One thing a question says, with the slot kind it can fill and where it stands (word index)."""

    kind: str
    value: Any
    text: str
    start: int = 0


@dataclass
class Mentions:
    """The mentions of one question, the derived groups they name, the words and notes."""

    items: list[Mention]
    words: list[str]
    text: str
    groups: dict[str, RegionGroup] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def of(self, kind: str) -> list[Mention]:
        return [m for m in self.items if m.kind == kind]


# ---------------------------------------------------------------------------------------------- word tables

COMPARISON = {
    "higher": "higher", "greater": "higher", "more": "higher", "larger": "higher", "above": "higher",
    "bigger": "higher", "lower": "lower", "less": "lower", "lesser": "lower", "smaller": "lower", "below": "lower",
    "similar": "similar", "same": "similar", "equal": "similar", "different": "different",
}  # fmt: skip
EXTREME = {
    "highest": "highest", "largest": "highest", "greatest": "highest", "maximum": "highest", "top": "highest",
    "lowest": "lowest", "least": "lowest", "smallest": "lowest", "minimum": "lowest", "fewest": "lowest",
}  # fmt: skip
DIRECTIONS = ("north", "south", "east", "west")
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
KEYWORDS = ["yes", "no", "does", "do", "is", "are", "which", "what", "how", "many", "count", "list", "name", "rank", "state", "states", "region", "regions", "value", "values", "range", "ranges", "legend", "class", "classes", "category", "categories", "shade", "shades", "colour", "color", "darkest", "lightest", "darkness", "intensity", "proportional", "directly", "inversely", "distinct", "different", "percentages", "absolute", "discrete", "continuous", "bordering", "border", "borders", "neighbouring", "neighbours", "neighbour", "majority", "median", "average", "outlier", "pair", "difference", "closest", "closer", "furthest", "along", "among", "amongst", "between", "within", "belong", "belongs", "fall", "falls", "lie", "lies", "missing", "data", "evenly", "spaced", "significant", "gaps", "only", "least", "atleast", "than", "compared", "similar", "higher", "lower", "highest", "lowest"]
#: Words before a region or country that make it a border group ("bordering Kansas", "adjacent to Texas").
_BORDER_BEFORE = ("bordering", "borders", "border", "bordered by", "adjacent to", "surrounding", "next to",
                  "sharing border with", "share border with", "shares border with", "sharing a border with",
                  "share a border with", "shares a border with", "that border", "touching")
#: Words after a country that make it a border group ("the Mexico border", "Canada bordering region").
_BORDER_AFTER = ("border", "borders", "bordering region", "bordering states", "bordering", "border region")
_NEIGHBOURS = re.compile(r"\bits (?:other )?neighbou?r(?:s|ing (?:region|states?))\b|\bthat share (?:a )?border "
                         r"with it\b|\bcompared to its neighbou?rs\b")
_DIRECTIONAL = re.compile(r"(?:north|south)?(?:east|west)?(?:ern)?|(?:north|south)(?:ern)?")
#: Words that end a group phrase ("on the North coast", "in the Satpura Range") and words that begin one.
_GROUP_NOUNS = frozenset({"region", "coast", "coastline", "border", "belt", "range", "plateau", "ghats", "part",
                          "india", "ocean", "sea", "bowl", "heartland", "valley", "hills"})
_PREPOSITIONS = frozenset({"in", "on", "along", "among", "amongst", "within", "of", "to", "bordering", "that",
                           "which", "where", "from", "for"})
_FILLER = frozenset({"the", "and", "of", "or", "entire", "whole", "all", "india", "value", "values", "same",
                     "legend", "marking", "markings", "a", "states", "state", "region", "regions", "area", "along",
                     "in", "on", "that", "which", "is", "are", "to", "its", "other", "neighbouring", "neighboring",
                     "terms", "s", "share", "shares", "sharing", "with", "either", "land", "lie", "lies",
                     "located"})
_SLASH_UT = re.compile(r"\b(states?|provinces?)\s*/\s*(?:uts?|union territor(?:y|ies))\b")
_EXCLUDING = re.compile(r"\s*\b(?:excluding|without) (?:the )?missing (?:values?|data)\b")
_NUM = r"-?\d[\d,]*(?:\.\d+)?\s*(?:%|k|m|b|bn|million|billion|thousand|lakh crore|lakh|crore|cr)?"
_CLOSED = re.compile(rf"(?:between\s+)?(?P<a>{_NUM})\s*(?:-|–|to|and)\s*(?P<b>{_NUM})(?![\w])")
_OPEN_BEFORE = re.compile(rf"(?P<op>>=?|<=?|above|below|over|under|greater than|more than|higher than|less than|"
                          rf"lower than|lesser than|smaller than|larger than)\s*(?:than\s+)?(?P<a>{_NUM})(?![\w])")
_OPEN_AFTER = re.compile(rf"(?P<a>{_NUM})\s+(?:and|or)\s+(?P<op>above|below|more|less|higher|lower|over|under)\b")
_BARE = re.compile(rf"(?<![\w.])(?P<a>{_NUM})(?![\w])")
_OP_WORD = {">": "higher", ">=": "higher", "above": "higher", "over": "higher", "greater than": "higher",
            "more than": "higher", "higher than": "higher", "larger than": "higher", "more": "higher",
            "higher": "higher", "<": "lower", "<=": "lower", "below": "lower", "under": "lower", "less than": "lower",
            "lower than": "lower", "lesser than": "lower", "smaller than": "lower", "less": "lower",
            "lower": "lower"}
_COUNT_CONTEXT = re.compile(r"(?:at\s*least|atleast|top|list|list the|name|only|which|the)\s+$")
_RANK = re.compile(r"\b(?:the\s+)?(?:(second|third)\s+)?(highest|lowest|least|largest|smallest|maximum|minimum)"
                   r"(?:\s+value)?\s+(?:legend\s+)?(?:range|class|category)\b")


def words_of(text: str) -> list[str]:
    """Lower-case words (``&`` as "and"; hyphens and apostrophes split words)."""
    return re.findall(r"[a-z0-9]+", text.lower().replace("&", " and ").replace("'s ", " "))


def key_of(text: str) -> str:
    return " ".join(words_of(text))


# ---------------------------------------------------------------------------------------------- the index


@dataclass(frozen=True)
class Index:
    """Phrase (words joined by spaces) -> what it names on one map: ("region", code), ("country", name) or
    ("group", key)."""

    phrases: dict[str, tuple[str, str]]
    codes: dict[str, str]  # region codes as printed (upper case) -> code
    longest: int
    fuzzy: tuple[str, ...]  # phrases fuzzy matching may land on (regions and countries)
    vocabulary: frozenset[str]


def _group_phrases(scene: Scene, aliases: MapwiseAliases) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    extra: dict[str, list[str]] = {}
    for alias, target in aliases.groups.get(scene.country, {}).items():
        try:
            extra.setdefault(scene.group_info(target).name, []).extend(alias_texts(alias, aliases))
        except (KeyError, ValueError):
            continue
    for g in scene.groups.values():
        if g.kind == "region_border":
            continue
        for spelling in (g.name, *g.aliases, *extra.get(g.name, ())):
            k = key_of(spelling).removeprefix("the ")  # "the West": the article is read as no part of a name
            out.setdefault(k, ("group", g.name))
            for tail in (" states", " region", " area", " states of india", " provinces"):
                if k.endswith(tail) and len(k) > len(tail) + 2:
                    if not _DIRECTIONAL.fullmatch(k[: -len(tail)]):  # "southern": a direction, not the South
                        out.setdefault(k[: -len(tail)], ("group", g.name))
                else:
                    out.setdefault(k + tail, ("group", g.name))
    return out


def alias_texts(normalised: str, aliases: MapwiseAliases) -> tuple[str, ...]:
    """The written forms of an alias (the alias file keeps normalised keys and, beside them, the texts)."""
    return aliases.texts.get(normalised, (normalised,))


def build_index(scene: Scene, aliases: MapwiseAliases) -> Index:
    """Every phrase that names a region, a neighbouring country or a group on ``scene``'s map."""
    phrases = _group_phrases(scene, aliases)
    countries = {g.name.removeprefix("bordering "): g.name for g in scene.groups.values()
                 if g.name.startswith("bordering ") and g.kind != "region_border"}
    for country in countries:
        phrases[key_of(country)] = ("country", country)
    for adjective, country in aliases.demonyms.items():
        if country in countries:
            phrases.setdefault(key_of(adjective), ("country", country))
    codes: dict[str, str] = {}
    fuzzy: list[str] = []
    for code in scene.regions:
        for spelling in scene.spellings(code):
            if re.fullmatch(r"[A-Z]{2,3}", spelling):
                codes[spelling] = code
                continue
            k = key_of(spelling)
            if k:
                phrases[k] = ("region", code)
                fuzzy.append(k)
        for alias, target in aliases.regions.get(scene.country, {}).items():
            if _resolves(scene, target) == code:
                for text in alias_texts(alias, aliases):
                    phrases.setdefault(key_of(text), ("region", code))
    fuzzy += [key_of(c) for c in countries]
    vocabulary = frozenset(KEYWORDS) | {w for p in phrases for w in p.split()} | _template_words()
    return Index(phrases, codes, max(len(p.split()) for p in phrases), tuple(fuzzy), vocabulary)


def _resolves(scene: Scene, name: str) -> str | None:
    try:
        return scene.resolve(name)
    except (KeyError, ValueError):
        return None


@memo(1)
def _template_words() -> frozenset[str]:
    """Every word of the shipped templates' texts and MAPWise wordings (the vocabulary typos are fixed to)."""
    from mapgen.questions import load_templates

    out: set[str] = set()
    for t in load_templates():
        for variants in t.text.values():
            for v in variants:
                out.update(w for w in words_of(re.sub(r"{[{%].*?[}%]}", " ", v)) if not w.isdigit())
        for w in t.wordings:
            out.update(w2 for w2 in words_of(re.sub(r"{[{%].*?[}%]}", " ", w.text)) if not w2.isdigit())
    return frozenset(out)


# ---------------------------------------------------------------------------------------------- typos


def fix_typos(words: list[str], index: Index, notes: list[str]) -> list[str]:
    """Words not in the vocabulary replaced by the one vocabulary word they are a misspelling of."""
    out = []
    pool = sorted(index.vocabulary)
    for w in words:
        if w in index.vocabulary or len(w) < 4 or not w.isalpha() or is_common_word(w):
            out.append(w)
            continue
        hits = difflib.get_close_matches(w, pool, n=2, cutoff=TYPO_CUTOFF)
        if hits and (len(hits) == 1 or _ratio(w, hits[0]) > _ratio(w, hits[1])):
            notes.append(f"'{w}' read as '{hits[0]}'")
            out.append(hits[0])
        else:
            out.append(w)
    return out


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


# ---------------------------------------------------------------------------------------------- numbers


def _numbers(text: str) -> tuple[str, list[Mention]]:
    """Ranges, open ranges and numbers replaced by placeholder words ``num0``, ``num1``…, with their mentions."""
    found: list[tuple[int, int, Mention]] = []

    def take(pattern: re.Pattern[str], make: Any) -> None:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b, _ in found):
                continue
            found.append((m.start(), m.end(), make(m)))

    take(_RANK, lambda m: Mention("rank", ((m[1] or "") + " " + EXTREME[m[2]]).strip(), m[0].strip()))
    take(_CLOSED, lambda m: Mention("range", (m["a"].strip(), m["b"].strip()), m[0].strip()))
    take(_OPEN_BEFORE, lambda m: Mention("open", (_OP_WORD[m["op"]], m["a"].strip()), m[0].strip()))
    take(_OPEN_AFTER, lambda m: Mention("open", (_OP_WORD[m["op"]], m["a"].strip()), m[0].strip()))
    take(_BARE, lambda m: _bare(m, text))
    out, pos, mentions = [], 0, []
    for i, (a, b, mention) in enumerate(sorted(found, key=lambda t: t[0])):
        out += [text[pos:a], f" num{i} "]
        pos = b
        mentions.append(mention)
    out.append(text[pos:])
    return "".join(out), mentions


def _bare(m: re.Match[str], text: str) -> Mention:
    """A bare number: a count ("2 states", "at least 2", "top 3") or a number in the map's units."""
    value = m["a"].strip()
    after = text[m.end():m.end() + 12]
    if re.fullmatch(r"\d", value) and (re.match(r"\s+(?:states?|of\b|provinces?|regions?|union)", after)
                                       or _COUNT_CONTEXT.search(text[:m.start()])):
        return Mention("count", int(value), value)
    return Mention("number", value, value)


# ---------------------------------------------------------------------------------------------- scanning


def _scan(words: list[str], original: str, index: Index) -> list[tuple[int, int, str, str]]:
    """(start, end, kind, value) of every region, country and group phrase, longest first, left to right."""
    out = []
    i = 0
    upper = set(re.findall(r"\b[A-Z]{2,3}\b", original))
    while i < len(words):
        hit = None
        if _DIRECTIONAL.fullmatch(words[i]) and i + 1 < len(words) and words[i + 1].startswith("most"):
            i += 1
            continue
        for n in range(min(index.longest, len(words) - i), 0, -1):
            phrase = " ".join(words[i:i + n])
            if phrase in index.phrases:
                hit = (i, i + n, *index.phrases[phrase])
                break
        if hit is None and words[i].upper() in index.codes and words[i].upper() in upper:
            hit = (i, i + 1, "region", index.codes[words[i].upper()])
        if hit is None:
            hit = _fuzzy(words, i, index)
        if hit is None:
            i += 1
            continue
        out.append(hit)
        i = hit[1]
    return out


def _fuzzy(words: list[str], i: int, index: Index) -> tuple[int, int, str, str] | None:
    if len(words[i]) < 4 or words[i] in KEYWORDS or words[i] in _template_words() or words[i].startswith("num"):
        return None
    for n in (3, 2, 1):
        phrase = " ".join(words[i:i + n])
        if n == 1 and is_common_word(phrase):  # "wise" is no misspelt "Wis."
            continue
        hits = difflib.get_close_matches(phrase, index.fuzzy, n=1, cutoff=FUZZY_CUTOFF)
        if hits and len(words[i:i + n]) == n and len(hits[0]) >= 4:
            return (i, i + n, *index.phrases[hits[0]])
    return None


def _before(words: list[str], start: int, phrases: Iterable[str]) -> int | None:
    """Start of the phrase among ``phrases`` that ends right before word ``start`` (articles skipped)."""
    j = start
    while j > 0 and words[j - 1] in ("the", "either", "a"):
        j -= 1
    for p in sorted(phrases, key=len, reverse=True):
        n = len(p.split())
        if j - n >= 0 and " ".join(words[j - n:j]) == p:
            return j - n
    return None


def _after(words: list[str], end: int, phrases: Iterable[str]) -> int | None:
    for p in sorted(phrases, key=len, reverse=True):
        n = len(p.split())
        if " ".join(words[end:end + n]) == p:
            return end + n
    return None


# ---------------------------------------------------------------------------------------------- groups


class _Builder:
    """Turns scanned phrases into mentions; border words, directions and unions make derived groups."""

    def __init__(self, scene: Scene, words: list[str], out: Mentions) -> None:
        self.scene, self.words, self.out = scene, words, out
        self.used: set[int] = set()

    def add(self, kind: str, value: Any, start: int, end: int) -> Mention:
        """A mention over words ``start:end`` (one read earlier inside that span is dropped: "west" in "to the west
        of Idaho")."""
        self.out.items = [m for m in self.out.items if not start <= m.start < end]
        m = Mention(kind, value, " ".join(self.words[start:end]), start)
        self.out.items.append(m)
        self.used.update(range(start, end))
        return m

    def derived(self, name: str, members: Iterable[str], kind: str, how: str) -> str:
        self.out.groups[name] = RegionGroup(name=name, members=frozenset(members), kind=kind, source=how)
        self.out.notes.append(f"'{name}' = {how}")
        return name

    def hit(self, start: int, end: int, kind: str, value: str) -> None:
        words = self.words
        if kind == "country":
            lead = _before(words, start, _BORDER_BEFORE + ("along", "sharing", "on"))
            tail = _after(words, end, _BORDER_AFTER)
            self.add("group", f"bordering {value}", start if lead is None else lead, end if tail is None else tail)
            return
        if kind == "group":
            lead = _before(words, start, _BORDER_BEFORE)
            self.add("group", value, start if lead is None else lead, end)
            return
        lead = _before(words, start, _BORDER_BEFORE)
        if lead is not None:
            self.add("group", f"bordering {self.scene.regions[value].name}", lead, end)
            return
        way = self._direction_of(start)
        if way is not None:
            self.add("group", self._direction_group(value, way[1]), way[0], end)
            return
        self.add("region", value, start, end)

    def _direction_of(self, start: int) -> tuple[int, str] | None:
        """("west", start) when the region follows "west of" / "to the west of" / "western"… of."""
        w = self.words
        if start >= 2 and (w[start - 1] == "of" or (w[start - 1] == "to" and w[start - 2] in DIRECTIONS)):
            d = re.sub(r"(?:ern)?(?:most)?$", "", w[start - 2])
            if d in DIRECTIONS:
                j = start - 2
                while j > 0 and w[j - 1] in ("to", "the", "in", "lie", "lies", "located", "situated"):
                    j -= 1
                return j, d
        return None

    def _direction_group(self, code: str, direction: str) -> str:
        name = f"{direction} of {self.scene.regions[code].name}"
        ref = self.scene.direction_key(code, direction)
        members = [c for c in self.scene.regions if c != code and self.scene.direction_key(c, direction) > ref]
        return self.derived(name, members, "direction",
                            f"regions whose position lies further {direction} than {self.scene.regions[code].name}'s")


def _of_groups(b: _Builder) -> None:
    """"the coast of Arabian Sea", "states bordering the coast of …": a group "of" another is the latter."""
    groups = [m for m in b.out.items if m.kind == "group"]
    for first, second in zip(groups, groups[1:]):
        if b.words[first.start + len(first.text.split()):second.start] == ["of"]:
            b.out.items = [m for m in b.out.items if m is not first]
            second.text, second.start = f"{first.text} of {second.text}", first.start


def _unions(b: _Builder) -> None:
    """"either A or B" (and "A or B" after a border word): the union of two group mentions."""
    groups = [m for m in b.out.items if m.kind == "group"]
    for first, second in zip(groups, groups[1:]):
        between = b.words[first.start + len(first.text.split()):second.start]
        lead = b.words[max(0, first.start - 2):first.start + 2]
        if between in (["or"], ["and"]) and ("either" in lead or between == ["or"]):
            members = _members(b.scene, first.value, b.out) | _members(b.scene, second.value, b.out)
            name = b.derived(f"{first.value} or {second.value}", members, "union",
                             f"the union of {first.value} and {second.value}")
            b.out.items = [m for m in b.out.items if m is not second]
            first.value, first.text = name, f"{first.text} or {second.text}"


def _shared_heads(b: _Builder, index: Index) -> None:
    """"east and northeast India", "eastern and northeastern states": a word before "and"/"or" that names a group
    with the next group's head ("east" + "India") is that group, and the phrase is the union of the two."""
    for g in [m for m in b.out.items if m.kind == "group"]:
        said = g.text.split()
        s = g.start
        if s < 2 or len(said) < 2 or b.words[s - 1] not in ("and", "or") or s - 2 in b.used:
            continue
        hit = index.phrases.get(" ".join([b.words[s - 2], *said[1:]]))
        if hit is None or hit[0] != "group" or hit[1] == g.value:
            continue
        members = _members(b.scene, hit[1], b.out) | _members(b.scene, g.value, b.out)
        name = b.derived(f"{hit[1]} or {g.value}", members, "union", f"the union of {hit[1]} and {g.value}")
        b.used.update((s - 2, s - 1))
        g.value, g.text, g.start = name, " ".join(b.words[s - 2:s] + said), s - 2


def _members(scene: Scene, name: str, out: Mentions) -> frozenset[str]:
    if name in out.groups:
        return out.groups[name].members
    if name.startswith("bordering ") and name[len("bordering "):] in {r.name for r in scene.regions.values()}:
        return scene.regions[scene.resolve(name[len("bordering "):])].neighbors
    return scene.group(name)


# ---------------------------------------------------------------------------------------------- words


def _word_mentions(b: _Builder) -> None:
    """Comparison, extreme and direction words not inside a phrase already read."""
    w = b.words
    for i, word in enumerate(w):
        if i in b.used:
            continue
        prev = w[i - 1] if i else ""
        if word in EXTREME and prev != "at" and not (word == "top" and i + 1 < len(w) and w[i + 1].startswith("num")):
            rank = prev + " " if prev in ("second", "third") else ""
            b.add("extreme", rank + EXTREME[word], i, i + 1)
        elif word in COMPARISON:
            b.add("comparison", COMPARISON[word], i, i + 1)
        else:
            d = _direction_word(w, i)
            if d is not None:
                b.add("direction", d, i, i + 1)


def _direction_word(w: list[str], i: int) -> str | None:
    """north/south/east/west from "northernmost", "north most", "western-most", "N-most", "northern"."""
    word = w[i]
    nxt = w[i + 1] if i + 1 < len(w) else ""
    short = {"n": "north", "s": "south", "e": "east", "w": "west"}
    if word in short and nxt == "most":
        return short[word]
    base = re.sub(r"(?:ern)?(?:most)?$", "", word)
    if base in DIRECTIONS and (word != base or nxt in ("most", "state", "states")):
        return base
    return None


def _neighbours(b: _Builder, flagged: bool) -> None:
    """"its neighbours" / "its neighbouring region": the group bordering the one region named (a mention a group
    slot may take, never one left over: "compared to all its neighbours" is also a direction template's words)."""
    regions = [m for m in b.out.items if m.kind == "region"]
    if flagged and regions:
        b.out.items.append(Mention("neighbours", f"bordering {b.scene.regions[regions[0].value].name}",
                                   "its neighbours", len(b.words)))


def _excluding(b: _Builder, flagged: bool) -> None:
    """"… excluding missing values": the group's members that have a value."""
    groups = [m for m in b.out.items if m.kind == "group"]
    if not flagged or len(groups) != 1:
        return
    g = groups[0]
    members = [c for c in _members(b.scene, g.value, b.out) if not b.scene.regions[c].missing]
    g.value = b.derived(f"{g.value} with data", members, "with data", f"the members of {g.value} that have a value")


def _unread_groups(b: _Builder) -> None:
    """A group-like phrase with words no mention read ("on the North coast", "or rice bowl of India"): an
    unknown group, so no template reads the question as if the phrase were not there."""
    for j, word in enumerate(b.words):
        if word in _GROUP_NOUNS and j not in b.used:
            _unread_phrase(b, j)
    for g in [m for m in b.out.items if m.kind == "group"]:
        _unread_alternative(b, g)


def _unread_phrase(b: _Builder, j: int) -> None:
    """The phrase from the preposition before group noun ``j`` to it, when words of it were not read."""
    w = b.words
    k = j
    while k > 0 and j - k < 4 and w[k - 1] not in _PREPOSITIONS and not w[k - 1].startswith("num"):
        k -= 1
    if w[j] == "border" and j > 0 and w[j - 1] in ("not", "t", "only", "to"):
        return  # "does not border any …": the verb
    if w[j] == "range" and (k == j or w[j - 1] in _FILLER or w[j - 1] in COMPARISON or w[j - 1] in EXTREME):
        return  # "in range 3-5", "a higher range": a legend range, not a mountain range
    unread = [i for i in range(k, j + 1) if i not in b.used and w[i] not in _FILLER]
    if k > 0 and w[k - 1] in _PREPOSITIONS and any(w[i] not in _GROUP_NOUNS for i in unread):
        b.add("unknown group", " ".join(w[k:j + 1]), k, j + 1)


def _unread_alternative(b: _Builder, g: Mention) -> None:
    """"breadbasket or rice bowl of India": an alternative to a group that nothing read."""
    end = g.start + len(g.text.split())
    tail = b.words[end:end + 4]
    if tail[:1] not in (["or"], ["and"]) or len(tail) < 2 or end + 1 in b.used:
        return
    if not tail[1].startswith("num") and tail[1] not in COMPARISON and tail[1] not in ("have", "has", "also"):
        b.add("unknown group", " ".join(tail), end, end + len(tail))


def read_mentions(question: str, scene: Scene, index: Index) -> Mentions:
    """The mentions of ``question`` on ``scene``'s map, in text order."""
    text = " ".join(question.replace("’", "'").split())
    low = text.lower()
    excluding = bool(_EXCLUDING.search(low))
    low = _EXCLUDING.sub(" ", low)
    neighbours = bool(_NEIGHBOURS.search(low))
    low = _SLASH_UT.sub(r"\1", low)
    low, numbers = _numbers(low)
    notes: list[str] = []
    words = fix_typos(words_of(low), index, notes)
    out = Mentions([], words, text, notes=notes)
    b = _Builder(scene, words, out)
    for hit in _scan(words, text, index):
        b.hit(*hit)
    for i, word in enumerate(words):
        if re.fullmatch(r"num\d+", word):
            m = numbers[int(word[3:])]
            m.start = i
            out.items.append(m)
            b.used.add(i)
    _word_mentions(b)
    _of_groups(b)
    _shared_heads(b, index)
    _unions(b)
    _unread_groups(b)
    _neighbours(b, neighbours)
    _excluding(b, excluding)
    out.items.sort(key=lambda m: m.start)
    return out
