"""Scene: the computed facts about one map — the only thing question programs and captions read.

Built from a :class:`MapSpec` (values, legend, counterfactual names, image size) and its :class:`Atlas` (borders,
groups, positions). The Scene keeps neither: it carries the facts its readers need (region word, country title,
image size, names and groups through the atlas's :class:`Gazetteer`, positions, geometry centroids computed on
first use, MAPWise's derived regions). Pure and cheap: per-atlas facts are cached, so a Scene costs a few
dictionary look-ups per region and loads no geometry. Pixel facts (bbox, area in px, legibility) are merged in
after rendering with :meth:`Scene.with_pixels`.

Direction rule "as drawn" (:meth:`Scene.furthest`, used by questions and referring expressions alike): the
furthest region must lead by :data:`DIRECTION_MARGIN_DEG` of position (the atlas rule) and, on a rendered map,
also be furthest as drawn (bbox centres, north = up) by :data:`DIRECTION_MARGIN_PX`. Read by the farthest point
instead (a declared reading, ``templates/readings.yaml``): the geometry's extent and the drawn box's edge.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mapgen.caches import memo
from mapgen.geo.atlas_model import Atlas, LazyMapping, direction_key
from mapgen.geo.gazetteer import Gazetteer, RegionGroup
from mapgen.geo.languages import NativeNames, names_for
from mapgen.geo.names import (
    UnknownNameError,
    UnknownRegionError,
    build_index,
    closest_entries,
    normalize_name,
)
from mapgen.legend import EVENLY_SPACED, Legend, Spacing, legend_spacing
from mapgen.resources import template_path
from mapgen.spec import MapSpec
from mapgen.yamlio import safe_load

#: Counterfactual kinds that rename regions (their maps accept only the map's own names and labels).
RENAMING_KINDS = frozenset({"imaginary", "shuffled"})

#: Perceptual tolerance on continuous maps, as a share of the colour-bar span (vmax - vmin): how far a value
#: read off a colour bar may be from the truth. The questions (``mapgen.questions.functions``) and the
#: gold tables of the table-reading task (``mapgen.tasks``) share it.
PERCEPTUAL_TOLERANCE = 0.05
#: Two regions are told apart by direction only when their positions differ by at least this many degrees.
DIRECTION_MARGIN_DEG = 0.5
#: On rendered maps the furthest region must also lead as drawn, by at least this many pixels (bbox centres).
DIRECTION_MARGIN_PX = 8.0
#: Where a region is placed for direction questions (:meth:`Scene.furthest`): its centre, or its farthest point.
CENTRE, FARTHEST = "centre", "farthest point"
#: Plural nouns a group name can end in ("Great Lakes states"); see ``templates/describe/groups.yaml``.
PLURAL_NOUNS = ("states", "provinces", "islands", "regions")


@dataclass(frozen=True)
class RegionFacts:
    """Facts about one region of one map."""

    code: str
    name: str  # display name (counterfactual names included)
    label: str  # text drawn on annotated maps (code, or imaginary code)
    value: float  # NaN = N/A
    class_index: int | None  # discrete maps: legend class (0 = lowest); None for N/A and continuous maps
    class_label: str  # legend label of the class ("N/A" for missing; "" on continuous maps)
    color: str
    hatch: str | None
    neighbors: frozenset[str]
    groups: frozenset[str]
    lon: float
    lat: float
    area_km2: float
    legible: bool = True
    pixels: dict[str, Any] | None = None

    @property
    def missing(self) -> bool:
        return math.isnan(self.value)


@dataclass(frozen=True)
class LegendFacts:
    """Facts about the legend that questions ask (number of classes, ranges, spacing, darkness)."""

    kind: str
    num_classes: int
    labels: tuple[str, ...]  # by class index (lowest first); tick labels on continuous maps
    ranges: tuple[tuple[float, float], ...]  # class bounds by index; tick intervals on continuous maps
    widths: tuple[float, ...]
    gaps: tuple[float, ...]  # lower[i+1] - upper[i]
    spacing: Spacing | None  # "evenly spaced" / "significant gaps" as printed (mapgen.legend.spacing); None between
    darkness_increases_with_value: bool
    percent: bool
    order: str
    vmin: float
    vmax: float
    has_na: bool

    @property
    def evenly_spaced(self) -> bool:
        """Whether the legend's ranges are evenly spaced as printed (:func:`mapgen.legend.legend_spacing`)."""
        return self.spacing == EVENLY_SPACED


@dataclass(frozen=True)
class Scene:
    """Every computed fact about one map."""

    map_id: str
    country: str
    title: str
    map_type: str  # discrete | continuous
    hatched: bool
    annotated: bool
    counterfactual: str | None
    legend: Legend
    legend_facts: LegendFacts
    regions: dict[str, RegionFacts]
    region_word: str  # what a region is called ("state", "province", "region")
    country_title: str  # the atlas's title ("United States", "India")
    width: int  # image size in pixels (the spec's style)
    height: int
    derived: Mapping[str, str]  # MAPWise layouts: code of a region derived for the map -> code of its parent
    centroids: Mapping[str, tuple[float, float]] = field(repr=False, compare=False)  # display geometry; lazy
    gazetteer: Gazetteer = field(repr=False, compare=False)
    language: str = "en"  # the language questions are asked in (the spec's style)
    native: NativeNames | None = field(default=None, repr=False, compare=False)  # region names in that language
    #: Pairs ``(a, b)``, ``a < b``, whose border is contested (the atlas's, ARCHITECTURE.md §3): not neighbours,
    #: and no question hinges on them (the engine re-asks with each counted as a border).
    contested: tuple[tuple[str, str], ...] = ()
    #: The atlas's geographic facts by code (extents for the "farthest point" reading of directions).
    positions: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # --- regions -------------------------------------------------------------------------------------

    def __repr__(self) -> str:
        """One line: the map's id, country and type (the region facts run to thousands of characters)."""
        return (f"<Scene {self.map_id!r}: {self.country}, {self.map_type}{', hatched' if self.hatched else ''}, "
                f"{len(self.regions)} {self.region_word}s>")
    @property
    def renamed(self) -> bool:
        """True on counterfactual maps whose regions carry invented or swapped names."""
        return self.counterfactual in RENAMING_KINDS

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self.regions)

    @property
    def region_words(self) -> str:
        """Plural of the region word (``states``, ``provinces``)."""
        return plural(self.region_word)

    def region(self, name: str) -> RegionFacts:
        """Facts of a region given by code or display name."""
        return self.regions[self.resolve(name)]

    def resolve(self, name: str) -> str:
        """Code for a display name or code; on counterfactual maps the map's own names win."""
        index = _scene_index(self)
        code = index.get(normalize_name(name))
        if code is not None:
            return code
        if not self.renamed:
            return self.gazetteer.resolve(name)
        spellings = {r.name: c for c, r in self.regions.items()} | {c: c for c in self.regions}
        raise UnknownRegionError(str(name), closest_entries(name, spellings), f"map {self.map_id}",
                                 [r.name for r in self.regions.values()])

    def name_of(self, code: str) -> str:
        return self.regions[code].name

    def local_name(self, code: str) -> str:
        """The region's name in the map's language (its display name on English and renamed maps)."""
        return self.native.name(code) if self.native is not None and not self.renamed else self.regions[code].name

    def local_spellings(self, code: str) -> list[str]:
        """Accepted spellings of a region in the map's language first, then :meth:`spellings` (English)."""
        native = self.native.spellings(code) if self.native is not None and not self.renamed else ()
        return list(dict.fromkeys([*native, *self.spellings(code)]))

    def spellings(self, code: str) -> list[str]:
        """Accepted spellings of a region on this map (counterfactual maps accept only their own name/label)."""
        facts = self.regions[code]
        if self.renamed:
            return list(dict.fromkeys([facts.name, facts.label]))
        return list(dict.fromkeys([facts.name, *self.gazetteer.spellings(code), facts.label]))

    def atlas_spellings(self, code: str) -> tuple[str, ...]:
        """The atlas's spellings of a region (name, code, aliases), whatever this map calls it."""
        return self.gazetteer.spellings(code)

    def valued(self, codes: Any = None) -> list[str]:
        """Codes with a value (not N/A), optionally restricted to ``codes``."""
        pool = self.codes if codes is None else codes
        return [c for c in pool if not self.regions[c].missing]

    def legible(self, codes: Any = None) -> list[str]:
        """Codes a reader can read off the image."""
        pool = self.codes if codes is None else codes
        return [c for c in pool if self.regions[c].legible]

    # --- groups --------------------------------------------------------------------------------------
    @property
    def groups(self) -> Mapping[str, RegionGroup]:
        """Named groups of the atlas (curated, then ``bordering <country>``) by canonical name."""
        return self.gazetteer.groups

    def group_info(self, name: str) -> RegionGroup:
        """The group called ``name`` (aliases allowed); ``"bordering <region>"`` works for any region (on renamed
        maps, by the name the map prints: "bordering Moxie")."""
        try:
            return self.gazetteer.group_info(name)
        except UnknownNameError:
            target = name.strip().removeprefix("bordering ").strip()
            if not self.renamed or target == name.strip() or normalize_name(target) not in _scene_index(self):
                raise
        code = self.resolve(target)
        return RegionGroup(name=f"bordering {self.regions[code].name}", members=self.regions[code].neighbors,
                           kind="region_border", source="derived from the border graph")

    def group(self, name: str) -> frozenset[str]:
        """Members of a named group on this map."""
        return self.group_info(name).members & frozenset(self.regions)

    def group_phrase(self, name: str, style: str, kind: str | None = None) -> str:
        """How a group reads after a region word ("bordering Canada", "on the West Coast", ...), worded by
        ``style`` of ``templates/describe/groups.yaml`` (``kind`` defaults to the named group's kind)."""
        if kind is None:
            kind = self.group_info(name).kind
        form, variables = group_form(name, kind, self.country_title)
        rule = _group_wordings()["styles"][style][form]
        if isinstance(rule, dict):
            rule = rule[variables["noun"]]
        return " ".join(_compiled(rule).render(name=name, **variables).split())

    # --- directions ----------------------------------------------------------------------------------
    def direction_key(self, code: str, direction: str, point: str = CENTRE) -> float:
        """How far ``direction`` a region lies by its position (degrees; larger = further); ``point`` =
        :data:`FARTHEST`: by the extreme of its geometry (its extent) instead."""
        pos = self.positions.get(code) if point == FARTHEST else None
        if pos is not None:
            return {"north": pos.north, "south": -pos.south, "east": pos.east, "west": -pos.west}[direction]
        r = self.regions[code]
        return direction_key(r.lon, r.lat, direction)

    def drawn_key(self, code: str, direction: str, point: str = CENTRE) -> float | None:
        """How far ``direction`` a region is drawn (bbox centre, or its edge for :data:`FARTHEST`; pixels;
        north = up); None before a render."""
        pixels = self.regions[code].pixels
        if not pixels:
            return None
        x1, y1, x2, y2 = pixels["bbox"]
        if point == FARTHEST:
            return {"north": -y1, "south": y2, "east": x2, "west": -x1}[direction]
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        return {"north": -cy, "south": cy, "east": cx, "west": -cx}[direction]

    def extreme(self, codes: Iterable[str], direction: str) -> str:
        """The north-/south-/east-/west-most region of a set by position (no margin)."""
        ranked = sorted({self.resolve(c) for c in codes}, key=lambda c: (-self.direction_key(c, direction), c))
        if not ranked:
            raise ValueError("extreme() needs at least one region.")
        return ranked[0]

    def furthest(
        self, codes: Iterable[str], direction: str, test: Callable[[str], bool | None] | None = None,
        point: str = CENTRE,
    ) -> str | None:
        """The region furthest in ``direction`` passing ``test``, as positioned and as drawn; None when unclear.

        Every region ranked before it must clearly fail ``test`` (None = unreadable), it must lead the next
        passing region by :data:`DIRECTION_MARGIN_DEG`, and when every region has pixel facts the same region
        must be furthest as drawn by :data:`DIRECTION_MARGIN_PX` — so insets (Alaska, Hawaii) never make a
        direction disagree with the image. ``point`` is where a region is placed: :data:`CENTRE` (the position
        rule, bbox centres) or :data:`FARTHEST` (the geometry's extent, bbox edges).
        """
        whole = codes is self.regions  # the whole map: its orders as they are (the common case, kept fast)
        pool = list(codes)
        check = test or (lambda c: True)
        found = _furthest(self._ranked(pool, direction, False, point, whole), check,
                          lambda c: self.direction_key(c, direction, point), DIRECTION_MARGIN_DEG)
        if found is not None and (self._all_drawn() if whole else all(self.regions[c].pixels for c in pool)):
            drawn = _furthest(self._ranked(pool, direction, True, point, whole), check,
                              lambda c: self.drawn_key(c, direction, point), DIRECTION_MARGIN_PX)
            return found if drawn == found else None
        return found

    def _all_drawn(self) -> bool:
        """Whether every region has pixel facts (once per scene, kept beside the frozen fields)."""
        hit = self.__dict__.get("_all_drawn_regions")
        if hit is None:
            hit = self.__dict__["_all_drawn_regions"] = all(r.pixels for r in self.regions.values())
        return hit

    def _ranked(self, pool: list[str], direction: str, drawn: bool, point: str = CENTRE,
                whole: bool = False) -> list[str]:
        """``pool`` furthest in ``direction`` first, ties by code, by position or as drawn: the map's whole order,
        sorted once per scene and direction (kept beside the frozen fields), filtered to the pool (``whole``: the
        pool is every region of the map, all drawn when ``drawn``, so the order itself; do not change it)."""
        key = self.drawn_key if drawn else self.direction_key

        def by_key(codes: Iterable[str]) -> list[str]:
            return sorted(codes, key=lambda c: (-key(c, direction, point), c))  # type: ignore[operator]

        orders = self.__dict__.setdefault("_direction_orders", {})
        order = orders.get((direction, drawn, point))
        if order is None:
            order = orders[(direction, drawn, point)] = by_key(
                c for c in self.regions if not drawn or self.regions[c].pixels)
        if whole:
            return order
        members = set(pool)
        ranked = [c for c in order if c in members]
        return ranked if len(ranked) == len(pool) else by_key(pool)  # repeated or unknown codes: the pool itself

    # --- subsets -------------------------------------------------------------------------------------
    def without(self, codes: Iterable[str]) -> Scene:
        """The scene with some regions left out, as if the atlas had excluded them (neighbours, groups and
        names shrink; legend and values stay)."""
        drop = frozenset(codes)
        regions = {c: replace(r, neighbors=r.neighbors - drop) for c, r in self.regions.items() if c not in drop}
        has_na = any(r.missing for r in regions.values())
        return replace(
            self,
            regions=regions,
            contested=tuple(p for p in self.contested if not drop & set(p)),
            legend_facts=legend_facts(self.legend, has_na),
            derived={c: p for c, p in self.derived.items() if c not in drop},
            centroids=LazyMapping(lambda: {c: self.centroids[c] for c in regions}),
            gazetteer=self.gazetteer.without(drop),
        )

    # --- pixels --------------------------------------------------------------------------------------
    def with_pixels(self, pixels: dict[str, dict[str, Any]], legible: dict[str, bool]) -> Scene:
        """A copy with per-region pixel facts and legibility from a render."""
        regions = {
            c: replace(r, pixels=pixels.get(c), legible=legible.get(c, r.legible)) for c, r in self.regions.items()
        }
        return replace(self, regions=regions)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for ``mapgen scene --json`` and for render JSON files)."""
        lf = self.legend_facts
        return {
            "map_id": self.map_id,
            "country": self.country,
            "title": self.title,
            "map_type": self.map_type,
            "hatched": self.hatched,
            "annotated": self.annotated,
            "counterfactual": self.counterfactual,
            "legend": {
                "kind": lf.kind,
                "num_classes": lf.num_classes,
                "labels": list(lf.labels),
                "ranges": [list(r) for r in lf.ranges],
                "evenly_spaced": lf.evenly_spaced,
                "spacing": lf.spacing,
                "darkness_increases_with_value": lf.darkness_increases_with_value,
                "percent": lf.percent,
                "order": lf.order,
                "vmin": lf.vmin,
                "vmax": lf.vmax,
                "has_na": lf.has_na,
            },
            "regions": [
                {
                    "code": r.code,
                    "name": r.name,
                    "label": r.label,
                    "value": None if r.missing else r.value,
                    "class": r.class_index,
                    "class_label": r.class_label,
                    "color": r.color,
                    "hatch": r.hatch,
                    "neighbors": sorted(r.neighbors),
                    **({"contested": sorted(c for p in self.contested if r.code in p for c in p if c != r.code)}
                       if any(r.code in p for p in self.contested) else {}),
                    "groups": sorted(r.groups),
                    "position": {"lon": r.lon, "lat": r.lat},
                    "area_km2": r.area_km2,
                    "legible": r.legible,
                    "pixels": r.pixels,
                }
                for r in self.regions.values()
            ],
        }


def _scene_index(scene: Scene) -> dict[str, str]:
    """Normalised spelling → code; renamed maps index only their own names and labels."""
    if scene.renamed:
        return build_index({c: (r.name, r.label) for c, r in scene.regions.items()})
    return build_index({c: (c, r.name, r.label) for c, r in scene.regions.items()})


def _furthest(
    ranked: list[str], test: Callable[[str], bool | None], key: Callable[[str], Any], margin: float
) -> str | None:
    """First region of ``ranked`` (largest ``key`` first, ties by code) passing ``test``, leading the next passing
    one by ``margin``; None when a region ranked before it is unreadable, nothing passes, or the lead is too small."""
    found = None
    for c in ranked:
        ok = test(c)
        if ok is None:
            return None
        if not ok:
            continue
        if found is not None:
            return found if key(found) - key(c) >= margin else None
        found = c
    return found


def plural(word: str) -> str:
    """English plural of a region word (``state`` → ``states``, ``county`` → ``counties``)."""
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word if word.endswith("s") else word + "s"


def group_form(name: str, kind: str, country_title: str) -> tuple[str, dict[str, str]]:
    """Which form of ``templates/describe/groups.yaml`` a group name takes, with its variables (first rule
    that fits): ``bordering`` (border groups), ``lake`` ("Lake ..."), ``coast`` ("... coast"), ``plural``
    ("... states": ``noun`` and ``stem``), ``proper`` (ends in the country's title: "South China"), ``default``."""
    low = name.lower()
    if kind in ("foreign_border", "region_border") or name.startswith("bordering "):
        return "bordering", {}
    if kind == "lake" and low.startswith("lake "):
        return "lake", {}
    if low.endswith("coast"):
        return "coast", {}
    head, _, noun = name.rpartition(" ")
    if head and noun.lower() in PLURAL_NOUNS:
        return "plural", {"noun": noun.lower(), "stem": head}
    if country_title and low.endswith(country_title.lower()):
        return "proper", {}
    return "default", {}


@memo(1024)
def _wording_env() -> Any:
    """The sandboxed jinja2 environment of group wordings (imported on first use: a render asks none)."""
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(undefined=StrictUndefined, autoescape=False)


@memo(1024)
def _compiled(text: str) -> Any:
    return _wording_env().from_string(text)


@memo(1024)
def _group_wordings() -> dict[str, Any]:
    return safe_load(template_path("describe", "groups.yaml").read_text(encoding="utf-8"))


def legend_facts(legend: Legend, has_na: bool) -> LegendFacts:
    """Number of classes, ranges, widths, gaps, spacing and darkness direction of a legend."""
    if legend.kind == "discrete":
        ranges = tuple((c.lower, c.upper) for c in legend.classes)
        labels = tuple(c.label for c in legend.classes)
    else:
        ticks = legend.ticks
        ranges = tuple(zip(ticks[:-1], ticks[1:]))
        labels = tuple(legend.tick_labels)
    widths = tuple(hi - lo for lo, hi in ranges)
    gaps = tuple(ranges[i + 1][0] - ranges[i][1] for i in range(len(ranges) - 1))
    return LegendFacts(
        kind=legend.kind,
        num_classes=legend.k,
        labels=labels,
        ranges=ranges,
        widths=widths,
        gaps=gaps,
        spacing=legend_spacing(legend),
        darkness_increases_with_value=legend.darkness_increases_with_value,
        percent=legend.percent,
        order=legend.order,
        vmin=legend.vmin,
        vmax=legend.vmax,
        has_na=has_na,
    )


def build_scene(spec: MapSpec, atlas: Atlas | None = None) -> Scene:
    """Compute the Scene of a MapSpec."""
    atlas = atlas or spec.get_atlas()
    legend = spec.legend
    cf = spec.counterfactual or {}
    names, labels = cf.get("names", {}), cf.get("labels", {})
    per_atlas = atlas.membership
    discrete = legend.kind == "discrete"
    regions = {}
    for code in atlas.codes:
        value = float(spec.values.get(code, math.nan))
        idx = legend.class_of(value) if discrete else None
        cls = legend.classes[idx] if idx is not None else None
        neighbors, groups = per_atlas[code]
        pos = atlas.positions[code]
        regions[code] = RegionFacts(
            code=code,
            name=names.get(code) or atlas.names[code],
            label=labels.get(code) or code,
            value=value,
            class_index=idx,
            class_label=cls.label if cls else (legend.na_label or "N/A") if math.isnan(value) else "",
            color=legend.color_of(value),
            hatch=cls.hatch if cls else None,
            neighbors=neighbors,
            groups=groups,
            lon=pos.lon,
            lat=pos.lat,
            area_km2=pos.area_km2,
            legible=True,
        )
    has_na = any(r.missing for r in regions.values())
    return Scene(
        map_id=spec.map_id,
        country=atlas.name,
        title=spec.title,
        map_type=legend.kind,
        hatched=legend.hatched,
        annotated=spec.style.annotated,
        counterfactual=cf.get("kind"),
        legend=legend,
        legend_facts=legend_facts(legend, has_na),
        regions=regions,
        region_word=atlas.region_word or "region",
        country_title=atlas.title,
        width=int(spec.style.width),
        height=int(spec.style.height),
        derived=dict(spec.extra.get("derived") or {}),
        centroids=atlas.centroids,
        gazetteer=atlas.gazetteer,
        language=spec.style.language,
        native=names_for(spec.style.language, atlas.name),
        contested=_contested_pairs(atlas, regions),
        positions=atlas.positions,
    )


def _contested_pairs(atlas: Atlas, regions: Mapping[str, RegionFacts]) -> tuple[tuple[str, str], ...]:
    """The atlas's contested pairs among the scene's regions, each as ``(a, b)`` with ``a < b``, sorted."""
    pairs = [sorted(p) for p in atlas.contested if p <= regions.keys()]
    return tuple(sorted((a, b) for a, b in pairs))


def with_render_record(scene: Scene, record: dict[str, Any]) -> Scene:
    """The scene with the pixel facts and legibility a render wrote (``record["regions"]``: code → facts)."""
    regions = record["regions"]
    return scene.with_pixels(dict(regions), {c: bool(r.get("legible", True)) for c, r in regions.items()})


def load_scene(path: str | Path) -> Scene:
    """The Scene of a map file: a MapSpec, MAPWise metadata, a render JSON (pixel facts and legibility merged in)
    or a scene JSON from ``mapgen scene --json`` (its legibility flags applied)."""
    from mapgen.mapwise.schema import load_map_spec

    scene = build_scene(load_map_spec(path))  # first: it names the file when it is no map JSON
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    regions = data.get("regions") if isinstance(data, dict) else None
    if isinstance(regions, dict) and "render" in data:
        width, height = data["render"]["width"], data["render"]["height"]
        if (scene.width, scene.height) != (width, height):
            raise ValueError(f"{path}: render size {width}x{height} differs from the spec's "
                             f"{scene.width}x{scene.height}.")
        return with_render_record(scene, data)
    if isinstance(regions, list):
        flags = {r["code"]: bool(r["legible"]) for r in regions if isinstance(r, dict) and "legible" in r}
        flags = {c: v for c, v in flags.items() if c in scene.regions}
        return scene.with_pixels({}, flags) if flags else scene
    return scene
