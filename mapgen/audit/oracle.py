"""Pixel-reading oracle: recover every region's class or value from the PNG alone, then answer the questions.

What the oracle may look at:

- the rendered PNG (every colour and texture it uses is sampled from the image);
- the legend's pixel boxes from the render JSON (``legend_items``: where the swatches / the colour bar and its
  ticks are, and the legend's printed labels and tick values — the text a reader reads);
- the region-id mask, ONLY to know which pixels belong to a region (its interior), never for values;
- the per-region ``sample`` point and ``sample_radius`` (a label-free interior disc) and ``legible`` flags.

Reading rules:

- A region's colour is the per-channel median of the disc of radius ``sample_radius - 1.5`` (at most
  :data:`COLOR_RADIUS`) around its sample point, restricted to the region's mask pixels.
- Discrete coloured maps: the class of the legend swatch whose image colour (median of the swatch interior)
  is nearest in CIELAB (CIE76 ΔE).
- Hatched maps: the swatch minimising ΔE(face colours) / :data:`HATCH_DE_SCALE` + texture distance, where the
  texture is the normalised autocorrelation of the grey patch at offsets up to :data:`TEXTURE_LAG` px (shift
  invariant, so the pattern's phase does not matter). Regions too small for a texture patch use colour only.
- Continuous maps: the bar's colour profile (median across the bar, one colour per pixel along it); the
  region's colour is matched to the nearest profile colour (sub-pixel: parabola through the three nearest),
  and that position becomes a value through the least-squares line through the tick marks (pixel position →
  tick value). A colour farther than :data:`OFF_SCALE_DE` from every bar colour is N/A.

The oracle Scene is the map's own Scene with values and classes replaced by the read ones (discrete maps get
their class's mid value), legibility from the render; questions are re-asked on it with
:func:`mapgen.questions.ask` (``reader=True``) and the question's own parameters.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from mapgen.legend.colors import rgb_to_lab
from mapgen.questions import Question, TemplateSet, Unaskable, ask, load_templates
from mapgen.render.api import RenderResult
from mapgen.scene import Scene, build_scene, legend_facts, with_render_record
from mapgen.spec import MapSpec

#: Largest radius (px) of the colour-sampling disc.
COLOR_RADIUS = 6.0
#: Largest radius (px) of the texture patch on hatched maps.
TEXTURE_RADIUS = 12.0
#: Smallest radius (px) of the patch read on hatched maps.
MIN_TEXTURE_RADIUS = 4.0
#: Fewest pixels a texture patch needs.
MIN_TEXTURE_PIXELS = 12
#: Largest autocorrelation offset (px).
TEXTURE_LAG = 5
#: ΔE of face colours that weighs as much as a texture distance of 1 on hatched maps.
HATCH_DE_SCALE = 20.0
#: Percentile of a hatched patch's pixels taken as its face colour.
FACE_PERCENTILE = 90.0
#: A continuous region whose colour is farther than this from every bar colour is read as N/A.
OFF_SCALE_DE = 8.0
#: Pixels trimmed off each side of a swatch or colour bar before sampling it (frame and antialiasing).
INSET_PX = 2


# ------------------------------------------------------------------------------------------------ records


@dataclass
class Swatch:
    """One legend entry as read from the image."""

    class_index: int | None  # None: the N/A entry
    label: str
    rgb: np.ndarray
    lab: np.ndarray
    texture: np.ndarray | None = None


@dataclass
class ColorBar:
    """A continuous legend's colour profile and its pixel → value mapping (from the tick marks)."""

    orientation: str
    coords: np.ndarray  # pixel-centre coordinate along the bar (x for horizontal, y for vertical)
    rgb: np.ndarray
    lab: np.ndarray
    slope: float
    intercept: float
    tick_residual: float  # largest |fit - tick value| as a share of the span

    def value_at(self, coord: float) -> float:
        return self.slope * coord + self.intercept

    @property
    def span(self) -> tuple[float, float]:
        a, b = self.value_at(float(self.coords[0])), self.value_at(float(self.coords[-1]))
        return min(a, b), max(a, b)


@dataclass
class RegionReading:
    """What the oracle read for one region."""

    code: str
    value: float  # continuous: the read value; discrete: NaN (classes only); NaN also for N/A
    class_index: int | None  # discrete maps; None for N/A (and on continuous maps)
    na: bool
    rgb: tuple[int, int, int]
    distance: float  # ΔE (or combined hatch distance) to the chosen legend entry / bar colour
    margin: float  # second-best minus best distance (discrete; inf when there is one entry)
    n_pixels: int
    radius: float
    runner_up: int | None = None  # discrete: the second-nearest class (None = N/A or none)


@dataclass
class MapReading:
    """Everything read off one image."""

    map_id: str
    kind: str
    hatched: bool
    swatches: list[Swatch]
    bar: ColorBar | None
    regions: dict[str, RegionReading]
    discs: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # code -> (x, y, r) sampled

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"map_id": self.map_id, "kind": self.kind, "hatched": self.hatched}
        out["swatches"] = [{"class": s.class_index, "label": s.label, "rgb": [round(float(v)) for v in s.rgb]}
                           for s in self.swatches]
        if self.bar is not None:
            out["bar"] = {"orientation": self.bar.orientation, "pixels": len(self.bar.coords),
                          "tick_residual": round(self.bar.tick_residual, 6)}
        out["regions"] = {c: _reading_dict(r) for c, r in self.regions.items()}
        return out


def _reading_dict(r: RegionReading) -> dict[str, Any]:
    return {"value": None if math.isnan(r.value) else r.value, "class": r.class_index, "na": r.na,
            "rgb": list(r.rgb), "distance": round(r.distance, 3),
            "margin": None if math.isinf(r.margin) else round(r.margin, 3), "pixels": r.n_pixels}


# ------------------------------------------------------------------------------------------------ files


@dataclass
class RenderFiles:
    """A rendered map loaded from disk: image, mask and render record."""

    image: np.ndarray  # (H, W, 3) uint8
    mask: np.ndarray  # (H, W) region ids
    record: dict[str, Any]
    folder: Path | None = None  # where the render JSON lies (a user atlas path in it is relative to it)

    @property
    def spec(self) -> MapSpec:
        return MapSpec.from_dict(self.record["spec"], base=self.folder)


def load_render(png: str | Path) -> RenderFiles:
    """Load ``map.png`` with ``map.mask.png`` and ``map.json`` beside it."""
    png = Path(png)
    record = json.loads(png.with_suffix(".json").read_text(encoding="utf-8"))
    image = np.asarray(Image.open(png).convert("RGB"))
    mask = np.asarray(Image.open(png.with_suffix(".mask.png")))
    return RenderFiles(image, mask, record, png.parent)


def rendered_files(result: RenderResult) -> RenderFiles:
    """The files of a map just rendered, from memory: the PNG bytes it wrote (decoded), its mask, its record."""
    if result.mask_ids is None:
        raise ValueError("a render result without its region-id mask: render it with mapgen.render.render")
    image = np.asarray(Image.open(io.BytesIO(result.png)).convert("RGB"))
    return RenderFiles(image, result.mask_ids, result.record, result.json.parent)


# ------------------------------------------------------------------------------------------------ sampling


def _box_pixels(image: np.ndarray, box: Sequence[float], inset: int = INSET_PX) -> np.ndarray:
    """Pixels fully inside ``box`` (x1, y1, x2, y2 in pixel-edge coordinates), minus ``inset`` on each side."""
    x1, y1, x2, y2 = box
    c0, c1 = math.ceil(x1) + inset, math.floor(x2) - inset
    r0, r1 = math.ceil(y1) + inset, math.floor(y2) - inset
    if c1 <= c0 or r1 <= r0:
        c0, c1, r0, r1 = math.floor(x1), math.ceil(x2), math.floor(y1), math.ceil(y2)
    return image[r0:r1, c0:c1]


def disc_window(
    mask: np.ndarray, mask_id: int, center: Sequence[float], radius: float
) -> tuple[slice, slice, np.ndarray]:
    """Row/column slices of the square around ``center`` and the boolean disc ∩ region inside it.

    Pixel (col, row) has its centre at (col + 0.5, row + 0.5) in the render's pixel coordinates.
    """
    cx, cy = float(center[0]), float(center[1])
    h, w = mask.shape
    half = int(math.ceil(radius)) + 1
    c0, c1 = max(0, int(cx) - half), min(w, int(cx) + half + 1)
    r0, r1 = max(0, int(cy) - half), min(h, int(cy) + half + 1)
    ys, xs = np.mgrid[r0:r1, c0:c1]
    inside = (xs + 0.5 - cx) ** 2 + (ys + 0.5 - cy) ** 2 <= radius**2
    inside &= mask[r0:r1, c0:c1] == mask_id
    if not inside.any():  # tiny region: the pixel under the sample point, or any pixel of the region
        inside = mask[r0:r1, c0:c1] == mask_id
    return slice(r0, r1), slice(c0, c1), inside


def color_radius(sample_radius: float) -> float:
    """Radius of the colour-sampling disc for a region whose sample point is ``sample_radius`` from an edge."""
    return float(min(COLOR_RADIUS, max(0.75, sample_radius - 1.5)))


def median_color(pixels: np.ndarray) -> np.ndarray:
    """Per-channel median of ``(n, 3)`` pixels."""
    return np.median(pixels.reshape(-1, 3).astype(float), axis=0)


def face_color(pixels: np.ndarray) -> np.ndarray:
    """Face colour of a hatched patch: the :data:`FACE_PERCENTILE` percentile per channel (hatch ink is darker
    than every face, and the legend draws its hatches in a lighter ink than the map, so medians differ)."""
    return np.percentile(pixels.reshape(-1, 3).astype(float), FACE_PERCENTILE, axis=0)


# ------------------------------------------------------------------------------------------------ texture


def _offsets(lag: int) -> list[tuple[int, int]]:
    """Half-plane offsets (dx, dy) with 1 <= max(|dx|, |dy|) <= lag."""
    return [(dx, dy) for dy in range(0, lag + 1) for dx in range(-lag, lag + 1) if dy > 0 or dx > 0]


_OFFSETS = _offsets(TEXTURE_LAG)


#: Texture of a patch without hatch lines (flat colour): distance 0 to flat swatches, 1 to hatched ones.
FLAT = np.zeros(0)


def texture_features(grey: np.ndarray, valid: np.ndarray | None = None) -> np.ndarray | None:
    """Normalised autocorrelation of a grey patch at :data:`_OFFSETS` (NaN where no pixel pair exists).

    :data:`FLAT` for a patch without hatch lines; None when the patch is too small to tell.
    """
    g = grey.astype(float)
    valid = np.ones(g.shape, bool) if valid is None else valid
    vals = g[valid]
    if vals.size < MIN_TEXTURE_PIXELS:
        return None
    if vals.std() < 1.0:
        return FLAT
    z = np.where(valid, (g - vals.mean()) / vals.std(), 0.0)
    h, w = g.shape
    out = np.full(len(_OFFSETS), np.nan)
    for k, (dx, dy) in enumerate(_OFFSETS):
        if dy >= h or abs(dx) >= w:
            continue
        ca, cb = (slice(0, w - dx), slice(dx, w)) if dx >= 0 else (slice(-dx, w), slice(0, w + dx))
        ra, rb = slice(0, h - dy), slice(dy, h)
        both = valid[ra, ca] & valid[rb, cb]
        if both.sum() >= 4:
            out[k] = float((z[ra, ca] * z[rb, cb])[both].mean())
    return out


def texture_distance(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """Mean absolute difference of two autocorrelation vectors over the offsets both have.

    0 when either is unknown (None) or both are flat; 1 when exactly one is flat.
    """
    if a is None or b is None:
        return 0.0
    if a.size == 0 or b.size == 0:
        return 0.0 if a.size == b.size else 1.0
    both = ~(np.isnan(a) | np.isnan(b))
    return float(np.abs(a[both] - b[both]).mean()) if both.any() else 1.0


def _grey(rgb: np.ndarray) -> np.ndarray:
    return rgb[..., :3].astype(float) @ np.array([0.299, 0.587, 0.114])


# ------------------------------------------------------------------------------------------------ legend


def read_swatches(image: np.ndarray, items: Sequence[Mapping[str, Any]], hatched: bool) -> list[Swatch]:
    """Every swatch's colour (and texture on hatched maps) sampled from the image."""
    out = []
    for item in items:
        if "swatch" not in item:
            continue
        pixels = _box_pixels(image, item["swatch"])
        rgb = face_color(pixels) if hatched else median_color(pixels)
        texture = texture_features(_grey(pixels)) if hatched else None
        out.append(Swatch(item.get("class"), str(item.get("label", "")), rgb, rgb_to_lab(rgb), texture))
    return out


def read_colorbar(image: np.ndarray, items: Sequence[Mapping[str, Any]]) -> ColorBar | None:
    """The colour bar's profile and its tick-fitted pixel → value line."""
    head = next((i for i in items if "colorbar" in i), None)
    if head is None:
        return None
    x1, y1, x2, y2 = head["colorbar"]
    vertical = head.get("orientation", "vertical") == "vertical"
    c0, c1 = math.ceil(x1), math.floor(x2)
    r0, r1 = math.ceil(y1), math.floor(y2)
    if vertical:
        strip = image[r0 + 1 : r1 - 1, c0 + INSET_PX : c1 - INSET_PX]
        rgb = np.median(strip.astype(float), axis=1)
        coords = np.arange(r0 + 1, r1 - 1) + 0.5
    else:
        strip = image[r0 + INSET_PX : r1 - INSET_PX, c0 + 1 : c1 - 1]
        rgb = np.median(strip.astype(float), axis=0)
        coords = np.arange(c0 + 1, c1 - 1) + 0.5
    ticks = [(float(i["xy"][1 if vertical else 0]), float(i["tick"])) for i in items if "tick" in i]
    if len(ticks) < 2:  # no readable ticks: the bar's printed ends
        lo, hi = float(head["vmin"]), float(head["vmax"])
        ticks = [(y2, lo), (y1, hi)] if vertical else [(x1, lo), (x2, hi)]
    pos, val = np.array(ticks).T
    slope, intercept = np.polyfit(pos, val, 1)
    span = float(np.ptp(val)) or 1.0
    residual = float(np.abs(slope * pos + intercept - val).max() / span)
    return ColorBar("vertical" if vertical else "horizontal", coords, rgb, rgb_to_lab(rgb), float(slope),
                    float(intercept), residual)


# ------------------------------------------------------------------------------------------------ classify


def classify_color(lab: np.ndarray, swatches: Sequence[Swatch]) -> tuple[int, float, float]:
    """(swatch index, ΔE to it, margin to the runner-up) of the nearest swatch colour."""
    d = np.array([float(np.linalg.norm(lab - s.lab)) for s in swatches])
    return _best(d)


def classify_hatch(
    lab: np.ndarray, texture: np.ndarray | None, swatches: Sequence[Swatch]
) -> tuple[int, float, float]:
    """(swatch index, combined distance, margin): face ΔE / :data:`HATCH_DE_SCALE` + texture distance."""
    d = np.array([
        float(np.linalg.norm(lab - s.lab)) / HATCH_DE_SCALE + texture_distance(texture, s.texture)
        for s in swatches
    ])
    return _best(d)


def _best(d: np.ndarray) -> tuple[int, float, float]:
    order = np.argsort(d, kind="stable")
    best = int(order[0])
    margin = float(d[order[1]] - d[best]) if len(d) > 1 else math.inf
    return best, float(d[best]), margin


def bar_position(lab: np.ndarray, bar: ColorBar) -> tuple[float, float]:
    """(coordinate along the bar, ΔE) of the bar colour nearest to ``lab`` (sub-pixel by a parabola fit)."""
    d = np.linalg.norm(bar.lab - lab, axis=1)
    i = int(np.argmin(d))
    coord = float(bar.coords[i])
    if 0 < i < len(d) - 1:
        a, b, c = d[i - 1], d[i], d[i + 1]
        den = a - 2 * b + c
        if den > 1e-9:
            coord += float(np.clip(0.5 * (a - c) / den, -0.5, 0.5)) * float(bar.coords[1] - bar.coords[0])
    return coord, float(d[i])


# ------------------------------------------------------------------------------------------------ reading


def read_map(files: RenderFiles) -> MapReading:
    """Read every region's class (discrete) or value (continuous) from the image."""
    record, image, mask = files.record, files.image, files.mask
    legend = record["spec"]["legend"]
    kind = legend["kind"]
    hatched = kind == "discrete" and any(c.get("hatch") for c in legend.get("classes", ()))
    items = record.get("legend_items", [])
    swatches = read_swatches(image, items, hatched) if kind == "discrete" else []
    bar = read_colorbar(image, items) if kind == "continuous" else None
    ids = record["render"]["mask_ids"]
    labels = _label_mask(mask.shape, record.get("labels", {})) if hatched else None
    regions, discs = {}, {}
    for code, facts in record["regions"].items():
        sample, radius = facts["sample"], float(facts.get("sample_radius", 1.0))
        base: dict[str, Any] = {"code": code}
        if labels is not None:  # hatched maps
            r = hatch_radius(radius)
            rows, cols, inside = disc_window(mask, ids[code], sample, r)
            inside &= ~labels[rows, cols]
            patch = image[rows, cols]
            rgb = face_color(patch[inside]) if inside.any() else median_color(patch)
            texture = texture_features(_grey(patch), inside)
        else:
            r = color_radius(radius)
            rows, cols, inside = disc_window(mask, ids[code], sample, r)
            rgb = median_color(image[rows, cols][inside])
        lab = rgb_to_lab(rgb)
        discs[code] = (float(sample[0]), float(sample[1]), r)
        base |= {"rgb": tuple(int(round(v)) for v in rgb), "n_pixels": int(inside.sum()), "radius": r}
        if kind == "continuous":
            regions[code] = _read_continuous(lab, bar, base)
        else:
            regions[code] = _read_discrete(lab, texture if hatched else None, swatches, hatched, base)
    return MapReading(record["spec"]["map_id"], kind, hatched, swatches, bar, regions, discs)


def hatch_radius(sample_radius: float) -> float:
    """Radius of the patch read on hatched maps: the label-free disc, at least :data:`MIN_TEXTURE_RADIUS` (the
    region mask and the label boxes bound it), at most :data:`TEXTURE_RADIUS`."""
    return float(min(TEXTURE_RADIUS, max(MIN_TEXTURE_RADIUS, sample_radius - 1.0)))


def _label_mask(shape: tuple[int, ...], labels: Mapping[str, Any]) -> np.ndarray:
    """Pixels under any drawn label box (plus one pixel)."""
    out = np.zeros(shape[:2], bool)
    for label in labels.values():
        x1, y1, x2, y2 = label["box"]
        out[max(0, math.floor(y1) - 1) : math.ceil(y2) + 1, max(0, math.floor(x1) - 1) : math.ceil(x2) + 1] = True
    return out


def _read_discrete(lab, texture, swatches: Sequence[Swatch], hatched: bool, base: dict) -> RegionReading:
    if not swatches:
        return RegionReading(value=math.nan, class_index=None, na=True, distance=math.inf, margin=0.0, **base)
    best, dist, margin = classify_hatch(lab, texture, swatches) if hatched else classify_color(lab, swatches)
    d = [float(np.linalg.norm(lab - s.lab)) for s in swatches]
    order = np.argsort(d, kind="stable")
    runner = swatches[int(order[1])].class_index if len(order) > 1 and int(order[0]) == best else (
        swatches[int(order[0])].class_index)
    idx = swatches[best].class_index
    return RegionReading(value=math.nan, class_index=idx, na=idx is None, distance=dist, margin=margin,
                         runner_up=runner, **base)


def _read_continuous(lab, bar: ColorBar | None, base: dict) -> RegionReading:
    if bar is None:
        return RegionReading(value=math.nan, class_index=None, na=True, distance=math.inf, margin=0.0, **base)
    coord, dist = bar_position(lab, bar)
    if dist > OFF_SCALE_DE:
        return RegionReading(value=math.nan, class_index=None, na=True, distance=dist, margin=math.inf, **base)
    lo, hi = bar.span
    value = float(np.clip(bar.value_at(coord), lo, hi))
    return RegionReading(value=value, class_index=None, na=False, distance=dist, margin=math.inf, **base)


# ------------------------------------------------------------------------------------------------ scene


def truth_scene(files: RenderFiles) -> Scene:
    """The map's own Scene (spec + pixel facts and legibility from the render JSON)."""
    return with_render_record(build_scene(files.spec), files.record)


def oracle_scene(scene: Scene, reading: MapReading) -> Scene:
    """``scene`` with each region's value, class, label and colour replaced by what the oracle read."""
    legend = scene.legend
    discrete = scene.map_type == "discrete"
    regions = {}
    for code, facts in scene.regions.items():
        r = reading.regions.get(code)
        if r is None:
            regions[code] = facts
            continue
        if r.na:
            value, idx, label, color = math.nan, None, legend.na_label or "N/A", legend.na_color
        elif discrete and r.class_index is not None:  # not N/A: a class was read
            cls = legend.classes[r.class_index]
            value, idx, label, color = (cls.lower + cls.upper) / 2, cls.index, cls.label, cls.color
        else:
            value, idx, label, color = r.value, None, "", legend.color_of(r.value)
        hatch = legend.classes[idx].hatch if discrete and idx is not None else None
        regions[code] = replace(facts, value=value, class_index=idx, class_label=label, color=color, hatch=hatch)
    has_na = any(math.isnan(f.value) for f in regions.values())
    return replace(scene, regions=regions, legend_facts=legend_facts(legend, has_na))


# ------------------------------------------------------------------------------------------------ answering


@dataclass
class OracleMap:
    """A map's truth Scene, oracle reading and oracle Scene."""

    files: RenderFiles
    truth: Scene
    reading: MapReading
    scene: Scene


def oracle_map(png: str | Path) -> OracleMap:
    """Load and read one rendered map."""
    files = load_render(png)
    truth = truth_scene(files)
    reading = read_map(files)
    return OracleMap(files, truth, reading, oracle_scene(truth, reading))


def rendered_oracle_map(result: RenderResult) -> OracleMap:
    """:func:`oracle_map` of a map just rendered, nothing read from disk: the truth is the render's own Scene."""
    files = rendered_files(result)
    reading = read_map(files)
    return OracleMap(files, result.scene, reading, oracle_scene(result.scene, reading))


def answer(question: Question | Mapping[str, Any], scene: Scene, templates: TemplateSet | None = None
           ) -> Question | None:
    """The oracle's Question for ``question`` (a Question or its record: its template and parameters) on
    ``scene``, answered as a reader would (:func:`mapgen.questions.ask` with ``reader=True``); None when the
    program rejects the reading."""
    if isinstance(question, Question):
        template_id, params = question.template_id, question.params
    else:
        template_id, params = question["template_id"], question["params"]
    template = (templates or load_templates()).get(template_id)
    try:
        return ask(template, scene, dict(params), reader=True)
    except Unaskable:
        return None


def answers_equal(a: Any, b: Any, answer_type: str) -> bool:
    """Whether two canonical answers are the same (lists unordered; ranking groups unordered inside)."""
    if answer_type == "list":
        return sorted(map(str, a or [])) == sorted(map(str, b or []))
    if answer_type == "ranking":
        return [sorted(map(str, g)) for g in a or []] == [sorted(map(str, g)) for g in b or []]
    return a == b
