"""The USA is drawn on shoreline-clipped boundaries (issue 36 item 2): the Great Lakes are water, Michigan is two
peninsulas, and states that meet only across a lake are not plain borders.

Points are given as lon/lat and projected with the atlas's own CRS; the rendered check reads the region-id mask
a real render wrote.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyproj
import pytest
from PIL import Image
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from mapgen.geo.atlas import load_atlas
from mapgen.geo.border_audit import audit, load_published
from mapgen.render import render
from mapgen.render.api import get_canvas
from mapgen.spec import make_spec

#: (lon, lat) well inside each lake, and inside each of Michigan's peninsulas.
LAKE_MICHIGAN = (-87.0, 44.0)
LAKE_SUPERIOR = (-87.5, 47.6)
LOWER_PENINSULA = (-84.55, 43.3)
UPPER_PENINSULA = (-86.5, 46.3)
WATER_ONLY = [("IL", "MI"), ("MI", "MN")]


def _projected(atlas, lonlat: tuple[float, float]) -> tuple[float, float]:
    x, y = pyproj.Transformer.from_crs("EPSG:4326", atlas.crs, always_xy=True).transform(*lonlat)
    return float(x), float(y)


def _geoms(atlas) -> dict[str, BaseGeometry]:
    return dict(zip(atlas.codes, atlas.gdf.geometry))


@pytest.mark.parametrize("lake", [LAKE_MICHIGAN, LAKE_SUPERIOR], ids=["michigan", "superior"])
def test_a_point_in_the_lake_is_in_no_region(lake: tuple[float, float]) -> None:
    atlas = load_atlas("usa")
    point = Point(_projected(atlas, lake))
    assert [c for c, g in _geoms(atlas).items() if g.contains(point)] == []
    # the shore is near: the lake is not off the map
    assert min(g.distance(point) for g in _geoms(atlas).values()) < 150_000


def test_michigan_is_two_peninsulas() -> None:
    atlas = load_atlas("usa")
    michigan = _geoms(atlas)["MI"]
    parts = sorted(getattr(michigan, "geoms", [michigan]), key=lambda p: p.area, reverse=True)
    assert len(parts) >= 2
    lower, upper = (Point(_projected(atlas, p)) for p in (LOWER_PENINSULA, UPPER_PENINSULA))
    assert parts[0].contains(lower) and parts[1].contains(upper)
    assert parts[1].area / 1e6 > 30_000  # the Upper Peninsula (~43,000 km²), not an island


@pytest.mark.parametrize("pair", WATER_ONLY)
def test_water_only_pairs_are_contested_not_borders(pair: tuple[str, str]) -> None:
    atlas, published = load_atlas("usa"), load_published("usa")
    a, b = pair
    assert b not in atlas.neighbors(a) and a not in atlas.neighbors(b)
    assert frozenset(pair) in atlas.contested
    difference = published.differences[frozenset(pair)]
    assert "water" in difference["reason"] and difference["source"]
    assert frozenset(pair) in audit("usa").disagreements


def test_land_neighbours_and_lake_borders_with_canada_are_kept() -> None:
    """DESIGN.md §3's facts on the new lines: Michigan keeps its land borders, Colorado its 6 neighbours, and
    Canada borders 13 states counting lake borders (Ohio and Pennsylvania in Lake Erie)."""
    atlas = load_atlas("usa")
    assert atlas.neighbors("MI") == {"IN", "OH", "WI"}
    assert atlas.neighbors("CO") == {"WY", "NE", "KS", "OK", "NM", "UT"}
    canada = {c for c in atlas.codes if "Canada" in atlas.foreign_borders(c)}
    assert canada == {"AK", "ID", "ME", "MI", "MN", "MT", "NH", "NY", "ND", "OH", "PA", "VT", "WA"}
    assert {c for c in atlas.codes if "Mexico" in atlas.foreign_borders(c)} == {"AZ", "CA", "NM", "TX"}


@pytest.mark.parametrize(("look", "size"), [("default", (800, 600)), ("mapwise", (1000, 600))])
def test_the_rendered_mask_shows_the_lakes_as_background(look: str, size: tuple[int, int], tmp_path: Path) -> None:
    """Read the mask a render wrote: the lakes' centres are background, each peninsula is Michigan."""
    spec = make_spec("usa", "population_2020", annotated=True, width=size[0], height=size[1], look=look)
    result = render(spec, tmp_path / "usa.png")
    mask = np.asarray(Image.open(result.mask))  # palette PNG: the index is the region number
    ids = result.record["render"]["mask_ids"]
    atlas = load_atlas("usa")
    layout = get_canvas(atlas, spec.style).layout

    def at(lonlat: tuple[float, float]) -> int:
        x, y = layout.to_pixels(np.array([_projected(atlas, lonlat)]))[0]
        return int(mask[int(round(y)), int(round(x))])

    assert at(LAKE_MICHIGAN) == 0 and at(LAKE_SUPERIOR) == 0
    assert at(LOWER_PENINSULA) == at(UPPER_PENINSULA) == ids["MI"]
