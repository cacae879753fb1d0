"""Synthetic statistics: reproducibility, marginals, ranges, and Moran's I against the spatial knob."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from mapgen.data.indicators import RANGE_JITTER, indicators
from mapgen.data.statistic import shows_unit
from mapgen.data.synthetic import DISTRIBUTIONS, morans_i, synthesize, weights
from mapgen.geo.atlas import load_atlas


def test_morans_i_hand_computed_path() -> None:
    # Path a-b-c-d, values 1..4: z = (-1.5, -0.5, 0.5, 1.5), z'z = 5, z'Wz = 0.75 + 0.25 + 0.25 + 0.75 = 2,
    # S0 = 4 (row-standardised), so I = 4/4 * 2/5 = 0.4.
    graph = nx.path_graph(["a", "b", "c", "d"])
    assert morans_i(pd.Series([1.0, 2.0, 3.0, 4.0], index=list("abcd")), graph) == pytest.approx(0.4)
    # Alternating ±1: z'z = 4, Wz = (-1, 1, -1, 1), z'Wz = -4, so I = 4/4 * -4/4 = -1.
    assert morans_i(pd.Series([1.0, -1.0, 1.0, -1.0], index=list("abcd")), graph) == pytest.approx(-1.0)


def test_morans_i_islands_nan_and_degenerate() -> None:
    graph = nx.Graph([("a", "b"), ("b", "c")])
    graph.add_node("island")
    w = weights(graph, ["a", "b", "c", "island"])
    assert w.sum(axis=1).tolist() == [1.0, 1.0, 1.0, 0.0]
    # The island stays in n and z but has no weights: n = 4, S0 = 3.
    values = pd.Series({"a": 0.0, "b": 1.0, "c": 2.0, "island": 1.0})
    z = values.to_numpy() - 1.0
    expected = 4 / 3 * (z @ w @ z) / (z @ z)
    assert morans_i(values, graph) == pytest.approx(expected)
    assert morans_i(pd.Series({"a": 1.0, "b": np.nan, "c": 2.0}), graph) != morans_i(values, graph)
    assert math.isnan(morans_i(pd.Series({"a": 1.0, "b": 1.0, "c": 1.0}), graph))


def test_reproducible_per_seed_and_different_across_seeds() -> None:
    a = synthesize("india", 7, spatial=0.6)
    b = synthesize("india", 7, spatial=0.6)
    c = synthesize("india", 8, spatial=0.6)
    assert a.values.equals(b.values) and a.info == b.info
    assert not a.values.equals(c.values)
    assert list(a.values.index) == list(load_atlas("india").codes) and not a.missing


@pytest.mark.parametrize("distribution", list(DISTRIBUTIONS))
@pytest.mark.parametrize("kind", ["absolute", "percent"])
def test_range_kind_and_decimals(distribution: str, kind: str) -> None:
    stat = synthesize("usa", 3, distribution=distribution, kind=kind, spatial=0.5, title="Own title")
    low, high = (5.0, 95.0) if kind == "percent" else (100.0, 100_000.0)
    assert stat.values.min() == low and stat.values.max() == high
    assert stat.kind == kind and stat.percent == (kind == "percent") and stat.country == "usa"
    decimals = 1 if kind == "percent" else 0
    assert (stat.values.round(decimals) == stat.values).all()
    custom = synthesize("usa", 3, distribution=distribution, kind=kind, low=20, high=30, decimals=2)
    assert custom.values.min() == 20 and custom.values.max() == 30


def test_distribution_shapes() -> None:
    """Pooled over seeds: skewness orders heavy-tailed > lognormal > normal ≈ uniform ≈ 0; bimodal has a gap."""
    atlas = load_atlas("usa")

    def pooled(distribution: str) -> np.ndarray:
        return np.concatenate(
            [synthesize(atlas, s, distribution=distribution, low=0, high=1, decimals=6).values for s in range(40)]
        )

    skew = {d: sps.skew(pooled(d)) for d in DISTRIBUTIONS}
    assert skew["heavy_tailed"] > skew["lognormal"] > 1.0
    assert abs(skew["normal"]) < 0.3 and abs(skew["uniform"]) < 0.3
    assert sps.kurtosis(pooled("uniform")) < -1.0  # flat: excess kurtosis -1.2
    bimodal = pooled("bimodal")
    middle = np.mean((bimodal > 0.4) & (bimodal < 0.6))
    assert middle < 0.5 * np.mean((bimodal > 0.15) & (bimodal < 0.35))


def test_missing_regions_and_metadata() -> None:
    stat = synthesize("china", 1, n_missing=3, title="Made up", unit="points")
    assert len(stat.missing) == 3 and set(stat.info.missing) == set(stat.missing)
    assert stat.title == "Made up" and stat.unit == "points" and "seed=1" in stat.source
    assert synthesize("china", 1, kind="percent", title="Made up").unit == "%"
    untitled = synthesize("china", 1, kind="percent")
    assert untitled.unit.startswith("%") and "synthetic" in untitled.info.notes.lower()
    assert "distribution=lognormal" in untitled.source and untitled.id.startswith("synthetic_")


#: Words that give the generator away (its name, its distributions, the old "index"/"share" stand-ins).
GENERATOR_WORDS = ("synthetic", "lognormal", "log-normal", "normal", "uniform", "bimodal", "heavy", "tailed",
                   "pareto", "index", "seed", "spatial", "random", "mapgen")


@pytest.mark.parametrize("country", ["usa", "india", "china"])
def test_titles_read_like_statistics_with_units(country: str) -> None:
    """Every seeded table (both kinds, every distribution) is titled after an indicator: no generator word in the
    title, a unit that the map's title shows, values inside the indicator's plausible range."""
    atlas = load_atlas(country)
    titles = set()
    for seed in range(12):
        for distribution in DISTRIBUTIONS:
            for kind in ("absolute", "percent"):
                stat = synthesize(atlas, seed, distribution=distribution, kind=kind)
                shown = stat.info.display_title
                assert not [w for w in GENERATOR_WORDS if w in shown.lower()], shown
                assert stat.unit and shows_unit(shown, stat.unit), shown
                assert stat.unit.startswith("%") == (kind == "percent"), (shown, kind)
                ind = next(i for i in indicators(country) if i.title == stat.title)
                assert ind.low <= stat.values.min() < stat.values.max() <= ind.high, (shown, ind)
                assert stat.values.max() - stat.values.min() >= (1 - 2 * RANGE_JITTER) * (ind.high - ind.low) - 1e-9
                titles.add(stat.title)
    assert len(titles) >= 15  # the seed spreads tables over the list, not one title per kind


@pytest.mark.parametrize("country", ["usa", "india", "china", "a-user-atlas"])
def test_every_kind_and_distribution_has_indicators(country: str) -> None:
    """Each (kind, distribution) a build can ask for has at least two indicators, also for a user atlas (which
    gets only country-neutral ones); money is in the country's currency."""
    inds = indicators(country)
    for kind in ("absolute", "percent"):
        for distribution in DISTRIBUTIONS:
            assert len([i for i in inds if i.kind == kind and distribution in i.distributions]) >= 2, (kind, distribution)
    for ind in inds:
        assert ind.low < ind.high and (ind.kind != "percent" or ind.low >= 0 and ind.high <= 100), ind
    currency = {"usa": "US$", "india": "rupees", "china": "yuan"}.get(country)
    wages = [i.unit for i in inds if i.title == "Average monthly wage"]
    assert wages == ([currency] if currency else [])


@pytest.mark.parametrize("title,unit,shown", [
    ("Unemployment rate", "%", False), ("Unemployment rate (%)", "%", True), ("Electoral votes, 2024", "votes", True),
    ("Ballots cast", "votes", False), ("Votes cast", "votes", True), ("Land area (sq mi)", "sq mi", True), ("Land area (sq miles)", "sq mi", False),
    ("Anything", "", False)])
def test_shows_unit(title: str, unit: str, shown: bool) -> None:
    assert shows_unit(title, unit) is shown


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown distribution 'pareto'"):
        synthesize("usa", 1, distribution="pareto")
    with pytest.raises(ValueError, match="spatial must be between 0"):
        synthesize("usa", 1, spatial=1.5)
    with pytest.raises(ValueError, match="0 <= low < high <= 100"):
        synthesize("usa", 1, kind="percent", high=120)
    with pytest.raises(ValueError, match="low < high"):
        synthesize("usa", 1, low=5, high=5)


@pytest.mark.parametrize("country", ["usa", "india", "china"])
def test_morans_i_rises_with_spatial_knob(country: str) -> None:
    atlas = load_atlas(country)
    mean_i = [
        np.mean([morans_i(synthesize(atlas, seed, spatial=s).values, atlas.graph) for seed in range(30)])
        for s in (0.0, 0.3, 0.6, 0.9)
    ]
    assert all(a < b for a, b in zip(mean_i, mean_i[1:])), mean_i
    assert abs(mean_i[0]) < 0.1  # independent: E[I] = -1/(n-1)
    assert mean_i[-1] > 0.35
