"""The coordinate system of a user vector file, refusing one that cannot be right (docs/atlases-and-data.md).

A file's declared CRS is read as written (a GeoJSON ``crs`` member that GDAL would silently replace by
longitude/latitude included) and checked against its coordinates before anything is projected: an unknown or
unparseable CRS, degree-sized coordinates declared as a projected CRS (EPSG:3857 with extents within
±180/±90), projected coordinates that do not map back onto the globe, and coordinates beyond ±180/±90 in a
lon/lat file are each refused with one line naming the file, the declared CRS and the fix.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pyproj
import shapely


class AtlasFileError(ValueError):
    """A user atlas file that cannot be used as given (re-exported by :mod:`mapgen.geo.vector_file`)."""


_ASSIGN = "`ogr2ogr -a_srs EPSG:4326 out.geojson {name}` (assigns without reprojecting)"


def declared_crs(gdf: gpd.GeoDataFrame, path: Path) -> pyproj.CRS:
    """The CRS ``path`` declares (longitude/latitude when it declares none); an unknown one is refused."""
    written = _geojson_crs(path)
    if written is not None:
        try:
            return pyproj.CRS.from_user_input(written)
        except pyproj.exceptions.CRSError:
            _refuse_unknown(path, written)
    if gdf.crs is not None:
        return pyproj.CRS.from_user_input(gdf.crs)
    prj = path.with_suffix(".prj")
    if path.suffix.lower() == ".shp" and prj.is_file():
        _refuse_unknown(path, " ".join(prj.read_text(encoding="utf-8", errors="replace").split())[:80])
    return pyproj.CRS.from_epsg(4326)


def refuse_unreadable_prj(path: Path) -> None:
    """Refuse a shapefile whose ``.prj`` is no CRS pyproj can read (GDAL then fails to open the file)."""
    prj = path.with_suffix(".prj")
    if path.suffix.lower() != ".shp" or not prj.is_file():
        return
    text = prj.read_text(encoding="utf-8", errors="replace")
    try:
        pyproj.CRS.from_user_input(text)
    except pyproj.exceptions.CRSError:
        _refuse_unknown(path, " ".join(text.split())[:80])


def _refuse_unknown(path: Path, written: str) -> None:
    raise AtlasFileError(
        f"{str(path)!r} declares the CRS {written!r}, which is not a coordinate system mapgen knows; save the file "
        f"with a known CRS (an EPSG code), e.g. {_ASSIGN.format(name=path.name)} when its coordinates are "
        "longitude/latitude."
    )


def _geojson_crs(path: Path) -> str | None:
    """A GeoJSON file's ``crs`` member as written (a name, ``EPSG:<code>`` or its JSON); None without one."""
    if path.suffix.lower() not in (".geojson", ".json"):
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    if '"crs"' not in text:
        return None
    try:
        member = json.loads(text).get("crs")
    except (ValueError, AttributeError):
        return None
    if not isinstance(member, dict):
        return None if member is None else json.dumps(member)
    props = member.get("properties") or {}
    if member.get("type") == "name" and isinstance(props.get("name"), str):
        return props["name"]
    if member.get("type") == "EPSG" and props.get("code") is not None:
        return f"EPSG:{props['code']}"
    return json.dumps(member)


def to_lonlat(geoms: gpd.GeoSeries, path: Path) -> gpd.GeoSeries:
    """``geoms`` (in their declared CRS) in longitude/latitude, after checking the CRS fits the coordinates."""
    crs = pyproj.CRS.from_user_input(geoms.crs)
    bounds = tuple(float(b) for b in geoms.total_bounds)
    if crs.is_geographic:
        _check_lonlat(bounds, path)
        return geoms.to_crs(4326)
    name = _crs_name(crs)
    if not crs.is_projected:
        raise AtlasFileError(f"{str(path)!r} declares {name}, which is neither longitude/latitude nor a map "
                             "projection; save the file with a geographic or projected CRS (an EPSG code).")
    if _degree_sized(bounds, crs):
        raise AtlasFileError(
            f"{str(path)!r} declares the projected CRS {name} but its coordinates ({_extent(bounds)}) are "
            "longitude/latitude-sized; if they are degrees, declare EPSG:4326 instead, e.g. "
            f"{_ASSIGN.format(name=path.name)}, otherwise fix the coordinates."
        )
    if not _maps_onto_globe(bounds, crs):
        raise AtlasFileError(
            f"{str(path)!r} declares the projected CRS {name} but its coordinates ({_extent(bounds)}) lie outside "
            "what that projection can map onto the globe; declare the CRS the coordinates were made in, or fix them."
        )
    return geoms.to_crs(4326)


def _crs_name(crs: pyproj.CRS) -> str:
    code = crs.to_epsg()
    return f"EPSG:{code} ({crs.name})" if code else repr(crs.name)


def _extent(bounds: tuple[float, ...]) -> str:
    west, south, east, north = bounds
    return f"x {west:.6g} to {east:.6g}, y {south:.6g} to {north:.6g}"


def _degree_sized(bounds: tuple[float, ...], crs: pyproj.CRS) -> bool:
    """Whether projected coordinates in metres (or feet) all lie within ±180 / ±90: a few hundred metres around
    the projection's origin, which is what degrees read as metres look like."""
    west, south, east, north = bounds
    unit = crs.axis_info[0].unit_conversion_factor if crs.axis_info else 1.0
    return unit <= 1.0 and -180.0 <= west <= east <= 180.0 and -90.0 <= south <= north <= 90.0


def _maps_onto_globe(bounds: tuple[float, ...], crs: pyproj.CRS) -> bool:
    """Whether the corners and middle of the extent map to finite longitude/latitude and back to themselves."""
    west, south, east, north = bounds
    xs = [west, east, east, west, (west + east) / 2]
    ys = [south, south, north, north, (south + north) / 2]
    inverse = pyproj.Transformer.from_crs(crs, 4326, always_xy=True)
    lon, lat = inverse.transform(xs, ys)
    if not all(math.isfinite(v) for v in (*lon, *lat)) or max(map(abs, lat)) > 90 or max(map(abs, lon)) > 180:
        return False
    back_x, back_y = pyproj.Transformer.from_crs(4326, crs, always_xy=True).transform(lon, lat)
    tolerance = max(1.0, 1e-6 * max(east - west, north - south))
    return all(_close(a, b, tolerance) for a, b in zip((*xs, *ys), (*back_x, *back_y)))


def _close(a: Any, b: Any, tolerance: float) -> bool:
    return math.isfinite(b) and abs(a - b) <= tolerance


def _check_lonlat(bounds: tuple[float, ...], path: Path) -> None:
    """Refuse coordinates a lon/lat file cannot hold (projected metres in a file that declares no CRS)."""
    west, south, east, north = bounds
    if -180.0 <= west <= east <= 180.0 and -90.0 <= south <= north <= 90.0:
        return
    axis = "latitude beyond ±90" if -180.0 <= west <= east <= 180.0 else "longitude beyond ±180"
    raise AtlasFileError(
        f"{str(path)!r} has coordinates {_extent(bounds)} ({axis}) "
        "but declares no projected CRS; if they are projected (e.g. "
        "metres), save the file with its CRS (GeoPackage/shapefile .prj, or `ogr2ogr -t_srs EPSG:4326`), "
        "otherwise fix the coordinates."
    )


def refuse_antimeridian_edges(lonlat: gpd.GeoSeries, names: list[str], path: Path) -> None:
    """Refuse a ring with an edge spanning more than 180° of longitude: it was meant to cross the antimeridian
    (179° → -179°) but draws as a band around the globe that squeezes every other region to nothing."""
    for name, geom in zip(names, lonlat):
        for ring in _rings(geom):
            lons = shapely.get_coordinates(ring)[:, 0]
            if len(lons) > 1 and float(abs(np.diff(lons)).max()) > 180.0:
                raise AtlasFileError(
                    f"{str(path)!r}: feature {name!r} has an edge jumping across the antimeridian (from "
                    f"{_jump(lons)}), which would draw it as a band around the globe; split it into two parts "
                    "at ±180° (one ending at 180, one starting at -180), e.g. `ogr2ogr -wrapdateline out.geojson "
                    "in.geojson`.")


def _rings(geom: Any) -> list[Any]:
    polygons = getattr(geom, "geoms", [geom])
    return [ring for p in polygons for ring in (p.exterior, *p.interiors)]


def _jump(lons: np.ndarray) -> str:
    i = int(abs(np.diff(lons)).argmax())
    return f"{lons[i]:g}° to {lons[i + 1]:g}°"


#: A polygon part holding less than this share of the atlas's area is a speck when it lies far from the rest.
SPECK_SHARE = 0.001
#: ... and far means: with it, the map's extent is more than this many times the extent without the specks.
SPECK_STRETCH = 10.0


def refuse_far_specks(projected: list[Any], names: list[str], path: Path) -> None:
    """Refuse tiny polygon parts lying so far from the other regions that the map would shrink every region to
    a few pixels (one stray island or digitising slip); name each with where it is and the fix."""
    parts = [(name, part) for name, geom in zip(names, projected) for part in getattr(geom, "geoms", [geom])]
    total = sum(part.area for _, part in parts)
    core = [part for _, part in parts if part.area >= SPECK_SHARE * total]
    if not core or len(core) == len(parts):
        return
    core_box = shapely.box(*shapely.GeometryCollection(core).bounds)
    all_box = shapely.box(*shapely.GeometryCollection([p for _, p in parts]).bounds)
    if _diagonal(all_box) <= SPECK_STRETCH * max(_diagonal(core_box), 1.0):
        return
    far = [(name, part) for name, part in parts if part.area < SPECK_SHARE * total
           and part.distance(core_box) > _diagonal(core_box)]
    if not far:
        return
    listed = ", ".join(f"{name!r} ({part.area / 1e6:.3g} km², {part.distance(core_box) / 1e3:,.0f} km away)"
                       for name, part in far[:5])
    more = f" and {len(far) - 5} more" if len(far) > 5 else ""
    raise AtlasFileError(
        f"{str(path)!r}: tiny polygon parts lie far from the other regions: {listed}{more}; drawn on one map they "
        f"would stretch it {_diagonal(all_box) / _diagonal(core_box):.0f}× and leave every region a few pixels "
        "wide; remove those parts (or keep them in a separate atlas).")


def _diagonal(box: Any) -> float:
    x0, y0, x1, y1 = box.bounds
    return float(np.hypot(x1 - x0, y1 - y0))
