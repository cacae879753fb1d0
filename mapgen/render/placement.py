"""Region label placement as a small placement problem, solved once per (atlas, layout) (ARCHITECTURE.md §4).

Every label reserves the same box: the widest text any region may carry (``WW`` or the atlas's longest code),
padded. The rules, in order:

1. **Inside.** A region's label goes inside its largest part when the box fits there — at the pole of
   inaccessibility, else at the nearest fitting point of a grid over the part — and the part keeps a free circle
   of :data:`~mapgen.render.pixels.HATCH_MIN_RADIUS_PX` beside it (room to sample its colour or pattern).
2. **Callout.** Otherwise the label sits beside the region, joined by a straight leader line that ends in a dot
   inside the region. Candidates lie on 24 rays from the region's pole at growing distances. Hard rules: the box
   stays in the map box, touches neither its own region nor any placed label, leader line or dot, and hides at
   most :data:`MAX_HIDDEN_SHARE` of any other region; the line crosses no placed label or leader line and passes
   no dot. Among the candidates that obey them the cheapest wins: line length + :data:`CROSS_COST_PX` per other
   region the line crosses + :data:`LAND_COST_PX` × the share of the box over land (so the nearest free spot over
   sea or margin wins). Callouts are placed one by one (specks first, then top to bottom); when some region
   finds no spot, the pass is repeated with the failed regions first while that helps (at most
   :data:`REPAIR_PASSES` passes), then other orders are tried (top to bottom; smallest first) unless only specks
   are left; the placement with fewest failures, then lowest total cost, is kept.
3. **Unplaced.** A region left without a clean callout gets no label; annotated maps mark it illegible, so no
   question hinges on it. Regions smaller than one pixel get no label either.

Everything is deterministic (fixed candidate order, stable sorts, no randomness). Distances are in pixels at
800×600 and scale with the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np
import shapely
from shapely.geometry import LineString, Point, box
from shapely.prepared import prep

from mapgen.render.pixels import HATCH_MIN_RADIUS_PX, MIN_AREA_PX, MIN_RADIUS_PX, largest_part, pole

ANGLES = np.deg2rad(np.arange(0.0, 360.0, 15.0))  # candidate directions (0 = east, 90 = south: y grows down)
GAP_MIN_PX, GAP_MAX_PX, GAP_STEP_PX = 8.0, 200.0, 4.0  # distance from the pole to the near edge of the box
CROSS_COST_PX = 60.0  # a line crossing another region costs as much as this much more line
MAX_CROSSED = 2  # a leader line crosses at most this many other regions
LAND_COST_PX = 90.0  # a box wholly over land costs as much as this much more line
MAX_HIDDEN_SHARE = 0.25  # a callout box may cover at most this share of another region
LINE_CLEARANCE_PX = 2.0  # leader lines keep this far from other labels, lines and dots
BOX_CLEARANCE_PX = 2.0  # label boxes keep this far apart
INSIDE_PAD_PX = 1.0  # an inside label reserves its glyph box grown by this (the recorded text box)
CALLOUT_PAD_PX = 2.0  # a callout's white box and frame: its glyph box grown by this
SAMPLE_MARGIN_PX = 2.0  # sample points keep this far from label boxes
#: A region keeps a free circle this wide (or, when smaller, its own less half a pixel) beside labels: room to
#: read its pattern on hatched maps (the pole is found to half a pixel).
ROOM_PX = HATCH_MIN_RADIUS_PX + 0.5
#: A region with room to sample that finds no callout leaving every other region its full room may take this
#: margin (scaled with the page) of the others' room — the half pixel :data:`ROOM_PX` keeps for the pole's
#: precision, never the hatch period — and pass over regions the labels already left short of room, as long as
#: they lose nothing more.
ROOM_MARGIN_PX = ROOM_PX - HATCH_MIN_RADIUS_PX
CASING_WIDTH_PX = 3.4  # the white casing under a leader line (its dark core is drawn narrower)
DOT_RADIUS_PX = 2.5  # the end dot of a leader line (at most; it shrinks in narrow regions)
DOT_MIN_RADIUS_PX = 1.5  # the smallest end dot
DOT_DEPTH_PX = 0.5  # the dot's edge stays at least this far inside its region when the region allows it
REPAIR_PASSES = 3
OWN_ROOM_TRIES = 12  # valid callouts looked at for one that leaves its own region room to sample
CHUNK = 256  # candidates checked at once (cheapest first)


@dataclass(frozen=True)
class LabelPlace:
    """Where a region's label goes: ``inside`` centred at ``xy``, or ``callout`` at ``xy`` with a leader ``line``
    from the reserved box's edge to the ``dot`` (of ``dot_radius`` px) inside the region."""

    kind: str
    xy: tuple[float, float]
    line: tuple[tuple[float, float], ...] = ()
    dot: tuple[float, float] | None = None
    dot_radius: float = 0.0


@dataclass(frozen=True)
class BoxShape:
    """The reserved label box relative to its centre (PIL ``mm`` anchor): offsets left, top, right, bottom."""

    left: float
    top: float
    right: float
    bottom: float

    def at(self, xy: tuple[float, float]) -> tuple[float, float, float, float]:
        return (xy[0] + self.left, xy[1] + self.top, xy[0] + self.right, xy[1] + self.bottom)

    def grown(self, d: float) -> BoxShape:
        return BoxShape(self.left - d, self.top - d, self.right + d, self.bottom + d)


@dataclass
class Obstacles:
    """What placed labels occupy — boxes (inside and callout), leader lines and dots — kept as the geometries a
    new box (``for_boxes``) and a new line (``for_lines``) must not touch (each grown by its clearance)."""

    scale: float
    boxes: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    dots: list = field(default_factory=list)
    for_boxes: list = field(default_factory=list)
    for_lines: list = field(default_factory=list)
    for_samples: list = field(default_factory=list)
    free: dict = field(default_factory=dict)  # region → (free part, centre and radius of its largest circle)

    def add(self, place: LabelPlace, shapes: dict[str, BoxShape]) -> None:
        s = self.scale
        label = box(*shapes[place.kind].at(place.xy))
        self.boxes.append(label)
        taken = sample_obstacles(place, shapes, s)
        self.for_samples += taken
        for code in [c for c, (part, _, _) in self.free.items() if any(part.intersects(t) for t in taken)]:
            del self.free[code]
        self.for_boxes.append(label.buffer(BOX_CLEARANCE_PX * s, join_style="mitre"))
        self.for_lines.append(label.buffer(LINE_CLEARANCE_PX * s, join_style="mitre"))
        if place.dot is not None:
            line, dot = LineString(place.line), Point(place.dot).buffer(place.dot_radius)
            self.lines.append(line)
            self.dots.append(dot)
            self.for_boxes += [line.buffer(BOX_CLEARANCE_PX * s), dot.buffer((1 + BOX_CLEARANCE_PX) * s)]
            self.for_lines += [line, dot.buffer((1 + LINE_CLEARANCE_PX) * s)]

    def box_tree(self) -> shapely.STRtree | None:
        return _tree(self.for_boxes)

    def line_tree(self) -> shapely.STRtree | None:
        return _tree(self.for_lines)

    def keeps_room(self, problem: Problem, code: str, taken: list, relaxed: bool = False) -> bool:
        """Whether region ``code`` keeps a free circle of :meth:`Problem.room` once ``taken`` is removed too.
        ``relaxed``: its room less :data:`ROOM_MARGIN_PX` (scaled), or, when the labels already left it less,
        what it has."""
        need = problem.room(code)
        if need is None:
            return True
        free, centre, radius = self._free(problem, code)
        if relaxed:
            need = min(need - ROOM_MARGIN_PX * problem.scale, radius)
        elif radius < need:
            return False
        extra = shapely.union_all(taken)
        if extra.distance(Point(centre)) >= need:
            return True  # the circle the region has now stays clear
        rest = free.difference(extra)
        return not rest.is_empty and pole(largest_part(rest))[1] >= need

    def _free(self, problem: Problem, code: str) -> tuple:
        if code not in self.free:
            part = largest_part(problem.geoms[code])
            near = [g for g in self.for_samples if g.intersects(part)]
            free = part.difference(shapely.union_all(near)) if near else part
            centre, radius = pole(largest_part(free)) if not free.is_empty else ((0.0, 0.0), 0.0)
            self.free[code] = (free, centre, radius)
        return self.free[code]

    def union(self):
        """What sample points keep clear of, as one geometry (:func:`sample_obstacles` of every label)."""
        return shapely.union_all(self.for_samples)


def sample_obstacles(place: LabelPlace, shapes: dict[str, BoxShape], scale: float) -> list:
    """What a label takes from the regions under it: its box grown by :data:`SAMPLE_MARGIN_PX`, its leader line
    with its white casing and its dot, each with a pixel to spare."""
    out = [box(*shapes[place.kind].at(place.xy)).buffer(SAMPLE_MARGIN_PX, join_style="mitre")]
    if place.dot is not None:
        out.append(LineString(place.line).buffer(CASING_WIDTH_PX * scale / 2 + 0.5))
        out.append(Point(place.dot).buffer(place.dot_radius + 1.5))
    return out


def _tree(geoms: list) -> shapely.STRtree | None:
    return shapely.STRtree(geoms) if geoms else None


@dataclass
class Problem:
    """The fixed inputs of one placement: region geometry in pixels, mask, map box and the label box."""

    codes: tuple[str, ...]
    geoms: dict
    mask: np.ndarray
    map_box: tuple[float, float, float, float]
    ink: BoxShape  # the glyph box of the widest label text
    scale: float
    poles: dict
    land: np.ndarray = field(init=False)  # summed-area table of land pixels
    parts: shapely.STRtree = field(init=False)  # largest part of every region, in ``codes`` order
    cache: dict = field(init=False, default_factory=dict)  # per region: candidates, costs, dot target

    def __post_init__(self) -> None:
        self.land = _summed_area(self.mask > 0)
        self.parts = shapely.STRtree([largest_part(self.geoms[c]) for c in self.codes])

    def room(self, code: str) -> float | None:
        """The free circle region ``code`` keeps beside labels: :data:`ROOM_PX` (scaled down on pages smaller
        than 800×600, as :func:`inside_spot` leaves it beside an inside label), or its own inscribed radius less
        half a pixel when smaller; None for a speck with nothing to keep."""
        need = min(ROOM_PX * min(1.0, self.scale), self.poles[code][1] - 0.5)
        return need if need >= MIN_RADIUS_PX else None

    def index(self, code: str) -> int:
        return self.codes.index(code) + 1

    @property
    def shapes(self) -> dict[str, BoxShape]:
        """Box each kind of label reserves: inside labels their text box, callouts their framed box."""
        return {"inside": self.ink.grown(INSIDE_PAD_PX), "callout": self.ink.grown(CALLOUT_PAD_PX)}


def plan(problem: Problem) -> tuple[dict[str, LabelPlace], tuple[str, ...], Obstacles]:
    """Label places, the regions left unplaced, and the obstacles the placed labels make. Placements are
    compared by how many regions with room to sample are left unplaced, then by all unplaced, then by cost."""
    inside: dict[str, LabelPlace] = {}
    pending = []
    areas = np.bincount(problem.mask.ravel(), minlength=len(problem.codes) + 1)
    for code in problem.codes:
        xy = inside_spot(problem, code)
        if xy is not None:
            inside[code] = LabelPlace("inside", xy)
        elif areas[problem.index(code)] >= 1:
            pending.append(code)
    specks = {c for c in pending if areas[problem.index(c)] < MIN_AREA_PX}
    hopeless = specks | {c for c in pending if problem.room(c) is None}
    best = (inside, list(pending), float("inf"), _obstacles(problem, inside))
    for order in _orders(problem, pending, areas, hopeless):
        for _ in range(REPAIR_PASSES):
            obstacles = _obstacles(problem, inside)
            callouts, failed, cost = _place_callouts(problem, order, obstacles)
            improved = _rank(failed, cost, hopeless) < _rank(best[1], best[2], hopeless)
            if improved:
                best = (inside | callouts, failed, cost, obstacles)
            if not improved or set(failed) <= specks:
                break
            order = failed + [c for c in order if c not in failed]
        if set(best[1]) <= specks:
            break  # only specks (illegible whatever happens) are left without a label
    places, failed, _, obstacles = best
    return places, tuple(sorted(failed, key=problem.codes.index)), obstacles


def _rank(failed: list[str], cost: float, hopeless: set[str]) -> tuple[int, int, float]:
    """How good a placement is (lower is better): regions left unplaced that could be read, all left, cost."""
    return len(set(failed) - hopeless), len(failed), cost


def _obstacles(problem: Problem, places: dict[str, LabelPlace]) -> Obstacles:
    obstacles = Obstacles(problem.scale)
    for place in places.values():
        obstacles.add(place, problem.shapes)
    return obstacles


def _orders(problem: Problem, pending: list[str], areas: np.ndarray, hopeless: set[str]) -> list[list[str]]:
    """The callout orders tried: specks first then top to bottom, plain top to bottom, smallest first, and
    regions with room to sample first (``hopeless`` ones last), top to bottom."""
    y = {c: problem.poles[c][0][1] for c in pending}
    area = {c: int(areas[problem.index(c)]) for c in pending}
    return [sorted(pending, key=lambda c: (area[c] >= MIN_AREA_PX, y[c])), sorted(pending, key=lambda c: y[c]),
            sorted(pending, key=lambda c: (area[c], y[c])), sorted(pending, key=lambda c: (c in hopeless, y[c]))]


def _place_callouts(problem: Problem, order: list[str], obstacles: Obstacles):
    places, failed, total = {}, [], 0.0
    for code in order:
        found = best_callout(problem, code, obstacles)
        if found is None:
            failed.append(code)
        else:
            places[code], cost = found
            total += cost
            obstacles.add(places[code], problem.shapes)
    return places, failed, total


# --- inside labels -------------------------------------------------------------------------------------------


def inside_spot(problem: Problem, code: str) -> tuple[float, float] | None:
    """Centre of an inside label for ``code`` (the pole, else the nearest fitting grid point), or None."""
    part = largest_part(problem.geoms[code])
    xy = problem.poles[code][0]
    ink, reserved = problem.ink, problem.shapes["inside"]
    height = ink.bottom - ink.top
    if problem.poles[code][1] < height / 2:
        return None
    fits = prep(part)
    room = ROOM_PX * problem.scale
    for cand in [xy, *_grid(part, xy, max(2.0, height / 4))]:
        if fits.contains(box(*ink.at(cand))) and _room_left(part, box(*reserved.at(cand)), room):
            return (float(cand[0]), float(cand[1]))
    return None


def _grid(part, centre: tuple[float, float], step: float) -> list[tuple[float, float]]:
    """Grid points over ``part``'s bounds, nearest ``centre`` first (at most 300)."""
    x1, y1, x2, y2 = part.bounds
    xs, ys = np.meshgrid(np.arange(x1, x2, step), np.arange(y1, y2, step))
    pts = np.column_stack([xs.ravel(), ys.ravel()])
    order = np.argsort(np.hypot(pts[:, 0] - centre[0], pts[:, 1] - centre[1]), kind="stable")
    return [tuple(p) for p in pts[order][:300]]


def _room_left(part, label, room: float) -> bool:
    free = part.difference(label.buffer(SAMPLE_MARGIN_PX, join_style="mitre"))
    return not free.is_empty and pole(largest_part(free))[1] >= room


# --- callouts ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidates:
    """Every callout candidate of one region: box centres, gaps (pole to the box's near edge) and how many other
    regions the ray from the box to the pole crosses."""

    centres: np.ndarray
    gaps: np.ndarray
    crossed: np.ndarray


def best_callout(problem: Problem, code: str, obstacles: Obstacles) -> tuple[LabelPlace, float] | None:
    """The cheapest callout for ``code`` that obeys every hard rule (module docstring) and its cost, or None."""
    if code not in problem.cache:
        cands = candidates(problem, code)
        cost = _cheap_cost(problem, cands)
        order = np.argsort(cost, kind="stable")
        problem.cache[code] = (cands, cost, order[np.isfinite(cost[order])], dot_target(problem, code))
    cands, cost, order, target = problem.cache[code]
    trees = (obstacles.box_tree(), obstacles.line_tree())
    for relaxed in (False, True):
        for chunk in range(0, len(order), CHUNK):
            idx = order[chunk : chunk + CHUNK]
            found = _first_valid(problem, code, cands.centres[idx], target, obstacles, trees, relaxed)
            if found is not None:
                return found[0], float(cost[idx[found[1]]])
    return None


def dot_target(problem: Problem, code: str):
    """Where the end dot may go: the part of the region at least the dot's radius plus :data:`DOT_DEPTH_PX`
    inside it, or its pole when no such part exists (a region narrower than the dot)."""
    need = dot_radius(problem, code) + DOT_DEPTH_PX * problem.scale
    deep = largest_part(problem.geoms[code]).buffer(-need).simplify(0.25)
    return deep if not deep.is_empty else Point(problem.poles[code][0])


def _first_valid(problem: Problem, code: str, centres: np.ndarray, target, obstacles: Obstacles, trees,
                 relaxed: bool = False):
    """The first of the callouts centred at ``centres`` (cheapest first) that obeys every hard rule, preferring
    one that leaves its own region room to sample; with its index. Other regions keep their room
    (``relaxed``: as :meth:`Obstacles.keeps_room` relaxes it). Each one's dot is the point of ``target``
    nearest its box centre; its line runs from the box edge to the dot."""
    shape = problem.shapes["callout"]
    boxes = shapely.box(centres[:, 0] + shape.left, centres[:, 1] + shape.top, centres[:, 0] + shape.right,
                        centres[:, 1] + shape.bottom)
    free = np.nonzero(~shapely.intersects(problem.geoms[code], boxes) & ~_blocked(boxes, trees[0]))[0]
    if not len(free):
        return None
    dots = shapely.get_coordinates(shapely.shortest_line(shapely.points(centres[free]), target))[1::2]
    starts = exit_points(centres[free], dots, shape)
    # one line per start (a 3-D coordinate array gives an array of lines, not the single LineString the stub says)
    lines = cast(np.ndarray, shapely.linestrings(np.stack([starts, dots], axis=1)))
    fallback, tried = None, 0
    for k in np.nonzero(~_blocked(lines, trees[1]))[0]:
        j = int(free[k])
        place = LabelPlace("callout", (float(centres[j][0]), float(centres[j][1])),
                           ((float(starts[k][0]), float(starts[k][1])), (float(dots[k][0]), float(dots[k][1]))),
                           (float(dots[k][0]), float(dots[k][1])), dot_radius(problem, code))
        taken = sample_obstacles(place, problem.shapes, problem.scale)
        if _hides_a_region(problem, code, boxes[j]) or not _others_keep_room(problem, code, taken, obstacles, relaxed):
            continue
        if obstacles.keeps_room(problem, code, taken):
            return place, j
        fallback, tried = fallback or (place, j), tried + 1
        if tried >= OWN_ROOM_TRIES:
            break
    return fallback


def _touched(problem: Problem, geoms: list) -> set[str]:
    hits = problem.parts.query(geoms, predicate="intersects")[1]
    return {problem.codes[i] for i in np.unique(hits)}


def _others_keep_room(problem: Problem, code: str, taken: list, obstacles: Obstacles, relaxed: bool) -> bool:
    others = sorted(_touched(problem, taken) - {code})
    return all(obstacles.keeps_room(problem, other, taken, relaxed) for other in others)


def exit_point(centre, target, rect) -> tuple[float, float]:
    """Where the segment from ``centre`` (inside ``rect``) towards ``target`` leaves ``rect``."""
    (cx, cy), (tx, ty) = centre, target
    dx, dy = tx - cx, ty - cy
    ts = [1.0]
    if dx:
        ts.append(((rect[2] if dx > 0 else rect[0]) - cx) / dx)
    if dy:
        ts.append(((rect[3] if dy > 0 else rect[1]) - cy) / dy)
    t = max(0.0, min(ts))
    return (float(cx + t * dx), float(cy + t * dy))


def exit_points(centres: np.ndarray, targets: np.ndarray, shape: BoxShape) -> np.ndarray:
    """:func:`exit_point` for many boxes of one shape at once."""
    d = targets - centres
    with np.errstate(divide="ignore", invalid="ignore"):
        tx = np.where(d[:, 0] > 0, shape.right, shape.left) / d[:, 0]
        ty = np.where(d[:, 1] > 0, shape.bottom, shape.top) / d[:, 1]
    t = np.fmin(np.fmin(np.where(d[:, 0] != 0, tx, np.inf), np.where(d[:, 1] != 0, ty, np.inf)), 1.0)
    return centres + np.clip(t, 0.0, 1.0)[:, None] * d


def candidates(problem: Problem, code: str) -> Candidates:
    """Candidates on :data:`ANGLES` rays from the pole, every :data:`GAP_STEP_PX` from :data:`GAP_MIN_PX`
    (gap-major order: all angles at the smallest gap first)."""
    s, shape = problem.scale, problem.shapes["callout"]
    anchor = np.asarray(problem.poles[code][0], dtype=float)
    gaps = np.arange(GAP_MIN_PX, GAP_MAX_PX + 1e-9, GAP_STEP_PX) * s
    ux, uy = np.cos(ANGLES), np.sin(ANGLES)
    first_seen = _ray_crossings(problem, code, anchor, float(gaps[-1]))
    # distance from a box's centre to its edge along -u (the direction back to the pole)
    half_w = np.where(ux >= 0, -shape.left, shape.right)
    half_h = np.where(uy >= 0, -shape.top, shape.bottom)
    edge = np.minimum(half_w / np.maximum(np.abs(ux), 1e-9), half_h / np.maximum(np.abs(uy), 1e-9))
    crossed = np.column_stack([np.searchsorted(np.sort(f), gaps, side="right") for f in first_seen]).ravel()
    g = np.repeat(gaps, len(ANGLES))
    u = np.tile(np.column_stack([ux, uy]), (len(gaps), 1))
    centres = anchor + (g + np.tile(edge, len(gaps)))[:, None] * u
    return Candidates(centres, g, crossed)


def dot_radius(problem: Problem, code: str) -> float:
    """The end dot's radius: :data:`DOT_RADIUS_PX`, down to :data:`DOT_MIN_RADIUS_PX` in regions too narrow for it
    (half the region's inscribed radius), so the dot leaves room to read the region's colour."""
    s = problem.scale
    return float(np.clip(0.5 * problem.poles[code][1], DOT_MIN_RADIUS_PX * s, DOT_RADIUS_PX * s))


def _ray_crossings(problem: Problem, code: str, anchor: np.ndarray, reach: float) -> list[np.ndarray]:
    """Per ray from the pole: the distance at which each other region is first met."""
    mask, own = problem.mask, problem.index(code)
    h, w = mask.shape
    r = np.arange(0.0, reach + 1.0, 1.0)
    seen = []
    for ang in ANGLES:
        xs, ys = anchor[0] + r * np.cos(ang), anchor[1] + r * np.sin(ang)
        ids = mask[np.clip(ys.astype(int), 0, h - 1), np.clip(xs.astype(int), 0, w - 1)]
        ids = np.where((xs < 0) | (ys < 0) | (xs >= w) | (ys >= h), 0, ids)
        values, first = np.unique(ids, return_index=True)
        seen.append(r[first[(values != 0) & (values != own)]])
    return seen


def _cheap_cost(problem: Problem, cands: Candidates) -> np.ndarray:
    """Soft cost of every candidate (inf where the box leaves the map box): length, crossings, land under box."""
    shape, (left, top, right, bottom) = problem.shapes["callout"], problem.map_box
    x1, y1 = cands.centres[:, 0] + shape.left, cands.centres[:, 1] + shape.top
    x2, y2 = cands.centres[:, 0] + shape.right, cands.centres[:, 1] + shape.bottom
    ok = (x1 >= left + 1) & (y1 >= top + 1) & (x2 <= right - 1) & (y2 <= bottom - 1)
    land = _box_sums(problem.land, x1, y1, x2, y2) / ((x2 - x1) * (y2 - y1))
    s = problem.scale
    cost = cands.gaps + CROSS_COST_PX * s * cands.crossed + LAND_COST_PX * s * land
    return np.where(ok & (cands.crossed <= MAX_CROSSED), cost, np.inf)


def _blocked(geoms: np.ndarray, tree: shapely.STRtree | None) -> np.ndarray:
    """Which of ``geoms`` intersect any geometry of ``tree``."""
    out = np.zeros(len(geoms), dtype=bool)
    if tree is not None and len(geoms):
        out[np.unique(tree.query(geoms, predicate="intersects")[0])] = True
    return out


def _hides_a_region(problem: Problem, code: str, label) -> bool:
    """Whether a callout box covers more than :data:`MAX_HIDDEN_SHARE` of another region."""
    for other in sorted(_touched(problem, [label]) - {code}):
        geom = problem.geoms[other]
        if geom.intersection(label).area > MAX_HIDDEN_SHARE * geom.area:
            return True
    return False


# --- raster helpers ------------------------------------------------------------------------------------------


def _summed_area(image: np.ndarray) -> np.ndarray:
    table = np.zeros((image.shape[0] + 1, image.shape[1] + 1), dtype=np.int64)
    table[1:, 1:] = image.astype(np.int64).cumsum(0).cumsum(1)
    return table


def _box_sums(table: np.ndarray, x1, y1, x2, y2) -> np.ndarray:
    """Pixel counts inside boxes (pixel-centre rule, clipped to the image) from a summed-area table."""
    h, w = table.shape[0] - 1, table.shape[1] - 1
    c1, c2 = np.clip(np.ceil(x1 - 0.5), 0, w).astype(int), np.clip(np.ceil(x2 - 0.5), 0, w).astype(int)
    r1, r2 = np.clip(np.ceil(y1 - 0.5), 0, h).astype(int), np.clip(np.ceil(y2 - 0.5), 0, h).astype(int)
    return table[r2, c2] - table[r1, c2] - table[r2, c1] + table[r1, c1]


# --- full names inside their region ------------------------------------------------------------------------


def label_obstacles(places: dict[str, LabelPlace], shapes: dict[str, BoxShape], scale: float) -> dict[str, list]:
    """Per region, what its planned label occupies for another label's box: the box grown by
    :data:`BOX_CLEARANCE_PX`, and a callout's leader line and dot with the same clearance (as :class:`Obstacles`)."""
    out: dict[str, list] = {}
    for code, place in places.items():
        obstacles = Obstacles(scale)
        obstacles.add(place, shapes)
        out[code] = obstacles.for_boxes
    return out


def name_spot(part, ink: tuple[float, float, float, float], starts: list[tuple[float, float]], keep,
              others: shapely.STRtree | None) -> tuple[float, float] | None:
    """Centre for a text block of glyph box ``ink`` (relative to its centre) inside ``part``: the first of
    ``starts`` (the code's spot, the pole), then of a grid over the part nearest the first, where the recorded
    box (the glyph box grown by :data:`INSIDE_PAD_PX`) lies inside the part, clear of ``keep`` (the region's
    sample circle) and of every geometry of ``others`` (the other labels); None when there is none."""
    height = ink[3] - ink[1]
    grid = _grid(part, starts[0], max(1.0, height / 4))
    pts = np.asarray([*starts, *grid], dtype=float)
    pad = INSIDE_PAD_PX
    boxes = shapely.box(pts[:, 0] + ink[0] - pad, pts[:, 1] + ink[1] - pad, pts[:, 0] + ink[2] + pad,
                        pts[:, 1] + ink[3] + pad)
    shapely.prepare(part)
    ok = shapely.contains(part, boxes) & ~shapely.intersects(keep, boxes) & ~_blocked(boxes, others)
    hits = np.nonzero(ok)[0]
    return (float(pts[hits[0]][0]), float(pts[hits[0]][1])) if len(hits) else None
