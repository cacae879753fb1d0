"""MapSpec: everything that defines one map, and its (de)serialisation.

A MapSpec holds the values by region code (missing = N/A, explicit), the resolved :class:`Legend` (so labels
and colours are fixed facts of the spec, not recomputed), the style, an optional counterfactual transform and
the seed. It saves to mapgen's own JSON; :mod:`mapgen.mapwise.schema` converts to and from the MapQA/MAPWise
metadata schema.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from mapgen.caches import memo
from mapgen.data.map_words import map_words
from mapgen.data.statistic import StatInfo, Statistic
from mapgen.files import write_json_atomic
from mapgen.geo.atlas import BUILTIN, Atlas, AtlasFile, as_atlas, load_atlas, uncut
from mapgen.geo.languages import DEFAULT_LANGUAGE, check_language
from mapgen.legend import (
    HATCHES,
    DiscreteOptions,
    LabelOptions,
    Legend,
    ScaleOptions,
    class_colors,
    continuous_legend,
    discrete_legend,
    legible_legend,
)
from mapgen.page import LEGEND_POSITIONS, MAX_PX, MIN_PX, size_ok
from mapgen.renderers import check_renderer
from mapgen.resources import data_path
from mapgen.schemes import scheme_names
from mapgen.yamlio import safe_load

SPEC_VERSION = 1
#: Backgrounds used by MAPWise plus common neutral choices, named as in CSS (any CSS colour name, ``#rrggbb`` or
#: ``rgb(r, g, b)`` is accepted too; names resolve through matplotlib's CSS4 table: gray is #808080).
BACKGROUNDS: tuple[str, ...] = ("white", "whitesmoke", "lightgray", "gray", "darkgray", "lightsteelblue")


@dataclass(frozen=True)
class Style:
    """How a map is drawn (not what it shows)."""

    renderer: str = "matplotlib"
    annotated: bool = True
    label_mode: Literal["codes", "names"] = "codes"
    background: str = "white"
    legend_orientation: Literal["vertical", "horizontal"] = "vertical"
    legend_position: str = "right"
    show_title: bool = True
    width: int = 800
    height: int = 600
    dpi: int = 100
    png_compress_level: int = 6
    #: Language of the map's questions and, with ``label_mode="names"``, of its labels (``en``, ``hi``, ``zh``, ``es``).
    language: str = "en"
    #: The map style (:mod:`mapgen.render.style`): a preset name or a style file, with its YAML's digest.
    look: str = "default"
    look_digest: str = ""

    def __post_init__(self) -> None:
        check_renderer(self.renderer)
        if self.legend_orientation not in ("vertical", "horizontal"):
            raise ValueError("legend_orientation must be 'vertical' or 'horizontal'.")
        if self.legend_position not in LEGEND_POSITIONS:
            raise ValueError(f"Unknown legend_position {self.legend_position!r}; use {', '.join(LEGEND_POSITIONS)}.")
        if self.label_mode not in ("codes", "names"):
            raise ValueError("label_mode must be 'codes' or 'names'.")
        if not size_ok(self.width, self.height):
            raise ValueError(f"Image size {self.width}x{self.height} px is outside {MIN_PX}-{MAX_PX} px.")
        background_color(self.background)
        check_language(self.language)

    def to_dict(self) -> dict[str, Any]:
        """The style as data; ``language`` only when it is not English and ``look`` only when it is not the
        default style (so such specs read as before)."""
        data = asdict(self)
        if data["language"] == DEFAULT_LANGUAGE:
            del data["language"]
        if data["look"] == "default" and not data["look_digest"]:
            del data["look"], data["look_digest"]
        return data


def background_color(name: str) -> str:
    """Hex colour for a CSS colour name (matplotlib's CSS4 table, case and spaces ignored), ``rgb(r, g, b)`` or any
    matplotlib colour; unknown names list the choices."""
    key = str(name).strip().lower().replace(" ", "")
    rgb = re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", key)
    if rgb:
        return "#" + "".join(f"{min(255, int(v)):02x}" for v in rgb.groups())
    from matplotlib import colors

    if key in colors.CSS4_COLORS:
        return str(colors.CSS4_COLORS[key]).lower()
    try:
        return colors.to_hex(name)
    except ValueError:
        raise ValueError(
            f"Unknown background {name!r}; use one of {', '.join(BACKGROUNDS)} or a colour such as '#d9d9d9'."
        ) from None


@dataclass(frozen=True)
class AttachedAtlas:
    """An Atlas object held by a spec in memory, with the source and exclusions it was loaded for."""

    source: str | AtlasFile
    exclude: tuple[str, ...]
    atlas: Atlas


@dataclass(frozen=True, eq=False)
class MapSpec:
    """The full definition of one map. Equality compares the serialised form (so N/A equals N/A)."""

    map_id: str
    atlas: str
    values: dict[str, float]  # code -> value; NaN = N/A (explicit)
    legend: Legend
    stat: StatInfo
    style: Style = field(default_factory=Style)
    title: str = ""
    exclude: tuple[str, ...] = ()
    counterfactual: dict[str, Any] | None = None
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    #: A user atlas: the vector file (path, digest, fields); saved relative to the file the spec is written to.
    atlas_file: AtlasFile | None = None
    #: The Atlas object in memory, never serialised: set by :func:`make_spec` or by the first :meth:`get_atlas`,
    #: and carried along by ``dataclasses.replace`` (a copy with another atlas or exclusions loads its own).
    attached: AttachedAtlas | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        """One line: the map's id, atlas, statistic and legend (the values run to thousands of characters)."""
        return (f"<MapSpec {self.map_id!r}: {self.atlas}, {self.stat.id}, {self.legend.kind} legend"
                f"{f' of {len(self.legend.classes)} classes' if self.legend.kind == 'discrete' else ''}, "
                f"{len(self.values)} values>")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MapSpec) and self.to_dict() == other.to_dict()

    __hash__ = object.__hash__

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the attached Atlas (its geometry loader is a closure); the copy loads it again."""
        return self.__dict__ | {"attached": None}

    @property
    def map_type(self) -> str:
        """``discrete`` or ``continuous``."""
        return self.legend.kind

    @property
    def hatched(self) -> bool:
        return self.legend.hatched

    def series(self) -> pd.Series:
        """Values as a float Series indexed by code (NaN for N/A)."""
        return pd.Series(self.values, dtype=float, name=self.stat.id)

    def get_atlas(self) -> Atlas:
        """The atlas this map is drawn on (with the spec's exclusions): the Atlas object the spec carries, else
        :meth:`load_atlas`."""
        held = self.attached
        if held is None or (held.source, held.exclude) != (self.atlas_file or self.atlas, self.exclude):
            held = self._attach_loaded()
        return held.atlas

    def load_atlas(self) -> Atlas:
        """The atlas read from its name or file (a user atlas file checked against the digest the spec recorded),
        carried by the spec from then on."""
        return self._attach_loaded().atlas

    def _attach_loaded(self) -> AttachedAtlas:
        """Load the spec's atlas and hold it (a frozen spec's one cache, like a ``cached_property``)."""
        source = self.atlas_file or self.atlas
        held = AttachedAtlas(source, self.exclude, load_atlas(source, exclude=self.exclude))
        object.__setattr__(self, "attached", held)
        return held

    def with_style(self, **changes: Any) -> MapSpec:
        """A copy with some style fields changed."""
        return replace(self, style=replace(self.style, **changes))

    # --- mapgen JSON -------------------------------------------------------------------------------------
    def to_dict(self, relative_to: str | Path | None = None) -> dict[str, Any]:
        """JSON-ready dict (NaN values written as null). A user atlas file's path is written relative to the
        folder ``relative_to`` (where the JSON is saved), else absolute."""
        located = {"atlas_file": self.atlas_file.record(relative_to)} if self.atlas_file else {}
        return {
            "mapgen_spec": SPEC_VERSION,
            "map_id": self.map_id,
            "atlas": self.atlas,
            **located,
            "exclude": list(self.exclude),
            "stat": asdict(self.stat) | {"missing": list(self.stat.missing)},
            "title": self.title,
            "values": {c: (None if is_nan(v) else v) for c, v in self.values.items()},
            "legend": self.legend.to_dict(),
            "style": self.style.to_dict(),
            "counterfactual": self.counterfactual,
            "seed": self.seed,
            "extra": self.extra,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], base: str | Path | None = None) -> MapSpec:
        """Inverse of :meth:`to_dict`; a relative atlas file path is resolved against ``base`` (the folder the
        JSON was read from)."""
        if "mapgen_spec" not in data:
            raise ValueError(
                "Not a mapgen spec (no 'mapgen_spec' key). For MAPWise metadata use "
                "mapgen.mapwise.schema.spec_from_mapwise() or load_map_spec()."
            )
        stat = dict(data["stat"])
        stat["missing"] = tuple(stat.get("missing", ()))
        return cls(
            map_id=str(data["map_id"]),
            atlas=data["atlas"],
            values={c: (math.nan if v is None else float(v)) for c, v in data["values"].items()},
            legend=Legend.from_dict(data["legend"]),
            stat=StatInfo(**stat),
            style=Style(**data.get("style", {})),
            title=data.get("title", ""),
            exclude=tuple(data.get("exclude", ())),
            counterfactual=data.get("counterfactual"),
            seed=int(data.get("seed", 0)),
            extra=data.get("extra", {}),
            atlas_file=AtlasFile.from_record(data["atlas_file"], base) if data.get("atlas_file") else None,
        )

    def save(self, path: str | Path) -> Path:
        """Write the spec as JSON (atomically: a temp file renamed into place)."""
        return write_json_atomic(path, self.to_dict(relative_to=Path(path).parent), sort_keys=False)


def read_spec_json(path: str | Path) -> dict[str, Any]:
    """The JSON of a map file, unwrapped from a render or scene JSON that embeds the spec under ``"spec"``
    (``ValueError`` naming the file when it is no JSON object, or a spec that lacks a key)."""
    fix = "give the .json that `mapgen spec` or `mapgen render` wrote"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a map JSON (not UTF-8 text); {fix}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not a map JSON ({exc.msg}, line {exc.lineno}); {fix}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a map JSON (it holds a JSON {type(data).__name__}, not an object); {fix}")
    if "spec" in data and "mapgen_spec" not in data:
        data = data["spec"]
    missing = [k for k in _SPEC_KEYS if k not in data] if isinstance(data, dict) and "mapgen_spec" in data else []
    if missing or not isinstance(data, dict):
        raise ValueError(f"{path}: the map spec lacks {', '.join(missing) or 'its fields'}; {fix}")
    return data


#: The keys :meth:`MapSpec.from_dict` cannot do without.
_SPEC_KEYS = ("map_id", "atlas", "values", "legend", "stat")


def load_spec(path: str | Path) -> MapSpec:
    """Read a spec written by :meth:`MapSpec.save` (or a render's JSON, which embeds the spec).

    MAPWise metadata files are read by :func:`mapgen.mapwise.schema.load_map_spec`.
    """
    return MapSpec.from_dict(read_spec_json(path), base=Path(path).parent)


def is_nan(v: Any) -> bool:
    """True for None and float NaN (the two spellings of N/A in specs)."""
    return v is None or (isinstance(v, float) and math.isnan(v))


# --- building specs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LegendChoice:
    """How a map's legend is made from its values: type, classes and scheme (discrete), order, colormap."""

    kind: Literal["discrete", "continuous"] = "discrete"
    classes: int = 5
    scheme: str = "quantiles"
    order: Literal["small_to_large", "large_to_small"] = "small_to_large"
    colormap: str = "Blues"
    reverse: bool = False
    hatched: bool = False
    breaks: tuple[float, ...] | None = None
    #: How a colour bar maps values (linear, log, clip; midpoint); None: linear.
    scale: ScaleOptions | None = None


def make_spec(
    atlas: str | Atlas,
    stat: Statistic | str | Mapping[str, float] | pd.Series,
    legend: Literal["discrete", "continuous"] = "discrete",
    classes: int = 5,
    scheme: str = "quantiles",
    breaks: list[float] | None = None,
    order: Literal["small_to_large", "large_to_small"] = "small_to_large",
    colormap: str = "Blues",
    reverse: bool = False,
    hatched: bool = False,
    title: str | None = None,
    map_id: str | None = None,
    seed: int = 0,
    exclude: tuple[str, ...] = (),
    scale: ScaleOptions | None = None,
    **style: Any,
) -> MapSpec:
    """Build a MapSpec from an atlas and a statistic (a :class:`Statistic`, a curated table id, or values keyed by
    region names, codes or aliases: a dict or a pandas Series, read as :func:`~mapgen.data.user_tables.load_table`
    reads a table): the keyword form of :func:`spec_of` (legend arguments, then :class:`Style` fields)."""
    choice = LegendChoice(legend, classes, scheme, order, colormap, reverse, hatched,
                          None if breaks is None else tuple(breaks), scale)
    return spec_of(atlas, stat, choice, style, title=title, map_id=map_id, seed=seed, exclude=exclude)


def spec_of(
    atlas: str | Atlas,
    stat: Statistic | str | Mapping[str, float] | pd.Series,
    legend: LegendChoice,
    style: Style | dict[str, Any],
    title: str | None = None,
    map_id: str | None = None,
    seed: int = 0,
    exclude: tuple[str, ...] = (),
) -> MapSpec:
    """The MapSpec of ``stat`` on ``atlas`` with a legend made as ``legend`` says, drawn in ``style`` (a
    :class:`Style` or its fields); the spec carries the Atlas object when it is the one its name and ``exclude``
    stand for."""
    atlas_obj = as_atlas(atlas, exclude)
    if isinstance(stat, str):
        from mapgen.data.curated import load_curated

        stat = load_curated(atlas_obj.name, stat)
    elif not isinstance(stat, Statistic):
        from mapgen.data.user_tables import load_table

        stat = load_table(stat, atlas_obj)
    values = align_values(atlas_obj, stat.values)
    leg = _legend_of(pd.Series(values, dtype=float), legend, stat.percent, atlas_obj)
    style_obj = style if isinstance(style, Style) else Style(**style)
    spec = MapSpec(
        map_id="",
        atlas=atlas_obj.name,
        values=values,
        legend=legible_legend(leg, background_color(style_obj.background)),
        stat=stat.info,
        style=style_obj,
        title=_default_title(stat) if title is None else title,
        exclude=tuple(exclude),
        seed=seed,
        atlas_file=atlas_obj.file,
        attached=_attachment(atlas_obj, tuple(exclude)),
    )
    spec = localised(spec)
    return replace(spec, map_id=map_id or content_id(spec))


def _legend_of(series: pd.Series, choice: LegendChoice, percent: bool, atlas: Atlas) -> Legend:
    """The legend ``choice`` makes of ``series`` (a discrete one gives ``atlas``'s specks no class of their own)."""
    if choice.hatched and choice.kind == "continuous":
        raise ValueError("Hatched maps need a discrete legend: use legend='discrete' or drop hatched.")
    if choice.kind == "discrete":
        if choice.scale is not None and choice.scale != ScaleOptions():
            raise ValueError("--scale, --clip and --midpoint apply to continuous legends: add --legend continuous")
        return discrete_legend(series, DiscreteOptions(
            k=choice.classes, scheme=choice.scheme, breaks=None if choice.breaks is None else list(choice.breaks),
            percent=percent, order=choice.order, colormap=choice.colormap, reverse=choice.reverse,
            hatched=choice.hatched, minor=speck_regions(atlas),
        ))
    if choice.kind == "continuous":
        return continuous_legend(series, colormap=choice.colormap, reverse=choice.reverse, percent=percent,
                                 scale=choice.scale)
    raise ValueError(f"Unknown legend type {choice.kind!r}; use 'discrete' or 'continuous'.")


def with_scale(spec: MapSpec, scale: ScaleOptions | None) -> MapSpec:
    """``spec`` with its continuous legend made again on ``scale`` (unchanged for None); a discrete legend
    refuses a scale."""
    if scale is None:
        return spec
    legend = spec.legend
    if legend.kind != "continuous":
        raise ValueError("--scale, --clip and --midpoint apply to continuous legends: this map's legend is discrete")
    made = continuous_legend(spec.series(), colormap=legend.colormap, reverse=legend.reversed, percent=legend.percent,
                             label_scale=legend.label_scale, scale=scale)
    made = replace(made, na_label=legend.na_label if made.na_label else None)
    spec = replace(spec, legend=legible_legend(made, background_color(spec.style.background)))
    return replace(spec, map_id=content_id(spec))


def _attachment(atlas: Atlas, exclude: tuple[str, ...]) -> AttachedAtlas | None:
    """What a new spec on ``atlas`` carries: the object itself when it has exactly the spec's exclusions applied
    (what loading the spec's atlas gives), else nothing (the spec loads its own when asked)."""
    if atlas.exclusions != exclude:
        return None
    return AttachedAtlas(atlas.file or atlas.name, exclude, atlas)


def align_values(atlas: Atlas, values: pd.Series) -> dict[str, float]:
    """Values keyed by every atlas code (missing → NaN); index entries may be codes, names or aliases.

    Entries for regions the atlas excludes on purpose (China loaded with ``exclude=["TW"]``) are skipped;
    any other unknown name raises :class:`UnknownRegionError` with the closest matches.
    """
    out = {code: math.nan for code in atlas.codes}
    full = uncut(atlas)
    for key, value in values.items():
        code = full.resolve(str(key))
        if code in out:
            out[code] = float(value)
    return out


#: A region is a *speck* when the largest circle inside its largest part has a radius below this fraction of the
#: atlas's larger extent: regions no map of the default build draws legibly (DC 0.09%, Lakshadweep 0.02%,
#: Puducherry and Chandigarh 0.15%, Dadra and Nagar Haveli and Daman and Diu 0.18%, Macau 0.02%, Hong Kong
#: 0.16%). The next smallest (Rhode Island 0.37%) is read on colour maps; hatched maps need more room, so regions
#: like Delhi or Beijing can still be unreadable there.
SPECK_RADIUS = 0.0025


#: Hatched maps need room for a whole pattern period: calibrated on the default build (800×600), the regions the
#: renderer marks illegible on hatched maps lie at or below 1.10% (Sikkim; Beijing 0.92%, Connecticut 0.89%),
#: readable ones from 1.19% (Tripura); Hawaii (1.02%) counts as a speck to stay on the safe side.
HATCHED_SPECK_RADIUS = 0.0115


def measure_specks(atlas: Atlas, radius: float = SPECK_RADIUS) -> tuple[str, ...]:
    """Codes of ``atlas``'s regions whose largest part holds no circle of ``radius`` × the atlas's larger extent
    (loads the geometry)."""
    import shapely

    gdf = atlas.gdf
    x1, y1, x2, y2 = gdf.total_bounds
    extent = max(x2 - x1, y2 - y1)
    out = []
    for code, geom in gdf.geometry.items():
        part = max(getattr(geom, "geoms", [geom]), key=lambda p: p.area)
        if shapely.maximum_inscribed_circle(part, extent / 5000).length < radius * extent:
            out.append(str(code))
    return tuple(sorted(out))


@memo(1024)
def _shipped_specks() -> dict[str, dict[str, tuple[str, ...]]]:

    raw = safe_load(data_path("atlas", "specks.yaml").read_text(encoding="utf-8"))
    return {kind: {name: tuple(codes) for name, codes in lists.items()} for kind, lists in raw.items()}


def speck_regions(atlas: Atlas, hatched: bool = False) -> tuple[str, ...]:
    """Codes of regions too small to read on a (hatched) map of ``atlas``: legends never give them a class of
    their own. Built-in atlases read the shipped lists (``data/atlas/specks.yaml``, no geometry loaded); user
    atlases are measured only when their geometry is already loaded, else none are assumed."""
    if atlas.name in BUILTIN:
        shipped = _shipped_specks()["hatched" if hatched else "colour"].get(atlas.name, ())
        return tuple(c for c in shipped if c in atlas.codes)
    if "gdf" not in atlas.__dict__:
        return ()
    return measure_specks(atlas, HATCHED_SPECK_RADIUS if hatched else SPECK_RADIUS)


def _default_title(stat: Statistic) -> str:
    return stat.info.display_title


def localised(spec: MapSpec) -> MapSpec:
    """``spec`` with the words its map prints in its style's language (``templates/lang/map/<lang>.yaml``): the
    title of its statistic (when the spec has that statistic's English title; a statistic the file does not name
    keeps it) and the legend's N/A key and range words. Numbers stay as they are. English specs are returned
    unchanged; applying it twice changes nothing."""
    if spec.style.language == DEFAULT_LANGUAGE:
        return spec
    words = map_words(spec.style.language)
    title = words.display_title(spec.stat) if spec.title == spec.stat.display_title else None
    return replace(spec, title=spec.title if title is None else title,
                   legend=spec.legend.worded(words.na, words.range_format))


def content_id(spec: MapSpec) -> str:
    """A short stable id from the spec's content (atlas, stat, values, legend, style, seed)."""
    payload = spec.to_dict() | {"map_id": ""}
    if spec.atlas_file:  # the file's content identifies the map, not where it lies
        payload["atlas_file"] = {k: v for k, v in payload["atlas_file"].items() if k != "path"}
    digest = hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:10]
    return f"{spec.atlas}-{spec.stat.id}-{digest}"


def make_hatched(spec: MapSpec) -> MapSpec:
    """The black-and-white hatched variant of a discrete map: same classes and labels, MAPWise hatch order."""
    legend = spec.legend
    if legend.kind != "discrete":
        raise ValueError("Hatched maps need a discrete legend; this map has a continuous colour bar.")
    if legend.k > len(HATCHES):
        raise ValueError(f"Hatched maps support at most {len(HATCHES)} classes; this legend has {legend.k}.")
    hatched = _reclassified_for_hatching(spec)
    if hatched is None:
        greys = class_colors("Greys", legend.k, hatched=True)
        classes = tuple(replace(c, color=g, hatch=HATCHES[c.index]) for c, g in zip(legend.classes, greys))
        hatched = replace(legend, classes=classes, colors=tuple(greys), colormap="Greys", reversed=False)
    return localised(replace(spec, legend=legible_legend(hatched, background_color(spec.style.background))))


def with_hatch_fill(spec: MapSpec, fill: str) -> MapSpec:
    """A hatched ``spec`` with every class face ``fill`` (black ink on white, say), the N/A fill chosen again
    against it."""
    legend = spec.legend
    classes = tuple(replace(c, color=fill) for c in legend.classes)
    legend = replace(legend, classes=classes, colors=tuple(fill for _ in classes))
    return replace(spec, legend=legible_legend(legend, background_color(spec.style.background)))


def _reclassified_for_hatching(spec: MapSpec) -> Legend | None:
    """A hatched legend classified again with the hatched specks as unreadable, when one of the map's classes
    holds only regions too small to carry a pattern (Delhi alone, say); None when every class stays readable
    (the usual case: the hatched map keeps its colour sibling's classes)."""
    legend = spec.legend
    if legend.scheme not in scheme_names():
        return None
    minor = set(speck_regions(spec.get_atlas(), hatched=True))
    members: dict[int, set[str]] = {}
    for code, value in spec.values.items():
        if not is_nan(value) and (index := legend.class_of(value)) is not None:
            members.setdefault(index, set()).add(code)
    if not any(codes <= minor for codes in members.values()):
        return None
    return discrete_legend(pd.Series(spec.values, dtype=float), DiscreteOptions(
        k=legend.k, scheme=legend.scheme, order=legend.order, hatched=True, percent=legend.percent,
        label_scale=legend.label_scale, labels=legend.labelling or LabelOptions(), minor=tuple(sorted(minor))))
