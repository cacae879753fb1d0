"""User atlases: any GeoJSON / GeoPackage / shapefile with a name column becomes an :class:`Atlas`."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import geopandas as gpd
import pyproj
import shapely

from mapgen.geo.adjacency import border_graph
from mapgen.geo.model import Atlas, Position


class AtlasFileError(ValueError):
    """A user atlas file that cannot be used as given."""


def load_user_atlas(
    path: str | Path,
    name_field: str = "name",
    code_field: str | None = None,
    title: str | None = None,
) -> Atlas:
    """Read a vector file, repair or reject bad geometry, project it equal-area and compute the border graph."""
    path = Path(path)
    if not path.exists():
        raise AtlasFileError(f"Atlas file {str(path)!r} does not exist.")
    try:
        gdf = gpd.read_file(path)
    except Exception as exc:  # pyogrio raises several types for unreadable files
        raise AtlasFileError(
            f"Cannot read {str(path)!r} as a vector file ({exc}). Give a GeoJSON, GeoPackage or shapefile."
        ) from exc
    if gdf.empty:
        raise AtlasFileError(f"Atlas file {str(path)!r} has no features.")
    _require_column(gdf, name_field, "name_field", path)
    if code_field is not None:
        _require_column(gdf, code_field, "code_field", path)
    names = [str(n).strip() for n in gdf[name_field]]
    codes = [str(c).strip() for c in gdf[code_field]] if code_field else make_codes(names)
    _reject_duplicates(codes, "code", path)
    _reject_duplicates(names, "name", path)
    geoms = [_checked_geometry(g, label) for g, label in zip(gdf.geometry, names)]
    crs = gdf.crs or pyproj.CRS.from_epsg(4326)
    lonlat = gpd.GeoSeries(geoms, crs=crs).to_crs(4326)
    equal_area = _equal_area_crs(lonlat.total_bounds)
    projected = lonlat.to_crs(equal_area)
    frame = gpd.GeoDataFrame({"name": names}, geometry=list(projected), index=codes, crs=equal_area)
    frame.index.name = "code"
    return Atlas(
        name=path.stem,
        title=title or path.stem,
        names=dict(zip(codes, names)),
        load_geometry=lambda: frame,
        aliases={},
        graph=border_graph(codes, list(projected)),
        positions=_positions(codes, lonlat, projected, equal_area),
        source=str(path),
        crs=equal_area,
    )


def make_codes(names: list[str]) -> list[str]:
    """Short unique codes from names: initials (``New Mexico`` → ``NM``) or first letters, numbered on clashes."""
    codes: list[str] = []
    for name in names:
        words = re.findall(r"[A-Za-z0-9]+", name) or ["R"]
        base = "".join(w[0] for w in words).upper() if len(words) > 1 else words[0][:2].upper()
        code, n = base, 1
        while code in codes:
            n += 1
            code = f"{base}{n}"
        codes.append(code)
    return codes


def _require_column(gdf: gpd.GeoDataFrame, column: str, option: str, path: Path) -> None:
    if column not in gdf.columns:
        fields = ", ".join(c for c in gdf.columns if c != "geometry")
        raise AtlasFileError(f"{str(path)!r} has no column {column!r} (set {option}=...; columns: {fields}).")


def _reject_duplicates(values: list[str], what: str, path: Path) -> None:
    seen, dupes = set(), []
    for v in values:
        if v in seen:
            dupes.append(v)
        seen.add(v)
    if dupes:
        raise AtlasFileError(f"Duplicate region {what}s in {str(path)!r}: {', '.join(sorted(set(dupes)))}.")


def _checked_geometry(geom, label: str):
    if geom is None or geom.is_empty:
        raise AtlasFileError(f"Feature {label!r} has empty geometry; remove it or give it a polygon.")
    if geom.geom_type not in ("Polygon", "MultiPolygon"):
        raise AtlasFileError(f"Feature {label!r} is a {geom.geom_type}; regions must be polygons.")
    if not geom.is_valid:
        warnings.warn(f"Feature {label!r} had invalid geometry; repaired with make_valid.", stacklevel=3)
        fixed = shapely.make_valid(geom)
        parts = [g for g in getattr(fixed, "geoms", [fixed]) if g.geom_type in ("Polygon", "MultiPolygon")]
        geom = shapely.union_all(parts)
    return geom


def _equal_area_crs(bounds) -> str:
    """An Albers equal-area CRS fitted to lon/lat bounds (standard parallels at 1/6 and 5/6 of the span)."""
    west, south, east, north = bounds
    span = north - south
    return (
        f"+proj=aea +lat_1={south + span / 6:.4f} +lat_2={north - span / 6:.4f} +lat_0={(south + north) / 2:.4f} "
        f"+lon_0={(west + east) / 2:.4f} +datum=WGS84 +units=m +no_defs"
    )


def _positions(codes, lonlat: gpd.GeoSeries, projected: gpd.GeoSeries, crs: str) -> dict[str, Position]:
    inverse = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True).transform
    out = {}
    for code, ll, eq in zip(codes, lonlat, projected):
        largest = max(getattr(eq, "geoms", [eq]), key=lambda p: p.area)
        lon, lat = inverse(*largest.centroid.coords[0])
        west, south, east, north = ll.bounds
        out[code] = Position(lon, lat, west, south, east, north, eq.area / 1e6)
    return out
