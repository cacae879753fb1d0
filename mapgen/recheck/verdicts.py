"""Recompute every MAPWise answer with the question engine and compare it with MAPWise's ground truth.

Verdicts (one per question):

- ``agree`` — MAPWise's answer scores 1 on every metric of the answer type (eval normalisation: names, aliases,
  yes/no words, ranges, rankings);
- ``disagree`` — it does not; the record carries the deciding facts (values, classes, colours of the regions
  involved, the legend, the program trace);
- ``ambiguous`` — the engine rejects the question as ill-posed (a tie, values within the perceptual tolerance on
  a continuous map, N/A members, a number inside a class, a parameter outside the template's domain), or
  MAPWise gives no answer; the reason says which;
- ``unparsed`` — the question does not parse (reason from :mod:`mapgen.recheck.parse`).

:func:`recheck` returns :class:`Verdict` records; :func:`write_recheck` writes ``verdicts.jsonl``,
``summary.csv`` (country × template), ``summary.json`` (:func:`summary_json`), ``report.md`` and
``corrected_questions.csv`` in MAPWise's own layout.
"""

from __future__ import annotations

import csv
import difflib
import io
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from mapgen.eval.answers import parse_binary
from mapgen.eval.metrics import all_metrics, gold_ranges
from mapgen.eval.normalize import normalize_answer_name, normalize_yes_no
from mapgen.eval.score import score
from mapgen.files import write_json_atomic, write_jsonl_atomic, write_text_atomic
from mapgen.geo.names import UnknownNameError, normalize_name
from mapgen.legend import relative_luminance
from mapgen.legend.grammar import find_range
from mapgen.mapwise.aliases import MapwiseAliases, load_aliases
from mapgen.questions import (
    Question,
    Reading,
    TemplateSet,
    Unaskable,
    ask,
    hue_spread,
    load_templates,
    reading,
    source_domain,
    trace,
)
from mapgen.recheck.calls import INSETS, closest_call, colour_kind_call, unseen_call
from mapgen.recheck.cfimport import UNKNOWN
from mapgen.recheck.groups import with_groups, with_mapwise_groups
from mapgen.recheck.importer import HATCHED_SPEC, ImportedSet, RawQuestion, read_csv_rows
from mapgen.recheck.mentions import FUZZY_CUTOFF
from mapgen.recheck.parse import Parsed, Unparsed, answer_in_title_unit, parse_question
from mapgen.recheck.reasons import (
    AMBIGUOUS_BUCKETS,
    at_precision,
    beyond_ticks,
    exact_answer,
    has_missing,
    label_precision,
    legend_precision,
)
from mapgen.recheck.slots import read_by_slots
from mapgen.recheck.spans import Span, class_span, merged_classes, span_label
from mapgen.scene import Scene, build_scene
from mapgen.spec import MapSpec, make_hatched

VERDICTS = ("agree", "disagree", "ambiguous", "unparsed")


@dataclass
class Verdict:
    """The recheck of one MAPWise question."""

    country: str
    row: int
    map_ref: str
    map_id: str
    template_no: int | None
    question: str
    ground_truth: str
    verdict: str
    reason: str = ""
    template_id: str | None = None
    mapwise_template: int | None = None
    params: dict[str, Any] = field(default_factory=dict)
    readings: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    our_answer: str | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    program: list[dict[str, Any]] = field(default_factory=list)
    verified: str | None = None
    verified_verdict: str | None = None
    kind: str | None = None  # MAPWise's counterfactual kind (img, shuff, jumb, orgs); None on a country's table
    bucket: str | None = None  # an ambiguous verdict's named reason (:data:`~mapgen.recheck.reasons.AMBIGUOUS_BUCKETS`)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def ambiguous(self, bucket: str, reason: str) -> Verdict:
        """Mark the verdict ambiguous for ``reason``, in the named ``bucket``."""
        if bucket not in AMBIGUOUS_BUCKETS:
            raise KeyError(f"unknown ambiguous bucket {bucket!r}")
        self.verdict, self.reason, self.bucket = "ambiguous", reason, bucket
        return self


# ---------------------------------------------------------------------------------------------- facts


def _display(scene: Scene, value: float) -> float | None:
    if math.isnan(value):
        return None
    return float(f"{value * (scene.legend.label_scale or 1.0):.6g}")


def region_fact(scene: Scene, code: str) -> dict[str, Any]:
    """Value (display units), legend class label and colour of one region."""
    r = scene.regions[code]
    return {"code": code, "name": r.name, "value": _display(scene, r.value),
            "class": r.class_label or None, "colour": r.color}


def legend_fact(scene: Scene) -> dict[str, Any]:
    """The legend as a reader sees it: ranges (lowest first) with colours and luminance, tolerance."""
    legend = scene.legend
    out: dict[str, Any] = {"kind": legend.kind, "darker_is_higher": scene.legend_facts.darkness_increases_with_value}
    colours = [c.color for c in legend.classes] if legend.kind == "discrete" else list(legend.colors)
    out["hue_spread_deg"] = round(hue_spread(colours), 1)
    if legend.kind == "discrete":
        out["classes"] = [{"label": c.label, "colour": c.color, "luminance": round(relative_luminance(c.color), 3)}
                          for c in legend.classes]
    else:
        out["ticks"] = list(legend.tick_labels)
        out["tolerance"] = _display(scene, reading(scene).tau)
        out["span"] = [_display(scene, legend.vmin), _display(scene, legend.vmax)]
    return out


def _codes_in(scene: Scene, parsed: Parsed | None, names: list[str]) -> list[str]:
    codes: list[str] = []
    if parsed is not None:
        groups = reading(scene).groups
        for p in parsed.template.params:
            v = parsed.params.get(p.name)
            if p.type == "Region" and v in scene.regions:
                codes.append(v)
            elif p.type == "RegionGroup" and isinstance(v, str) and v in groups:
                codes += sorted(groups[v])
    for name in names:
        try:
            codes.append(scene.resolve(name))
        except (UnknownNameError, ValueError):
            continue
    return list(dict.fromkeys(codes))


def deciding_facts(scene: Scene, parsed: Parsed | None, names: list[str]) -> dict[str, Any]:
    """Regions involved (parameters, group members, both answers' regions) and the legend."""
    facts: dict[str, Any] = {"legend": legend_fact(scene)}
    codes = _codes_in(scene, parsed, names)
    if codes:
        facts["regions"] = [region_fact(scene, c) for c in codes]
    return facts


# ---------------------------------------------------------------------------------------------- checks


def domain_problems(parsed: Parsed, scene: Scene) -> list[str]:
    """Why region parameters fall outside the template's domains (X not in R, Y not a neighbour of X, ...).

    Group sizes (``min_members``) are a generation preference, not a defect of a given question: not checked.
    """
    problems = []
    for p in parsed.template.params:
        value = parsed.params[p.name]
        if p.type == "Region" and p.source is not None:
            domain = source_domain(parsed.template, p.name, scene, parsed.params)
            if domain is not None and value not in domain.values:
                problems.append(f"{p.name} = {scene.regions[value].name} is outside {domain.text}")
    return problems


def number_problems(parsed: Parsed, scene: Scene) -> list[str]:
    """On discrete maps a number N inside a class cannot be read against regions of that class."""
    ctx = reading(scene)
    if not ctx.discrete:
        return []
    pool = _pool(parsed, ctx)
    out = []
    for p in parsed.template.params:
        if p.type != "Number":
            continue
        n = parsed.params[p.name]
        for i, (lo, hi) in enumerate(ctx.intervals):
            inside = [c for c in pool if ctx.level.get(c) == i]
            if lo < n < hi and inside:
                names = ", ".join(scene.regions[c].name for c in inside)
                out.append(f"N = {_display(scene, n)} lies inside class {ctx.interval_labels[i]}: "
                           f"{names} cannot be placed against it from the map")
    return out


def _pool(parsed: Parsed, ctx: Reading) -> list[str]:
    pool: list[str] = []
    for p in parsed.template.params:
        v = parsed.params[p.name]
        if p.type == "RegionGroup":
            pool += sorted(ctx.groups.get(v, ()))
        elif p.type == "Region":
            pool.append(v)
    return pool or list(ctx.scene.regions)


def explain_rejection(parsed: Parsed, scene: Scene) -> tuple[str, list[dict[str, Any]]]:
    """Which program step the engine rejected, and the partial trace."""
    ctx = reading(scene)
    run = trace(parsed.template, scene, parsed.params)
    steps = [{"param": k, "value": _jsonable(v)} for k, v in parsed.params.items()]
    steps += [{"step": s.name, "call": s.call, "result": _jsonable(s.result)} for s in run.steps]
    failed = run.failed_step or "a constraint"
    why = "a tie, an N/A member, or too few members"
    if not ctx.discrete:
        why = f"values closer than the perceptual tolerance τ = {_display(scene, ctx.tau)}, a tie, or N/A"
    details = _continuous_details(parsed, scene) if not ctx.discrete else []
    text = f"engine rejects the question as ill-posed: {failed} is not asked ({why})"
    return text + ("; " + "; ".join(details) if details else ""), steps


def _continuous_details(parsed: Parsed, scene: Scene) -> list[str]:
    """Where region parameters sit against the ticks and each other on a continuous map."""
    ctx = reading(scene)
    ticks = list(scene.legend.ticks)
    codes = [parsed.params[p.name] for p in parsed.template.params if p.type == "Region"]
    out = []
    for c in codes:
        v = ctx.value[c]
        if math.isnan(v):
            out.append(f"{scene.regions[c].name} has no value")
        elif ticks and (v < ticks[0] or v > ticks[-1]):
            out.append(f"{scene.regions[c].name} = {_display(scene, v)} lies outside the labelled ticks "
                       f"{scene.legend.tick_labels[0]}-{scene.legend.tick_labels[-1]}")
        else:
            near = [t for t in ticks if abs(v - t) < ctx.tau]
            if near:
                out.append(f"{scene.regions[c].name} = {_display(scene, v)} is within τ of tick {_display(scene, near[0])}")
    for i, a in enumerate(codes):
        for b in codes[i + 1:]:
            d = abs(ctx.value[a] - ctx.value[b])
            if ctx.tau < d < 2 * ctx.tau:
                out.append(f"{scene.regions[a].name} and {scene.regions[b].name} differ by {_display(scene, d)}: "
                           f"between τ and 2τ")
    return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, (set, frozenset)):
        return sorted(v)
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


# ---------------------------------------------------------------------------------------------- comparison


def mapwise_style(q: Question, ground_truth: str = "") -> str:
    """Our answer written the way MAPWise writes answers (lists comma-joined, rankings as a chain)."""
    a = q.answer
    if q.answer_type == "list":
        return ", ".join(a)
    if q.answer_type == "ranking":
        groups = [" = ".join(g) for g in a]
        return " < ".join(reversed(groups)) if "<" in ground_truth else " > ".join(groups)
    return str(a)


def _with_aliases(q: Question, aliases: MapwiseAliases, scene: Scene) -> Question:
    """The question with MAPWise's alias spellings (and, for derived regions, the parent's) accepted."""
    extra = {normalize_answer_name(k): v for k, v in aliases.regions.get(scene.country, {}).items()}
    derived = scene.derived
    if not extra and not derived:
        return q
    accepted = {k: list(v) for k, v in q.accepted_answers.items()}
    for name in accepted:
        try:
            code = scene.resolve(name)
        except (UnknownNameError, ValueError):
            continue
        accepted[name] += [alias for alias, target in extra.items() if scene.resolve(target) == code]
        if code in derived:  # MAPWise's map draws the parent region (e.g. J&K including Ladakh)
            accepted[name] += list(scene.atlas_spellings(derived[code]))
    q.accepted_answers = accepted
    return q


def compare_answer(q: Question, theirs: str, yes_if: str | None = None) -> tuple[str, dict[str, float], str]:
    """(verdict, metrics, reason) for MAPWise's answer text against our Question."""
    if yes_if is not None:
        ours = "Yes" if normalize_answer_name(str(q.answer)) == normalize_answer_name(yes_if) else "No"
        their = normalize_yes_no(theirs) or parse_binary(theirs).value
        if their is None:
            return "disagree", {}, f"MAPWise's answer {theirs!r} is not yes/no"
        return ("agree" if their == ours else "disagree"), {"binary_exact": float(their == ours)}, ""
    if not theirs.strip():
        if q.answer_type == "list":
            metrics = all_metrics([], q)
        else:
            return "ambiguous", {}, "MAPWise gives no answer"
    else:
        s = score(q, theirs)
        if not s.parse_ok:
            return "disagree", dict(s.metrics), f"MAPWise's answer {theirs!r} is not a {q.answer_type} answer"
        metrics = dict(s.metrics)
    ok = all(v == 1.0 for v in metrics.values())
    return ("agree" if ok else "disagree"), metrics, ""


_DIRECTION_TEMPLATES = {"direction_local_extreme", "is_direction_local_extreme", "direction_extreme_in_range",
                         "direction_extreme_category", "direction_local_extreme_count"}


def judgement_call(parsed: Parsed, q: Question, scene: Scene, theirs: str, text: str = "") -> tuple[str, str] | None:
    """(bucket, why) when a disagreement is really a matter of definition or perception (None when it is a plain
    error); ``text``: the question as MAPWise wrote it."""
    tid = parsed.template_id
    if tid == "legend_class_count" and scene.legend_facts.has_na:
        n = _int(theirs)
        if n is not None and n == int(q.answer) + 1:
            return "definition_dependent", "MAPWise counts the N/A legend entry as a category"
    if tid == "legend_colour_kind":
        return colour_kind_call(scene)
    if q.answer_type == "range" and scene.map_type == "continuous" and _within_tolerance(q, scene, theirs):
        return "bar_ends_by_eye", "MAPWise's range is within the perceptual tolerance τ of ours (colour-bar ends read by eye)"
    closest = closest_call(q, scene, text)
    if closest is not None:
        return closest

    def agrees(other: Scene, params: dict[str, Any] | None = None) -> bool:
        try:
            again = ask(parsed.template, other, parsed.params if params is None else params)
        except (Unaskable, KeyError, ValueError):
            return False
        return compare_answer(again, theirs, parsed.yes_if)[0] == "agree"

    unseen = unseen_call(parsed, scene, text, agrees)
    if unseen is not None:
        return unseen
    if tid in _DIRECTION_TEMPLATES:
        insets = INSETS.get(scene.country, frozenset())
        involved = set(_codes_in(scene, parsed, [*_answer_names(theirs), str(q.answer)]))
        if involved & insets:
            names = ", ".join(scene.regions[c].name for c in sorted(involved & insets))
            return "inset_position", f"{names} drawn as an inset: its place on the image is not its geographic position"
    return None


def _int(text: str) -> int | None:
    try:
        return int(str(text).strip())
    except ValueError:
        return None


def _within_tolerance(q: Question, scene: Scene, theirs: str) -> bool:
    got = find_range(theirs)
    if got is None or got[0] is None or got[1] is None:
        return False
    lo, hi = got[0], got[1]
    tol = reading(scene).tau * (scene.legend.label_scale or 1.0)
    return any(r[0] is not None and r[1] is not None and abs(lo - r[0]) <= tol and abs(hi - r[1]) <= tol
               for r in gold_ranges(q))


def reduced_scene(scene: Scene) -> Scene | None:
    """The map without the regions derived for MAPWise's India layout (None when nothing was derived)."""
    return scene.without(scene.derived) if scene.derived else None


def _layout_answer(parsed: Parsed, scene: Scene) -> Question | None:
    reduced = reduced_scene(scene)
    if reduced is None:
        return None
    try:
        return ask(parsed.template, reduced, parsed.params)
    except (KeyError, ValueError):  # Unaskable is a ValueError
        return None


def answer_spelling(text: str, scene: Scene) -> str:
    """MAPWise's answer with region names it misspells ("Telanangana") written as the map names them, by the
    fuzzy match that reads misspelt names in questions (:data:`~mapgen.recheck.mentions.FUZZY_CUTOFF`)."""
    names = {normalize_name(r.name): r.name for r in scene.regions.values()}
    out = text
    for part in _answer_names(text):
        if len(part) < 5 or not part.replace(" ", "").isalpha() or _resolves(scene, part):
            continue
        hit = difflib.get_close_matches(normalize_name(part), list(names), n=1, cutoff=FUZZY_CUTOFF)
        if hit:
            out = out.replace(part, names[hit[0]])
    return out


def _resolves(scene: Scene, name: str) -> bool:
    try:
        scene.resolve(name)
    except (UnknownNameError, ValueError, KeyError):
        return False
    return True


def _answer_names(text: str) -> list[str]:
    import re

    return [p.strip() for p in re.split(r",|<|>|=|\band\b", text or "") if p.strip()]


def recheck_question(
    raw: RawQuestion, scene: Scene, aliases: MapwiseAliases | None = None, templates: TemplateSet | None = None,
    published: bool = False,
) -> Verdict:
    """Parse (with ``templates``' MAPWise wordings, default mapgen's), recompute and compare one question;
    ``published``: the scene's colour-bar ticks are the ones read off the published image."""
    aliases = aliases or load_aliases()
    v = Verdict(raw.country, raw.row, raw.map_ref, raw.map_id, raw.template_no, raw.question, raw.ground_truth,
                "unparsed", verified=raw.verified)
    parsed = read_question(raw, scene, aliases, templates)
    if isinstance(parsed, Unparsed):
        v.reason, v.template_id = parsed.reason, parsed.template_id
        return v
    scene = with_groups(scene, parsed.groups.values())
    v.template_id, v.mapwise_template = parsed.template_id, parsed.mapwise
    if parsed.in_map_units(raw.ground_truth) is not None:  # "800B" when the question read 800B in the title's unit
        raw = replace(raw, ground_truth=str(parsed.in_map_units(raw.ground_truth)))
    elif answer_in_title_unit(raw.ground_truth, scene.title) is not None:  # "1 million lakh" on a map of ₹ lakh
        raw = replace(raw, ground_truth=str(answer_in_title_unit(raw.ground_truth, scene.title)))
    spelled = answer_spelling(raw.ground_truth, scene)
    if spelled != raw.ground_truth:
        parsed.notes.append(f"MAPWise's answer {raw.ground_truth!r} read as {spelled!r} (misspelt names)")
    raw = replace(raw, ground_truth=spelled, verified=None if raw.verified is None else
                  answer_spelling(raw.verified, scene))
    v.params = {k: _jsonable(x) for k, x in parsed.params.items()}
    v.readings, v.notes = parsed.readings, list(parsed.notes)
    why = _not_asked(parsed, scene)
    problems = [("false_premise", t) for t in domain_problems(parsed, scene)]
    problems += [("number_inside_class", t) for t in number_problems(parsed, scene)]
    q, rejected = (None, None) if why else _ask(parsed, scene)
    at_precision = False
    if q is None and why is None and rejected is not None and rejected.kind in _TIES:
        q = _at_legend_precision(v, parsed, scene)
        at_precision = q is not None
    if q is None:
        _not_judged(v, parsed, scene, why, problems, rejected)
        v.facts = deciding_facts(scene, parsed, _answer_names(raw.ground_truth))
        return v
    _judge(v, parsed, _with_aliases(q, aliases, scene), scene, raw, published, problems)
    if at_precision and v.verdict == "disagree" and not published:
        v.ambiguous("near_tie", "closer than the reading tolerance; at the printed precision of mapgen's ticks the "
                    f"answer would disagree ({v.our_answer!r}), but the published bar's ticks are not known without "
                    "its image (an agreement at that precision stands, a disagreement does not)")
    return v


def _ask(parsed: Parsed, scene: Scene) -> tuple[Question | None, Unaskable | None]:
    """The engine's question, or why it is not asked."""
    try:
        return ask(parsed.template, scene, parsed.params), None
    except Unaskable as exc:
        return None, exc


def _not_judged(v: Verdict, parsed: Parsed, scene: Scene, why: tuple[str, str] | None,
                problems: list[tuple[str, str]], rejected: Unaskable | None) -> None:
    """Mark a question the engine does not ask (or the slot reader did not let it ask) ambiguous, in its bucket."""
    if why:
        v.ambiguous(why[0], why[1])
        return
    text, v.program = explain_rejection(parsed, scene)
    if problems:
        v.ambiguous(problems[0][0], text + "; " + "; ".join(t for _, t in problems))
    elif v.bucket is None:
        if rejected is not None and rejected.kind == "reading":
            text += f"; its answer differs under a declared reading ({rejected.reason})"
        v.ambiguous(_rejection_bucket(rejected, parsed, scene), text)
    else:  # a near tie at the legend's precision, marked by _at_legend_precision
        v.reason = text + "; " + v.reason


#: Engine rejections that are ties or degenerate sets (the others: illegible region, contested border, ...).
_TIES = ("invalid", "constraint")


def _rejection_bucket(rejected: Unaskable | None, parsed: Parsed, scene: Scene) -> str:
    """The bucket of an engine rejection that is not a tie re-judged at the legend's precision."""
    kind = rejected.kind if rejected is not None else "invalid"
    if kind == "illegible":
        return "illegible_region"
    if kind == "contested":
        return "contested_border"
    if kind == "reading":  # the answer differs under a declared reading (templates/readings.yaml)
        return "definition_dependent"
    if kind not in _TIES:
        return "outside_template_domain"
    named = [parsed.params[p.name] for p in parsed.template.params if p.type == "Region"]
    if has_missing(scene, named) or _askable_without_missing(parsed, scene):
        return "no_data"
    if scene.map_type == "discrete":
        return "class_tie"
    return "beyond_ticks" if beyond_ticks(scene, named) else "degenerate"


def _askable_without_missing(parsed: Parsed, scene: Scene) -> bool:
    """Whether the question has an answer once the regions without a value are left off the map (on their exact
    values on a continuous map): then those N/A regions are why it is not asked."""
    missing = [c for c, r in scene.regions.items() if r.missing]
    if not missing:
        return False
    try:
        ask(parsed.template, scene.without(missing), parsed.params, reader=scene.map_type != "discrete")
    except (Unaskable, KeyError, ValueError):
        return False
    return True


def _at_legend_precision(v: Verdict, parsed: Parsed, scene: Scene) -> Question | None:
    """A continuous-map question rejected within the reading tolerance, re-asked at the legend's printed precision
    (:mod:`mapgen.recheck.reasons`): the question to judge (with a note), or None with ``v`` marked as a
    ``near_tie`` (None unmarked when even the exact values give no answer)."""
    precision = legend_precision(scene)
    if scene.map_type == "discrete" or exact_answer(parsed.template, scene, parsed.params) is None:
        return None
    shown = _display(scene, precision) if precision else None
    tau = _display(scene, reading(scene).tau)
    if precision is not None and precision / 2 < reading(scene).tolerance:
        try:
            q = at_precision(parsed.template, scene, parsed.params, precision)
        except Unaskable:
            q = None
        if q is not None:
            v.notes.append(f"judged at the legend's printed precision {shown} (values known to ± half of it): the "
                           f"values involved are closer than the reading tolerance (τ = {tau}) but apart at the "
                           "precision the colour bar prints")
            return q
    beyond = _number_beyond_ticks(parsed, scene)
    if beyond:
        v.ambiguous("beyond_ticks", beyond)
        return None
    v.ambiguous("near_tie", f"a near tie: the values involved are closer than the legend's printed precision "
                            f"{shown} (τ = {tau})" if shown else f"a near tie within τ = {tau} (the bar prints no "
                            "numbers)")
    return None


def _number_beyond_ticks(parsed: Parsed, scene: Scene) -> str | None:
    """Why a continuous-map question with a number beyond the colour bar's labelled ticks is not asked (the engine
    places no number off the bar), or None."""
    ticks = scene.legend.ticks
    numbers = [parsed.params[p.name] for p in parsed.template.params if p.type == "Number"]
    off = [x for x in numbers if ticks and isinstance(x, float) and not ticks[0] <= x <= ticks[-1]]
    if not off:
        return None
    shown = _display(scene, off[0])
    return (f"the number {shown:,.10g} lies beyond the colour bar's labelled ticks ({scene.legend.tick_labels[0]} to "
            f"{scene.legend.tick_labels[-1]}): the engine places no number off the bar")


def _not_asked(parsed: Parsed, scene: Scene) -> tuple[str, str] | None:
    """(bucket, why) a question read by its slots is not asked: a slot value outside the template's domain, or a
    template the engine asks on the other map type only."""
    if parsed.outside:
        return "outside_template_domain", "read, not asked: " + "; ".join(parsed.outside)
    if not parsed.template.applies_to(scene.map_type):
        return "no_continuous_form", (f"{parsed.template_id} is asked on {', '.join(parsed.template.map_types)} maps only: the engine has "
                f"no {scene.map_type}-map form of it (read, not judged)")
    return None


def _judge(v: Verdict, parsed: Parsed, q: Question, scene: Scene, raw: RawQuestion, published: bool,
           problems: list[tuple[str, str]]) -> None:
    """The verdict on MAPWise's answer against the engine's, with the deciding facts."""
    names = _answer_names(raw.ground_truth)
    v.program = q.program
    v.our_answer = "Yes" if parsed.yes_if and normalize_answer_name(str(q.answer)) == normalize_answer_name(parsed.yes_if) else (
        "No" if parsed.yes_if else mapwise_style(q, raw.ground_truth))
    v.verdict, v.metrics, v.reason = compare_answer(q, raw.ground_truth, parsed.yes_if)
    if v.verdict == "ambiguous":
        v.bucket = "no_gold_answer"
    if v.verdict == "disagree":
        _second_look(v, parsed, q, scene, raw, published)
    if v.verdict == "disagree":
        _derived_group_call(v, parsed)
    if problems:
        literal = f" (read literally, MAPWise's answer would {v.verdict})" if raw.ground_truth else ""
        v.ambiguous(problems[0][0], "ill-posed: " + "; ".join(text for _, text in problems) + literal)
    if raw.verified is not None:
        v.verified_verdict = compare_answer(q, raw.verified, parsed.yes_if)[0]
    answer_names = names + ([*q.answer] if q.answer_type == "list" else [str(q.answer)])
    if q.answer_type == "ranking":
        answer_names = names + [n for g in q.answer for n in g]
    v.facts = deciding_facts(scene, parsed, answer_names)


def _derived_group_call(v: Verdict, parsed: Parsed) -> None:
    """A disagreement on a group defined by direction from a region ("states south of Maharashtra": positions
    further south) is a matter of definition: MAPWise's authors may have drawn the line otherwise."""
    derived = [g for g in parsed.groups.values() if g.kind == "direction"]
    if derived:
        v.ambiguous("undefined_group", f"'{derived[0].name}' is read as {derived[0].source}; the answer depends on "
                    "where the line is drawn (MAPWise's answer disagrees with that reading)")


def read_question(raw: RawQuestion, scene: Scene, aliases: MapwiseAliases, templates: TemplateSet | None = None
                  ) -> Parsed | Unparsed:
    """The question read by its template's MAPWise wordings, or else by filling its template's slots
    (:mod:`mapgen.recheck.slots`); the wordings' reason stays when neither reads it and the slot reader names no
    slot of the row's template."""
    parsed = parse_question(raw.question, scene, raw.template_no, templates, aliases)
    if not isinstance(parsed, Unparsed):
        return parsed
    by_slots = read_by_slots(raw.question, scene, raw.template_no, templates or load_templates(), aliases)
    if isinstance(by_slots, Parsed):
        return by_slots
    if parsed.reason.startswith("contradictory") or not (
            by_slots.reason.startswith("slot ") or parsed.reason.startswith("no template wording")):
        return parsed  # "contradictory wording 'less greater than'" says more than a slot
    return by_slots


def bar_ends_call(parsed: Parsed, scene: Scene, ground_truth: str) -> str | None:
    """Why a continuous map's overall range (T3) may be right though it differs from mapgen's ticks: MAPWise's
    answer is the first-to-last tick of its published bar ("0 - 70k" over values 7-75,137 with a tick every 10k),
    which the metadata does not record. Applies when both ends lie on one nice tick grid (2-15 steps) and each is
    within a step of the data range's end."""
    legend = scene.legend
    if parsed.template_id != "legend_overall_range" or legend.kind != "continuous":
        return None
    wanted = closed_range(ground_truth or "")
    if wanted is None or not wanted[1] > wanted[0]:
        return None
    scale = legend.label_scale or 1.0
    (lo, hi), vmin, vmax = wanted, legend.vmin * scale, legend.vmax * scale
    for steps in range(2, 16):
        step = (hi - lo) / steps
        if implied_ticks(f"{lo:.12g}-{lo + step:.12g}", lo, hi) and abs(lo - vmin) < step and abs(hi - vmax) < step:
            return (f"MAPWise's answer is the first-to-last tick of a bar ticked every {step:g} over the data range "
                    f"{vmin:g}-{vmax:g}; the published bar's ticks are not in the metadata")
    return None


def _second_look(v: Verdict, parsed: Parsed, q: Question, scene: Scene, raw: RawQuestion,
                 published: bool = False) -> None:
    """Turn a disagreement into ambiguous (judgement call, layout) or agree (MAPWise's India layout); with the
    published bar's ticks known, its first-to-last tick is a fact, not a judgement call."""
    call = judgement_call(parsed, q, scene, raw.ground_truth, raw.question)
    ends = None if published or call else bar_ends_call(parsed, scene, raw.ground_truth)
    if call is not None or ends:
        bucket, text = call if call is not None else ("bar_ticks_unknown", str(ends))
        v.ambiguous(bucket, text)
        return
    other = _layout_answer(parsed, scene)
    derived = scene.derived
    layout = ", ".join(f"{c} from {p}" for c, p in derived.items())
    if other is None or mapwise_style(other, raw.ground_truth) == v.our_answer:
        return
    if compare_answer(other, raw.ground_truth, parsed.yes_if)[0] == "agree":
        v.verdict = "agree"
        v.notes.append(f"agrees on MAPWise's 2014-2019 layout (without the derived regions {layout})")
    else:
        v.ambiguous("region_layout", f"the answer depends on the regions derived for the 2014-2019 layout "
                    f"({layout}): {v.our_answer!r} with them, {mapwise_style(other, raw.ground_truth)!r} without")


def recheck(
    data: ImportedSet, aliases: MapwiseAliases | None = None, templates: TemplateSet | None = None
) -> list[Verdict]:
    """Verdicts for every question of an imported set (questions on maps without metadata are unparsed)."""
    scenes = {ref: with_mapwise_groups(build_scene(on_published_ticks(spec))) for ref, spec in data.specs.items()
              if not ref.endswith(HATCHED_SPEC)}  # a hatched image's own map is built when its questions come
    hatched: dict[str, Scene] = {}
    out = []
    for raw in data.questions:
        try:
            verdict = _recheck_row(raw, data, scenes, hatched, aliases, templates)
        except Exception as exc:  # noqa: BLE001 — the contract: every question ends with a verdict
            verdict = Verdict(raw.country, raw.row, raw.map_ref, raw.map_id, raw.template_no, raw.question,
                              raw.ground_truth, "unparsed", reason=f"{INTERNAL} ({type(exc).__name__}: {exc})",
                              kind=raw.kind)
        out.append(verdict)
    return out


#: The reason of a question whose re-check failed inside mapgen (a bug to report; counted in ``summary.json``).
INTERNAL = "internal error"


def _recheck_row(raw: RawQuestion, data: ImportedSet, scenes: dict[str, Scene], hatched: dict[str, Scene],
                 aliases: MapwiseAliases | None, templates: TemplateSet | None) -> Verdict:
    """The verdict on one question of an imported set (its map's scene built once, the hatched one on demand)."""
    scene = scenes.get(raw.map_ref)
    if scene is not None and raw.variant == "hatched" and scene.legend.kind == "discrete":
        if raw.map_ref not in hatched:
            own = data.specs.get(raw.map_ref + HATCHED_SPEC, data.specs[raw.map_ref])
            hatched[raw.map_ref] = with_mapwise_groups(build_scene(make_hatched(own)))
        scene = hatched[raw.map_ref]
    if scene is None:
        return Verdict(raw.country, raw.row, raw.map_ref, raw.map_id, raw.template_no, raw.question,
                       raw.ground_truth, "unparsed", reason="no metadata for this map", kind=raw.kind)
    published = published_ticks(data.specs[raw.map_ref]) is not None
    verdict = recheck_question(raw, scene, aliases, templates, published)
    if scene is hatched.get(raw.map_ref):
        verdict.notes.append("asked on the hatched image only (json_data): judged on the hatched map")
    if published:
        verdict.notes.append("colour-bar ticks read from the published image")
    elif verdict.verdict == "unparsed":
        verdict = _on_implied_grid(verdict, raw, data.specs[raw.map_ref], aliases, templates)
    if verdict.verdict == "unparsed" and verdict.reason.startswith("contradictory wording"):
        verdict = _on_contradictory(verdict, raw, scene, aliases, templates)
    if verdict.verdict == "unparsed" and scene is not hatched.get(raw.map_ref):
        verdict = _on_open_range(verdict, raw, on_published_ticks(data.specs[raw.map_ref]), aliases, templates)
    if verdict.verdict == "unparsed" and scene is not hatched.get(raw.map_ref):
        verdict = _on_class_span(verdict, raw, data.specs[raw.map_ref], aliases, templates)
    if verdict.verdict == "disagree" and not published:
        verdict = _on_answer_grid(verdict, raw, data.specs[raw.map_ref], aliases, templates)
    if raw.kind is not None:
        verdict = counterfactual_verdict(verdict, raw, data.specs[raw.map_ref], scene, aliases, templates)
    return verdict


# ---------------------------------------------------------------------------------------------- counterfactual kinds

_PLACEHOLDER = re.compile(re.escape(UNKNOWN) + r"([A-Z]{2})\b")


def counterfactual_verdict(v: Verdict, raw: RawQuestion, spec: MapSpec, scene: Scene,
                           aliases: MapwiseAliases | None = None, templates: TemplateSet | None = None) -> Verdict:
    """A counterfactual kind's verdict (:mod:`mapgen.recheck.cfimport`): ambiguous where it needs what the files
    do not establish: the jumbled values (``jumb`` as released), or the name printed on a shape (``img``,
    ``shuff``)."""
    v.kind = raw.kind
    if spec.extra.get("values_unknown"):
        return _on_unknown_values(v, raw, scene, str(spec.extra["values_unknown"]), aliases, templates)
    if scene.renamed:
        return _on_unestablished_names(v, scene)
    return v


def _on_unknown_values(v: Verdict, raw: RawQuestion, scene: Scene, why: str, aliases: MapwiseAliases | None,
                       templates: TemplateSet | None) -> Verdict:
    """A ``jumb`` question cannot be judged; what can be is its ``original_data_answer`` on the original map."""
    if v.verdict == "unparsed":
        return v
    original = raw.columns.get("original_data_answer", "")
    on_original = recheck_question(replace(raw, ground_truth=original, verified=None), scene, aliases, templates)
    v.ambiguous("counterfactual_by_design", why)
    v.our_answer, v.metrics = None, {}
    v.notes.append(f"on the original values mapgen answers {on_original.our_answer!r}; MAPWise's "
                   f"original_data_answer {original!r}: {on_original.verdict}")
    return v


def _on_unestablished_names(v: Verdict, scene: Scene) -> Verdict:
    """Ambiguous when the question names, or the answer needs, a shape whose printed name is not established —
    unless every name MAPWise answers is established on a shape: then the shapes differ and it stays a
    disagreement."""
    if v.verdict == "unparsed" and v.reason.startswith("unknown region"):
        v.ambiguous("names_not_established", "the name " + v.reason.removeprefix("unknown region ").split(" (")[0]
                    + " is not established on any shape (MAPWise's files do not say where it is printed)")
    elif v.verdict == "disagree" and _PLACEHOLDER.search(v.our_answer or ""):
        shapes = ", ".join(_PLACEHOLDER.findall(v.our_answer or ""))
        theirs = _answer_names(v.ground_truth)
        placed = [n for n in theirs if normalize_name(n) in {normalize_name(r.name) for r in scene.regions.values()}]
        if theirs and len(placed) == len(theirs):
            v.reason = f"MAPWise's answer is printed on other shapes than the answer's (among them {shapes})"
            return v
        v.ambiguous("names_not_established",
                    f"the answer needs the name printed on {shapes} (not established from MAPWise's files)")
    return v


_OFF_GRID = re.compile(r"range '([^']+)' is not a legend range of this map \(tick intervals")
NICE_STEPS = (1.0, 2.0, 2.5, 5.0)
"""Mantissas of the tick steps a published colour bar may use (× 10^k)."""


def closed_range(text: str) -> tuple[float, float] | None:
    """Both bounds of a range as written ("2,000 - 4,000", "0-70k"); None when open or not a range."""
    wanted = find_range(re.sub(r"(?<=\d),(?=\d)", "", text))
    if wanted is None or wanted[0] is None or wanted[1] is None:
        return None
    return float(wanted[0]), float(wanted[1])


def implied_ticks(text: str, vmin: float, vmax: float) -> list[float] | None:
    """The tick grid a continuous-map range such as "0-200" implies: its width as the step (a nice number,
    1/2/2.5/5 × 10^k), its bounds on the grid, the grid covering [vmin, vmax] (display units); None if the range
    is not such a tick interval or lies off the bar."""
    wanted = closed_range(text)
    if wanted is None:
        return None
    lo, hi = wanted
    step = hi - lo
    if not step > 0:
        return None
    mantissa = step / 10 ** math.floor(math.log10(step))
    on_grid = math.isclose(lo / step, round(lo / step), abs_tol=1e-6)
    if not on_grid or not any(math.isclose(mantissa, m, rel_tol=1e-6) for m in NICE_STEPS):
        return None
    first, last = math.floor(vmin / step + 1e-9), math.ceil(vmax / step - 1e-9)
    if not (first * step - 1e-9 <= lo and hi <= last * step + 1e-9) or not 1 <= last - first <= 40:
        return None
    return [round(i * step, 12) for i in range(first, last + 1)]


def with_ticks(spec: MapSpec, shown: Sequence[float], labels: Sequence[str]) -> MapSpec:
    """The map with its colour bar ticked at ``shown`` (display units) labelled ``labels``; the bar's span grows
    to hold every tick."""
    legend = spec.legend
    scale = legend.label_scale or 1.0
    ticks = tuple(t / scale for t in shown)
    return replace(spec, legend=replace(legend, ticks=ticks, tick_labels=tuple(labels),
                                        vmin=min(legend.vmin, ticks[0]), vmax=max(legend.vmax, ticks[-1])))


def published_ticks(spec: MapSpec) -> dict[str, Any] | None:
    """The ticks read off the published colour bar at import (``extra["published_ticks"]``), if any."""
    ticks = spec.extra.get("published_ticks") if spec.legend.kind == "continuous" else None
    return ticks if ticks and len(ticks.get("values", ())) >= 2 else None


def on_published_ticks(spec: MapSpec) -> MapSpec:
    """The map ticked as its published image shows (unchanged when no ticks were read)."""
    ticks = published_ticks(spec)
    return spec if ticks is None else with_ticks(spec, ticks["values"], ticks["labels"])


def _on_implied_grid(v: Verdict, raw: RawQuestion, spec: MapSpec, aliases: MapwiseAliases | None,
                     templates: TemplateSet | None) -> Verdict:
    """Re-check a continuous-map question whose range is not one of mapgen's tick intervals on the nice tick grid
    the range implies (MAPWise's bars tick every 200, 1,000, 0.1 …). The grid is inferred, not read from the
    image: agreement stands (with a note), a disagreement on it is ambiguous."""
    m = _OFF_GRID.search(v.reason or "")
    legend = spec.legend
    if m is None or legend.kind != "continuous":
        return v
    scale = legend.label_scale or 1.0
    shown = implied_ticks(m.group(1), legend.vmin * scale, legend.vmax * scale)
    if shown is None:
        return v
    unit = "%" if legend.percent else ""
    grid = with_ticks(spec, shown, [f"{t:,.10g}{unit}" for t in shown])
    again = recheck_question(raw, with_mapwise_groups(build_scene(grid)), aliases, templates)
    if again.verdict == "unparsed":
        return v
    note = f"judged on the tick grid the range implies (every {shown[1] - shown[0]:,.10g}{unit}), not read from the image"
    again.notes.append(note)
    if again.verdict == "disagree":
        again.ambiguous("implied_tick_grid", f"{note}; on that grid the answer would disagree: {again.reason}")
    return again


def _on_answer_grid(v: Verdict, raw: RawQuestion, spec: MapSpec, aliases: MapwiseAliases | None,
                    templates: TemplateSet | None) -> Verdict:
    """A continuous-map disagreement whose MAPWise answer is a tick interval of a finer nice grid than mapgen's
    ticks ("2000 - 3000" on a bar mapgen ticks every 2,000): the published bar's ticks, which the metadata does not
    record. Agreeing on that grid, it is ``bar_ticks_unknown``."""
    legend = spec.legend
    scale = legend.label_scale or 1.0
    shown = implied_ticks(raw.ground_truth, legend.vmin * scale, legend.vmax * scale) \
        if legend.kind == "continuous" else None
    if shown is None:
        return v
    unit = "%" if legend.percent else ""
    grid = with_ticks(spec, shown, [f"{t:,.10g}{unit}" for t in shown])
    again = recheck_question(raw, with_mapwise_groups(build_scene(grid)), aliases, templates)
    if again.verdict not in ("agree", "ambiguous"):
        return v
    how = "agrees on it" if again.verdict == "agree" else f"is not contradicted on it ({again.bucket})"
    return v.ambiguous("bar_ticks_unknown", f"MAPWise's answer is a tick interval of a bar ticked every "
                       f"{shown[1] - shown[0]:,.10g}{unit} and {how}; the published bar's ticks are not in the "
                       f"metadata (mapgen's ticks give {v.our_answer!r})")


_LOWER_WORDS, _HIGHER_WORDS = r"less|lower|smaller|below", r"greater|higher|more|larger|above"
_TWO_WAYS = re.compile(rf"\b(?P<a>{_LOWER_WORDS}|{_HIGHER_WORDS})\s+(?P<b>{_LOWER_WORDS}|{_HIGHER_WORDS})\s+than\b",
                       re.IGNORECASE)


def _on_contradictory(v: Verdict, raw: RawQuestion, scene: Scene, aliases: MapwiseAliases | None,
                      templates: TemplateSet | None) -> Verdict:
    """A question that says two opposite comparisons at once ("values less greater than 12k") re-checked under
    each reading: the same answer under both is judged (with a note); different answers make it ambiguous
    (``contradictory_wording``), the reason saying which reading MAPWise's answer fits."""
    m = _TWO_WAYS.search(raw.question)
    if m is None or bool(re.fullmatch(_LOWER_WORDS, m["a"], re.I)) == bool(re.fullmatch(_LOWER_WORDS, m["b"], re.I)):
        return v
    readings = [raw.question[:m.start()] + f"{w} than" + raw.question[m.end():] for w in (m["a"], m["b"])]
    found = [recheck_question(replace(raw, question=text), scene, aliases, templates) for text in readings]
    if any(f.verdict == "unparsed" for f in found):
        return v
    first, second = found
    for f in found:
        f.question = raw.question
    if first.our_answer == second.our_answer and first.bucket == second.bucket:
        first.notes.append(f"'{m.group()}' says two comparisons; both readings give {first.our_answer!r}")
        return first
    fits = [w for w, f in zip((m["a"], m["b"]), found) if f.verdict == "agree"]
    said = f"MAPWise's answer fits the reading '{fits[0]} than'" if len(fits) == 1 else (
        "MAPWise's answer fits both readings" if fits else "MAPWise's answer fits neither reading")
    return first.ambiguous("contradictory_wording", f"'{m.group()}' says two opposite comparisons: '{m['a']} than' "
                           f"gives {first.our_answer!r}, '{m['b']} than' gives {second.our_answer!r}; {said}")


_OPEN_RANGE = re.compile(r"range '([^']+)' is not a legend range of this map \(tick intervals")


def open_range_ticks(text: str, shown: Sequence[float], vmin: float, vmax: float, precision: float
                     ) -> tuple[list[float], tuple[float, float]] | None:
    """The colour bar re-ticked so that an open range ("above 20000", "< 1M", "30 and below"; display units) is
    one tick interval: its threshold becomes a tick and the interval runs to the first tick of the bar's grid at
    least half a tick step beyond the data (``precision``, the finest digit the bar prints, is the step of a bar
    with one tick); a closed range that is no tick interval ("140-170" on a bar ticked every 20) gets both its ends
    as ticks. Returns (ticks, the interval), or None when ``text`` is no range or it lies off the data range."""
    wanted = find_range(re.sub(r"(?<=\d),(?=\d)", "", text))
    if wanted is None or wanted == (None, None) or not shown or not precision > 0:
        return None
    step = shown[1] - shown[0] if len(shown) > 1 and shown[1] > shown[0] else precision
    if wanted[0] is not None and wanted[1] is not None:
        return _closed_ticks(float(wanted[0]), float(wanted[1]), shown, vmin, vmax, step)
    eps = 1e-9 * step
    if wanted[0] is not None:
        x = float(wanted[0])
        top = shown[-1] + step * max(0, math.ceil((vmax + step / 2 - shown[-1]) / step - 1e-9))
        return ([t for t in shown if t < x - eps] + [x, top], (x, top)) if vmin < x < vmax else None
    x = float(wanted[1])  # type: ignore[arg-type]
    bottom = shown[0] - step * max(0, math.ceil((shown[0] - vmin + step / 2) / step - 1e-9))
    return ([bottom, x] + [t for t in shown if t > x + eps], (bottom, x)) if vmin < x < vmax else None


def _closed_ticks(lo: float, hi: float, shown: Sequence[float], vmin: float, vmax: float, step: float
                  ) -> tuple[list[float], tuple[float, float]] | None:
    """A closed range off the ticks ("140-170" on a bar ticked every 20): both ends become ticks (None when it is
    a tick interval already, empty, or off the data)."""
    eps = 1e-9 * step
    on_ticks = all(any(abs(t - end) <= eps for t in shown) for end in (lo, hi))
    if on_ticks or not (lo < hi and vmin < hi and lo < vmax):
        return None
    return [t for t in shown if t < lo - eps] + [lo, hi] + [t for t in shown if t > hi + eps], (lo, hi)


def _on_open_range(v: Verdict, raw: RawQuestion, spec: MapSpec, aliases: MapwiseAliases | None,
                   templates: TemplateSet | None) -> Verdict:
    """Re-check a continuous-map question with an open range where a legend range goes ("the easternmost state with
    value above 20000") on its bar re-ticked so that the open range is one tick interval
    (:func:`open_range_ticks`); the question is read with that interval written in place of the open range."""
    m = _OPEN_RANGE.search(v.reason or "")
    legend = spec.legend
    if m is None or legend.kind != "continuous":
        return v
    said = _said_range(m.group(1), raw.question)
    scale = legend.label_scale or 1.0
    shown = [t * scale for t in legend.ticks]
    step = min((p for p in map(label_precision, legend.tick_labels) if p), default=0.0)
    found = open_range_ticks(m.group(1), shown, legend.vmin * scale, legend.vmax * scale, step) if said else None
    if said is None or found is None:
        return v
    ticks, (lo, hi) = found
    unit = "%" if legend.percent else ""
    labels = dict(zip(shown, legend.tick_labels))
    text_of = {t: labels.get(t) or f"{t:,.10g}{unit}" for t in ticks}
    grid = with_ticks(spec, ticks, [text_of[t] for t in ticks])
    closed = f"{text_of[lo]} - {text_of[hi]}"
    text = raw.question[:said.start()] + closed + raw.question[said.end():]
    again = recheck_question(replace(raw, question=text), with_mapwise_groups(build_scene(grid)), aliases, templates)
    if again.verdict == "unparsed":
        return v
    again.question = raw.question
    ends = f"{lo:,.10g}{unit} and {hi:,.10g}{unit}" if closed_range(m.group(1)) else \
        f"{(lo if hi >= legend.vmax * scale else hi):,.10g}{unit} (the interval reaches the bar's end)"
    again.notes.append(f"{'range' if closed_range(m.group(1)) else 'open range'} '{said.group()}' read as the tick "
                       f"interval {closed} of the bar re-ticked at {ends}")
    return again


def _said_range(text: str, question: str) -> re.Match[str] | None:
    """Where ``question`` writes the range the reader read as ``text`` (as written, or a closed range written
    another way: "3M and 5M" for '3m - 5m')."""
    said = re.search(re.escape(text).replace(r"\ ", r"\s*"), question, re.IGNORECASE)
    wanted = closed_range(text)
    if said is not None or wanted is None:
        return said
    for m in _CLOSED_SAID.finditer(question):
        unit = re.search(r"[a-zA-Z%]+$", m["b"])
        low = m["a"] + (unit[0] if unit and not re.search(r"[a-zA-Z%]$", m["a"]) else "")
        if closed_range(f"{low} - {m['b']}") == wanted:
            return m
    return None


_CLOSED_SAID = re.compile(r"(?P<a>-?\d[\d,]*(?:\.\d+)?\s*[a-zA-Z%]*)\s*(?:-|–|to|and)\s*"
                          r"(?P<b>-?\d[\d,]*(?:\.\d+)?\s*[a-zA-Z%]*)")
_CLASS_SPAN = re.compile(r"range '([^']+)' is not a legend range of this map \(classes")


def _on_class_span(v: Verdict, raw: RawQuestion, spec: MapSpec, aliases: MapwiseAliases | None,
                   templates: TemplateSet | None) -> Verdict:
    """Re-check a discrete-map question whose range is no one class ("the range >200k", "higher than 1004.5", a
    range over two classes) on the map with the classes it holds drawn as one, labelled as the question writes
    it (:mod:`mapgen.recheck.spans`). A range that cuts a class is read twice, with the classes wholly inside it
    and with every class it touches: the same answer is judged, different answers are ``number_inside_class``."""
    m = _CLASS_SPAN.search(v.reason or "")
    span = class_span(m.group(1), spec) if m else None
    if m is None or span is None:
        return v
    text = m.group(1)
    label = span_label(text, spec.legend.percent)
    found = [recheck_question(raw, with_mapwise_groups(build_scene(merged_classes(spec, *run, label))), aliases,
                              templates) for run in dict.fromkeys((span.inner, span.outer)) if run]
    if any(f.verdict == "unparsed" for f in found):
        return v
    return _span_verdict(text, span, found, [c.label for c in spec.legend.classes])


def _span_verdict(text: str, span: Span, found: list[Verdict], labels: list[str]) -> Verdict:
    """The verdict on a range read on merged classes: on the classes wholly inside it, with a note, when it cuts
    no class or the answer is the same with the cut classes; else ``number_inside_class``."""
    first, last = found[0], found[-1]
    if span.clean:
        first.notes.append(f"range '{text}' read as the classes {' + '.join(labels[span.outer[0]:span.outer[1] + 1])} "
                           "taken together (the legend prints no one class for it)")
        return first
    cut = [labels[i] for i in range(span.outer[0], span.outer[1] + 1)
           if span.inner is None or not span.inner[0] <= i <= span.inner[1]]
    if len(found) == 2 and (first.our_answer, first.verdict) == (last.our_answer, last.verdict):
        first.notes.append(f"range '{text}' cuts the class {', '.join(cut)}; the same answer with or without it")
        return first
    answers = [repr(f.our_answer) if f.verdict in ("agree", "disagree") else "no answer" for f in found]
    within = f"on the classes wholly inside it: {answers[0]}; " if span.inner else ""
    return last.ambiguous("number_inside_class", f"the range '{text}' cuts the class{'es' if len(cut) > 1 else ''} "
                          f"{', '.join(cut)}: {'their' if len(cut) > 1 else 'its'} regions cannot be placed against it "
                          f"({within}with the cut classes: {answers[-1]})")


# ---------------------------------------------------------------------------------------------- outputs


def summary_rows(verdicts: list[Verdict]) -> list[dict[str, Any]]:
    """Counts per country × MAPWise template number (as MAPWise labels it), plus per-country totals."""
    keys = sorted({(v.country, v.template_no or 0) for v in verdicts})
    rows = []
    for country, t in keys + sorted({(v.country, "all") for v in verdicts}):
        sel = [v for v in verdicts if v.country == country and (t == "all" or (v.template_no or 0) == t)]
        c = Counter(v.verdict for v in sel)
        n = len(sel)
        rows.append({"country": country, "template_no": t, "n": n, "parsed": n - c["unparsed"],
                     "parsed_pct": round(100 * (n - c["unparsed"]) / n, 1) if n else 0.0,
                     **{k: c[k] for k in VERDICTS}})
    return rows


HELD_OUT: dict[str, frozenset[str]] = {
    "usa": frozenset({"10121", "11175", "11719"}),
    "india": frozenset({"100_4C", "102_1D", "112_2D"}),
    "china": frozenset({"11_8D", "12_2C", "12_4C", "13_0D"}),
}
"""10 of the 30 sample maps kept out of the parser's tuning from this point on (the maps no test or data file
named when they were chosen); ``summary.json`` reports their parse rate separately."""


def _counts(verdicts: list[Verdict]) -> dict[str, Any]:
    c = Counter(v.verdict for v in verdicts)
    n = len(verdicts)
    return {"questions": n, **{k: c[k] for k in VERDICTS},
            "parsed_pct": round(100 * (n - c["unparsed"]) / n, 1) if n else 0.0,
            "ambiguous_by_reason": ambiguous_by_reason(verdicts)}


def ambiguous_by_reason(verdicts: Iterable[Verdict]) -> dict[str, int]:
    """Ambiguous verdicts per named bucket (:data:`AMBIGUOUS_BUCKETS`), most frequent first."""
    found = Counter(v.bucket or "unnamed" for v in verdicts if v.verdict == "ambiguous")
    return dict(sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))


def second_gold(verdicts: Iterable[Verdict]) -> dict[str, Any]:
    """MAPWise's "verified answer" column as a second gold, where the table has it: how many questions carry one
    (and differ from ``ground_truth``), and on the judged ones mapgen's verdict against each gold and the cross
    table (``ground_truth verdict / verified verdict``)."""
    have = [v for v in verdicts if v.verified is not None and v.verified.strip()]
    judged = [v for v in have if v.verdict in ("agree", "disagree") and v.verified_verdict in ("agree", "disagree")]
    cross = Counter(f"{v.verdict}/{v.verified_verdict}" for v in judged)
    return {
        "questions": len(have),
        "verified_differs": sum(1 for v in have if (v.verified or "").strip() != v.ground_truth.strip()),
        "judged": len(judged),
        "vs_ground_truth": {k: sum(1 for v in judged if v.verdict == k) for k in ("agree", "disagree")},
        "vs_verified": {k: sum(1 for v in judged if v.verified_verdict == k) for k in ("agree", "disagree")},
        "ground_truth/verified": {k: cross[k] for k in ("agree/agree", "agree/disagree", "disagree/agree",
                                                        "disagree/disagree")},
    }


def reason_kind(reason: str) -> str:
    """A reason without its specifics: ``unknown group 'in the X region'`` → ``unknown group '…'``; a trailing
    parenthesis (the map's ranges, closest names) is dropped."""
    kind = re.sub(r"\s*\(.*$", "", re.sub(r"'[^']*'", "'…'", reason))
    return " ".join(kind.split()) or reason


def summary_json(verdicts: list[Verdict]) -> dict[str, Any]:
    """Verdict counts overall, ``by_country``, ``by_kind`` (:func:`by_kind`), ``by_template`` (MAPWise's number), on the ``held_out`` maps
    (:data:`HELD_OUT`), and the ``unparsed_reasons`` (by kind, most frequent first)."""
    own = [v for v in verdicts if v.kind is None]
    by_country = {c: _counts([v for v in own if v.country == c]) for c in sorted({v.country for v in own})}
    templates = sorted({v.template_no or 0 for v in verdicts})
    by_template = {str(t): _counts([v for v in verdicts if (v.template_no or 0) == t]) for t in templates}
    held = [v for v in verdicts if v.kind is None and v.map_ref in HELD_OUT.get(v.country, ())]
    reasons = Counter(reason_kind(v.reason) for v in verdicts if v.verdict == "unparsed")
    return {**_counts(verdicts), "by_country": by_country, "by_kind": by_kind(verdicts), "by_template": by_template,
            "held_out": {"maps": sorted({f"{v.country}/{v.map_ref}" for v in held}), **_counts(held)},
            "unparsed_reasons": dict(reasons.most_common()),
            "second_gold": second_gold(verdicts),
            "internal_errors": internal_errors(verdicts)}


def internal_errors(verdicts: list[Verdict]) -> int:
    """How many questions failed inside mapgen (unparsed with the :data:`INTERNAL` reason)."""
    return sum(1 for v in verdicts if v.verdict == "unparsed" and v.reason.startswith(INTERNAL))


def by_kind(verdicts: list[Verdict]) -> dict[str, Any]:
    """Verdict counts per counterfactual kind (``counter_factuals/<kind>``; ``by_country`` counts the countries'
    own tables only). The counterfactual maps were never used to tune the parser: a held-out set."""
    kinds = sorted({v.kind for v in verdicts if v.kind})
    return {k: _counts([v for v in verdicts if v.kind == k]) for k in kinds}


def corrected_rows(source_csv: str | Path, layout_answer_col: str, verdicts: list[Verdict]) -> tuple[list[str],
                                                                                                  list[list[str]]]:
    """MAPWise's CSV with the ground truth replaced where we disagree (or MAPWise gave none)."""
    header, rows = read_csv_rows(source_csv)
    col = header.index(layout_answer_col)
    by_row = {v.row: v for v in verdicts}
    for i, row in enumerate(rows, start=1):
        v = by_row.get(i)
        if v is None or v.our_answer is None:
            continue
        if v.verdict == "disagree" or (v.verdict == "ambiguous" and not v.ground_truth.strip()):
            row[col] = v.our_answer
    return header, rows


def report_markdown(verdicts: list[Verdict]) -> str:
    """Figures per country and every disagreement with its deciding facts."""
    lines = ["# MAPWise recheck", "", "| country | n | parsed | parsed % | agree | disagree | ambiguous | unparsed |",
             "|---|---|---|---|---|---|---|---|"]
    for r in summary_rows(verdicts):
        if r["template_no"] == "all":
            lines.append(f"| {r['country']} | {r['n']} | {r['parsed']} | {r['parsed_pct']} | {r['agree']} | "
                         f"{r['disagree']} | {r['ambiguous']} | {r['unparsed']} |")
    for kind in ("disagree", "ambiguous", "unparsed"):
        lines += ["", f"## {kind}", ""]
        for v in verdicts:
            if v.verdict != kind:
                continue
            lines.append(f"- **{v.country} {v.map_ref} row {v.row}** (T{v.template_no} → {v.template_id}): "
                         f"{v.question}")
            lines.append(f"  - MAPWise: `{v.ground_truth}` · ours: `{v.our_answer}` {v.reason}")
            if kind == "disagree":
                for r in v.facts.get("regions", []):
                    lines.append(f"  - {r['name']} ({r['code']}): value {r['value']}, class {r['class']}, "
                                 f"colour {r['colour']}")
                leg = v.facts.get("legend", {})
                lines.append(f"  - legend hue spread {leg.get('hue_spread_deg')}°, darker is higher: "
                             f"{leg.get('darker_is_higher')}")
                if leg.get("classes"):
                    lines.append("  - legend: " + "; ".join(f"{c['label']} {c['colour']} (L={c['luminance']})"
                                                            for c in leg["classes"]))
                elif leg.get("ticks"):
                    lines.append(f"  - colour bar ticks {leg['ticks']}, τ = {leg.get('tolerance')}")
    return "\n".join(lines) + "\n"


def write_recheck(data: ImportedSet, verdicts: list[Verdict], out: str | Path, source_csv: str | Path) -> Path:
    """Write verdicts.jsonl, summary.csv, summary.json, report.md and corrected_questions.csv into ``out``."""
    out = Path(out)
    write_jsonl_atomic(out / "verdicts.jsonl", (v.to_dict() for v in verdicts), sort_keys=False, ensure_ascii=False)
    rows = summary_rows(verdicts)
    write_text_atomic(out / "summary.csv", csv_text([list(rows[0]), *([r.get(k, "") for k in rows[0]] for r in rows)]))
    write_summary(summary_json(verdicts), out)
    write_text_atomic(out / "report.md", report_markdown(verdicts))
    header, corrected = corrected_rows(source_csv, data.layout.answer_col, verdicts)
    write_text_atomic(out / "corrected_questions.csv", csv_text([header, *corrected]))
    return out


def write_summary(summary: dict[str, Any], out: str | Path) -> Path:
    """Write ``summary.json`` (a :func:`summary_json` dict) into ``out``."""
    return write_json_atomic(Path(out) / "summary.json", summary, sort_keys=False)


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """CSV text as :mod:`csv`'s default dialect writes it (``\\r\\n`` line ends)."""
    buf = io.StringIO(newline="")
    csv.writer(buf).writerows(rows)
    return buf.getvalue()
