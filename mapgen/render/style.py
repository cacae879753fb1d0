"""Map styles as data: a style YAML (page, map area, fonts, title, legend, borders, labels, hatches, sizes) read
into a typed :class:`MapStyle` that the renderers and the page layout draw with.

Presets ship in ``templates/styles/<name>.yaml`` (``default`` is mapgen's own look); a user's file goes through
the same loader (:func:`load_style`). A spec names its style in ``Style.look`` (a preset name or a file path) with
the digest of its YAML in ``Style.look_digest``; both are left out of the spec JSON for the default style.
Unknown keys are refused naming the closest valid key, wrong types in one line naming the key.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from mapgen.caches import memo
from mapgen.page import LEGEND_POSITIONS, MAX_PX, MIN_PX
from mapgen.render.fonts import unknown_family
from mapgen.resources import template_path
from mapgen.suggest import close_matches, did_you_mean, suggestion
from mapgen.yamlio import YAMLFileError, read_text_file, safe_load, yaml_file_problem

DEFAULT_STYLE = "default"
STYLE_SUFFIXES = (".yaml", ".yml")


class StyleError(ValueError):
    """An unknown style name or an invalid style file (one line naming the key and the fix)."""


def _colour(value: str) -> str:
    """``value`` if every renderer can draw it (a CSS name such as ``white``, ``#rrggbb``: what both matplotlib
    and the label renderer, PIL, read; matplotlib's own ``tab:blue`` or ``C0`` are not); else a one-line refusal."""
    from matplotlib.colors import is_color_like
    from PIL import ImageColor

    try:
        ImageColor.getrgb(value)
    except ValueError:
        drawable = False
    else:
        drawable = is_color_like(value)
    if not drawable:
        raise ValueError(f"unknown colour {value!r}; give a CSS colour name (white, steelblue) or #rrggbb")
    return value


def _family(value: str) -> str:
    problem = unknown_family(value)
    if problem:
        raise ValueError(problem)
    return value


def _position(value: str | None) -> str | None:
    if value is not None and value not in LEGEND_POSITIONS:
        raise ValueError(f"unknown legend position {value!r}; use {', '.join(LEGEND_POSITIONS)}")
    return value


#: Style field types checked when the style loads: a colour, a font family, a legend position, a length in px.
Colour = Annotated[str, AfterValidator(_colour)]
Family = Annotated[str, AfterValidator(_family)]
Position = Annotated[str | None, AfterValidator(_position)]
Px = Annotated[float, Field(ge=0, le=400)]
#: One side of a page in pixels (:mod:`mapgen.page`'s bounds).
PageSide = Annotated[int, Field(ge=MIN_PX, le=MAX_PX)]


class _Part(BaseModel):
    # every number finite (``.inf`` and ``.nan`` refused where the style loads, not in the renderer)
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Page(_Part):
    """The paper: ``background`` is the colour behind the regions (the spec's background, which the legibility
    checks test fills against); ``color`` the paper outside a framed map area (None: the background)."""

    background: Colour | None = None
    color: Colour | None = None


class MapArea(_Part):
    """A filled, framed rectangle the map sits in (MAPWise's white panel on grey paper); ``margin`` is kept free
    around it, in pixels at 800×600 (left, top, right, bottom)."""

    fill: bool = False
    frame_color: Colour | None = None
    frame_width: float = Field(0.0, ge=0, le=20)
    margin: tuple[Px, Px, Px, Px] = (0.0, 0.0, 0.0, 0.0)


class Fonts(_Part):
    """Font families (:data:`mapgen.render.fonts.FAMILIES`) for the title, the legend texts and the region
    labels (whose width decides which regions hold their label inside)."""

    title: Family = "DejaVu Sans"
    legend: Family = "DejaVu Sans"
    labels: Family = "DejaVu Sans"


class Title(_Part):
    """Title band (share of the page height), alignment, size (px at 800 wide) and colour."""

    band: float = Field(0.08, ge=0.02, le=0.3)
    align: Literal["center", "left", "right"] = "center"
    size: float = Field(20.0, gt=0, le=200)
    min_size: float = Field(11.0, gt=0, le=200)
    color: Colour = "#000000"
    inset: float = Field(20.0, ge=0, le=400)


class LegendStyle(_Part):
    """Legend position, orientation and box; its share of the page; text, swatch edge and tick colours."""

    position: Position = None
    orientation: Literal["vertical", "horizontal"] | None = None
    side_share: float = Field(0.20, gt=0, lt=0.5)
    band_share: float = Field(0.13, gt=0, lt=0.5)
    align: Literal["center", "left"] = "center"
    valign: Literal["middle", "top"] = "middle"  # a discrete legend's rows: centred in the legend box, or at its top
    inset: float = Field(0.0, ge=0, le=400)
    box_fill: Colour | None = None
    box_frame: Colour | None = None
    box_width: float = Field(1.0, ge=0, le=20)
    box_pad: float = Field(6.0, ge=0, le=100)
    swatch_edge: Colour = "#555555"
    text_color: Colour = "#000000"
    tick_color: Colour = "#333333"
    text_case: Literal["as-is", "upper"] = "as-is"
    cap_px: float = Field(11.0, gt=0, le=100)
    bar_width: float = Field(18.0, gt=0, le=200)  # colour bar thickness (px at the 800×600 legend font)
    bar_length: float = Field(0.7, gt=0, le=1)  # colour bar length (share of the legend box)
    swatch_width: float = Field(24.0, gt=0, le=200)  # a class swatch (px at the 800×600 legend font)
    swatch_height: float = Field(17.0, gt=0, le=200)


class Borders(_Part):
    """Region borders (points), the outline around all regions, and the borders of hatched maps."""

    color: Colour = "#ffffff"
    width: float = Field(0.5, ge=0, le=20)
    outline_width: float = Field(0.9, ge=0, le=20)
    outline_on_light: Colour = "#4d4d4d"
    outline_on_dark: Colour = "#ffffff"
    hatch_color: Colour = "#000000"
    hatch_width: float = Field(1.4, ge=0, le=20)


class Labels(_Part):
    """Region label look: cap height at 800×600 (px), grown with the page (``page``: as text and legend marks)
    or with its width (``width``: as the legibility audit's label height rule), callout frame, leader colour;
    whether inside labels on colour maps get a one-pixel halo of the other of black and white; and whether
    hatched maps carry labels."""

    cap_px: float = Field(12.0, gt=0, le=100)
    scale: Literal["page", "width"] = "page"
    callout_frame: Colour = "#4d4d4d"
    leader_color: Colour = "#1a1a1a"
    halo: bool = True
    on_hatched: bool = True


DEFAULT_HATCHES = {"-": "---", "+": "++", "x": "xx", "\\": "\\\\\\", "*": "**", "o": "oo", "O": "O", "|": "|||"}


class MapStyle(_Part):
    """One map style (a preset or a user's YAML file)."""

    name: str = DEFAULT_STYLE
    description: str = ""
    page: Page = Page()
    map_area: MapArea = MapArea()
    fonts: Fonts = Fonts()
    title: Title = Title()
    legend: LegendStyle = LegendStyle()
    borders: Borders = Borders()
    labels: Labels = Labels()
    #: matplotlib hatch pattern per MAPWise hatch symbol (denser patterns are easier to tell apart).
    hatches: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_HATCHES))
    #: Default page size per country (``[width, height]``), used when no size is given.
    sizes: dict[str, tuple[PageSide, PageSide]] = Field(default_factory=dict)
    #: Face colour of every class on hatched maps (``#ffffff``: black ink on white, as MAPWise prints them);
    #: None: light greys, so classes differ in tone as well as in pattern.
    hatch_fill: Colour | None = None
    #: Changes for hatched maps (e.g. MAPWise prints them black on white): any of the keys above but those that
    #: lay the page out (:data:`HATCHED_FIXED`; a hatched map shares its colour sibling's layout), merged key by key.
    hatched: dict[str, Any] = Field(default_factory=dict)
    #: Changes for one country's maps, keyed by atlas name (e.g. MAPWise draws India on a white page with the
    #: legend boxed at the bottom right): any of the keys above but ``countries``, merged key by key.
    countries: dict[str, dict[str, Any]] = Field(default_factory=dict)
    digest: str = ""

    @model_validator(mode="after")
    def _countries_valid(self) -> MapStyle:
        for country in self.countries:
            self.for_country(country)
        self.for_hatched()
        return self

    def for_hatched(self) -> MapStyle:
        """The style a hatched map is drawn in: this one with its ``hatched`` changes merged in."""
        if not self.hatched:
            return self
        fixed = sorted(set(_dotted_keys(self.hatched)) & set(HATCHED_FIXED))
        if fixed:
            raise ValueError(f"hatched.{fixed[0]}: a hatched map keeps its colour sibling's page layout; set it "
                             "for every map instead")
        merged = _merge(self.model_dump(exclude={"countries", "hatched", "name", "digest"}), self.hatched)
        try:
            style = MapStyle.model_validate(merged)
        except ValidationError as exc:
            raise ValueError(f"hatched: {_first_problem(exc)}") from None
        return style.model_copy(update={"name": self.name, "digest": self.digest})

    def for_country(self, country: str | None) -> MapStyle:
        """The style a map of ``country`` is drawn in: this one with its ``countries`` entry merged in (an atlas
        edition such as ``india-mapwise`` takes its country's entry)."""
        changes = self.countries.get(country or "") or self.countries.get((country or "").split("-")[0])
        if not changes:
            return self
        if "countries" in changes:
            raise ValueError(f"countries.{country}: a country's changes cannot hold 'countries'")
        merged = _merge(self.model_dump(exclude={"countries", "name", "digest"}), changes)
        try:
            style = MapStyle.model_validate(merged)
        except ValidationError as exc:
            raise ValueError(f"countries.{country}: {_first_problem(exc)}") from None
        return style.model_copy(update={"name": self.name, "digest": self.digest})

    def spec_defaults(self, country: str) -> dict[str, Any]:
        """The spec style fields this style sets (before a user's explicit options): look, digest, background,
        legend position and orientation, page size. Empty for the default style."""
        if self.name == DEFAULT_STYLE and not self.digest:
            return {}
        if self.countries:
            return self.for_country(country).model_copy(update={"countries": {}}).spec_defaults(country)
        out: dict[str, Any] = {"look": self.name, "look_digest": self.digest}
        if self.page.background:
            out["background"] = self.page.background
        if self.legend.position:
            out["legend_position"] = self.legend.position
        if self.legend.orientation:
            out["legend_orientation"] = self.legend.orientation
        if country in self.sizes:
            out["width"], out["height"] = self.sizes[country]
        return out


#: Style keys a ``hatched`` entry cannot change: they lay out the page (its size, bands, margins, legend place)
#: or the label plan, which a hatched map shares with the colour maps of its layout.
HATCHED_FIXED = ("sizes", "countries", "hatched", "page.background", "map_area.margin", "title.band",
                 "legend.position", "legend.orientation", "legend.side_share", "legend.band_share",
                 "labels.cap_px", "labels.scale", "fonts.labels")


def _dotted_keys(changes: dict[str, Any], prefix: str = "") -> list[str]:
    """Every key of ``changes`` and of the mappings in it, dotted (``legend.position``)."""
    out = []
    for key, value in changes.items():
        out.append(prefix + str(key))
        if isinstance(value, dict):
            out += _dotted_keys(value, f"{prefix}{key}.")
    return out


def _merge(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` merged in, mapping by mapping."""
    out = dict(base)
    for key, value in changes.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def preset_names() -> list[str]:
    """The shipped presets, sorted (``default`` first)."""
    names = sorted(p.name.rsplit(".", 1)[0] for p in template_path("styles").iterdir() if p.name.endswith(".yaml"))
    return sorted(names, key=lambda n: n != DEFAULT_STYLE)


def preset_text(name: str) -> str:
    """The YAML text of a preset; an unknown name lists the presets."""
    node = template_path("styles", f"{name}.yaml")
    if not node.is_file():
        raise StyleError(f"Unknown style {name!r}{did_you_mean(name, preset_names())}; or give a .yaml file.")
    return node.read_text(encoding="utf-8")


def style_source(ref: str) -> tuple[str, str]:
    """(name recorded in specs, YAML text) of a preset name or a style file path."""
    if ref.lower().endswith(STYLE_SUFFIXES) or "/" in ref:
        path = Path(ref)
        if not path.is_file():
            raise StyleError(f"Style file {ref!r} does not exist.")
        try:
            return ref, read_text_file(path)
        except YAMLFileError as exc:
            raise StyleError(f"{exc}; not a style YAML?") from None
    return ref, preset_text(ref)


def load_style(ref: str = DEFAULT_STYLE, digest: str = "", path: str | Path | None = None) -> MapStyle:
    """The style of a preset name or a YAML file; a recorded ``digest`` that differs from the file's is refused
    (the spec was made with another version of the style). ``path``: the file the style ``ref`` is read from when
    that is not ``ref`` itself (a build config's style file, resolved against the config's folder); the style
    keeps ``ref`` as its name, and a later load of ``ref`` with its digest (a spec's) finds that version."""
    ref = ref or DEFAULT_STYLE
    if path is None:
        known = _KNOWN.get((ref, digest)) if digest else None
        return known or _load(ref, digest)
    try:
        text = read_text_file(Path(path))
    except YAMLFileError as exc:
        raise StyleError(f"{exc}; not a style YAML?") from None
    style = _parsed(ref, text, digest, str(path))
    _KNOWN[(ref, style.digest)] = style
    return style


#: The styles read from a file other than their name (``load_style(ref, path=...)``), by (name, digest).
_KNOWN: dict[tuple[str, str], MapStyle] = {}


@memo(1024)
def _load(ref: str, digest: str) -> MapStyle:
    name, text = style_source(ref)
    return _parsed(name, text, digest, ref)


@memo(1024)
def _parsed(name: str, text: str, digest: str, where: str) -> MapStyle:
    """The style ``name`` of YAML ``text`` read from ``where`` (a recorded ``digest`` must be the text's)."""
    actual = text_digest(text)
    if digest and digest != actual:
        raise StyleError(f"Style {name!r} changed since the spec was made (digest {actual}, spec {digest}).")
    style = parse_style(text, where)
    return style.model_copy(update={"name": name, "digest": "" if name == DEFAULT_STYLE else actual})


def text_digest(text: str) -> str:
    """Short sha256 digest of a style's YAML text."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def parse_style(text: str, where: str = "style") -> MapStyle:
    """A :class:`MapStyle` from YAML text; problems raise :class:`StyleError` in one line."""
    try:
        data = safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise StyleError(yaml_file_problem(where, exc)) from None  # FILE:LINE:COL: what (mapgen.yamlio)
    if not isinstance(data, dict):
        raise StyleError(f"{where}: a style is a YAML mapping of keys such as page, title, legend.")
    try:
        return MapStyle.model_validate(data)
    except ValidationError as exc:
        raise StyleError(f"{where}: {_first_problem(exc)}") from None


def _first_problem(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    if err["type"] == "value_error" and not loc:  # a whole-style check (a country's changes)
        return str(err["msg"]).removeprefix("Value error, ")
    key = ".".join(p for p in loc if not p.startswith("function-"))  # an Annotated check's step
    if err["type"] == "value_error":  # a field's own check: its message says what to give
        return f"{key}: {str(err['msg']).removeprefix('Value error, ')}"
    if err["type"] == "finite_number":
        return f"{key}: must be a finite number (got {err.get('input')!r})"
    if err["type"] == "extra_forbidden":
        keys = _valid_keys(loc[:-1])
        return f"unknown key {key!r}{suggestion(_dotted(loc[:-1], close_matches(loc[-1], keys)), _dotted(loc[:-1], keys))}"
    return f"{key}: {err['msg']} (got {err.get('input')!r})"


def _dotted(path: list[str], keys: list[str]) -> list[str]:
    """``keys`` below ``path`` as dotted keys (``legend.position``)."""
    return [".".join([*path, k]) for k in keys]


def _valid_keys(path: list[str]) -> list[str]:
    model: Any = MapStyle
    for part in path:
        field = model.model_fields.get(part)
        if field is None or not isinstance(field.annotation, type) or not issubclass(field.annotation, BaseModel):
            return []
        model = field.annotation
    return list(model.model_fields)


#: Renderers with a look of their own, drawn when a spec names no style (``templates/styles/renderers/``).
RENDERER_LOOKS = ("plotly",)


def style_of(spec_style: Any, country: str | None = None, hatched: bool = False) -> MapStyle:
    """The :class:`MapStyle` a spec's style names (``look`` and ``look_digest``) for a map of ``country`` (a
    ``hatched`` one: with the style's ``hatched`` changes); a spec in the default style drawn by a renderer with
    a look of its own (:data:`RENDERER_LOOKS`) gets that renderer's look."""
    look, digest = getattr(spec_style, "look", DEFAULT_STYLE), getattr(spec_style, "look_digest", "")
    renderer = getattr(spec_style, "renderer", "matplotlib")
    if (look or DEFAULT_STYLE) == DEFAULT_STYLE and not digest and renderer in RENDERER_LOOKS:
        base = renderer_look(renderer).for_country(country)
        return base.for_hatched() if hatched else base
    return _country_style(look or DEFAULT_STYLE, digest, country, hatched)


@memo(1024)
def _country_style(ref: str, digest: str, country: str | None, hatched: bool = False) -> MapStyle:
    style = load_style(ref, digest).for_country(country)
    return style.for_hatched() if hatched else style


@memo(1024)
def renderer_look(renderer: str) -> MapStyle:
    """A renderer's own look (``templates/styles/renderers/<renderer>.yaml``), named after the renderer."""
    text = template_path("styles", "renderers", f"{renderer}.yaml").read_text(encoding="utf-8")
    return parse_style(text, f"{renderer} look").model_copy(update={"name": renderer, "digest": text_digest(text)})


def look_name(spec_style: Any) -> str:
    """The name of the look a spec is drawn in (its style, or its renderer's own look)."""
    return style_of(spec_style).name


def outline_color(background: str, style: MapStyle | None = None) -> str:
    """Colour of the outer outline of the map on ``background`` (the style's light or dark outline colour)."""
    from mapgen.legend import relative_luminance  # here: importing a style loads no pandas

    if style is None:
        return "#ffffff" if relative_luminance(background) < 0.3 else "#4d4d4d"
    borders = style.borders
    return borders.outline_on_dark if relative_luminance(background) < 0.3 else borders.outline_on_light
