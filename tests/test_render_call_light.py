"""What keeps one ``mapgen render`` call light (issue 30 item 7) computes exactly what the heavy path did.

A built-in atlas reads its bounds off the shipped GeoJSON (no geopandas) and its neighbours and contested pairs
off the shipped edges (no networkx: the border graph is built on first use); shipped YAML is parsed by libyaml.
Each shortcut must give the same values as the path it skips. (Which modules one call imports:
``tests/test_cli_lazy.py``.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mapgen import load_atlas
from mapgen.geo.published_borders import has_published, load_published
from mapgen.render.layout import default_page_size, shape_size
from mapgen.render.style import load_style, preset_names
from mapgen.yamlio import load_shipped

ATLASES = ("usa", "india", "china", "india-mapwise")
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ATLASES)
def test_shipped_bounds_are_the_geometry_bounds(name: str) -> None:
    fresh = load_atlas(name)
    shipped = fresh.load_bounds() if fresh.load_bounds is not None else fresh.bounds
    assert shipped == tuple(float(v) for v in fresh.gdf.total_bounds)
    assert fresh.bounds == shipped


@pytest.mark.parametrize("name", ATLASES)
def test_neighbours_and_contested_pairs_are_the_graphs(name: str) -> None:
    atlas = load_atlas(name)
    assert atlas.gazetteer.neighbors == {c: frozenset(atlas.graph.neighbors(c)) for c in atlas.names}
    if name in ("usa", "india", "china") and has_published(name):
        assert atlas.contested == load_published(name).contested(frozenset(e) for e in atlas.graph.edges)
    part = atlas.without(atlas.codes[:3])
    assert part.gazetteer.neighbors == {c: frozenset(part.graph.neighbors(c)) for c in part.names}
    assert sorted(part.graph.edges) == sorted(atlas.graph.subgraph(part.codes).edges)


def test_names_and_neighbours_build_no_graph() -> None:
    code = ("import sys; from mapgen import load_atlas; a = load_atlas('usa'); a.neighbors('CO'); a.membership; "
            "a.bounds; print(sorted(m for m in ('networkx', 'geopandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("style", preset_names())
@pytest.mark.parametrize("name", ATLASES)
def test_the_one_page_size_is_the_geometrys(name: str, style: str) -> None:
    """Build and CLI size a page by one rule (:func:`mapgen.render.layout.default_page_size` through :func:`mapgen.mapmaking.look_fields`, from
    ``atlas.bounds``); it gives
    the size the loaded geometry's bounds give."""
    atlas, look = load_atlas(name), load_style(style)
    x1, y1, x2, y2 = (float(v) for v in atlas.gdf.total_bounds)
    expected = tuple(int(v) for v in look.sizes[atlas.name]) if atlas.name in look.sizes else shape_size((x1, y1, x2, y2), look)
    assert default_page_size(atlas, look) == expected


def test_shipped_yaml_parses_the_same_with_libyaml() -> None:
    files = sorted(p for folder in ("data", "templates") for p in (ROOT / folder).rglob("*.yaml"))
    assert len(files) > 20
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert load_shipped(text) == yaml.safe_load(text), path
