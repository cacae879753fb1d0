"""Parse a MAPWise question into one of mapgen's templates with exact parameter values — or say why not.

Every wording MAPWise uses is a :class:`Rule`: a regular expression over the question text whose named groups
are the template's parameters. Each captured phrase must resolve exactly on the question's map:

- regions by code, name or alias (atlas aliases plus ``data/mapwise_aliases.yaml``); ``the``/``state`` dropped;
- groups by their curated names/aliases, ``bordering <country>`` and ``bordering <region>``;
- legend ranges by the label as printed on that map (numbers compared after normalisation) or, on discrete
  maps only, by rank words (``the highest range``, ``the second lowest range``);
- numbers with their units (``10k``, ``13.6%``), converted to the map's value units;
- comparison, extreme and direction words from fixed tables.

Nothing is guessed: a phrase that resolves to nothing (or a wording no rule covers) gives :class:`Unparsed`
with the reason. Rules of the template number MAPWise gives are tried first; a question whose wording belongs
to another template parses as that template and says so in ``notes``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from mapgen.eval.normalize import parse_number, ranges_equal
from mapgen.eval.normalize import parse_range as text_range
from mapgen.geo.names import UnknownNameError, closest
from mapgen.mapwise.aliases import MapwiseAliases, load_aliases
from mapgen.questions.functions import Ctx, context
from mapgen.questions.templates import Template, TemplateSet, load_templates
from mapgen.scene import Scene


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

_STATES = r"(?:states?|provinces?|regions?|union territor(?:y|ies))"
_PREP = r"(?:in|on|along|among|amongst|bordering|of|located|to|that|where|around|near|which|from|within)"
SUB = {
    "Region": r"(?:the\s+)?(?:state\s+)?(?P<{n}>[^,?]+?)",
    "RegionGroup": rf"(?P<{{n}}>{_PREP}\b.*?)",
    "LegendClass": r"(?P<{n}>.+?)",
    "Number": r"(?P<{n}>-?\s*\d[\d.,]*\s*(?:%|k|m|b|bn|million|billion|thousand|lakh)?)",
    "N": r"(?P<{n}>\d+|one|two|three|four|five)",
    "Comparison": r"(?P<{n}>higher|greater|more|larger|lower|less|smaller|similar|same|equal)",
    "Extreme": r"(?P<{n}>(?:second\s+)?(?:highest|lowest|least|largest|smallest|greatest|maximum|minimum|most|"
               r"fewest|\w+est))",
    "Direction": r"(?P<{n}>north|south|east|west|n|s|e|w)(?:ern)?(?:\s*-\s*|\s*)most",
}


@dataclass(frozen=True)
class Rule:
    """One MAPWise wording of a template: ``{P}`` in the pattern is parameter P (typed by the template)."""

    template_id: str
    pattern: str
    fixed: dict[str, Any] = field(default_factory=dict)
    choices: dict[str, dict[str, str]] = field(default_factory=dict)  # param -> written word -> value
    map_types: tuple[str, ...] = ("discrete", "continuous")
    yes_if: str | None = None
    drop: tuple[str, ...] = ()  # template parameters the wording leaves out (not read by the program)
    note: str = ""
    special: str = ""  # name of a post-processing step in SPECIAL


def _q(*parts: str) -> str:
    return "".join(parts)


YN = r"yes or no:\s*"
RULES: tuple[Rule, ...] = (
    Rule("legend_class_count", r"how many (?:distinct )?(?:categories|classes) does the legend (?:contain|have)"),
    Rule("legend_darkness_direction",
         _q(YN, r"in the legend,? the colou?r (?P<W>darkness|intensity) is (?P<P>directly|inversely) "
                r"proportional to the values?")),
    Rule("legend_overall_range", r"what is the overall range of the legend"),
    Rule("legend_shade_range",
         r"what (?:value )?range does the (?P<S>darkest|lightest|second darkest|second lightest) shade represent"),
    Rule("legend_colour_kind", _q(YN, r"the legend has (?P<K>multiple distinct colou?rs|different shades of the "
                                      r"same colou?r)"),
         choices={"K": {"multiple distinct colours": "multiple distinct colours",
                        "multiple distinct colors": "multiple distinct colours",
                        "different shades of the same colour": "different shades of the same colour",
                        "different shades of the same color": "different shades of the same colour"}}),
    Rule("map_percent_or_absolute",
         _q(YN, r"the map depicts (?P<K>percentages|absolute values)(?: as opposed to (?:percentages|absolute "
                r"values))?")),
    Rule("legend_kind", r"is the legend (?:discrete or continuous|continuous or discrete)"),
    Rule("legend_widest_class", r"which (?:class|range) has the largest range of values"),
    Rule("region_in_range", r"does (?:the value of )?{X}(?: state)? (?:fall|lie) in(?:to)? (?:the )?(?:range )?{Y}"),
    Rule("region_in_range", r"does {X} come under the (?:value|range) {Y}"),
    Rule("region_comparison", r"does {X} fall in the same range as {Y}", fixed={"C": "similar"},
         map_types=("discrete",), note="'falls in the same range as' = similar (same class)"),
    Rule("region_closer_to_number", r"is the value of {X} closer to {A} or {B}"),
    Rule("group_regions_in_range", r"which {STATES} {R} (?:belong|belongs) to (?:the )?(?:range )?{Y}"),
    Rule("group_regions_in_range", r"which {STATES} {R} (?:have|has) (?:a )?values? in (?:the )?(?:range )?{Y}"),
    Rule("group_extreme_range", r"what is the {E} value range {R}"),
    Rule("group_extreme_region", r"which {STATE} has the {E} value {R}"),
    Rule("group_extreme_region", r"which {STATE} {R} has the {E} value"),
    Rule("group_extreme_region", r"which {Radj} {STATE} has the {E} value"),
    Rule("group_extreme_region", r"which {STATES} {R} have the {E} values?",
         note="plural wording read as 'the region with the E value' (a tie is not asked)"),
    Rule("group_top_n", r"list the {N} {STATES} {R} with the {E} values?"),
    Rule("group_top_n", r"list the {STATE} {R} with the {E} values?", fixed={"N": 1}),
    Rule("region_range", r"what (?:value )?range does {X}(?: state)? fall in"),
    Rule("region_range", r"between which two legend markings does {X} fall(?: in)?"),
    Rule("group_count_in_range", r"count the {STATES} with (?:the )?values? in (?:the )?(?:range )?{Y} {R}"),
    Rule("group_count_in_range", r"count the {Radj} {STATES} with (?:the )?values? in (?:the )?(?:range )?{Y}"),
    Rule("neighbour_comparison",
         _q(YN, r"the (?:value|range) of (?:the )?{X} is (?:the )?{C}(?: than| to| as)? (?:that of )?its "
                r"neighbou?ring {STATE} {Y}")),
    Rule("region_comparison", _q(YN, r"the value of (?:the )?{X} is (?:the )?{C}(?: than| to| as)? (?:that of )?{Y}")),
    Rule("direction_local_extreme",
         r"name the {D} {STATE} that (?:belongs to a|has a) {C} value(?: range)? compared to all (?:of )?its "
         r"neighbou?rs"),
    Rule("group_is_extreme", _q(YN, r"{X} has the {E} value {R}")),
    Rule("group_mean_comparison",
         _q(YN, r"{STATES} {R1} have (?:a )?{C} values? on average (?:than|to|compared to|as) {STATES} {R2}")),
    Rule("group_count_threshold", r"how many {STATES} {R} (?:have|has) a value {C} than {N}"),
    Rule("group_count_vs_region", r"how many {STATES} {R} (?:have|has) a value {C} (?:than|to|as) {X}"),
    Rule("group_median_in_range", _q(YN, r"the median {STATE} range {R} is {Y}"), map_types=("discrete",)),
    Rule("group_median_in_range", _q(YN, r"the median {STATE} value {R} lies between {A} and {B}"),
         map_types=("continuous",), special="tick_interval"),
    Rule("group_median_range", r"what is the median range of the {STATES} {R}"),
    Rule("group_regions_in_range", r"which {STATES} {R} have a value in (?:the )?range {Y}"),
    Rule("group_regions_threshold", r"which {STATES} {R} (?:have|has) a value {C} than {N}"),
    Rule("group_regions_vs_region", r"which {STATES} {R} (?:have|has) a value {C} (?:than|to|as) {X}"),
    Rule("group_regions_closest_value", r"which {STATES} {R} (?:have|has) the {M} {X}",
         choices={"M": {"same value as": "same", "same value to": "same", "same value range as": "same",
                        "closest value to": "same", "closest value as": "same",
                        "furthest value to": "most different", "farthest value to": "most different",
                        "furthest value from": "most different", "farthest value from": "most different",
                        "most different value from": "most different",
                        "most different value to": "most different"}}),
    Rule("range_with_extreme_count", r"which range has the {E} number of {STATES}"),
    Rule("group_is_closest_value", r"does {X} have (?:the )?{M} {Y} amongst the {STATES} {R}",
         choices={"M": {"same value as": "same", "same value to": "same", "similar value to": "same",
                        "similar value as": "same", "closest value to": "same",
                        "most different value than": "most different",
                        "most different value from": "most different",
                        "most different value to": "most different"}}),
    Rule("group_is_closest_value", r"does {X} have (?:the )?{M} {Y} amongst the {Radj} {STATES}",
         choices={"M": {"same value as": "same", "same value to": "same", "similar value to": "same",
                        "most different value than": "most different",
                        "most different value from": "most different"}}),
    Rule("region_comparison", r"does {X} have the same value (?:as|to) {Y}", fixed={"C": "similar"},
         note="'has the same value as' with no group = similar (same class / within tolerance)"),
    Rule("group_majority_threshold", _q(YN, r"a majority of {STATES} {R} have values {C} than {N}")),
    Rule("group_majority_threshold", _q(YN, r"a majority of {STATES} {R} belong to {C} than {N}")),
    Rule("group_majority_in_range", _q(YN, r"a majority of {STATES} {R} belong to (?:the )?(?:range )?{Y}")),
    Rule("group_outlier", _q(YN, r"{X} is an outlier compared to (?:the )?(?:other )?{STATES} {R}")),
    Rule("group_outlier", _q(YN, r"{X} is an outlier compared to (?:the )?(?:other )?{STATES} bordering it"),
         special="bordering_x"),
    Rule("bordering_pair_max_difference",
         _q(YN, r"{X} and {Y} are (?:the|a) pair of bordering {STATES} with the highest difference")),
    Rule("is_direction_local_extreme",
         _q(YN, r"{X} is the {D} {STATE} that has a {C} value compared to all (?:of )?its neighbou?rs")),
    Rule("direction_extreme_in_range", r"name the {D} {STATE} (?:in|with values in) (?:the )?(?:range )?{Y}"),
    Rule("range_border_relation",
         r"which {STATE} in the (?:range )?{X} borders at least {N} {STATES} from the (?:range )?{Y}",
         fixed={"Rel": "at least"}),
    Rule("range_border_relation", r"which {STATE} in the (?:range )?{X} borders at least {N} {STATES} from the same range",
         fixed={"Rel": "at least"}, special="y_is_x"),
    Rule("group_all_threshold", _q(YN, r"all {STATES} {R} have values (?:are )?{S} {N}"),
         choices={"S": {"above": "above", "below": "below", "greater than": "above", "less than": "below",
                        "higher than": "above", "lower than": "below"}}),
    Rule("group_all_in_range", _q(YN, r"all(?: the)? {STATES} {R} have values (?:in )?(?:the )?(?:range )?{Y}")),
    Rule("range_closest_pair",
         r"which pair of {STATES} belonging to (?:the )?(?:range )?{Y} are (?:the )?closest to each other"),
    Rule("legend_spacing", r"are the legends evenly spaced or are there significant gaps between certain ranges"),
    Rule("legend_spacing", r"are the legends evenly spaced", yes_if="evenly spaced"),
    Rule("two_comparisons",
         _q(YN, r"{X} has a {C1} value (?:than|as|to) {Y},? and (?:also )?(?:have |has )?a {C2} value "
                r"(?:than|as|to) {Z}")),
    Rule("two_comparisons", _q(YN, r"{X} has a {C1} value (?:than|as|to) {Y},? and also {Z}"),
         special="c2_is_c1"),
    Rule("group_ranking", r"rank the {STATES}:? {X}, {Y},? and {Z} in terms of (?:the )?legend values? {R}"),
    Rule("group_ranking", r"rank the {STATES}:? {X}, {Y}, {Z} in terms of (?:the )?legend values? {R}"),
    Rule("group_ranking", r"rank the {STATES}:? {X}, {Y},? and {Z} in terms of (?:the )?legend values?",
         drop=("R",), note="no group named: the ranking of the three regions"),
    Rule("group_ranking", r"rank the {STATES}:? {X}, {Y}, {Z} in terms of (?:the )?legend values?",
         drop=("R",), note="no group named: the ranking of the three regions"),
)

_EXTRA_TYPES = {"A": "Number", "B": "Number", "Radj": "RegionAdj"}
_SPECIAL_SUB = {
    "STATES": _STATES,
    "STATE": _STATES,
    "Radj": r"(?P<Radj>[a-z][\w -]*?)",
    "M": r"(?P<M>[a-z ]+?)",
    "S": r"(?P<S>above|below|greater than|less than|higher than|lower than)",
}


def _compile(rule: Rule, template: Template) -> re.Pattern[str]:
    types = {p.name: p.type for p in template.params} | _EXTRA_TYPES
    if rule.template_id == "region_closer_to_number":
        types |= {"A": "LegendClass", "B": "LegendClass"}  # captured loosely, resolved as numbers

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in rule.choices:
            words = sorted(rule.choices[name], key=len, reverse=True)
            return rf"(?P<{name}>{'|'.join(re.escape(w) for w in words)})"
        if name in _SPECIAL_SUB:
            return _SPECIAL_SUB[name]
        kind = types.get(name)
        if kind is None or kind not in SUB:
            return rf"(?P<{name}>.+?)"
        return SUB[kind].format(n=name)

    text = re.sub(r"\{(\w+)\}", sub, rule.pattern)
    return re.compile(text, re.IGNORECASE)


# ---------------------------------------------------------------------------------------------- text


def clean_question(text: str, words: dict[str, str] | None = None) -> str:
    """One-line question without the trailing punctuation; ``Yes/No:`` → ``yes or no:``; typos fixed."""
    s = " ".join(str(text).replace("’", "'").split())
    s = re.sub(r"^(?:yes\s*(?:or|/)\s*no)\s*:\s*", "yes or no: ", s, flags=re.IGNORECASE)
    s = re.sub(r"[\s?.!]+$", "", s)
    for typo, word in (words or {}).items():
        s = re.sub(rf"\b{re.escape(typo)}\b", word, s, flags=re.IGNORECASE)
    return s


def _clean_number_text(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d)", "", text.strip())


# ---------------------------------------------------------------------------------------------- resolvers


class Resolver:
    """Resolves captured phrases on one map (region, group, legend range, number, words)."""

    def __init__(self, scene: Scene, aliases: MapwiseAliases | None = None) -> None:
        self.scene = scene
        self.ctx: Ctx = context(scene)
        self.aliases = aliases or load_aliases()
        self.country = scene.country

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
        spellings = [s for c in self.scene.codes for s in self.scene.spellings(c)]
        raise ParseError(f"unknown region {text.strip()!r} (closest: {', '.join(closest(t, spellings, 3)) or '-'})")

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
        prefix = re.compile(
            r"^(?:(?:that|which) (?:are|is) (?:considered (?:as )?)?|located |situated |where |"
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
        return list(dict.fromkeys(c for c in out if c))

    def _group_key(self, text: str) -> str | None:
        alias = self.aliases.group(self.country, text)
        for cand in (text, alias):
            if not cand:
                continue
            try:
                info = self.scene.atlas.group_info(cand)
            except (UnknownNameError, ValueError):
                continue
            if info.kind == "region_border":
                code = self.scene.resolve(info.name[len("bordering "):])
                return f"bordering {self.scene.regions[code].name}"
            return info.name if info.name in self.ctx.groups else None
        return None

    # legend ranges
    def legend_class(self, text: str) -> int:
        """Index of a legend range written as printed (or, on discrete maps, by rank words)."""
        t = re.sub(r"^(?:the\s+)?(?:range\s+)?", "", text.strip(), flags=re.IGNORECASE)
        t = re.sub(r"\s+range$", "", t, flags=re.IGNORECASE).strip()
        labels = self.ctx.interval_labels
        m = re.fullmatch(r"(second\s+)?(\w+)", t, re.IGNORECASE)
        if m and m.group(2).lower() in EXTREME:
            if not self.ctx.discrete:
                raise ParseError(f"'{text}' names a range by rank on a continuous map (no classes)")
            k = 1 if m.group(1) else 0
            return len(labels) - 1 - k if EXTREME[m.group(2).lower()] == "highest" else k
        wanted = text_range(_clean_number_text(t))
        if wanted is None:
            raise ParseError(f"'{text}' is not a legend range")
        for i, label in enumerate(labels):
            got = text_range(_clean_number_text(label))
            if got is not None and ranges_equal(wanted, got, rel_tol=2e-3):
                return i
        kind = "classes" if self.ctx.discrete else "tick intervals"
        raise ParseError(f"range '{text}' is not a legend range of this map ({kind}: {', '.join(labels)})")

    def number(self, text: str) -> float:
        """A number as written (units applied) in the map's value units; far-off numbers are refused."""
        value = parse_number(_clean_number_text(text).replace(" ", ""))
        if value is None:
            raise ParseError(f"'{text}' is not a number")
        legend = self.scene.legend
        scale = legend.label_scale or 1.0
        span = (legend.vmax - legend.vmin) * scale
        if not (legend.vmin * scale - span <= value <= legend.vmax * scale + span):
            raise ParseError(f"number '{text}' is far outside the legend's values "
                             f"({legend.vmin * scale:g} to {legend.vmax * scale:g}): units unclear")
        return value / scale

    def count(self, text: str) -> int:
        t = text.strip().lower()
        return NUMBER_WORDS[t] if t in NUMBER_WORDS else int(t)

    @staticmethod
    def word(table: dict[str, str], text: str, what: str) -> str:
        t = " ".join(text.lower().split())
        second = t.startswith("second ")
        base = t[7:] if second else t
        if base not in table:
            raise ParseError(f"unknown {what} word '{text}'")
        return ("second " if second else "") + table[base]


# ---------------------------------------------------------------------------------------------- parsing


def _resolve_param(res: Resolver, kind: str, text: str, rule: Rule, name: str) -> Any:
    if name in rule.choices:
        key = " ".join(text.lower().split())
        if key not in rule.choices[name]:
            raise ParseError(f"'{text}' is not one of {sorted(rule.choices[name])}")
        return rule.choices[name][key]
    if kind == "Region":
        return res.region(text)
    if kind == "RegionGroup":
        return res.group(text)
    if kind == "RegionAdj":
        return res.group(text, adjective=True)
    if kind == "LegendClass":
        return res.legend_class(text)
    if kind == "Number":
        return _number_or_gap(res, text)
    if kind == "N":
        return res.count(text)
    if kind == "Comparison":
        return res.word(COMPARISON, text, "comparison")
    if kind == "Extreme":
        return res.word(EXTREME, text, "extreme")
    if kind == "Direction":
        return DIRECTION[text.lower()]
    return " ".join(text.lower().split())


def _number_or_gap(res: Resolver, text: str) -> float:
    try:
        return res.number(text)
    except ParseError as exc:
        try:
            res.region(text)
        except ParseError:
            raise exc from None
        raise ParseError(f"engine gap: '{text}' is a region where the template takes a number") from None


def _special(rule: Rule, params: dict[str, Any], res: Resolver, readings: dict[str, str]) -> None:
    if rule.special == "y_is_x":
        params["Y"] = params["X"]
        readings["Y"] = f"the same range -> {params['X']}"
    elif rule.special == "bordering_x":
        name = res.scene.regions[params["X"]].name
        params["R"] = res.group(f"bordering {name}")
        readings["R"] = f"bordering it -> {params['R']}"
    elif rule.special == "c2_is_c1":
        params["C2"] = params["C1"]
        readings["C2"] = f"(implied) -> {params['C1']}"
    elif rule.special == "tick_interval":
        lo, hi = params.pop("A"), params.pop("B")
        for i, (a, b) in enumerate(res.ctx.intervals):
            if abs(a - lo) <= 1e-9 * max(1.0, abs(a)) and abs(b - hi) <= 1e-9 * max(1.0, abs(b)):
                params["Y"] = i
                return
        raise ParseError(f"'between {readings.pop('A')} and {readings.pop('B')}' is not an interval between "
                         f"two adjacent labelled ticks ({', '.join(res.scene.legend.tick_labels)})")


def derived_template(template: Template, drop: tuple[str, ...]) -> Template:
    """The template without parameters the wording leaves out (domains that read them are dropped too)."""
    if not drop:
        return template
    params = tuple(
        replace(p, source=None, refs=()) if set(p.refs) & set(drop) else p
        for p in template.params if p.name not in drop
    )
    return replace(template, params=params, id=template.id, _compiled={})


def _try_rule(rule: Rule, template: Template, m: re.Match[str], res: Resolver) -> Parsed:
    kinds = {p.name: p.type for p in template.params} | _EXTRA_TYPES
    params: dict[str, Any] = {}
    readings: dict[str, str] = {}
    for name, text in m.groupdict().items():
        if text is None:
            continue
        kind = kinds.get(name, "Choice")
        if rule.special == "tick_interval" and name in ("A", "B"):
            kind = "Number"
        value = _resolve_param(res, kind, text, rule, name)
        target = "R" if name == "Radj" else name
        params[target] = value
        readings[target] = f"{text.strip()} -> {value}"
    for name, value in rule.fixed.items():
        params[name] = value
        readings[name] = f"(wording) -> {value}"
    _special(rule, params, res, readings)
    tmpl = derived_template(template, rule.drop)
    missing = [p.name for p in tmpl.params if p.name not in params]
    if missing:
        raise ParseError(f"the wording does not give {', '.join(missing)}")
    notes = [rule.note] if rule.note else []
    return Parsed(tmpl.id, tmpl.mapwise, params, readings, tmpl, notes, rule.yes_if)


_COMPILED: dict[int, list[tuple[Rule, Template, re.Pattern[str]]]] = {}


def compiled_rules(templates: TemplateSet | None = None) -> list[tuple[Rule, Template, re.Pattern[str]]]:
    """Every rule with its template and compiled pattern (cached per template set)."""
    templates = templates or load_templates()
    key = id(templates)
    if key not in _COMPILED:
        _COMPILED[key] = [(r, templates.get(r.template_id), _compile(r, templates.get(r.template_id)))
                          for r in RULES]
    return _COMPILED[key]


def _ordered(rules: list, template_no: int | None) -> list:
    first = [r for r in rules if r[1].mapwise == template_no]
    return first + [r for r in rules if r[1].mapwise != template_no]


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
    for rule, template, pattern in _ordered(compiled_rules(templates), template_no):
        m = pattern.fullmatch(q)
        if not m:
            continue
        if scene.map_type not in rule.map_types or not template.applies_to(scene.map_type):
            first_failure = first_failure or Unparsed(
                f"wording of {rule.template_id} is not asked on {scene.map_type} maps", rule.template_id)
            continue
        try:
            parsed = _try_rule(rule, template, m, res)
        except ParseError as exc:
            first_failure = first_failure or Unparsed(str(exc), rule.template_id)
            continue
        if template_no is not None and parsed.mapwise != template_no:
            parsed.notes.append(f"MAPWise labels it template {template_no}; the wording is template "
                                f"{parsed.mapwise}")
        return parsed
    gap = _gap_reason(q)
    if gap is not None:
        return Unparsed(gap, first_failure.template_id if first_failure else None)
    return first_failure or Unparsed("no template wording matches the question")


GAPS: tuple[tuple[str, str], ...] = (
    (r"missing data", "engine gap: no template asks which regions have missing data"),
    (r"either border|shares border either|either with", "engine gap: a union of two groups is not a group"),
    (r"at ?least \d+ of its neighbou?rs|atleast", "engine gap: 'compared to at least N of its neighbours'"),
    (r"excluding missing", "engine gap: medians 'excluding missing values' (N/A members make it not asked)"),
    (r"in the same range", "engine gap: 'all in the same range' (any one range) is not a template"),
    (r"to the (?:west|east|north|south) of", "engine gap: groups defined by direction from a region"),
    (r"borders at least \d+ states? with", "engine gap: bordering regions with missing data"),
    (r"pair of .+ states belonging", "engine gap: closest pair restricted to a group"),
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
