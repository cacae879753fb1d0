"""Making a map: the one place a MapSpec is specified, for the build and the command line alike.

A map is an atlas (:func:`open_atlas`), a statistic on it (:func:`load_statistic`), a legend choice and a style
with its look (a map style of :mod:`mapgen.render.style`). :func:`make_map_spec` puts them together the same way
for ``mapgen build`` (the plan's drawn style, the look over it) and ``mapgen render`` / ``mapgen spec`` (the look,
the user's explicit options over it); :func:`restyle` and :func:`relegend` change a spec that exists (a map
JSON read back). A page nobody sized gets one size whoever asks (:func:`look_fields`).
:func:`legible_colours` is the rule the build draws a colormap and background pair by.

Nothing heavy is imported at module level (``mapgen render --help`` must not load pandas or matplotlib).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.errors import BuildError

if TYPE_CHECKING:
    import numpy as np

    from mapgen.data.statistic import Statistic
    from mapgen.geo.atlas import Atlas
    from mapgen.legend import ScaleOptions
    from mapgen.spec import LegendChoice, MapSpec, Style

#: A statistic's source: ``{"curated": id}``, ``{"file": path, **table options}`` (the keyword arguments of
#: :func:`mapgen.data.user_tables.load_table`) or ``{"synthetic": recipe}``.
StatisticSource = Mapping[str, Any]


def open_atlas(source: str | Path, name_field: str | None = None, code_field: str | None = None,
               exclude: Iterable[str] = ()) -> Atlas:
    """A built-in atlas by name or a user atlas by path (``name_field`` / ``code_field`` apply to files), without
    the regions ``exclude`` names."""
    from mapgen.geo.atlas import load_atlas

    return load_atlas(source, exclude=exclude, name_field=name_field, code_field=code_field)


def load_statistic(atlas: Atlas, source: StatisticSource, title: str | None = None) -> Statistic:
    """The Statistic a source names on ``atlas``: a curated table, a user table (as :func:`read_table` reads it)
    or synthetic values."""
    if "curated" in source:
        from mapgen.data.curated import load_curated

        return load_curated(atlas.name, source["curated"])
    if "file" in source:
        from mapgen.data.user_tables import load_table

        return load_table(source["file"], atlas, title=title, **{k: v for k, v in source.items() if k != "file"})
    from mapgen.data.synthetic import synthesize

    syn = source["synthetic"]
    return synthesize(atlas, seed=syn["seed"], distribution=syn["distribution"], spatial=syn["spatial"],
                      kind=syn["kind"])


def read_table(atlas: Atlas, path: str | Path, title: str | None = None, **options: Any) -> Statistic:
    """The user table at ``path`` joined to ``atlas`` (``title`` names it when given; ``options``: how to read
    it, the keyword arguments of :func:`mapgen.data.user_tables.load_table`)."""
    from mapgen.data.user_tables import load_table

    return load_table(path, atlas, title=title, **options)


def check_look(look: str | None) -> None:
    """Refuse an unknown map style name or a bad style file (:class:`mapgen.render.style.StyleError`), before
    anything else is read."""
    from mapgen.render.style import load_style

    load_style(look or "default")


def look_fields(look: str | None, atlas: Atlas | str, path: str | Path | None = None,
                by_shape: bool = True) -> dict[str, Any]:
    """The spec style fields the map style ``look`` sets for a country (none without a look or for the default
    one; :class:`mapgen.render.style.StyleError` for an unknown name or a bad file). With ``by_shape`` and the
    country's Atlas (not only its name: a spec read back has its size) the page size too when the look sets
    none: the one page-sizing rule, :func:`mapgen.render.layout.default_page_size` (the look's size for the
    country, else the one the atlas's projected bounds give; a built-in atlas is sized without its geometry). ``path``: the look's file when it is not ``look`` itself (a build config's style)."""
    from mapgen.render.style import load_style

    style = load_style(look or "default", path=path)
    fields = style.spec_defaults(atlas if isinstance(atlas, str) else atlas.name) if look else {}
    if by_shape and not isinstance(atlas, str) and "width" not in fields:
        from mapgen.render.layout import default_page_size

        fields["width"], fields["height"] = default_page_size(atlas, style)
    return fields


def make_map_spec(atlas: Atlas, statistic: Statistic | str, legend: LegendChoice, *, style: Style | None = None,
                  look: str | None = None, look_path: str | Path | None = None, by_shape: bool = True,
                  options: Mapping[str, Any] | None = None, title: str | None = None, map_id: str | None = None,
                  seed: int = 0, exclude: Iterable[str] = ()) -> MapSpec:
    """The MapSpec of ``statistic`` on ``atlas`` with ``legend``, drawn in ``style`` (default: the default
    Style) with the fields of its ``look`` over it (:func:`look_fields`; the page sized by the map's shape with
    ``by_shape`` unless ``options`` size it) and ``options`` (style fields a user asked for) over those. The
    spec's id is ``map_id``, else its content's."""
    from mapgen.spec import Style, spec_of

    options = dict(options or {})
    fields = look_fields(look, atlas, look_path, by_shape and "width" not in options) | options
    return spec_of(atlas, statistic, legend, replace(style or Style(), **fields), title=title, map_id=map_id,
                   seed=seed, exclude=tuple(exclude))


def restyle(spec: MapSpec, look: str | None = None, scale: ScaleOptions | None = None, **style: Any) -> MapSpec:
    """A spec that exists (a map JSON) in the map style ``look`` (its fields, no page sizing: the spec has its
    size) with the style fields ``style`` over it; a new background re-picks the legend's N/A fill; ``scale``: a
    continuous legend's colour-bar scale."""
    from mapgen.legend import legible_legend
    from mapgen.spec import background_color, with_scale

    spec = with_scale(spec, scale)
    fields = look_fields(look, spec.atlas) | style
    if fields:
        spec = spec.with_style(**fields)
        if spec.style.background and "background" in fields:
            spec = replace(spec, legend=legible_legend(spec.legend, background_color(spec.style.background)))
    return spec


#: The legend changes that classify a spec's values again (the others only recolour its classes).
CLASSIFYING = ("kind", "classes", "scheme", "breaks")


def relegend(spec: MapSpec, changes: Mapping[str, Any]) -> MapSpec:
    """``spec`` with its legend changed as ``changes`` asks (fields of a LegendChoice: kind, classes, scheme,
    breaks, order, colormap, reverse; what it leaves out stays as the spec's legend has it): a change of kind,
    classes, scheme or breaks classifies the values again (style, title, id, seed and extras kept), any other
    only recolours the classes (a hatched map keeps its black and white) or reorders them."""
    legend = spec.legend
    colormap, reverse = changes.get("colormap", legend.colormap), changes.get("reverse", legend.reversed)
    if not any(key in changes for key in CLASSIFYING):
        return recolour(spec, colormap, reverse, changes.get("order"))
    from mapgen.data.statistic import Statistic
    from mapgen.spec import LegendChoice, spec_of

    breaks, scheme = changes.get("breaks"), changes.get("scheme", legend.scheme)
    if breaks is None and scheme == "user_defined":
        breaks = list(legend.breaks)
    choice = LegendChoice(
        kind=changes.get("kind", legend.kind),
        classes=changes.get("classes", max(legend.k, 1) if legend.kind == "discrete" else 5),
        scheme="quantiles" if scheme == "user_defined" and breaks is None else scheme,
        order=changes.get("order", legend.order), colormap=colormap, reverse=reverse, hatched=spec.hatched,
        breaks=None if breaks is None else tuple(breaks))
    rebuilt = spec_of(spec.get_atlas(), Statistic(values=spec.series(), info=spec.stat), choice, spec.style,
                      title=spec.title, map_id=spec.map_id, seed=spec.seed, exclude=spec.exclude)
    return replace(rebuilt, extra=spec.extra)


def recolour(spec: MapSpec, colormap: str, reverse: bool, order: Any = None) -> MapSpec:
    """The spec with its classes kept and only their colours changed (and the legend's ``order``, when given);
    a hatched map keeps its black and white."""
    from mapgen.legend import class_colors, continuous_legend, legible_legend
    from mapgen.legend.colors import split_colormap
    from mapgen.spec import background_color

    legend = spec.legend
    base, rev = split_colormap(colormap, reverse)
    if legend.kind == "continuous":
        legend = continuous_legend(spec.series(), colormap=base, reverse=rev, percent=legend.percent)
    elif not spec.hatched:
        colors = class_colors(base, legend.k, rev, False)
        classes = tuple(replace(c, color=color) for c, color in zip(legend.classes, colors))
        legend = replace(legend, classes=classes, colors=tuple(colors), colormap=base, reversed=rev)
    if order is not None:
        legend = replace(legend, order=order)
    return replace(spec, legend=legible_legend(legend, background_color(spec.style.background)))


def style_background(look: str, path: str | Path | None = None) -> str | None:
    """The background the map style ``look`` sets (None: it sets none); ``path``: its file."""
    from mapgen.render.style import load_style

    return load_style(look, path=path).page.background


def legible_colours(legend: LegendChoice, background: str, rng: np.random.Generator, colormaps: list[str],
                    backgrounds: list[str]) -> tuple[LegendChoice, str]:
    """``legend`` and ``background`` with a colormap and background that pass the legibility rule
    (mapgen.legend.colors): the drawn pair when it passes, else another background for the same colormap, else
    another passing pair drawn with ``rng``; BuildError when no pair passes (a build config's variants)."""
    from mapgen.legend import combination_collision
    from mapgen.spec import background_color

    k = legend.classes if legend.kind == "discrete" else None
    ok = [(c, b) for c in colormaps for b in backgrounds
          if combination_collision(c, legend.reverse, k, background_color(b)) is None]
    if (legend.colormap, background) in ok:
        return legend, background
    same = [pair for pair in ok if pair[0] == legend.colormap]
    if not (same or ok):
        hit = combination_collision(legend.colormap, legend.reverse, k, background_color(background))
        raise BuildError(f"no colormap/background pair of variants passes the legibility rule for "
                         f"{k or 'a colour bar'} classes (e.g. {legend.colormap} on {background}: "
                         f"{hit.describe() if hit else ''}); add a background such as white or a colormap such "
                         f"as viridis.")
    pick = same or ok
    colormap, background = pick[int(rng.integers(len(pick)))]
    return replace(legend, colormap=colormap), background
