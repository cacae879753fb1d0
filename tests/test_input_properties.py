"""Property-based tests (hypothesis) of user tables and user atlas geometry.

Tables: any subset of regions, spelt as code, name or alias in any case and spacing, in any row order, with
any finite values, loads to exactly those values; an infinite value, a duplicate region, a percent outside
0-100 or a missing header line is refused naming the row. Geometry: a grid of squares anywhere on the globe
(across the antimeridian included) has the 4-neighbour grid graph as its border graph and no overlap warning.
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from mapgen import load_atlas
from mapgen.data.user_tables import TableError, load_table
from mapgen.geo.vector_file import AtlasFileError, OverlapWarning, load_user_atlas

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,  # same examples every run: CI never flakes
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
ATLASES = {name: load_atlas(name) for name in ("usa", "india")}

# values a legend can print: 0 or 1e-12 <= |v| <= 1e12 (smaller or larger magnitudes are refused, see
# tests/test_input_messages.py)
_magnitude = st.floats(min_value=1e-12, max_value=1e12)
finite = st.one_of(st.just(0.0), _magnitude, _magnitude.map(lambda v: -v))


@st.composite
def spelled_rows(draw, percent: bool = False):
    """``(atlas name, [(spelling, code, value)])``: distinct regions, each spelt one way, values finite."""
    name = draw(st.sampled_from(sorted(ATLASES)))
    atlas = ATLASES[name]
    codes = draw(st.lists(st.sampled_from(atlas.codes), min_size=1, max_size=12, unique=True))
    values = st.one_of(st.just(0.0), st.floats(min_value=1e-12, max_value=100)) if percent else finite
    rows = []
    for code in codes:
        forms = [code, atlas.names[code], *atlas.aliases.get(code, ())]
        form = draw(st.sampled_from(forms))
        case = draw(st.sampled_from([str, str.upper, str.lower, str.title]))
        pad = draw(st.sampled_from(["", " ", "  "]))
        rows.append((pad + case(form) + pad, code, draw(values)))
    return name, rows


def write_csv(path: Path, rows, header: tuple[str, str] | None = ("region", "value")) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if header:
        writer.writerow(header)
    writer.writerows([(spelling, value if isinstance(value, str) else repr(value)) for spelling, _, value in rows])
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


@SETTINGS
@given(table=spelled_rows(), order=st.randoms(use_true_random=False))
def test_any_spelling_and_order_loads_exactly_the_values(tmp_path: Path, table, order) -> None:
    name, rows = table
    stat = load_table(write_csv(tmp_path / "t.csv", rows), name)
    order.shuffle(rows)
    shuffled = load_table(write_csv(tmp_path / "s.csv", rows), name)
    assert stat.values.equals(shuffled.values)  # metamorphic: row order does not matter
    assert {c: stat.values[c] for _, c, _ in rows} == {c: v for _, c, v in rows}
    listed = {c for _, c, _ in rows}
    assert all(math.isnan(stat.values[c]) for c in ATLASES[name].codes if c not in listed)


@SETTINGS
@given(table=spelled_rows(), where=st.integers(min_value=0), sign=st.sampled_from(["inf", "-inf", "Infinity"]))
def test_an_infinite_value_is_refused_naming_its_line(tmp_path: Path, table, where: int, sign: str) -> None:
    name, rows = table
    i = where % len(rows)
    rows[i] = (rows[i][0], rows[i][1], sign)
    with pytest.raises(TableError, match=rf"Infinite values.*line {i + 2} {rows[i][1]}:"):
        load_table(write_csv(tmp_path / "t.csv", rows), name)


@SETTINGS
@given(table=spelled_rows(), where=st.integers(min_value=0), other=st.sampled_from([str.upper, str.lower]))
def test_a_region_listed_twice_is_refused(tmp_path: Path, table, where: int, other) -> None:
    name, rows = table
    spelling, code, value = rows[where % len(rows)]
    rows.append((other(ATLASES[name].names[code]), code, value))
    with pytest.raises(TableError, match=rf"Duplicate regions.*both {code}"):
        load_table(write_csv(tmp_path / "t.csv", rows), name)


@SETTINGS
@given(table=spelled_rows(percent=True), where=st.integers(min_value=0),
       outside=st.one_of(st.floats(min_value=100.001, max_value=1e6), st.floats(min_value=-1e6, max_value=-0.001)))
def test_percent_values_must_lie_in_0_to_100(tmp_path: Path, table, where: int, outside: float) -> None:
    name, rows = table
    assume(not all(0.0 <= v <= 1.0 for _, _, v in rows) or len(rows) < 2)  # all in 0-1: fractions, refused
    path = write_csv(tmp_path / "ok.csv", rows)
    assert load_table(path, name, kind="percent").present.between(0, 100).all()
    i = where % len(rows)
    rows[i] = (rows[i][0], rows[i][1], outside)
    with pytest.raises(TableError, match=rf"outside 0-100.*line {i + 2} {rows[i][1]}"):
        load_table(write_csv(tmp_path / "bad.csv", rows), name, kind="percent")


@SETTINGS
@given(table=spelled_rows())
def test_a_table_without_its_header_line_is_refused(tmp_path: Path, table) -> None:
    name, rows = table
    with pytest.raises(TableError, match="looks like data.*add a header line"):
        load_table(write_csv(tmp_path / "t.csv", rows, header=None), name)


@SETTINGS
@given(table=spelled_rows(), where=st.integers(min_value=0), blank=st.sampled_from(["", "NA", "nan", "n/a", "-"]))
def test_an_explicit_missing_cell_becomes_na_with_a_warning(tmp_path: Path, table, where: int, blank: str) -> None:
    name, rows = table
    assume(len(rows) > 1)
    i = where % len(rows)
    rows[i] = (rows[i][0], rows[i][1], blank)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stat = load_table(write_csv(tmp_path / "t.csv", rows), name)
    assert math.isnan(stat.values[rows[i][1]]) and any(f"line {i + 2}" in str(w.message) for w in caught)


# --- geometry ---------------------------------------------------------------------------------------------


def grid_file(path: Path, west: float, south: float, size: float, cols: int, rows: int) -> Path:
    """A cols×rows grid of squares; cells east of 180° are written at their longitude − 360 (as GeoJSON must)."""
    features = []
    for r in range(rows):
        for c in range(cols):
            x = west + c * size
            x = x - 360 if x >= 180 - 1e-9 else x
            ring = [[x, south + r * size], [x + size, south + r * size], [x + size, south + (r + 1) * size],
                    [x, south + (r + 1) * size], [x, south + r * size]]
            features.append({"type": "Feature", "properties": {"name": f"Cell {r} {c}", "code": f"R{r}C{c}"},
                             "geometry": {"type": "Polygon", "coordinates": [ring]}})
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


def expected_graph(cols: int, rows: int) -> set[frozenset[str]]:
    grid = nx.grid_2d_graph(rows, cols)
    return {frozenset(f"R{r}C{c}" for r, c in edge) for edge in grid.edges}


@SETTINGS
@given(cols=st.integers(1, 4), rows=st.integers(1, 4), size=st.sampled_from([0.25, 0.5, 1.0, 2.0]),
       west=st.integers(-170, 160), south=st.integers(-60, 50))
def test_a_grid_anywhere_has_the_grid_graph_and_no_overlaps(tmp_path: Path, cols, rows, size, west, south) -> None:
    assume(cols * rows > 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OverlapWarning)
        atlas = load_user_atlas(grid_file(tmp_path / "g.geojson", west, south, size, cols, rows))
    assert {frozenset(e) for e in atlas.graph.edges} == expected_graph(cols, rows)


@SETTINGS
@given(cols=st.integers(2, 4), rows=st.integers(1, 3), size=st.sampled_from([0.5, 1.0, 2.0]),
       east_cells=st.integers(1, 3), south=st.integers(-60, 50))
@example(cols=2, rows=1, size=2.0, east_cells=1, south=-1)  # centred on the equator: Albers has no cone there
def test_a_grid_across_the_antimeridian_keeps_its_graph(tmp_path: Path, cols, rows, size, east_cells, south) -> None:
    """Metamorphic: the same grid cut by ±180° (some columns written at negative longitudes) has the same
    graph, and positions still rise eastwards column by column."""
    east_cells = min(east_cells, cols - 1)
    west = 180 - (cols - east_cells) * size
    atlas = load_user_atlas(grid_file(tmp_path / "g.geojson", west, south, size, cols, rows))
    assert {frozenset(e) for e in atlas.graph.edges} == expected_graph(cols, rows)
    lons = [atlas.positions[f"R0C{c}"].lon for c in range(cols)]
    assert lons == sorted(lons)


@SETTINGS
@given(x=st.floats(200, 5e6), y=st.floats(-5e6, 5e6))
def test_projected_metres_without_a_crs_are_refused(tmp_path: Path, x: float, y: float) -> None:
    path = grid_file(tmp_path / "m.geojson", 0, 0, 1, 2, 1)
    path.write_text(path.read_text().replace("[0, 0]", f"[{x}, {y}]"))
    with pytest.raises(AtlasFileError, match=r"longitude beyond ±180.*CRS"):
        load_user_atlas(path)
