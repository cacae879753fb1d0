"""Read a MAPWise question by filling its template's slots (the reader behind :func:`mapgen.recheck.parse`'s
wording rules).

Every MAPWise row carries its template number; the templates with that number (then, for rows MAPWise labelled
with another template's number, every other template) are tried in turn. A template is filled slot by slot
from the question's :class:`~mapgen.recheck.mentions.Mention` records, each slot by its type: regions, groups
(curated, by border words, directions from a region, unions, members with data; with no group written, the
whole map as a last resort), legend ranges (as printed, by rank, open ranges), numbers in the map's units,
counts, comparison, extreme and direction words, and choice words found in the text; last of all, a count or
rank or comparison outside the template's domain ("the second highest value range", "at least 1 state", "a
different value": read as said, judged ambiguous) and a region where a number goes (its value on the map). A template fits when the
question has the form of its answer (yes/no, how many, rank, the rest), its cue words are present
(:data:`CUES`: what tells templates with the same slots apart — "median", "majority", "all", "pair"), every
slot is filled and nothing the question names is left over. "Unparsed" names the slot that could not be
filled.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mapgen.caches import ObjectCache
from mapgen.mapwise.aliases import MapwiseAliases
from mapgen.questions import Param, Template, TemplateSet, reading
from mapgen.recheck.mentions import Index, Mention, Mentions, build_index, read_mentions
from mapgen.recheck.parse import Parsed, ParseError, Resolver, Unparsed
from mapgen.scene import Scene

#: Cue words per template (regex the question must match, regex it must not match), telling apart templates
#: whose slots are the same.
CUES: dict[str, tuple[str, str]] = {
    "legend_class_count": (r"categor|classes|colou?rs|ranges|shades", r"states?\b"),
    "legend_darkness_direction": (r"proportional|increas|decreas", ""),
    "legend_overall_range": (r"overall|entire|total|full", ""),
    "legend_shade_range": (r"shade|colou?r", ""),
    "legend_colour_kind": (r"shades?|colou?rs", "proportional"),
    "map_percent_or_absolute": (r"percent|absolute", ""),
    "legend_kind": (r"discrete|continuous", ""),
    "legend_widest_class": (r"largest|widest|biggest", ""),
    "region_in_range": (r"fall|come|belong|lie|range|within|between", ""),
    "region_vs_number": (r"fall|come|belong|lie|range|value", ""),
    "region_closer_to_number": (r"closer|nearer|closest", ""),
    "group_regions_in_range": (r"", r"\bpair\b|\bclosest\b|median|majority|\ball\b|\bborders\b"),
    "group_extreme_range": (r"range|class|categor", ""),
    "group_extreme_region": (r"", r"\brange\b|\bclass\b|categor|\bnum\d+\b"),
    "region_vs_all_neighbours": (r"neighbo", r"most\b|\bname\b|\bwhich\b"),
    "group_top_n": (r"", r"\bpair\b"),
    "region_range": (r"range|between|marking|interval", ""),
    "group_count_in_range": (r"", r"majority|median"),
    "neighbour_comparison": (r"neighbo", ""),
    "region_comparison": (r"", r"neighbo|\bmedian\b|\baverage\b"),
    "direction_local_extreme": (r"neighbo", r"at\s*least|atleast|\bnum\d+\b"),
    "direction_extreme_category": (r"range|categor|class|value", r"neighbo"),
    "direction_local_extreme_count": (r"at\s*least|atleast|\bnum\d+\s+of\s+its", ""),
    "group_is_extreme": (r"", r"neighbo"),
    "group_mean_comparison": (r"average|mean", ""),
    "group_count_threshold": (r"", r"majority|median"),
    "group_count_in_range_23": (r"", r"majority|median"),
    "group_median_in_range": (r"median", ""),
    "group_median_range": (r"median", ""),
    "group_regions_threshold": (r"", r"majority|median|\ball\b|\bpair\b"),
    "group_regions_vs_region": (r"", r"majority|median|\ball\b|difference|different"),
    "group_regions_closest_value": (r"", r""),
    "range_with_extreme_count": (r"number of|most states|fewest states|states", ""),
    "group_is_closest_value": (r"", r""),
    "group_majority_threshold": (r"majority|most of", ""),
    "group_majority_in_range": (r"majority|most of", ""),
    "group_outlier": (r"outlier", ""),
    "bordering_pair_max_difference": (r"pair|bordering", ""),
    "is_direction_local_extreme": (r"neighbo", ""),
    "group_count_vs_region": (r"", r"majority|median"),
    "direction_extreme_in_range": (r"", r"neighbo|\bpair\b"),
    "range_border_relation": (r"\bborders?\b|\bborder any", ""),
    "group_border_relation": (r"\bborders?\b|\bborder any", ""),
    "regions_missing_data": (r"missing|no data|without any data", ""),
    "region_vs_group_median": (r"median", ""),
    "group_all_threshold": (r"\ball\b", ""),
    "group_all_in_range": (r"\ball\b", r"same range"),
    "group_all_same_range": (r"\ball\b.*same", ""),
    "range_closest_pair": (r"pair|each other|one another", ""),
    "range_closest_pair_in_group": (r"pair|each other|one another", ""),
    "legend_spacing": (r"even|equal|gaps|spaced|sized", ""),
    "two_comparisons": (r"\band\b", ""),
    "group_ranking": (r"rank", ""),
}
#: Mention kinds that must all fill a slot (comparison words may also be part of a choice phrase).
SUBSTANTIVE = ("region", "group", "unknown group", "range", "rank", "open", "number", "count", "extreme", "direction", "comparison")
#: Choice words: parameter value -> phrases that say it (besides the value itself).
CHOICES: dict[str, tuple[str, ...]] = {
    "same": ("same", "similar", "closest", "lowest difference", "least difference", "smallest difference"),
    "most different": ("most different", "highest difference", "largest difference", "furthest", "farthest",
                       "greatest difference"),
    "at least": ("at least", "atleast", "more than"),
    "only": ("only",),
    "none": ("not border any", "doesn t border any", "does not border", "doesn t border", "no state"),
    "above": ("above", "higher", "greater", "more"),
    "below": ("below", "lower", "less", "lesser"),
    "directly": ("directly", "increases"),
    "inversely": ("inversely", "decreases"),
    "multiple distinct colours": ("multiple", "distinct colours", "distinct colors", "different colours"),
    "different shades of the same colour": ("shades",),
}


def question_form(text: str) -> str:
    """binary, count, ranking, range or open: what kind of answer the question's first words ask for ("What is the
    second highest value range …" asks for a range, never for the regions in it)."""
    q = text.lower().strip()
    if re.match(r"(?:yes\s*(?:or|/)\s*no)\b", q) or q.endswith("yes/no"):
        return "binary"
    if re.match(r"(?:how many|count|what is the number|list the number)\b", q):
        return "count"
    if q.startswith("rank"):
        return "ranking"
    if re.match(r"(?:does|do|is|are|can|has|have)\b", q) and not re.search(r"\bor\b", q):
        return "binary"
    if re.match(r"(?:what|which)\b(?:(?!\b(?:states?|provinces?|pair)\b)[^?])*\b(?:range|class|interval)\b", q) or \
            q.startswith("between which"):
        return "range"
    return "open"


def _form_fits(template: Template, form: str) -> bool:
    kind = template.answer_type
    if form == "range":
        return kind == "range"
    if form == "binary":  # a yes/no question's template may answer with one of two words ("evenly spaced")
        return kind in ("binary", "single")
    if form in ("count", "ranking"):
        return kind == form
    return kind in ("single", "list", "range")


def _cues_fit(template: Template, words: str) -> bool:
    need, avoid = CUES.get(template.id, ("", ""))
    return bool(re.search(need, words)) and not (avoid and re.search(avoid, words))


# ---------------------------------------------------------------------------------------------- filling


class SlotError(ParseError):
    """A slot that cannot be filled: ``depth`` = how many slots were filled before it, ``named`` = the slot's
    phrase was there but did not resolve. The failure reported is a named one first, then the row's own
    template's, then the deepest."""

    def __init__(self, message: str, depth: int, named: bool = False) -> None:
        super().__init__(message)
        self.depth, self.named = depth, named


@dataclass
class _Fill:
    """One attempt to fill a template: the mentions still unused and the derived groups it needs."""

    res: Resolver
    pool: list[Mention]
    mentions: Mentions
    whole: bool
    loose: bool  # a count or rank outside the template's domain, a region's value where a number goes
    outside: list[str]

    def take(self, kinds: tuple[str, ...]) -> Mention | None:
        for m in self.pool:
            if m.kind in kinds:
                self.pool.remove(m)
                return m
        return None


def _region(f: _Fill, p: Param) -> Any:
    m = f.take(("region",))
    if m is None:
        raise ParseError("no region named")
    return m.value


def _group(f: _Fill, p: Param) -> Any:
    m = f.take(("group", "unknown group")) or f.take(("neighbours",))
    if m is not None and m.kind == "unknown group":
        raise ParseError(f"unknown group '{m.text}'")
    if m is not None:
        if m.value not in f.mentions.groups and m.value not in reading(f.res.scene).groups:
            raise ParseError(f"'{m.text}' names no group of this map")
        return m.value
    if not f.whole:
        raise ParseError("no group named")
    name = "the whole map"
    f.mentions.groups.setdefault(name, _whole(f.res.scene))
    return name


def _whole(scene: Scene) -> Any:
    from mapgen.geo.gazetteer import RegionGroup

    return RegionGroup(name="the whole map", members=frozenset(scene.regions), kind="whole map",
                       source="every region of the map (the question names no group)")


def _legend_class(f: _Fill, p: Param) -> Any:
    m = f.take(("range", "rank", "open"))
    if m is None:
        raise ParseError("no legend range named")
    if m.kind == "range":
        return f.res.legend_class(_shared_unit(*m.value))
    if m.kind == "rank":
        return f.res.legend_class(m.value)
    return f.res.legend_class(m.text)


def _shared_unit(low: str, high: str) -> str:
    """"14 - 16m" is 14m-16m: a unit written once after a range's upper end applies to both ends."""
    unit = re.search(r"(?:lakh\s+crore|[a-z%]+)$", high.strip())
    if unit and not re.search(r"[a-z%]$", low.strip()):
        low = low.strip() + unit[0]
    return f"{low} - {high}"


def _number(f: _Fill, p: Param) -> Any:
    m = f.take(("number", "open"))
    if m is None:
        region = f.take(("region",))
        if region is not None and f.loose:
            return _region_value(f, region)
        if region is not None:
            raise ParseError(f"'{region.text}' is a region where the template takes a number (engine gap)")
        raise ParseError("no number named")
    if m.kind == "open":
        f.pool.insert(0, Mention("comparison", m.value[0], m.text, m.start))
        return f.res.number(m.value[1])
    return f.res.number(m.value)


def _region_value(f: _Fill, m: Mention) -> float:
    """A region where a number goes ("closer to Gujarat or Jharkhand", "values lower than Florida"): its value
    on the map; MAPWise's answer naming the region is judged as that value."""
    r = f.res.scene.regions[m.value]
    if r.missing:
        raise ParseError(f"'{m.text}' is a region without a value where the template takes a number")
    f.res.spoken[" ".join(r.name.lower().split())] = r.value
    f.res.notes.append(f"'{m.text}' where a number goes: {r.name}'s value on the map ({r.value:,.10g})")
    return r.value


def _count(f: _Fill, p: Param) -> Any:
    m = f.take(("count",))
    if m is None:
        raise ParseError("no count named")
    return m.value


def _comparison(f: _Fill, p: Param) -> Any:
    m = f.take(("comparison",))
    if m is None and f.loose and re.search(r"\b(?:highest|lowest|least)\s+value\s+(?:compared|than)\b",
                                           " ".join(f.mentions.words)):
        m = f.take(("extreme",))  # "has the least value compared to its neighbours": lower than each of them
        if m is not None:
            f.res.notes.append(f"'{m.text}' before 'compared to' read as the comparison {m.value}")
            return {"highest": "higher", "lowest": "lower"}.get(m.value, m.value)
    if m is None:
        m = f.take(("open",))
        if m is None:
            raise ParseError("no comparison word")
        f.pool.insert(0, Mention("number", m.value[1], m.text, m.start))
        return m.value[0]
    return m.value


def _extreme(f: _Fill, p: Param) -> Any:
    m = f.take(("extreme",)) or f.take(("rank",))
    if m is None:
        raise ParseError("no extreme word")
    return m.value


def _direction(f: _Fill, p: Param) -> Any:
    m = f.take(("direction",))
    if m is None:
        raise ParseError("no direction word")
    return m.value


def _choice(f: _Fill, p: Param) -> Any:
    """The value of a choice parameter whose words the question uses (the longest phrase wins)."""
    text = " ".join(f.mentions.words)
    found = []
    for value in p.values:
        for phrase in (str(value), *CHOICES.get(str(value), ())):
            if re.search(rf"\b{re.escape(phrase)}\b", text):
                found.append((len(phrase), str(value), phrase))
    if not found and set(p.values) == {"above", "below"}:
        return _side(f, p)
    if not found:
        raise ParseError(f"none of {list(p.values)} is said")
    _, value, phrase = max(found)
    said = set(phrase.split())
    f.pool = [m for m in f.pool if not (m.kind in ("comparison", "extreme") and m.text in said)]
    return value


def _side(f: _Fill, p: Param) -> str:
    """above/below from a comparison word or an open range ("values above 2%": its number stays for N)."""
    m = f.take(("comparison",))
    if m is None:
        m = f.take(("open",))
        if m is None:
            raise ParseError(f"none of {list(p.values)} is said")
        f.pool.insert(0, Mention("number", m.value[1], m.text, m.start))
        return "above" if m.value[0] == "higher" else "below"
    if m.value == "similar":
        raise ParseError(f"'{m.text}' is neither above nor below")
    return "above" if m.value == "higher" else "below"


FILLERS: dict[str, Callable[[_Fill, Param], Any]] = {
    "Region": _region, "RegionGroup": _group, "LegendClass": _legend_class, "Number": _number, "N": _count,
    "Comparison": _comparison, "Extreme": _extreme, "Direction": _direction, "Choice": _choice,
}  # fmt: skip


def _fill_param(f: _Fill, p: Param) -> Any:
    value = FILLERS.get(p.type, _choice)(f, p)
    if p.values and p.type != "LegendClass" and value not in p.values:
        if f.loose and p.type in ("N", "Extreme", "Comparison"):  # read as said; the engine's domain does not hold it
            f.outside.append(f"{p.name} = {value} is outside the template's domain ({', '.join(map(str, p.values))})")
            return value
        raise ParseError(f"'{value}' is not one of {list(p.values)}")
    return value


def fill(template: Template, mentions: Mentions, res: Resolver, whole: bool, loose: bool = False) -> Parsed:
    """``template`` with every slot filled from ``mentions`` (ParseError naming the slot that cannot be);
    ``whole``: a group slot with no group named takes the whole map; ``loose``: see :class:`_Fill`."""
    f = _Fill(res, list(mentions.items), mentions, whole, loose, [])
    params: dict[str, Any] = {}
    readings: dict[str, str] = {}
    for p in template.params:
        if p.type == "N" and p.name not in params and params.get("Rel") in ("only", "none"):
            params[p.name] = p.values[0]  # "borders only …": the count is not said and does not matter
            continue
        try:
            params[p.name] = _fill_param(f, p)
        except ParseError as exc:
            named = not re.match(r"no |none of", str(exc))  # a phrase that did not resolve beats one not there
            raise SlotError(f"slot {p.name} ({p.type}) of {template.id}: {exc}", len(params), named) from None
        readings[p.name] = f"(slot) -> {params[p.name]}"
    need = CUES.get(template.id, ("", ""))[0]
    cue = re.search(need, " ".join(mentions.words)) if need else None
    cue_words = set(cue.group(0).split()) if cue else set()  # "all … same": the cue's words fill no slot
    left = [m for m in f.pool if m.kind in SUBSTANTIVE and not (m.kind == "comparison" and m.text in cue_words)]
    if left:
        raise SlotError(f"{template.id} has no slot for {', '.join(repr(m.text) for m in left)}",
                        len(params))
    notes = [f"read by filling the slots of {template.id}"]
    parsed = Parsed(template.id, template.mapwise, params, readings, template, notes, _yes_if(template, mentions))
    parsed.outside = list(f.outside)
    return parsed


#: Yes/no questions on a template that answers one of two phrases: the phrase a "Yes" means, by the words the
#: question uses ("Are there significant gaps …?": Yes = "Significant gaps").
YES_IF: dict[str, tuple[tuple[str, str], ...]] = {
    "legend_spacing": ((r"gaps?", "Significant gaps"), (r"even|equal|uniform", "Evenly spaced")),
}


def _yes_if(template: Template, mentions: Mentions) -> str | None:
    if template.answer_type != "single" or question_form(mentions.text) != "binary":
        return None
    for pattern, answer in YES_IF.get(template.id, ()):
        if re.search(rf"\b(?:{pattern})", mentions.text.lower()):
            return answer
    raise SlotError(f"{template.id}: the yes/no question names neither of its answers", len(template.params))


# ---------------------------------------------------------------------------------------------- reading


_INDEX: ObjectCache[Index] = ObjectCache("recheck.slots.index", maxsize=32)


def scene_index(scene: Scene, aliases: MapwiseAliases) -> Index:
    """The (cached) phrase index of a scene."""
    return _INDEX.get_or_make(scene, lambda: build_index(scene, aliases))


def _candidates(templates: TemplateSet, template_no: int | None, map_type: str) -> list[Template]:
    """Templates of the row's number first, then the rest (asked on this map type first: a template the engine
    asks only on discrete maps is read in its continuous-map form last, with the same slots)."""
    return sorted(templates, key=lambda t: (t.mapwise != template_no, not t.applies_to(map_type)))


def read_by_slots(text: str, scene: Scene, template_no: int | None, templates: TemplateSet,
                  aliases: MapwiseAliases) -> Parsed | Unparsed:
    """The question read by filling the slots of its template (or of another that fits it)."""
    mentions = read_mentions(text, scene, scene_index(scene, aliases))
    words = " ".join(mentions.words) + " | " + " ".join(mentions.text.lower().split())
    form = question_form(mentions.text)
    first: tuple[tuple[bool, bool, int], str] | None = None
    for whole, loose in ((False, False), (True, False), (False, True), (True, True)):
        for t in _candidates(templates, template_no, scene.map_type):
            if not (_form_fits(t, form) and _cues_fit(t, words)):
                continue
            res = Resolver(scene, aliases)
            try:
                parsed = fill(t, mentions, res, whole, loose)
            except SlotError as exc:
                rank = (exc.named, t.mapwise == template_no, exc.depth)
                if first is None or rank > first[0]:
                    first = (rank, str(exc))
                continue
            parsed.notes += mentions.notes + res.notes
            parsed.spoken = dict(res.spoken)
            parsed.groups = dict(mentions.groups)
            if template_no is not None and t.mapwise != template_no:
                parsed.notes.append(f"MAPWise labels it template {template_no}; its slots are template {t.mapwise}'s")
            return parsed
    return Unparsed(first[1] if first else f"no template of number {template_no} (or any other) takes what the question names: "
                    + ", ".join(f"{m.kind} {m.text!r}" for m in mentions.items))
