"""Legibility audit: for every question, is the answer recoverable from the pixels, and if not, why.

For each map the oracle (:mod:`mapgen.audit.oracle`) reads every region; the audit then checks

- the legend: swatch colours read from the image vs the spec's class colours (``legend misread``), the
  smallest ΔE between two class colours (``colours too close`` below :data:`MIN_CLASS_DE`: a reader cannot
  match a region to its swatch), the colour bar's tick fit;
- every region: oracle reading vs the truth (a *misread* region), with the reasons for each misread;
- every question: the oracle's answer (same template, same parameters, on the Scene the oracle read) vs the
  ground truth. A question is *recoverable* when the oracle answers it correctly and no region it reads sits
  on an illegible legend. Wrong or flagged questions carry the reasons found.

Reasons (fixed vocabulary, :data:`REASONS`): region too small, colours too close, hatch unreadable, label
covering the sample area, legend misread, off the colour scale, colour bar resolution, borderline answer
(every read region was read within tolerance but the answer still changed: a value near a class edge, a
threshold or the perceptual tolerance), oracle could not answer.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mapgen.audit.legibility import CHECKS, MapChecks, check_record
from mapgen.audit.oracle import (
    ColorBar,
    OracleMap,
    answer,
    answers_equal,
    oracle_map,
    rendered_oracle_map,
    texture_distance,
)
from mapgen.benchmark import (
    AUDIT_FILE,
    AUDIT_KIND,
    AUDIT_MAPS_FILE,
    AUDIT_MARKDOWN_FILE,
    AUDIT_PREDICTIONS_FILE,
    AUDIT_SUMMARY_FILE,
    image_path,
    load_benchmark,
)
from mapgen.files import atomic_folder, dumps_json, jsonl_text, refuse_inside, write_files_atomic
from mapgen.legend.colors import hex_to_rgb, min_pairwise_delta_e, rgb_to_lab
from mapgen.questions import TemplateSet, hinges_on, load_templates, trace
from mapgen.questions.record import format_answer
from mapgen.render.api import RenderResult
from mapgen.scene import Scene

#: Two legend classes closer than this (CIE76 ΔE) cannot be told apart reliably on a map.
MIN_CLASS_DE = 6.0
#: Hatched legends: smallest combined face/texture distance between two swatches.
MIN_HATCH_DISTANCE = 0.15
#: A swatch read from the image farther than this from its spec colour means the legend was misdrawn/misread.
LEGEND_DE_TOL = 4.0
#: Regions under this many pixels (or whose sampling disc is under 2 px) count as too small when misread.
SMALL_AREA_PX = 150
SMALL_RADIUS_PX = 2.0
#: A continuous region is misread when its read value is off by more than this share of the bar's span.
CONTINUOUS_MISREAD = 0.025
#: Oracle accuracy targets per map kind (issue 10).
TARGETS = {"discrete": 0.99, "hatched": 0.95, "continuous": 0.95}

REASONS = (
    "region too small",
    "colours too close",
    "hatch unreadable",
    "label covering the sample area",
    "legend misread",
    "off the colour scale",
    "colour bar resolution",
    "borderline answer",
    "oracle could not answer",
)


# ------------------------------------------------------------------------------------------------ maps


@dataclass
class MapAudit:
    """Legend checks and region readings of one map."""

    map_id: str
    kind: str  # discrete | hatched | continuous
    flags: list[str]
    legend: dict[str, Any]
    misread: dict[str, dict[str, Any]]  # code -> {truth, read, reasons}
    regions: int
    legible: int
    oracle: OracleMap = field(repr=False)
    checks: MapChecks = field(default_factory=MapChecks)

    def to_dict(self) -> dict[str, Any]:
        return {"map_id": self.map_id, "kind": self.kind, "flags": self.flags, "legend": self.legend,
                "regions": self.regions, "legible_regions": self.legible,
                "misread_regions": self.misread, "legibility": self.checks.to_dict()}


def map_kind(map_type: str, hatched: bool) -> str:
    return "hatched" if hatched else map_type


def audit_map(png: str | Path) -> MapAudit:
    """Read one rendered map from its files and check its legend and every region."""
    return audit_oracle_map(oracle_map(png))


def audit_render(result: RenderResult) -> MapAudit:
    """:func:`audit_map` of a map just rendered, from memory (its Scene, PNG bytes, mask and record)."""
    return audit_oracle_map(rendered_oracle_map(result))


def audit_oracle_map(om: OracleMap) -> MapAudit:
    """Check the legend and every region of a map the oracle read."""
    truth, reading = om.truth, om.reading
    kind = map_kind(truth.map_type, truth.hatched)
    legend, flags = legend_checks(om)
    misread = {}
    for code, facts in truth.regions.items():
        r = reading.regions[code]
        truth_v: float | None
        read_v: float | None
        if truth.map_type == "discrete":
            wrong = r.class_index != facts.class_index
            truth_v, read_v = facts.class_index, r.class_index
        else:
            wrong = _continuous_error(om, code) is not None
            truth_v = None if facts.missing else facts.value
            read_v = None if r.na else r.value
        if wrong:
            misread[code] = {"truth": truth_v, "read": read_v, "legible": facts.legible,
                             "reasons": region_reasons(om, code, flags)}
    legible = sum(f.legible for f in truth.regions.values())
    return MapAudit(truth.map_id, kind, flags, legend, misread, len(truth.regions), legible, om,
                    check_record(om.files.record))


def _continuous_error(om: OracleMap, code: str) -> float | None:
    """Error of a continuous reading as a share of the span (inf for an N/A mix-up); None when within bounds."""
    facts, r = om.truth.regions[code], om.reading.regions[code]
    if facts.missing or r.na:
        return None if facts.missing == r.na else math.inf
    span = (om.truth.legend.vmax - om.truth.legend.vmin) or 1.0
    err = abs(r.value - facts.value) / span
    return err if err > CONTINUOUS_MISREAD else None


def legend_checks(om: OracleMap) -> tuple[dict[str, Any], list[str]]:
    """Legend facts read from the image and map-level flags (colours too close, legend misread)."""
    if om.truth.legend.kind == "discrete":
        return _discrete_legend_checks(om)
    if om.reading.bar is not None:
        return _colorbar_checks(om.truth.legend, om.reading.bar)
    return {}, ["legend misread"]


def _discrete_legend_checks(om: OracleMap) -> tuple[dict[str, Any], list[str]]:
    legend, reading = om.truth.legend, om.reading
    flags: list[str] = []
    info: dict[str, Any] = {}
    spec_colors = {c.index: c.color for c in legend.classes}
    found = {s.class_index for s in reading.swatches if s.class_index is not None}
    if found != set(spec_colors):
        flags.append("legend misread")
        info["missing_swatches"] = sorted(set(spec_colors) - found)
    class_swatches = [s for s in reading.swatches if s.class_index is not None]
    if om.truth.hatched:
        dist = _min_hatch_distance(class_swatches)
        info["min_swatch_distance"] = round(dist, 3) if math.isfinite(dist) else None  # null: fewer than 2 swatches
        if dist < MIN_HATCH_DISTANCE:
            flags.append("hatch unreadable")
    else:
        off = {i: _de(s.rgb, spec_colors[i]) for s in class_swatches if (i := s.class_index) is not None}
        info["swatch_vs_spec_de"] = {str(k): round(v, 2) for k, v in off.items()}
        if off and max(off.values()) > LEGEND_DE_TOL:
            flags.append("legend misread")
    de, pair = min_pairwise_delta_e([c.color for c in legend.classes])
    info["min_class_de"] = None if pair is None else round(de, 2)  # null: a legend of one class has no pair
    if pair is not None:
        info["closest_classes"] = list(pair)
    if de < MIN_CLASS_DE and not om.truth.hatched:
        flags.append("colours too close")
    return info, flags


def _colorbar_checks(legend: Any, bar: ColorBar) -> tuple[dict[str, Any], list[str]]:
    info: dict[str, Any] = {"tick_residual": round(bar.tick_residual, 5)}
    ends = [legend.colors[0], legend.colors[-1]]
    low_end = bar.lab[-1] if bar.orientation == "vertical" else bar.lab[0]
    high_end = bar.lab[0] if bar.orientation == "vertical" else bar.lab[-1]
    de_ends = [float(np.linalg.norm(low_end - _lab(ends[0]))), float(np.linalg.norm(high_end - _lab(ends[1])))]
    info["bar_end_de"] = [round(d, 2) for d in de_ends]
    steps = np.linalg.norm(np.diff(bar.lab, axis=0), axis=1)
    info["bar_de_per_px"] = round(float(np.median(steps)), 3)
    flags = ["legend misread"] if bar.tick_residual > 0.01 or max(de_ends) > LEGEND_DE_TOL else []
    return info, flags


def _lab(color: str) -> np.ndarray:
    return rgb_to_lab(np.array(hex_to_rgb(color), float))


def _de(rgb: np.ndarray, color: str) -> float:
    return float(np.linalg.norm(rgb_to_lab(rgb) - _lab(color)))


def _min_hatch_distance(swatches) -> float:
    best = math.inf
    for i, a in enumerate(swatches):
        for b in swatches[i + 1 :]:
            d = float(np.linalg.norm(a.lab - b.lab)) / 20.0 + texture_distance(a.texture, b.texture)
            best = min(best, d)
    return best


def region_reasons(om: OracleMap, code: str, map_flags: Iterable[str]) -> list[str]:
    """Why the oracle misread ``code`` (one or more of :data:`REASONS`)."""
    facts, r = om.truth.regions[code], om.reading.regions[code]
    pixels = facts.pixels or {}
    reasons = []
    if not facts.legible or pixels.get("area_px", 1e9) < SMALL_AREA_PX or r.radius < SMALL_RADIUS_PX:
        reasons.append("region too small")
    if _label_covers(om, code):
        reasons.append("label covering the sample area")
    flags = set(map_flags)
    if "legend misread" in flags:
        reasons.append("legend misread")
    if om.truth.map_type == "discrete":
        if om.truth.hatched:
            reasons.append("hatch unreadable")
        elif "colours too close" in flags or _classes_close(om, facts.class_index, r.class_index):
            reasons.append("colours too close")
    elif r.na != facts.missing:
        reasons.append("off the colour scale")
    else:
        reasons.append("colour bar resolution")
    return list(dict.fromkeys(reasons))


def _classes_close(om: OracleMap, a: int | None, b: int | None) -> bool:
    legend = om.truth.legend
    ca = legend.classes[a].color if a is not None else legend.na_color
    cb = legend.classes[b].color if b is not None else legend.na_color
    return _de(np.array(hex_to_rgb(ca), float), cb) < 2 * MIN_CLASS_DE


def _label_covers(om: OracleMap, code: str) -> bool:
    """Whether any drawn label box overlaps the disc the oracle sampled for ``code``."""
    x, y, r = om.reading.discs.get(code, (0.0, 0.0, 0.0))
    for label in om.files.record.get("labels", {}).values():
        x1, y1, x2, y2 = label["box"]
        dx, dy = max(x1 - x, 0.0, x - x2), max(y1 - y, 0.0, y - y2)
        if dx * dx + dy * dy <= r * r:
            return True
    return False


# ------------------------------------------------------------------------------------------------ questions


def question_reads(scene: Scene, record: Mapping[str, Any], templates: TemplateSet) -> set[str]:
    """Regions the question's program reads on ``scene`` (the true Scene of its map)."""
    return set(trace(templates.get(record["template_id"]), scene, dict(record.get("params") or {})).reads)


def hinges_on_failed(scene: Scene, record: Mapping[str, Any], templates: TemplateSet,
                     failed: Collection[str]) -> list[str]:
    """Regions failing a legibility check on which the question hinges: it names one, or its answer changes when
    they are treated as unreadable (left out of the legible regions, then each given any other legend level:
    the engine's rule for illegible regions, :func:`mapgen.questions.hinges_on`). Empty for every question the
    build asked, since it marks those regions illegible before asking."""
    return hinges_on(templates.get(record["template_id"]), scene, dict(record.get("params") or {}), failed)


def audit_question(record: Mapping[str, Any], ma: MapAudit, templates: TemplateSet) -> dict[str, Any]:
    """One audit row: oracle answer vs ground truth, reasons and flags."""
    om = ma.oracle
    got = answer(record, om.scene, templates)
    oracle_answer = None if got is None else got.answer
    correct = got is not None and answers_equal(got.answer, record["answer"], record["answer_type"])
    reads = question_reads(om.truth, record, templates)
    misread = sorted(c for c in reads if c in ma.misread)
    reasons: list[str] = []
    for c in misread:
        reasons += ma.misread[c]["reasons"]
    flags = [f for f in ma.flags if reads]
    if not correct:
        if got is None:
            reasons.append("oracle could not answer")
        if not misread:
            reasons.append("borderline answer")
    reasons = list(dict.fromkeys(reasons + ([] if correct else [f for f in flags if f not in reasons])))
    return {
        "question_id": record["question_id"],
        "map_id": record["map_id"],
        "template_id": record["template_id"],
        "mapwise_template": record.get("mapwise_template"),
        "answer_type": record["answer_type"],
        "map_kind": ma.kind,
        "variant": record.get("variant"),
        "country": record.get("country"),
        "answer": record["answer"],
        "oracle_answer": oracle_answer,
        "oracle_correct": bool(correct),
        "recoverable": bool(correct) and not flags,
        "misread_regions": misread,
        "failed_regions_read": sorted(c for c in reads if c in ma.checks.regions),
        "hinges_on_failed": hinges_on_failed(om.truth, record, templates, ma.checks.regions),
        "reasons": reasons if not correct else [],
        "flags": flags,
    }


# ------------------------------------------------------------------------------------------------ benchmark


@dataclass
class AuditResult:
    """Rows per question, per map, and the summary."""

    rows: list[dict[str, Any]]
    maps: list[dict[str, Any]]
    summary: dict[str, Any]
    paths: dict[str, Path] = field(default_factory=dict)


def audit_benchmark(bench: str | Path, out_dir: str | Path | None = None, progress: bool = False,
                    force: bool = False) -> AuditResult:
    """Audit every question (and map) of a benchmark folder; write the audit folder when ``out_dir`` is given
    (all-or-nothing, :func:`mapgen.files.atomic_folder`: a non-empty one is refused unless ``force``)."""
    folder = load_benchmark(bench, verify="all").require_records()  # refuses a tampered or unfinished build
    if out_dir is not None:
        refuse_inside(out_dir, folder.root, "the benchmark folder")
    questions = folder.question_records
    maps_meta = folder.map_index
    map_ids = list(dict.fromkeys([*maps_meta, *(q["map_id"] for q in questions)]))
    templates = load_templates(folder.pack_paths(), builtin=True)  # the built-in templates and the folder's packs
    by_map: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_map[q["map_id"]].append(q)
    rows, maps = [], []
    for i, map_id in enumerate(map_ids, 1):
        png = image_path(folder.root, map_id)
        if not png.with_suffix(".json").exists():
            continue
        ma = audit_map(png)
        meta = maps_meta.get(map_id, {})
        map_rows = [audit_question(q, ma, templates) for q in by_map.get(map_id, [])]
        rows += map_rows
        maps.append(ma.to_dict() | {"variant": meta.get("variant"), "country": meta.get("country"),
                                    "questions": len(map_rows),
                                    "oracle_correct": sum(r["oracle_correct"] for r in map_rows)})
        if progress:
            print(f"\raudited {i}/{len(map_ids)} maps", end="", flush=True)
    if progress:
        print()
    result = AuditResult(rows, maps, summarize(rows, maps))
    if out_dir is not None:
        with atomic_folder(out_dir, replace=force, kind=AUDIT_KIND) as tmp:
            write_audit(result, tmp)
        result.paths = write_audit_paths(Path(out_dir))
    return result


def _group(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[str(r.get(key))].append(r)
    return {k: _stats(v) for k, v in sorted(groups.items())}


def _stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    correct = sum(r["oracle_correct"] for r in rows)
    recoverable = sum(r["recoverable"] for r in rows)
    return {"questions": n, "oracle_correct": correct, "oracle_accuracy": round(correct / n, 4) if n else None,
            "recoverable": recoverable, "flagged": sum(bool(r["flags"]) for r in rows)}


def summarize(rows: list[dict[str, Any]], maps: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy per map kind / variant / country / template / answer type, targets, reasons, flagged maps."""
    by_kind = _group(rows, "map_kind")
    targets = {}
    for kind, target in TARGETS.items():
        acc = by_kind.get(kind, {}).get("oracle_accuracy")
        targets[kind] = {"target": target, "accuracy": acc, "met": None if acc is None else acc >= target}
    reasons = Counter(reason for r in rows if not r["oracle_correct"] for reason in r["reasons"])
    misread = Counter(reason for m in maps for mr in m["misread_regions"].values() for reason in mr["reasons"])
    legible_misread = sum(mr["legible"] for m in maps for mr in m["misread_regions"].values())
    return {
        "overall": _stats(rows),
        "targets": targets,
        "by_map_kind": by_kind,
        "by_variant": _group(rows, "variant"),
        "by_country": _group(rows, "country"),
        "by_template": _group(rows, "template_id"),
        "by_answer_type": _group(rows, "answer_type"),
        "failure_reasons": dict(reasons.most_common()),
        "maps": len(maps),
        "regions": sum(m["regions"] for m in maps),
        "misread_regions": sum(len(m["misread_regions"]) for m in maps),
        "misread_legible_regions": legible_misread,
        "misread_region_reasons": dict(misread.most_common()),
        "flagged_maps": {m["map_id"]: m["flags"] for m in maps if m["flags"]},
        "legibility": legibility_summary(rows, maps),
    }


def legibility_summary(rows: list[dict[str, Any]], maps: list[dict[str, Any]]) -> dict[str, Any]:
    """Maps failing each legibility check, regions made illegible, and questions that read one (should be 0)."""
    failing = {name: sum(name in m["legibility"]["flags"] for m in maps) for name in CHECKS}
    return {"maps_failing": failing,
            "maps_flagged": sum(bool(m["legibility"]["flags"]) for m in maps),
            "failed_regions": sum(len(m["legibility"]["failed_regions"]) for m in maps),
            "questions_reading_failed_regions": sum(bool(r["failed_regions_read"]) for r in rows),
            "questions_hinging_on_failed_regions": sum(bool(r["hinges_on_failed"]) for r in rows)}


def write_audit_paths(out: Path) -> dict[str, Path]:
    """The files :func:`write_audit` writes into ``out``, by name."""
    return {"audit": out / AUDIT_FILE, "maps": out / AUDIT_MAPS_FILE, "summary": out / AUDIT_SUMMARY_FILE,
            "markdown": out / AUDIT_MARKDOWN_FILE, "predictions": out / AUDIT_PREDICTIONS_FILE}


def write_audit(result: AuditResult, out_dir: str | Path) -> dict[str, Path]:
    """``audit.jsonl``, ``maps.jsonl``, ``summary.json``, ``audit.md`` and the oracle's answers as a predictions
    file, ``predictions.jsonl`` (score it with ``mapgen eval BENCH --predictions``), in ``out_dir``."""
    paths = write_audit_paths(Path(out_dir))
    texts = {"predictions": jsonl_text(oracle_predictions(result.rows)), "audit": jsonl_text(result.rows),
             "maps": jsonl_text(result.maps), "summary": dumps_json(result.summary, indent=2) + "\n",
             "markdown": render_markdown(result)}  # all serialised before any is written: all files or none
    write_files_atomic({paths[name]: text.encode("utf-8") for name, text in texts.items()})
    return paths


def oracle_predictions(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The oracle's answers of audit rows as predictions records ``{question_id, prediction}``, the prediction
    written as the prompts ask models to (``{"answer": ...}``)."""
    return [{"question_id": r["question_id"], "prediction": format_answer(r["oracle_answer"], r["answer_type"])}
            for r in rows]


def _table(title: str, groups: Mapping[str, Mapping[str, Any]], label: str) -> list[str]:
    lines = [f"## {title}", "", f"| {label} | questions | oracle correct | accuracy | recoverable | flagged |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, s in groups.items():
        acc = "-" if s["oracle_accuracy"] is None else f"{100 * s['oracle_accuracy']:.1f}%"
        lines.append(f"| {name} | {s['questions']} | {s['oracle_correct']} | {acc} | {s['recoverable']} | "
                     f"{s['flagged']} |")
    return [*lines, ""]


def render_markdown(result: AuditResult) -> str:
    """The audit as Markdown: targets, breakdown tables, failure reasons and every failing question."""
    s = result.summary
    lines = ["# Pixel audit", "", f"{s['overall']['questions']} questions on {s['maps']} maps; the pixel oracle "
             f"answers {s['overall']['oracle_correct']} correctly; {s['misread_regions']} of {s['regions']} "
             f"regions misread ({s['misread_legible_regions']} of them legible).", "",
             "| map kind | target | oracle accuracy | met |", "|---|---:|---:|---|"]
    for kind, t in s["targets"].items():
        acc = "-" if t["accuracy"] is None else f"{100 * t['accuracy']:.1f}%"
        met = "-" if t["met"] is None else ("yes" if t["met"] else "NO")
        lines.append(f"| {kind} | {100 * t['target']:.0f}% | {acc} | {met} |")
    lines.append("")
    for key, title, label in (("by_map_kind", "By map kind", "map kind"), ("by_variant", "By variant", "variant"),
                              ("by_country", "By country", "country"), ("by_answer_type", "By answer type",
                                                                        "answer type"),
                              ("by_template", "By template", "template")):
        lines += _table(title, s[key], label)
    lines += ["## Failure reasons", ""]
    lines += [f"- {k}: {v}" for k, v in s["failure_reasons"].items()] or ["- none"]
    lines += ["", "## Flagged maps", ""]
    lines += [f"- {m}: {', '.join(f)}" for m, f in s["flagged_maps"].items()] or ["- none"]
    lines += legibility_markdown(s["legibility"], result.maps)
    lines += ["", "## Questions the oracle gets wrong", ""]
    wrong = [r for r in result.rows if not r["oracle_correct"]]
    for r in wrong:
        lines.append(f"- `{r['question_id']}` ({r['map_kind']}, {r['template_id']}): truth "
                     f"{json.dumps(r['answer'])}, oracle {json.dumps(r['oracle_answer'])}; "
                     f"{', '.join(r['reasons'])}" + (f" (misread: {', '.join(r['misread_regions'])})"
                                                     if r["misread_regions"] else ""))
    if not wrong:
        lines.append("- none")
    return "\n".join(lines) + "\n"


def legibility_markdown(summary: Mapping[str, Any], maps: list[dict[str, Any]]) -> list[str]:
    """The legibility checks section: maps failing each check and the flags of every flagged map."""
    lines = ["", "## Legibility checks", "",
             f"{summary['maps_flagged']} maps fail a check; {summary['failed_regions']} regions made illegible; "
             f"{summary['questions_reading_failed_regions']} questions read one, "
             f"{summary['questions_hinging_on_failed_regions']} hinge on one (their reading could change the "
             "answer).", "",
             "| check | maps failing |", "|---|---:|"]
    lines += [f"| {name} | {n} |" for name, n in summary["maps_failing"].items()]
    lines.append("")
    for m in maps:
        leg = m["legibility"]
        if leg["flags"]:
            regions = ", ".join(leg["failed_regions"]) or "-"
            lines.append(f"- {m['map_id']}: {', '.join(leg['flags'])} (illegible: {regions})")
    return lines
