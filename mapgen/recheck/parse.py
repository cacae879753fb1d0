"""Parse a MAPWise question into one of mapgen's templates with exact parameter values — or say why not.

Every wording MAPWise uses is written in its template's record (``mapwise_wordings`` in the template YAML);
:func:`compiled_rules` turns each into a :class:`Rule`, a regular expression over the question text whose named
groups are the template's parameters, each captured by its type. Each captured phrase must resolve exactly on the
question's map:

- regions by code, name or alias (atlas aliases plus ``data/mapwise_aliases.yaml``); ``the``/``state`` dropped;
- groups by their curated names/aliases, ``bordering <country>`` and ``bordering <region>``;
- legend ranges by the label as printed on that map (numbers compared after normalisation) or, on discrete
  maps only, by rank words (``the highest range``, ``the second lowest range``);
- numbers with their units (``10k``, ``13.6%``), converted to the map's value units; a number or range that lies
  far off the colour bar as written but on it in the unit the map's title names (``400B`` on a bar of ₹ lakh:
  400e9 / 1e5 = 4M) is read in that unit, with a note; when several title units would put it on the bar, the
  units are unclear and it does not parse (:func:`title_units`);
- comparison, extreme and direction words from fixed tables.

Nothing is guessed: a phrase that resolves to nothing (or a wording no rule covers) gives :class:`Unparsed`
with the reason. Rules of the template number MAPWise gives are tried first; a question whose wording belongs
to another template parses as that template and says so in ``notes``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from mapgen.caches import ObjectCache
from mapgen.eval.normalize import ranges_equal
from mapgen.geo.names import UnknownNameError, closest_entries
from mapgen.legend.grammar import find_range, parse_number
from mapgen.mapwise.aliases import MapwiseAliases, load_aliases
from mapgen.questions import (
    DEFAULT_VALUES,
    TEXT_GLOBALS,
    Reading,
    Template,
    TemplateSet,
    Wording,
    load_templates,
    range_end,
    reading,
)
from mapgen.scene import Scene
from mapgen.suggest import suggestion


class ParseError(ValueError):
    """A captured phrase does not resolve exactly (the message is the reason)."""


@dataclass
class Parsed:
    """A question read as a template with resolved parameter values."""

    template_id: str
    mapwise: int | None
    params: dict[str, Any]
    readings: dict[str, str]  # parameter -> "phrase as written -> value"
    template: Template = field(repr=False)
    notes: list[str] = field(default_factory=list)
    yes_if: str | None = None  # the question asks yes/no about a single answer: Yes iff answer == yes_if
    ok: bool = True
    spoken: dict[str, float] = field(default_factory=dict)  # number phrase read in the title's unit -> value
    groups: dict[str, Any] = field(default_factory=dict)  # groups the question derives (name -> RegionGroup)
    outside: list[str] = field(default_factory=list)  # slot values read as said that the template's domain lacks

    def in_map_units(self, answer: str) -> str | None:
        """An answer that repeats a number phrase read in the title's unit ("800B"), as that value in the map's
        value units; None for any other answer."""
        value = self.spoken.get(" ".join(str(answer).lower().split()))
        return None if value is None else f"{value:.10g}"


@dataclass
class Unparsed:
    """A question that does not parse, with the reason (and the template whose wording came closest)."""

    reason: str
    template_id: str | None = None
    ok: bool = False


ParseResult = Parsed | Unparsed

# ---------------------------------------------------------------------------------------------- word tables

COMPARISON = {
    "higher": "higher", "greater": "higher", "more": "higher", "larger": "higher", "above": "higher",
    "lower": "lower", "less": "lower", "smaller": "lower", "below": "lower",
    "similar": "similar", "same": "similar", "equal": "similar",
}  # fmt: skip
EXTREME = {
    "highest": "highest", "largest": "highest", "greatest": "highest", "maximum": "highest", "most": "highest",
    "lowest": "lowest", "least": "lowest", "smallest": "lowest", "minimum": "lowest", "fewest": "lowest",
}  # fmt: skip
DIRECTION = {"north": "north", "n": "north", "south": "south", "s": "south", "east": "east", "e": "east",
             "west": "west", "w": "west"}
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
#: Unit words of a map title that scale its values: "(₹ Lakh)" means each value counts lakhs (10^5 rupees).
#: Lakh and crore: the Indian numbering system (1 lakh = 100,000; 1 crore = 10,000,000).
TITLE_UNITS = {"hundred": 1e2, "thousand": 1e3, "lakh": 1e5, "million": 1e6, "crore": 1e7, "billion": 1e9}


#: Indian numbering written out after a number: "10 lakh crore" = 10 × 10^5 × 10^7 (rupees).
INDIAN_WORDS = {"lakh crore": 1e12, "lakh": 1e5, "crore": 1e7, "cr": 1e7}
_INDIAN = re.compile(r"(?P<n>-?\d[\d,]*(?:\.\d+)?)\s*(?P<w>lakh\s+crores?|lakhs?|crores?|cr)\b", re.IGNORECASE)


def indian_numbers(text: str) -> tuple[str, bool]:
    """``text`` with numbers written in lakh and crore spelled in digits ("0.5 lakh crore" → "50000000000"), and
    whether there were any."""

    def plain(m: re.Match[str]) -> str:
        word = re.sub(r"s\b", "", " ".join(m["w"].lower().split()))
        value = float(m["n"].replace(",", "")) * INDIAN_WORDS[word]
        return f"{value:f}".rstrip("0").rstrip(".")

    out, n = _INDIAN.subn(plain, text)
    return out, n > 0


def title_units(title: str) -> dict[str, float]:
    """The scaling units named in the parenthesised parts of a map title (``"… (₹ Lakh) - 2008-09"`` →
    ``{"lakh": 1e5}``; ``"(10000 persons)"`` → ``{"10000": 1e4}``); plural forms count."""
    out: dict[str, float] = {}
    for part in re.findall(r"\(([^()]*)\)", str(title or "")):
        for word in re.findall(r"[a-z]+|\d+", part.lower()):
            if word.rstrip("s") in TITLE_UNITS:
                out[word.rstrip("s")] = TITLE_UNITS[word.rstrip("s")]
            elif re.fullmatch(r"10+", word):
                out[word] = float(word)
    return out

def answer_in_title_unit(answer: str, title: str) -> str | None:
    """A number answer written with the map's own unit word ("1 million lakh" on a map counting ₹ lakh) as that
    number in the map's units ("1000000"); None for any other answer."""
    units = title_units(title)
    m = re.fullmatch(rf"\s*(-?\d[\d,.]*\s*[a-z]*)\s+(?:{'|'.join(map(re.escape, units))})s?\s*", str(answer),
                     re.IGNORECASE) if units else None
    value = parse_number(_clean_number_text(m[1]).replace(" ", "")) if m else None
    return None if value is None else f"{value:.10g}"


_STATES = r"(?:states?|provinces?|regions?|union territor(?:y|ies))"
_PREP = (r"(?:in|on|along|among|amongst|bordering|of|located|to|that|where|around|near|which|from|within|sharing|"
         r"neighbou?ring|adjacent|surrounding)")
#: How a slot of each kind is captured (``{n}`` is the group name).
SUB = {
    "Region": r"(?:the\s+)?(?:state\s+)?(?P<{n}>[^,?]+?)",
    "RegionGroup": rf"(?P<{{n}}>{_PREP}\b.*?)",
    "RegionAdj": r"(?P<{n}>[a-z][\w -]*?)",
    "LegendClass": r"(?P<{n}>.+?)",
    "Number": r"(?P<{n}>-?\s*\d[\d.,]*\s*(?:%|k|m|b|bn|million|billion|thousand|lakh)?)",
    "N": r"(?P<{n}>\d+|one|two|three|four|five)",
    "Comparison": r"(?P<{n}>higher|greater|more|larger|lower|less|smaller|similar|same|equal)",
    "Extreme": r"(?P<{n}>(?:(?:second|third)\s+)?(?:highest|lowest|least|largest|smallest|greatest|maximum|minimum|most|"
               r"fewest|\w+est))",
    "Direction": r"(?P<{n}>north|south|east|west|n|s|e|w)",
    "DirectionMost": r"(?P<{n}>north|south|east|west|n|s|e|w)(?:ern)?(?:\s*-\s*|\s*)most",
}
#: Kind of a slot written with a filter (``{{ D | most }}``, ``{{ R | adjective }}``).
FILTER_KIND = {"most": "DirectionMost", "adjective": "RegionAdj"}


@dataclass(frozen=True)
class Rule:
    """One MAPWise wording of a template compiled: ``slots`` maps each regex group to (parameter, kind)."""

    template: Template
    wording: Wording
    pattern: re.Pattern[str]
    slots: dict[str, tuple[str, str]]

    @property
    def template_id(self) -> str:
        return self.template.id


def _slot_kind(template: Template, wording: Wording, name: str, flt: str) -> tuple[str, str]:
    """(parameter, kind) of a slot: its type, the filter's kind, or Number for a range end."""
    types = {p.name: p.type for p in template.params}
    end = range_end(name, types)
    if end is not None:
        return end, "Number"
    if name in wording.choices:
        return name, "Choice"
    return name, FILTER_KIND.get(flt, types.get(name, "Choice"))


def _slot_pattern(template: Template, wording: Wording, name: str, kind: str) -> str:
    if name in wording.choices:
        words: Iterable[str] = wording.choices[name]  # the written words (keys)
    elif kind == "Choice":
        words = next(p.values for p in template.params if p.name == name)
    else:
        return rf"(?P<{name}>.+?)" if name in wording.loose else SUB[kind].format(n=name)
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return rf"(?P<{name}>{alternatives})"


def compile_wording(template: Template, wording: Wording) -> Rule:
    """The rule reading one of a template's MAPWise wordings."""
    slots: dict[str, tuple[str, str]] = {}

    def slot(name: str, flt: str) -> str:
        if name in TEXT_GLOBALS:
            return _STATES
        slots[name] = _slot_kind(template, wording, name, flt)
        return _slot_pattern(template, wording, name, slots[name][1])

    lead = replace(wording, text=_YES_NO.sub("Yes or no: ", wording.text))  # questions are read with that lead
    pattern = re.compile(lead.pattern(slot), re.IGNORECASE)
    return Rule(template, wording, pattern, slots)


# ---------------------------------------------------------------------------------------------- text


_YES_NO = re.compile(r"^(?:yes\s*(?:or|/)\s*no)\s*:\s*", re.IGNORECASE)


def clean_question(text: str, words: dict[str, str] | None = None) -> str:
    """One-line question without the trailing punctuation; ``Yes/No:`` → ``yes or no:``; ``a to b`` between
    numbers → ``a - b``; typos fixed."""
    s = " ".join(str(text).replace("’", "'").split())
    s = _YES_NO.sub("yes or no: ", s)
    s = re.sub(r"[\s?.!]+$", "", s)
    s = re.sub(r"(?<=\d)\s+to\s+(?=-?\d)", " - ", s)  # "-3.2 to 3.6": a range, not the preposition "to"
    for typo, word in (words or {}).items():
        s = re.sub(rf"\b{re.escape(typo)}\b", word, s, flags=re.IGNORECASE)
    return s


def _clean_number_text(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d)", "", text.strip())


# ---------------------------------------------------------------------------------------------- resolvers

#: Verb forms of "bordering" a group phrase may use ("that share a border with Mexico", "surrounding Texas").
_BORDER_VERB = re.compile(r"\b(?:(?:that|which)\s+(?:(?:are|is)\s+)?)?(?:shares?|sharing)\s+(?:a\s+)?borders?\s+with\s+|"
                          r"\b(?:(?:that|which)\s+(?:(?:are|is)\s+)?)?(?:surrounding|next\s+to)\s+", re.IGNORECASE)
def _coast(phrase: str) -> str:
    """The coast a "bordering <sea or ocean>" phrase names ("bordering the Pacific Ocean" → "Pacific coast")."""
    sea = re.sub(r"^bordering\s+(?:the\s+)?|\s+ocean$", "", phrase, flags=re.IGNORECASE)
    return f"{sea} coast"


#: A country's adjective before "border" ("the Canadian border"); the adjectives are the alias file's ``demonyms``.
_DEMONYM = re.compile(r"\b((?:north\s+)?\w+)\s+border\b", re.IGNORECASE)


class Resolver:
    """Resolves captured phrases on one map (region, group, legend range, number, words)."""

    def __init__(self, scene: Scene, aliases: MapwiseAliases | None = None) -> None:
        self.scene = scene
        self.ctx: Reading = reading(scene)
        self.aliases = aliases or load_aliases()
        self.country = scene.country
        self.units = title_units(scene.title)
        self.notes: list[str] = []  # how phrases were read (units of the title), for the parse's notes
        self.spoken: dict[str, float] = {}  # number phrase (normalised) -> the value it stands for, when rescaled

    # regions
    def region(self, text: str) -> str:
        """Code of a region phrase (``the``/``state`` dropped; MAPWise aliases allowed)."""
        t = re.sub(r"^(?:the\s+)?(?:(?:state|province)\s+(?:of\s+)?)?", "", text.strip(), flags=re.IGNORECASE)
        t = re.sub(r"\s+(?:state|province)$", "", t, flags=re.IGNORECASE).strip()
        for cand in (t, self.aliases.region(self.country, t)):
            if not cand:
                continue
            try:
                return self.scene.resolve(cand)
            except UnknownNameError:
                continue
        spellings = {s: c for c in self.scene.codes for s in self.scene.spellings(c)}
        names = [self.scene.name_of(c) for c in self.scene.codes]
        raise ParseError(f"unknown region {text.strip()!r}{suggestion(closest_entries(t, spellings), names)}")

    # groups
    def group(self, phrase: str, adjective: bool = False) -> str:
        """Group key (as the engine names it) for a group phrase such as ``in the west coast region``."""
        for cand in self._group_candidates(phrase, adjective):
            key = self._group_key(cand)
            if key is not None:
                return key
        raise ParseError(f"unknown group {phrase.strip()!r}")

    def _group_candidates(self, phrase: str, adjective: bool) -> list[str]:
        p = phrase.strip().rstrip(".")
        if adjective:
            return [f"{p} states", f"{p} provinces", p]
        out = [p]
        p = _DEMONYM.sub(self._country_border, _BORDER_VERB.sub("bordering ", p))
        out.append(p)
        prefix = re.compile(
            r"^(?:(?:that|which) (?:(?:are|is) )?(?:considered (?:as )?)?|located |situated |where |"
            r"(?:in|on|along|among|amongst|of|within|from|around|near|the|region|area|part|bordering)\s+)",
            re.IGNORECASE)
        cur = p
        while True:
            nxt = prefix.sub("", cur, count=1)
            if nxt == cur:
                break
            cur = nxt
            out.append(cur)
        out += [re.sub(r"\s+(?:region|area)$", "", c, flags=re.IGNORECASE) for c in list(out)]
        out += [_coast(c) for c in list(out)]  # "bordering the Pacific Ocean": the Pacific coast
        out += [f"{c} {word}" for c in list(out) for word in ("states", "provinces")]  # "Ganga river region"
        return list(dict.fromkeys(c for c in out if c))

    def _country_border(self, m: re.Match[str]) -> str:
        """"Canadian border" → "Canada border" (the alias file's demonyms); other words unchanged."""
        country = self.aliases.demonyms.get(" ".join(m[1].lower().split()), m[1])
        return f"{country} border"

    def _group_key(self, text: str) -> str | None:
        alias = self.aliases.group(self.country, text)
        for cand in (text, alias):
            if not cand:
                continue
            try:
                info = self.scene.group_info(cand)
            except (UnknownNameError, ValueError):
                continue
            if info.kind == "region_border":
                code = self.scene.resolve(info.name[len("bordering "):])
                return f"bordering {self.scene.regions[code].name}"
            return info.name if info.name in self.ctx.groups else None
        return None

    # legend ranges
    def legend_class(self, text: str) -> int:
        """Index of a legend range written as printed (or, on discrete maps, by rank words); a range far off the
        bar is read in the title's unit when exactly one puts it on the bar."""
        t = re.sub(r"^(?:the\s+)?(?:range\s+)?", "", text.strip(), flags=re.IGNORECASE)
        t = re.sub(r"\s+range$", "", t, flags=re.IGNORECASE).strip()
        ranked = self._ranked_class(t, text)
        if ranked is not None:
            return ranked
        wanted = find_range(_clean_number_text(indian_numbers(t)[0]))
        if wanted is None:
            raise ParseError(f"'{text}' is not a legend range")
        wanted, shown, how = self._range_in_title_unit(wanted, t)
        labels = self.ctx.interval_labels
        for i, label in enumerate(labels):
            got = find_range(_clean_number_text(label))
            if got is not None and ranges_equal(wanted, got, rel_tol=2e-3):
                if how:
                    self.notes.append(f"{how}: {label}")
                return i
        kind = "classes" if self.ctx.discrete else "tick intervals"
        tail = f"; {how}" if how else ""
        raise ParseError(f"range '{shown}' is not a legend range of this map ({kind}: {', '.join(labels)}{tail})")

    def _ranked_class(self, t: str, text: str) -> int | None:
        """A range named by rank words ("second highest") on a discrete map; None when ``t`` is no rank."""
        m = re.fullmatch(r"(?:(second|third)\s+)?(\w+)", t, re.IGNORECASE)
        if not (m and m.group(2).lower() in EXTREME):
            return None
        if not self.ctx.discrete:
            raise ParseError(f"'{text}' names a range by rank on a continuous map (no classes)")
        labels = self.ctx.interval_labels
        k = {"second": 1, "third": 2}.get((m.group(1) or "").lower(), 0)
        if k >= len(labels):
            raise ParseError(f"'{text}': the legend has only {len(labels)} ranges")
        return len(labels) - 1 - k if EXTREME[m.group(2).lower()] == "highest" else k

    def _range_in_title_unit(self, wanted: Any, t: str) -> tuple[Any, str, str]:
        """(range, as shown, how it was read): the range as written, or, when its ends lie far off the bar and one
        title unit puts them on it, in that unit; several fitting units = units unclear."""
        ends = [b for b in wanted if b is not None]
        if any(self._on_bar(b) for b in ends):
            return wanted, t, ""
        fits = self._fitting_units(ends)
        if len(fits) > 1:
            raise ParseError(f"range '{t}' fits the legend's values in several of the title's units "
                             f"({', '.join(fits)}): units unclear")
        if not fits:
            return wanted, t, ""
        unit, factor = next(iter(fits.items()))
        rescaled = tuple(None if b is None else b / factor for b in wanted)
        shown = "-".join("" if b is None else self._display(b) for b in rescaled)
        return rescaled, shown, f"'{t}' read in the title's unit {unit} = {factor:g}"

    def number(self, text: str) -> float:
        """A number as written (units applied) in the map's value units; a number far off the bar is read in the
        title's unit when exactly that puts it on the bar (else refused: units unclear)."""
        plain, indian = indian_numbers(text)
        value = parse_number(_clean_number_text(plain).replace(" ", ""))
        if value is None:
            raise ParseError(f"'{text}' is not a number")
        if indian and len(self.units) == 1 and not self._on_bar(value):
            (unit, factor), = self.units.items()  # rupees written in lakh/crore on a map counting the title's unit
            value /= factor
            self.notes.append(f"'{text.strip()}' (Indian numbering) in the title's unit {unit} = {factor:g}: "
                              f"{self._display(value)}")
            self.spoken[" ".join(text.lower().split())] = value / (self.scene.legend.label_scale or 1.0)
        elif not self._on_bar(value):
            unit, factor = self._unit_for([value], text)
            value /= factor
            self.notes.append(f"'{text.strip()}' read in the title's unit {unit} = {factor:g}: {self._display(value)}")
            self.spoken[" ".join(text.lower().split())] = value / (self.scene.legend.label_scale or 1.0)
        return value / (self.scene.legend.label_scale or 1.0)

    def _on_bar(self, value: float) -> bool:
        """Within a span of the legend's values (display units): a number a reader could mean on this map."""
        legend = self.scene.legend
        scale = legend.label_scale or 1.0
        span = (legend.vmax - legend.vmin) * scale
        return legend.vmin * scale - span <= value <= legend.vmax * scale + span

    def _unit_for(self, values: list[float], text: str) -> tuple[str, float]:
        """The one title unit that puts every value on the bar ("lakh", 1e5); ParseError when none or several
        do (the units are unclear)."""
        fits = self._fitting_units(values)
        if len(fits) == 1:
            return next(iter(fits.items()))
        legend = self.scene.legend
        scale = legend.label_scale or 1.0
        bar = f"{legend.vmin * scale:g} to {legend.vmax * scale:g}"
        if fits:
            raise ParseError(f"number '{text.strip()}' fits the legend's values ({bar}) in several of the title's "
                             f"units ({', '.join(fits)}): units unclear")
        named = f"; title units: {', '.join(self.units)}" if self.units else ""
        raise ParseError(f"number '{text.strip()}' is far outside the legend's values ({bar}{named}): units unclear")

    def _fitting_units(self, values: list[float]) -> dict[str, float]:
        """The title units (name -> factor) in which every value lies on the bar."""
        return {u: f for u, f in self.units.items() if values and all(self._on_bar(v / f) for v in values)}

    def _display(self, value: float) -> str:
        return f"{value:,.10g}"

    def count(self, text: str) -> int:
        t = text.strip().lower()
        return NUMBER_WORDS[t] if t in NUMBER_WORDS else int(t)

    @staticmethod
    def word(table: dict[str, str], text: str, what: str) -> str:
        t = " ".join(text.lower().split())
        rank, _, rest = t.partition(" ")
        prefix, base = (rank + " ", rest) if rank in ("second", "third") and rest else ("", t)
        if base not in table:
            raise ParseError(f"unknown {what} word '{text}'")
        return prefix + table[base]


# ---------------------------------------------------------------------------------------------- parsing


def _number_or_gap(res: Resolver, text: str) -> float:
    try:
        return res.number(text)
    except ParseError as exc:
        try:
            res.region(text)
        except ParseError:
            raise exc from None
        raise ParseError(f"engine gap: '{text}' is a region where the template takes a number") from None


def _direction(res: Resolver, text: str) -> str:
    return DIRECTION[text.lower()]


#: How a captured phrase of each slot kind resolves on the map.
RESOLVE: dict[str, Callable[[Resolver, str], Any]] = {
    "Region": Resolver.region,
    "RegionGroup": Resolver.group,
    "RegionAdj": lambda res, text: res.group(text, adjective=True),
    "LegendClass": Resolver.legend_class,
    "Number": _number_or_gap,
    "N": Resolver.count,
    "Comparison": lambda res, text: res.word(COMPARISON, text, "comparison"),
    "Extreme": lambda res, text: res.word(EXTREME, text, "extreme"),
    "Direction": _direction,
    "DirectionMost": _direction,
}


def _resolve_param(res: Resolver, kind: str, text: str, wording: Wording, name: str) -> Any:
    if name in wording.choices:
        key = " ".join(text.lower().split())
        if key not in wording.choices[name]:
            raise ParseError(f"'{text}' is not one of {sorted(wording.choices[name])}")
        return wording.choices[name][key]
    if kind in RESOLVE:
        return RESOLVE[kind](res, text)
    return " ".join(text.lower().split())


_SLOT = re.compile(r"{{\s*(\w+)\s*}}")


def _implied(rule: Rule, params: dict[str, Any], res: Resolver, readings: dict[str, str]) -> None:
    """Parameters the wording implies: a copy of another (``{{ X }}``) or a phrase built from others."""
    types = {p.name: p.type for p in rule.template.params}
    for name, (phrase, said) in rule.wording.implied.items():
        whole = _SLOT.fullmatch(phrase)
        if whole:
            params[name] = params[whole.group(1)]
        else:
            text = _SLOT.sub(lambda m: _shown(res, types[m.group(1)], params[m.group(1)]), phrase)
            params[name] = _resolve_param(res, types[name], text, rule.wording, name)
        readings[name] = f"{said} -> {params[name]}"


def _shown(res: Resolver, kind: str, value: Any) -> str:
    return res.scene.regions[value].name if kind == "Region" else str(value)


def _legend_ranges(rule: Rule, params: dict[str, Any], res: Resolver, readings: dict[str, str]) -> None:
    """A legend range written by its two ends (``{{ Y_low }}``/``{{ Y_high }}``): the tick interval between them."""
    for param in dict.fromkeys(p for group, (p, _) in rule.slots.items() if group != p):
        low, high = f"{param}_low", f"{param}_high"
        lo, hi = params.pop(low), params.pop(high)
        index = next((i for i, (a, b) in enumerate(res.ctx.intervals)
                      if abs(a - lo) <= 1e-9 * max(1.0, abs(a)) and abs(b - hi) <= 1e-9 * max(1.0, abs(b))), None)
        if index is None:
            raise ParseError(f"'between {readings[low]} and {readings[high]}' is not an interval between "
                             f"two adjacent labelled ticks ({', '.join(res.scene.legend.tick_labels)})")
        params[param] = index


def derived_template(template: Template, drop: tuple[str, ...]) -> Template:
    """The template without parameters the wording leaves out (domains that read them are dropped too)."""
    if not drop:
        return template
    params = tuple(
        replace(p, source=None, refs=()) if set(p.refs) & set(drop) else p
        for p in template.params if p.name not in drop
    )
    return replace(template, params=params, id=template.id, _compiled={})


def _try_rule(rule: Rule, m: re.Match[str], res: Resolver) -> Parsed:
    params: dict[str, Any] = {}
    readings: dict[str, str] = {}
    for name, text in m.groupdict().items():
        if text is None:
            continue
        params[name] = _resolve_param(res, rule.slots[name][1], text, rule.wording, name)
        readings[name] = f"{text.strip()} -> {params[name]}"
    for name, value in rule.wording.fixed.items():
        params[name] = value
        readings[name] = f"(wording) -> {value}"
    _implied(rule, params, res, readings)
    _legend_ranges(rule, params, res, readings)
    tmpl = derived_template(rule.template, rule.wording.drop)
    missing = [p.name for p in tmpl.params if p.name not in params]
    if missing:
        raise ParseError(f"the wording does not give {', '.join(missing)}")
    notes = [rule.wording.note] if rule.wording.note else []
    return Parsed(tmpl.id, tmpl.mapwise, params, readings, tmpl, notes, rule.wording.yes_if)


_COMPILED: ObjectCache[list[Rule]] = ObjectCache("recheck.parse.compiled", maxsize=8)
_IF_CHAIN = re.compile(r"{%\s*if\s+(?P<p>\w+)\s*==\s*'(?P<v>[^']*)'\s*%}(?P<body>.*?)"
                       r"(?P<rest>(?:{%\s*elif\s+\w+\s*==\s*'[^']*'\s*%}.*?)*)"
                       r"(?:{%\s*else\s*%}(?P<other>.*?))?{%\s*endif\s*%}", re.DOTALL)
_ELIF = re.compile(r"{%\s*elif\s+(?P<p>\w+)\s*==\s*'(?P<v>[^']*)'\s*%}(?P<body>.*?)(?={%\s*elif|$)", re.DOTALL)


def _expand(text: str, values: dict[str, tuple[str, ...]]) -> list[tuple[str, dict[str, str]]]:
    """A template text with ``{% if P == 'a' %}…{% elif P == 'b' %}…{% else %}…{% endif %}`` chains spelled
    out: (plain text, the parameter values each spelling fixes)."""
    m = _IF_CHAIN.search(text)
    if m is None:
        return [(text, {})]
    param = m["p"]
    branches = [(m["v"], m["body"])] + [(e["v"], e["body"]) for e in _ELIF.finditer(m["rest"] or "")]
    if any(e["p"] != param for e in _ELIF.finditer(m["rest"] or "")):
        return []
    if m["other"] is not None:
        rest = [v for v in values.get(param, ()) if v not in {b for b, _ in branches}]
        if len(rest) != 1:
            return []
        branches.append((rest[0], m["other"]))
    out = []
    for value, body in branches:
        for tail, fixed in _expand(text[:m.start()] + body + text[m.end():], values):
            if fixed.get(param, value) == value:
                out.append((tail, {param: value, **fixed}))
    return out


def own_wordings(template: Template) -> list[Wording]:
    """mapgen's own question texts of ``template`` as wordings (``if`` chains on one parameter spelled out), so
    a MAPWise-layout export of mapgen's questions parses whatever wording it carries. Texts with other
    template logic, unknown filters or the wording syntax's own characters are left out."""
    values = {p.name: tuple(p.values) for p in template.params if p.values}
    out = []
    for map_type, variants in template.text.items():
        for variant in variants:
            for text, fixed in _expand(variant, values):
                filters = {m[1] for m in re.finditer(r"{{\s*\w+\s*\|\s*(\w+)\s*}}", text)}
                if "{%" in text or re.search(r"[\[\]()|]", text) or filters - set(FILTER_KIND):
                    continue
                unsaid = _unsaid(template, text, fixed)
                if unsaid is not None:
                    out.append(Wording(text=text, map_types=(map_type,), fixed={**fixed, **unsaid}))
    return out


def _unsaid(template: Template, text: str, fixed: dict[str, str]) -> dict[str, Any] | None:
    """Values for the parameters a spelled-out text does not show (``N`` after "borders only"): the question
    asked cannot depend on them, so any value of their domain asks it; None when a parameter has no default."""
    said = {m[1] for m in re.finditer(r"{{\s*(\w+)", text)} | set(fixed)
    out: dict[str, Any] = {}
    for p in template.params:
        if p.name in said or range_end(f"{p.name}_low", {p.name: p.type}) and f"{p.name}_low" in said:
            continue
        default = p.values[0] if p.values else (DEFAULT_VALUES.get(p.type) or [None])[0]
        if default is None or p.source is not None:
            return None
        out[p.name] = default
    return out


def compiled_rules(templates: TemplateSet | None = None) -> list[Rule]:
    """A rule for every MAPWise wording of every template, in file order, then for mapgen's own wordings
    (:func:`own_wordings`; cached per template set)."""
    templates = templates or load_templates()
    return _COMPILED.get_or_make(templates, lambda: _compile(templates))


def _compile(templates: TemplateSet) -> list[Rule]:
    rules = [compile_wording(t, w) for t in templates for w in t.wordings]
    return rules + [compile_wording(t, w) for t in templates for w in own_wordings(t)]


def _ordered(rules: list[Rule], template_no: int | None) -> list[Rule]:
    first = [r for r in rules if r.template.mapwise == template_no]
    return first + [r for r in rules if r.template.mapwise != template_no]


def parse_question(
    text: str,
    scene: Scene,
    template_no: int | None = None,
    templates: TemplateSet | None = None,
    aliases: MapwiseAliases | None = None,
) -> ParseResult:
    """Read ``text`` (a MAPWise question on ``scene``'s map) as a template with exact parameters."""
    aliases = aliases or load_aliases()
    res = Resolver(scene, aliases)
    q = clean_question(text, aliases.words)
    first_failure: Unparsed | None = None
    for rule in _ordered(compiled_rules(templates), template_no):
        m = rule.pattern.fullmatch(q)
        if not m:
            continue
        if scene.map_type not in rule.wording.map_types or not rule.template.applies_to(scene.map_type):
            first_failure = first_failure or Unparsed(
                f"wording of {rule.template_id} is not asked on {scene.map_type} maps", rule.template_id)
            continue
        res.notes, res.spoken = [], {}
        try:
            parsed = _try_rule(rule, m, res)
        except ParseError as exc:
            first_failure = first_failure or Unparsed(str(exc), rule.template_id)
            continue
        parsed.notes += res.notes
        parsed.spoken = dict(res.spoken)
        if template_no is not None and parsed.mapwise != template_no:
            parsed.notes.append(f"MAPWise labels it template {template_no}; the wording is template "
                                f"{parsed.mapwise}")
        return parsed
    gap = _gap_reason(q)
    if gap is not None:
        return Unparsed(gap, first_failure.template_id if first_failure else None)
    return first_failure or Unparsed("no template wording matches the question")


GAPS: tuple[tuple[str, str], ...] = (
    (r"either border|shares border either|either with", "engine gap: a union of two groups is not a group"),
    (r"excluding missing", "engine gap: medians 'excluding missing values' (N/A members make it not asked)"),
    (r"to the (?:west|east|north|south) of", "engine gap: groups defined by direction from a region"),
    (r"borders at least \d+ states? with", "engine gap: bordering regions with missing data"),
    (r"in the .+ region borders", "engine gap: range_border_relation with a region pool"),
    (r"both also", "engine gap: 'X similar to Y and both higher than Z'"),
    (r"less greater than", "contradictory wording 'less greater than'"),
    (r"its neighbou?ring region", "'its neighbouring region' names no group"),
)


def _gap_reason(q: str) -> str | None:
    for pattern, reason in GAPS:
        if re.search(pattern, q, re.IGNORECASE):
            return reason
    return None
