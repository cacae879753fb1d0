"""Referring expressions (VRSBench visual grounding on maps): one phrase that picks out exactly one region.

Each expression comes with a *program* — a list of steps ``{"op": ..., "arg": ...}`` run over every region of the
map, CLEVR style (a handler per op; ``None`` = invalid, e.g. an extreme without a clear winner). An expression is
kept only when its program returns exactly its target (:func:`verify`). Wordings come from
``templates/describe/referring.yaml``; the target is never named.

Targets: legible regions (pixel facts) whose box survives rounding to the 0–100 prompt scale
(:data:`MIN_QUANTISED_IOU`).

Perceptual margins (an extreme must be visibly extreme, else the program is invalid):

- size: the largest (smallest) region's mask area is at least :data:`SIZE_MARGIN` times the runner-up's
  (runner-up's at least that times its own);
- image side (top/bottom/left/right-most): bbox centres at least :data:`POSITION_MARGIN_PX` apart;
- every extreme needs at least two candidates ("the largest of one" is not asked);
- compass direction (north/south/east/west-most): :meth:`Scene.furthest <mapgen.scene.Scene.furthest>` — the
  atlas rule (centroid of the largest polygon) with its degree margin, the same rule on each region's farthest
  point (a reader may place a region either way), AND the image reading (north = up, east = right; bbox
  centres, its pixel margin) must agree — so insets (Alaska, Hawaii) never make "northern-most"
  ambiguous;
- grid cell: every region considered lies at least :data:`CELL_MARGIN` (share of the image side) from the cell's
  borders it is near, else the step is invalid;
- continuous value extremes: the winner beats the runner-up by :data:`VALUE_MARGIN` of the colour-bar span.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mapgen.describe.attributes import (
    CELLS,
    NA_CATEGORY,
    box_from_100,
    box_to_100,
    darkness_ranks,
    image_size,
)
from mapgen.describe.wording import group_members_phrase, load_wordings, pick, render_text
from mapgen.scene import FARTHEST, Scene

SIZE_MARGIN = 1.25
POSITION_MARGIN_PX = 8.0
CELL_MARGIN = 0.03
VALUE_MARGIN = 0.05
#: Targets whose box, rounded to the 0-100 prompt scale, keeps at least this IoU with the true box (so a perfect
#: answer in the prompt convention is always an Acc@0.7 hit); smaller regions are not targets.
MIN_QUANTISED_IOU = 0.7
#: Expressions per type allowed in the first pass over targets (diversity); a second pass lifts it.
TYPE_CAP = 2

Program = list[dict[str, Any]]
Codes = list[str]


@dataclass(frozen=True)
class RefContext:
    """What programs read: the scene and the attribute records by code."""

    scene: Scene
    attrs: dict[str, dict[str, Any]]
    width: int
    height: int


def make_context(scene: Scene, attributes: Sequence[dict[str, Any]]) -> RefContext:
    width, height = image_size(scene)
    return RefContext(scene, {a["code"]: a for a in attributes}, width, height)


# ------------------------------------------------------------------------------------------ handlers


def _filter_class(ctx: RefContext, codes: Codes, arg: Any) -> Codes:
    return [c for c in codes if ctx.attrs[c]["category"] == arg]


def _filter_coastal(ctx: RefContext, codes: Codes, arg: Any) -> Codes:
    return [c for c in codes if ctx.attrs[c]["coastal"]]


def _filter_group(ctx: RefContext, codes: Codes, arg: Any) -> Codes:
    members = ctx.scene.group(arg)
    return [c for c in codes if c in members]


def _filter_borders(ctx: RefContext, codes: Codes, arg: Any) -> Codes:
    return [c for c in codes if c in ctx.scene.regions[arg].neighbors]


def _cell_bounds(ctx: RefContext, cell: str) -> tuple[float, float, float, float]:
    row = next(i for i, r in enumerate(CELLS) if cell in r)
    col = CELLS[row].index(cell)
    w3, h3 = ctx.width / 3, ctx.height / 3
    return col * w3, row * h3, (col + 1) * w3, (row + 1) * h3


def _filter_cell(ctx: RefContext, codes: Codes, arg: Any) -> Codes | None:
    x0, y0, x1, y1 = _cell_bounds(ctx, arg)
    mx, my = CELL_MARGIN * ctx.width, CELL_MARGIN * ctx.height
    inner_x = [b for b in (x0, x1) if 0 < b < ctx.width]
    inner_y = [b for b in (y0, y1) if 0 < b < ctx.height]
    out = []
    for c in codes:
        x, y = ctx.attrs[c]["centre"]
        if any(abs(x - b) < mx for b in inner_x) and y0 - my <= y <= y1 + my:
            return None
        if any(abs(y - b) < my for b in inner_y) and x0 - mx <= x <= x1 + mx:
            return None
        if ctx.attrs[c]["position"] == arg:
            out.append(c)
    return out


def _winner(scores: dict[str, float], margin: float, ratio: bool = False) -> str | None:
    """The code with the highest score when it beats the runner-up by ``margin`` (or a factor, ``ratio``).

    Needs at least two candidates: "the largest of one" is not a referring expression.
    """
    if len(scores) < 2:
        return None
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    (best, top), (_, second) = ranked[0], ranked[1]
    clear = top >= second * margin if ratio else top - second >= margin
    return best if clear else None


def _extreme_size(ctx: RefContext, codes: Codes, arg: Any) -> Codes | None:
    sign = 1 if arg == "largest" else -1
    if sign > 0:
        best = _winner({c: float(ctx.attrs[c]["area_px"]) for c in codes}, SIZE_MARGIN, ratio=True)
    else:
        best = _winner({c: 1.0 / max(1.0, ctx.attrs[c]["area_px"]) for c in codes}, SIZE_MARGIN, ratio=True)
    return [best] if best else None


_SIDE_KEYS: dict[str, Callable[[list[float]], float]] = {
    "top": lambda p: -p[1], "bottom": lambda p: p[1], "left": lambda p: -p[0], "right": lambda p: p[0],
}


def _extreme_position(ctx: RefContext, codes: Codes, arg: Any) -> Codes | None:
    key = _SIDE_KEYS[arg]
    best = _winner({c: key(ctx.attrs[c]["centre"]) for c in codes}, POSITION_MARGIN_PX)
    return [best] if best else None


def _extreme_direction(ctx: RefContext, codes: Codes, arg: Any) -> Codes | None:
    if len(codes) < 2:  # "the northern-most of one" is not a referring expression
        return None
    best = ctx.scene.furthest(codes, arg)
    if best is None or ctx.scene.furthest(codes, arg, point=FARTHEST) != best:
        return None  # "northern-most" read by the centre and by the farthest point must name the same region
    return [best]


def _extreme_value(ctx: RefContext, codes: Codes, arg: Any) -> Codes | None:
    lf = ctx.scene.legend_facts
    margin = VALUE_MARGIN * (lf.vmax - lf.vmin)
    sign = 1 if arg == "highest" else -1
    valued = [c for c in codes if ctx.attrs[c]["value"] is not None]
    if len(valued) != len(codes):
        return None
    best = _winner({c: sign * ctx.attrs[c]["value"] for c in valued}, margin)
    return [best] if best else None


def _unique(ctx: RefContext, codes: Codes, arg: Any) -> Codes | None:
    return codes if len(codes) == 1 else None


HANDLERS: dict[str, Callable[[RefContext, Codes, Any], Codes | None]] = {
    "filter_class": _filter_class,
    "filter_coastal": _filter_coastal,
    "filter_group": _filter_group,
    "filter_borders": _filter_borders,
    "filter_cell": _filter_cell,
    "extreme_size": _extreme_size,
    "extreme_position": _extreme_position,
    "extreme_direction": _extreme_direction,
    "extreme_value": _extreme_value,
    "unique": _unique,
}


def run_referring_program(ctx: RefContext, program: Program) -> Codes | None:
    """Run a program over every region of the map; None when a step is invalid."""
    codes: Codes = list(ctx.attrs)
    for step in program:
        picked = HANDLERS[step["op"]](ctx, codes, step.get("arg"))
        if picked is None:
            return None
        codes = picked
    return codes


def verify(ctx: RefContext, program: Program, target: str) -> bool:
    """True when the program picks out exactly ``target``."""
    return run_referring_program(ctx, program) == [target]


# ------------------------------------------------------------------------------------------ candidates


def _step(op: str, arg: Any = None) -> dict[str, Any]:
    return {"op": op, "arg": arg}


DIRECTIONS = ("north", "south", "east", "west")
SIDES = ("top", "bottom", "left", "right")


def candidate_programs(ctx: RefContext, target: str) -> dict[str, list[Program]]:
    """Expression type → programs built from the target's attributes (unverified)."""
    a = ctx.attrs[target]
    cat = a["category"]
    out: dict[str, list[Program]] = {}
    if cat == NA_CATEGORY:
        out["na_only"] = [[_step("filter_class", NA_CATEGORY), _step("unique")]]
        return out
    if cat is None:  # continuous map
        out["value_extreme"] = [[_step("extreme_value", e)] for e in ("highest", "lowest")]
        out["group_value_extreme"] = [
            [_step("filter_group", g), _step("extreme_value", e)] for g in _groups(ctx, target) for e in ("highest", "lowest")
        ]
    else:
        klass = _step("filter_class", cat)
        if a["is_unique"]:
            out["only_in_class"] = [[klass, _step("unique")]]
        out["class_size"] = [[klass, _step("extreme_size", e)] for e in ("largest", "smallest")]
        out["class_position"] = [[klass, _step("extreme_position", s)] for s in SIDES]
        out["class_direction"] = [[klass, _step("extreme_direction", d)] for d in DIRECTIONS]
        if a["coastal"]:
            out["class_coast_direction"] = [[klass, _step("filter_coastal"), _step("extreme_direction", d)] for d in DIRECTIONS]
        out["class_group_only"] = [[klass, _step("filter_group", g), _step("unique")] for g in _groups(ctx, target)]
        out["class_neighbour"] = [
            [klass, _step("filter_borders", n), _step("unique")]
            for n in a["neighbors"]
            if ctx.attrs[n]["legible"]
        ]
        out["cell_class"] = [[klass, _step("filter_cell", a["position"]), _step("unique")]]
    out["cell_size"] = [[_step("filter_cell", a["position"]), _step("extreme_size", e)] for e in ("largest", "smallest")]
    if a["coastal"]:
        out["coast_direction"] = [[_step("filter_coastal"), _step("extreme_direction", d)] for d in DIRECTIONS]
    return {t: p for t, p in out.items() if p}


def _groups(ctx: RefContext, target: str) -> list[str]:
    """Named groups of the target with at least 2 members on this map (sorted)."""
    return sorted(g for g in ctx.scene.regions[target].groups if len(ctx.scene.group(g)) >= 2)


# ------------------------------------------------------------------------------------------ wording


def class_phrase(ctx: RefContext, category: Any, rng: random.Random) -> str:
    """A phrase naming a legend class: by label, or by shade when it is an end class of a colour legend."""
    words = load_wordings("referring")
    scene = ctx.scene
    label = scene.legend.classes[category].label
    options = [render_text(t, label=label) for t in words["class_phrases"]["label"]]
    shade = _shade_word(ctx, category)
    if shade:
        options += [render_text(t, shade=shade) for t in words["class_phrases"]["shade"]]
    return pick(rng, options)


def _shade_word(ctx: RefContext, category: int) -> str | None:
    """``darkest`` / ``second-darkest`` / ``lightest`` / ``second-lightest`` for end classes (not on hatched maps)."""
    if ctx.scene.hatched:
        return None
    words = load_wordings("referring")["shade_words"]
    rank = darkness_ranks(ctx.scene)[category]
    for key in (rank, rank - ctx.scene.legend.k):
        if key in words:
            return words[key]
    return None


def _value_shade(ctx: RefContext, extreme: str) -> str:
    darker_high = ctx.scene.legend_facts.darkness_increases_with_value
    return "darkest" if (extreme == "highest") == darker_high else "lightest"


def wording_context(ctx: RefContext, program: Program, rng: random.Random) -> dict[str, Any]:
    """Template variables for a program's steps."""
    words = load_wordings("referring")
    scene = ctx.scene
    out: dict[str, Any] = {"word": scene.region_word, "words": scene.region_words, "country": scene.country}
    for step in program:
        op = step["op"]
        arg: Any = step.get("arg")  # a code, a class index, a group, a word: what the step takes
        if op == "filter_class" and arg != NA_CATEGORY:
            out["cls"] = class_phrase(ctx, arg, rng)
        elif op == "filter_group":
            out["group"] = scene.group_phrase(arg, "description")
            out["members"] = group_members_phrase(scene, arg)
        elif op == "filter_borders":
            out["neighbour"] = scene.regions[arg].name
        elif op == "filter_cell":
            out["cell"] = arg
        elif op == "extreme_size":
            out["ext"] = arg
        elif op == "extreme_position":
            out.update(side=arg, sidemost=words["side_words"][arg])
        elif op == "extreme_direction":
            out.update(dir=arg, dirmost=words["direction_words"][arg])
        elif op == "extreme_value":
            out["shade"] = _value_shade(ctx, arg)
    return out


def render_expression(ctx: RefContext, kind: str, program: Program, rng: random.Random) -> str:
    """The expression text for a verified program."""
    texts = load_wordings("referring")["types"][kind]
    return render_text(pick(rng, texts), **wording_context(ctx, program, rng))


# ------------------------------------------------------------------------------------------ generation


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two ``[x1, y1, x2, y2]`` boxes."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def quantised_iou(ctx: RefContext, code: str) -> float:
    """IoU between a region's box and its 0–100 rounding (the best answer in the prompt convention)."""
    box = ctx.attrs[code]["bbox"]
    rounded = box_from_100(box_to_100(box, ctx.width, ctx.height), ctx.width, ctx.height)
    return box_iou(box, rounded)


def _targets(ctx: RefContext, rng: random.Random) -> list[str]:
    """Legible targets, interleaving unique-in-class and non-unique ones (VRSBench's split), seeded."""
    legible = [c for c, a in ctx.attrs.items() if a["legible"] and quantised_iou(ctx, c) >= MIN_QUANTISED_IOU]
    unique = [c for c in legible if ctx.attrs[c]["is_unique"]]
    other = [c for c in legible if not ctx.attrs[c]["is_unique"]]
    rng.shuffle(unique)
    rng.shuffle(other)
    out: list[str] = []
    while unique or other:
        for pool in (unique, other):
            if pool:
                out.append(pool.pop())
    return out


def _first_valid(
    ctx: RefContext, target: str, used: dict[str, int], rng: random.Random, cap: int | None
) -> tuple[str, Program] | None:
    candidates = candidate_programs(ctx, target)
    kinds = sorted(candidates, key=lambda k: (used.get(k, 0), rng.random()))
    kinds = [k for k in kinds if cap is None or used.get(k, 0) < cap]
    for kind in kinds:
        programs = list(candidates[kind])
        rng.shuffle(programs)
        for program in programs:
            if verify(ctx, program, target):
                return kind, program
    return None


def referring_expressions(
    scene: Scene, attributes: Sequence[dict[str, Any]], seed: int = 0, n: int = 8
) -> list[dict[str, Any]]:
    """Up to ``n`` verified referring expressions (one per target region), deterministic per seed."""
    ctx = make_context(scene, attributes)
    rng = random.Random(f"{seed}:{scene.map_id}:referring")
    used: dict[str, int] = {}
    chosen: list[tuple[str, str, Program]] = []
    targets = _targets(ctx, rng)
    for cap in (TYPE_CAP, None):  # first pass: at most TYPE_CAP expressions per type, then any type
        for target in targets:
            if len(chosen) >= n:
                break
            if any(t == target for t, _, _ in chosen):
                continue
            found = _first_valid(ctx, target, used, rng, cap)
            if found:
                used[found[0]] = used.get(found[0], 0) + 1
                chosen.append((target, *found))
    order = {t: i for i, t in enumerate(targets)}
    chosen.sort(key=lambda item: order[item[0]])
    out: list[dict[str, Any]] = []
    for target, kind, program in chosen:
        a = ctx.attrs[target]
        out.append(
            {
                "question_id": f"{scene.map_id}-ref-{len(out):02d}",
                "map_id": scene.map_id,
                "expression": render_expression(ctx, kind, program, rng),
                "box": list(a["bbox"]),
                "box_norm": list(a["bbox_norm"]),
                "unique": bool(a["is_unique"]),
                "target_code": target,
                "type": kind,
                "program": program,
            }
        )
    return out
