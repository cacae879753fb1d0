"""Plan a build: every unit of work (a base map with its variants, or one counterfactual map) and what its map
is drawn with, deterministic in the config and seed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from mapgen.config import BuildConfig, CounterfactualKind
from mapgen.errors import BuildError
from mapgen.mapmaking import StatisticSource, legible_colours, style_background

if TYPE_CHECKING:
    from mapgen.legend.model import LegendOrder
    from mapgen.spec import LegendChoice, Style

@dataclass(frozen=True)
class UnitChoice:
    """What the plan chose for a unit's map: its statistic, how its legend is made and how it is drawn."""

    statistic: StatisticSource
    legend: LegendChoice
    style: Style
    look: str | None = None
    """The map style drawn from ``variants.styles`` (None: the default look; its page fields are applied per
    country when the spec is made, :func:`mapgen.mapmaking.look_fields`)."""


@dataclass(frozen=True)
class Unit:
    """One unit of work: a base map with its variants, or one counterfactual map."""

    unit_id: str
    country: str
    index: int
    split: str
    choice: UnitChoice
    seed: int
    cf_kind: CounterfactualKind | None = None


# --- planning -----------------------------------------------------------------------------------------------


def plan(config: BuildConfig) -> list[Unit]:
    """Every unit of the build, deterministic in the config and seed."""
    units: list[Unit] = []
    base: dict[tuple[str, int], Unit] = {}
    for ci, country in enumerate(config.countries):
        splits = assign_splits(country.maps, config.split.ratios, [config.seed, ci, 99])
        pool = statistic_pool(config, country)
        for i in range(country.maps):
            rng = np.random.default_rng([config.seed, ci, i])
            unit = Unit(
                unit_id=f"{country.key}-{i:04d}",
                country=country.key,
                index=i,
                split=splits[i],
                choice=map_choice(config, rng, i, pool, splits[i]),
                seed=int(rng.integers(2**31)),
            )
            units.append(unit)
            base[(country.key, i)] = unit
    cf = config.counterfactual
    for i in range(cf.maps):
        src = base[(config.country(cf.country).key, i)]
        for kind in cf.kinds:
            units.append(replace(src, unit_id=f"cf-{src.unit_id}-{kind}", cf_kind=kind))
    return units


def assign_splits(n: int, ratios: dict[str, float], seed: list[int]) -> list[str]:
    """Split labels for ``n`` maps by ratio, over a seeded permutation (whole maps, never parts)."""
    order = np.random.default_rng(seed).permutation(n)
    labels = [""] * n
    names = list(ratios)
    bounds = np.cumsum([ratios[k] for k in names]) * n
    for rank, idx in enumerate(order):
        labels[idx] = names[min(int(np.searchsorted(bounds, rank, side="right")), len(names) - 1)]
    return labels


def statistic_pool(config: BuildConfig, country) -> list[StatisticSource]:
    """Statistic sources a country's maps cycle through: curated ids, user files, synthetic recipes."""
    from mapgen.data.curated import list_stats

    sources = country.statistics
    if sources.curated == "all":
        curated = [s.id for s in list_stats(country.key)] if country.builtin else []
    else:
        curated = list(sources.curated)
    pool: list[StatisticSource] = [{"curated": s} for s in curated] + [{"file": f} for f in sources.files]
    syn = sources.synthetic
    for k in range(syn.count):
        pool.append({"synthetic": {
            "distribution": syn.distributions[k % len(syn.distributions)],
            "spatial": syn.spatial[k % len(syn.spatial)],
            "kind": syn.kinds[k % len(syn.kinds)],
            "seed": config.seed * 100_003 + k,
        }})
    if not pool:
        raise BuildError(f"{country.name}: no statistics to draw from (curated, files and synthetic are all empty).")
    return pool


def map_choice(config: BuildConfig, rng: np.random.Generator, i: int, pool: list[StatisticSource],
               split: str) -> UnitChoice:
    """Legend, style and statistic choices of map ``i`` (legend types alternate; the rest is seeded)."""
    from mapgen.spec import LegendChoice, Style

    legend, variants = config.legend, config.variants
    colormaps = split_colormaps(config)[split]
    statistic = pool[i % len(pool)]
    drawn = LegendChoice(
        kind=legend.types[i % len(legend.types)],
        classes=int(rng.choice(legend.classes)),
        scheme=str(rng.choice(legend.schemes)),
        order=cast("LegendOrder", str(rng.choice(legend.orders))),  # one of the config's validated orders
        colormap=str(rng.choice(colormaps)),
        reverse=bool(rng.random() < variants.reverse_share),
    )
    background = str(rng.choice(variants.backgrounds))
    legend_position = str(rng.choice(variants.legend_positions))
    renderer = str(rng.choice(variants.renderers))
    backgrounds, look = variants.backgrounds, None
    if variants.styles != ["default"]:  # drawn last: configs without styles draw every map as before
        look = str(rng.choice(variants.styles))
        page = style_background(look, config.style_file(look))
        if page:
            background, backgrounds = page, [page]
    drawn, background = legible_colours(drawn, background, rng, colormaps, backgrounds)
    drawn = replace(drawn, scale=drawn_scale(legend, drawn, rng))
    size = variants.size or (800, 600)  # a config that states no size: base_spec sizes the page by its shape
    style = Style(renderer=renderer, background=background, legend_position=legend_position,
                  png_compress_level=variants.png_compress_level, width=size[0], height=size[1])
    return UnitChoice(statistic, drawn, style, look)


def drawn_scale(legend: Any, drawn: LegendChoice, rng: np.random.Generator) -> Any:
    """The colour-bar scale of a continuous map (``legend.scales``, drawn last: configs without scales draw every
    map as before; None for a linear bar without a midpoint)."""
    from mapgen.legend import ScaleOptions

    if drawn.kind != "continuous" or (legend.scales == ["linear"] and legend.midpoint is None):
        return None
    scale = str(rng.choice(legend.scales)) if legend.scales != ["linear"] else "linear"
    clip = tuple(float(v) for v in legend.clip) if scale == "clip" else None
    return ScaleOptions(scale, clip, None if scale == "log" else legend.midpoint)  # type: ignore[arg-type]


def split_colormaps(config: BuildConfig) -> dict[str, list[str]]:
    """Colormaps each split may use (disjoint sets when ``split.disjoint_colormaps``, like MapQA-R)."""
    names, cmaps = list(config.split.ratios), config.variants.colormaps
    if not config.split.disjoint_colormaps:
        return {n: list(cmaps) for n in names}
    return {n: cmaps[k :: len(names)] for k, n in enumerate(names)}


# --- running one unit ---------------------------------------------------------------------------------------
