"""User atlases: any GeoJSON / GeoPackage / shapefile with a name column becomes an :class:`Atlas`.

The name column is detected (``name``, ``NAME_1``, ``shapeName``, … or the only text column whose values are
all distinct) unless ``name_field`` is given; codes come from ``code_field``, else a ``code`` column of distinct
texts, else are made from the names.
Named groups: the computed directional groups (:func:`direction_groups`), ``bordering <region>`` for any region,
and the groups of an optional ``<stem>.groups.yaml`` beside the file (:func:`load_user_groups`).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import geopandas as gpd
import pyproj
import shapely

from mapgen.geo.adjacency import BorderMeasure, measure_borders
from mapgen.geo.atlas_model import Atlas, Position
from mapgen.geo.coordinates import (
    AtlasFileError,
    declared_crs,
    refuse_antimeridian_edges,
    refuse_far_specks,
    refuse_unreadable_prj,
    to_lonlat,
)
from mapgen.geo.gazetteer import GroupAlternative, RegionGroup
from mapgen.geo.names import build_index, normalize_name
from mapgen.geo.source import AtlasFile, file_digest, groups_file
from mapgen.yamlio import YAMLFileError, load_yaml_file

__all__ = ["AtlasFileError", "BorderWarning", "OverlapWarning", "direction_groups", "load_user_atlas", "make_codes"]

#: Column names tried, in order (case-insensitive), when no ``name_field`` is given.
NAME_FIELDS = ("name", "name_en", "name_1", "name_2", "shapename", "region", "region_name", "province", "state",
               "district", "county", "label", "nom", "nombre")


class OverlapWarning(UserWarning):
    """Two regions of a user atlas overlap (each shared point would belong to both)."""


class BorderWarning(UserWarning):
    """Regions of a user atlas share a boundary too short for the border rule, yet longer than a point contact."""


#: Overlaps smaller than this share of the smaller region (digitising slivers) are not reported.
OVERLAP_SHARE = 0.001
_MAX_PAIRS = 8


def load_user_atlas(
    path: str | Path,
    name_field: str | None = None,
    code_field: str | None = None,
    title: str | None = None,
    digest: str | None = None,
) -> Atlas:
    """Read a vector file, repair or reject bad geometry, project it equal-area and compute the border graph
    (the map-scaled rule of :mod:`mapgen.geo.adjacency`; near misses are warned about and contested). Every
    :class:`AtlasFileError` names the file. ``digest``: the file's :func:`~mapgen.geo.source.file_digest` when
    the caller has just computed it."""
    path = Path(path)
    try:
        return _load(path, name_field, code_field, title, digest)
    except AtlasFileError as exc:
        if str(path) in str(exc):
            raise
        raise AtlasFileError(f"{str(path)!r}: {exc}") from None


def _load(path: Path, name_field: str | None, code_field: str | None, title: str | None,
          digest: str | None) -> Atlas:
    if not path.exists():
        raise AtlasFileError(f"Atlas file {str(path)!r} does not exist.")
    digest = digest or file_digest(path)
    gdf = _read_vector(path)
    name_field = name_field or detect_name_field(gdf, path)
    _require_column(gdf, name_field, "name_field", path)
    if code_field is not None:
        _require_column(gdf, code_field, "code_field", path)
    else:
        code_field = next((c for c in gdf.columns if str(c).lower() == "code" and _distinct_text(gdf[c])), None)
    names = _texts(gdf[name_field], name_field, path)
    if len(names) < 2:
        raise AtlasFileError(f"{str(path)!r} has only one region ({names[0]!r}); a choropleth map compares regions, "
                             "so an atlas needs at least 2: add the other regions to the file.")
    codes = _texts(gdf[code_field], code_field, path) if code_field else make_codes(names)
    _reject_duplicates(codes, "code", path)
    _reject_duplicates(names, "name", path)
    refuse_group_words(names, codes, path)
    check_finite(list(gdf.geometry), names, path)
    geoms = [_checked_geometry(g, label, path) for g, label in zip(gdf.geometry, names)]
    lonlat = to_lonlat(gpd.GeoSeries(geoms, crs=declared_crs(gdf, path)), path)
    refuse_antimeridian_edges(lonlat, names, path)
    lon_0 = central_longitude(lonlat)
    equal_area = _equal_area_crs(lonlat.total_bounds, lon_0)
    projected = lonlat.to_crs(equal_area)
    refuse_far_specks(list(projected), names, path)
    warn_overlaps(names, list(projected))
    frame = gpd.GeoDataFrame({"name": names}, geometry=list(projected), index=codes, crs=equal_area)
    frame.index.name = "code"
    positions = _positions(codes, lonlat, projected, equal_area, lon_0)
    region_names = dict(zip(codes, names))
    borders = measure_borders(codes, list(projected))
    warn_near_misses(borders, region_names, path)
    return Atlas(
        name=path.stem,
        title=title or default_title(path.stem),
        names=region_names,
        load_geometry=lambda: frame,
        aliases={},
        load_graph=lambda: borders.graph,
        positions=positions,
        static_groups=(*direction_groups(positions), *load_user_groups(path, region_names)),
        source=str(path),
        crs=equal_area,
        file=AtlasFile(path.resolve(), digest, name_field, code_field),
        contested=frozenset(frozenset(d[:2]) for d in borders.near_misses),
        border_rule=borders.rule.describe(),
        dropped_borders=borders.dropped,
    )


def warn_near_misses(borders: BorderMeasure, names: dict[str, str], path: Path) -> None:
    """One :class:`BorderWarning` listing the contacts the border rule dropped that are longer than a point
    contact (they are contested: not borders, and no question hinges on them)."""
    near = borders.near_misses
    if not near:
        return
    pairs = ", ".join(f"{names[a]!r}–{names[b]!r} ({km:.3g} km)" for a, b, km in near[:_MAX_PAIRS])
    more = f" (and {len(near) - _MAX_PAIRS} more)" if len(near) > _MAX_PAIRS else ""
    warnings.warn(
        f"{str(path)!r}: {len(near)} shared boundar{'y is' if len(near) == 1 else 'ies are'} too short for a border "
        f"by the rule ({borders.rule.describe()}): {pairs}{more}; they are not borders and no question hinges on "
        "them (if they are borders, fix the polygons so the regions share their edge).",
        BorderWarning, stacklevel=3,
    )


def default_title(stem: str) -> str:
    """A display title from a file stem (``gridland`` → ``Gridland``, ``my_regions`` → ``My Regions``)."""
    words = stem.replace("_", " ").replace("-", " ").split()
    return " ".join(w if not w.islower() else w.capitalize() for w in words) or stem


#: A shapefile's side files: the ones it cannot be read without, and the one that gives its CRS.
SHAPEFILE_SIDES = (".dbf", ".shx")


def _side_file(path: Path, suffix: str) -> Path | None:
    """``path``'s side file with ``suffix`` (any case: ``.DBF`` too), or ``None``."""
    for candidate in (path.with_suffix(suffix), path.with_suffix(suffix.upper())):
        if candidate.exists():
            return candidate
    return None


def check_vector_file(path: Path) -> None:
    """Refuse what the reader would misreport: a 0-byte file, a GeoJSON that is not JSON, a shapefile without
    its ``.dbf`` (the names) or ``.shx`` (the index); warn on a shapefile without ``.prj``."""
    if path.is_file() and path.stat().st_size == 0:
        raise AtlasFileError(f"Cannot read {str(path)!r}: it is empty (0 bytes); export the regions to it again.")
    suffix = path.suffix.lower()
    if suffix in (".geojson", ".json"):
        _check_json(path)
    if suffix != ".shp":
        return
    missing = [path.with_suffix(s).name for s in SHAPEFILE_SIDES if _side_file(path, s) is None]
    if missing:
        raise AtlasFileError(f"Shapefile {str(path)!r} is missing its side file {' and '.join(missing)} (a shapefile "
                             "is several files: .shp, .shx, .dbf, .prj); copy them next to it, or give a GeoJSON "
                             "or GeoPackage.")
    if _side_file(path, ".prj") is None:
        warnings.warn(f"Shapefile {str(path)!r} has no {path.with_suffix('.prj').name} side file (its coordinate "
                      "system); its coordinates are read as longitude/latitude (EPSG:4326).", stacklevel=3)


def _check_json(path: Path) -> None:
    import json

    try:
        data = json.loads(path.read_bytes())
    except UnicodeDecodeError:
        raise AtlasFileError(f"Cannot read {str(path)!r}: it is not UTF-8 text; save it as UTF-8 GeoJSON.") from None
    except ValueError as exc:
        where = f"line {exc.lineno}, column {exc.colno}: " if isinstance(exc, json.JSONDecodeError) else ""
        msg = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise AtlasFileError(f"Cannot read {str(path)!r}: it is not valid JSON ({where}{msg}); a GeoJSON file is a "
                             "JSON FeatureCollection — export it again as GeoJSON.") from None
    open_rings = _open_rings(data)
    if open_rings:
        shown = ", ".join(map(str, open_rings[:8])) + (" …" if len(open_rings) > 8 else "")
        raise AtlasFileError(f"Cannot read {str(path)!r}: feature(s) {shown} (counting from 0) have a polygon ring "
                             "that is not closed or has fewer than 4 points; end every ring with its first point (a "
                             "triangle has 4), or remove the feature.")


def _open_rings(data: object) -> list[int]:
    """The features of a GeoJSON FeatureCollection with a polygon ring of fewer than 4 positions or whose last
    position is not its first (rings holding a non-finite number are left to :func:`check_finite`)."""
    features = data.get("features") if isinstance(data, dict) else None
    if not isinstance(features, list):
        return []
    return [i for i, feature in enumerate(features) if any(_is_open(r) for r in _polygon_rings(feature))]


def _polygon_rings(feature: object) -> list[list]:
    """The rings of a GeoJSON feature's Polygon / MultiPolygon as written (malformed parts skipped)."""
    geometry = feature.get("geometry") if isinstance(feature, dict) else None
    if not isinstance(geometry, dict) or geometry.get("type") not in ("Polygon", "MultiPolygon"):
        return []
    coords = geometry.get("coordinates")
    polygons = [coords] if geometry["type"] == "Polygon" else coords
    if not isinstance(polygons, list):
        return []
    return [r for p in polygons if isinstance(p, list) for r in p if isinstance(r, list)]


def _is_open(ring: list) -> bool:
    import math

    numbers = [v for point in ring if isinstance(point, list) for v in point]
    finite = all(isinstance(v, (int, float)) and math.isfinite(v) for v in numbers)
    return finite and (len(ring) < 4 or ring[0] != ring[-1])


def check_finite(geoms: list, names: list[str], path: Path) -> None:
    """Refuse a feature with a NaN or infinite coordinate, naming the file and the feature."""
    import numpy as np

    bad = [f"feature {i} ({name!r})" for i, (geom, name) in enumerate(zip(geoms, names))
           if geom is not None and not np.isfinite(shapely.get_coordinates(geom)).all()]
    if bad:
        shown = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise AtlasFileError(f"Atlas file {str(path)!r} has NaN or infinite coordinates in {shown}; fix or remove "
                             "those points (every coordinate must be a finite number).")


def _read_vector(path: Path) -> gpd.GeoDataFrame:
    check_vector_file(path)
    refuse_several_layers(path)
    try:
        with warnings.catch_warnings():  # NaN coordinates warn here; check_finite names them
            warnings.filterwarnings("ignore", "invalid value encountered", RuntimeWarning)
            gdf = gpd.read_file(path)
    except Exception as exc:  # pyogrio raises several types for unreadable files
        refuse_unreadable_prj(path)
        raise AtlasFileError(
            f"Cannot read {str(path)!r} as a vector file ({exc}). Give a GeoJSON, GeoPackage or shapefile."
        ) from exc
    if gdf.empty:
        raise AtlasFileError(f"Atlas file {str(path)!r} has no features.")
    return gdf


def refuse_several_layers(path: Path) -> None:
    """Refuse a file holding more than one layer (a GeoPackage of regions and rivers, say): reading the first
    one silently may draw the wrong thing. The fix names the layers and extracts the one wanted."""
    try:
        import pyogrio  # type: ignore[import-untyped]
        layers = [str(row[0]) for row in pyogrio.list_layers(path)]
    except Exception:  # unreadable files are reported by the reader with its own message
        return
    if len(layers) > 1:
        raise AtlasFileError(
            f"{str(path)!r} holds {len(layers)} layers ({', '.join(layers[:8])}{' …' if len(layers) > 8 else ''}); "
            f"an atlas is one layer of regions: extract it, e.g. `ogr2ogr regions.gpkg {path.name} {layers[0]}`, "
            "and give that file.")


def detect_name_field(gdf: gpd.GeoDataFrame, path: Path) -> str:
    """The column holding region names: a known name column (:data:`NAME_FIELDS`, case-insensitive) with
    distinct values, else the only text column whose values are all distinct."""
    columns = [c for c in gdf.columns if c != gdf.geometry.name]
    by_lower = {str(c).lower(): c for c in columns}
    for candidate in NAME_FIELDS:
        column = by_lower.get(candidate)
        if column is not None and _distinct_text(gdf[column], allow_blank=True):
            return column  # blank cells are reported by feature index when the names are read
    text = [c for c in columns if _distinct_text(gdf[c])]
    if len(text) == 1:
        return text[0]
    flawed = None if text else _flawed_name_column(gdf, columns, path)
    if flawed is not None:
        return flawed
    fields = ", ".join(map(str, columns)) or "none"
    raise AtlasFileError(
        f"Cannot tell which column of {str(path)!r} holds the region names (columns: {fields}); "
        "give it with --name-field (Python: name_field=...)."
    )


def _flawed_name_column(gdf: gpd.GeoDataFrame, columns: list, path: Path) -> str | None:
    """The name column when it is plain (a known name column, else the only column of texts) but repeats a name
    (refused, naming the features) or leaves some names blank (returned: the names' reader names those
    features); None when no column is plainly the name column."""
    wordy = [c for c in columns if all(isinstance(v, str) or _blank(v) for v in gdf[c])]
    by_lower = {str(c).lower(): c for c in wordy}
    texts = [c for c in wordy if any(isinstance(v, str) and v.strip() for v in gdf[c])]
    named = [by_lower[c] for c in NAME_FIELDS if c in by_lower] or (texts if len(texts) == 1 else [])
    if not named:
        return None
    _reject_duplicates([v.strip() if isinstance(v, str) and v.strip() else f"\0{i}"  # blanks never clash
                        for i, v in enumerate(gdf[named[0]])], "name", path)
    return named[0]


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value) or (isinstance(value, str)
                                                                             and not value.strip())


def _distinct_text(column, allow_blank: bool = False) -> bool:
    """True when the column's cells are distinct texts (``allow_blank``: its non-blank cells, at least one)."""
    values = [v for v in column if isinstance(v, str) and v.strip()]
    blank = sum(v is None or (isinstance(v, float) and v != v) or (isinstance(v, str) and not v.strip())
                for v in column)
    complete = len(values) == len(column) or (allow_blank and values and len(values) + blank == len(column))
    return bool(complete) and len(set(values)) == len(values)


def direction_groups(positions: dict[str, Position]) -> list[RegionGroup]:
    """``North`` / ``South`` / ``East`` / ``West`` (aliases ``northern regions``, ``the north``, …): the regions
    whose position (the direction rule of :mod:`mapgen.geo.atlas_model`) lies in the outer third of the span of all
    positions on that side, by more than 1 % of the span (a row sitting on the one-third line is in neither)."""
    if len(positions) < 3:
        return []
    out = []
    for axis, (low, high) in (("lat", ("south", "north")), ("lon", ("west", "east"))):
        values = {c: getattr(p, axis) for c, p in positions.items()}
        lo, hi = min(values.values()), max(values.values())
        third, margin = (hi - lo) / 3, (hi - lo) / 100
        for word, members in ((high, {c for c, v in values.items() if v > hi - third + margin}),
                              (low, {c for c, v in values.items() if v < lo + third - margin})):
            if third > 0 and 0 < len(members) < len(positions):
                name, *aliases = direction_group_words(word)
                out.append(RegionGroup(
                    name=name, members=frozenset(members), aliases=tuple(aliases), kind="direction",
                    source="computed: position in the outer third of the atlas's span",
                ))
    return out


def direction_group_words(word: str) -> tuple[str, ...]:
    """The name and aliases of the computed group of direction ``word`` (``North``, ``northern regions``, …)."""
    adjective = f"{word}ern"
    return word.capitalize(), f"{adjective} regions", f"the {word}", f"{adjective} part"


#: The prefix of the computed ``bordering <region>`` groups.
BORDERING = "bordering "


def refuse_group_words(names: list[str], codes: list[str], path: Path) -> None:
    """Refuse a region named (or coded) like a computed group — ``North``, ``the south``, ``bordering Cell B2``:
    questions and answers could not tell the region from the group (docs/atlases-and-data.md, Groups)."""
    words = {normalize_name(w): w for d in ("north", "south", "east", "west") for w in direction_group_words(d)}
    for name, code in zip(names, codes):
        for spelling in (name, code):
            key = normalize_name(spelling)
            if key in words or _bordering_phrase(spelling):
                group = words.get(key, f"the regions {spelling.strip()}")
                raise AtlasFileError(
                    f"{str(path)!r}: region {name!r} is spelled like the computed group {group!r} that questions "
                    f"ask about; rename the region in the file (e.g. {_suggestion(spelling)!r}) or choose another "
                    "column with --name-field / --code-field."
                )


def _bordering_phrase(text: str) -> bool:
    words = text.lower().split()
    return len(words) > 1 and words[0] == BORDERING.strip()


def _suggestion(spelling: str) -> str:
    text = " ".join(spelling.split())
    if _bordering_phrase(text):
        return f"{text[len(BORDERING):]} Border"
    return f"{text} Region"


def load_user_groups(path: Path, names: dict[str, str]) -> list[RegionGroup]:
    """Groups from ``<stem>.groups.yaml`` beside the atlas file (absent file: none).

    The file is a list of ``{name, members: [region names or codes], aliases: [...], source: ...}``.
    """
    gpath = groups_file(path)
    if not gpath.is_file():
        return []
    try:
        records = load_yaml_file(gpath) or []
    except YAMLFileError as exc:
        raise AtlasFileError(str(exc)) from None
    index = build_index({c: (c, n) for c, n in names.items()})
    groups = []
    for record in records:
        if not isinstance(record, dict) or not record.get("name") or not record.get("members"):
            raise AtlasFileError(f"{gpath}: each group needs a 'name' and a list of 'members'; got {record!r}.")
        clash = [w for w in (record["name"], *(record.get("aliases") or ())) if normalize_name(str(w)) in index]
        if clash:
            raise AtlasFileError(f"{gpath}: group {record['name']!r} is spelled like the region {clash[0]!r}; "
                                 "rename the group (questions could not tell the two apart).")
        unknown = [m for m in record["members"] if normalize_name(m) not in index]
        if unknown:
            raise AtlasFileError(f"{gpath}: group {record['name']!r} names unknown regions {unknown}.")
        groups.append(RegionGroup(
            name=str(record["name"]), members=frozenset(index[normalize_name(m)] for m in record["members"]),
            aliases=tuple(record.get("aliases") or ()), kind=str(record.get("kind", "region")),
            source=str(record.get("source", f"user groups file {gpath.name}")), note=str(record.get("note", "")),
            alternatives=_alternatives(record, index, gpath),
        ))
    return groups


def _alternatives(record: dict, index: dict[str, str], gpath: Path) -> tuple[GroupAlternative, ...]:
    """A user group's ``alternatives:`` (other memberships a reader may take; each a name, members, source)."""
    out = []
    for alt in record.get("alternatives") or ():
        if not isinstance(alt, dict) or not alt.get("name") or not alt.get("members"):
            raise AtlasFileError(f"{gpath}: group {record['name']!r}: each alternative needs a 'name' and a list "
                                 f"of 'members'; got {alt!r}.")
        unknown = [m for m in alt["members"] if normalize_name(m) not in index]
        if unknown:
            raise AtlasFileError(f"{gpath}: group {record['name']!r}, alternative {alt['name']!r} names unknown "
                                 f"regions {unknown}.")
        out.append(GroupAlternative(str(alt["name"]), frozenset(index[normalize_name(m)] for m in alt["members"]),
                                    str(alt.get("source", ""))))
    return tuple(out)


def make_codes(names: list[str]) -> list[str]:
    """Short unique codes from names: initials (``New Mexico`` → ``NM``; a word's digits are kept: ``Cell B2`` →
    ``CB2``) or the first two letters of a one-word name, numbered on clashes. A code is never another region's
    name (names ``R01`` … ``R0100`` would otherwise make ``R0100`` both a code and a name)."""
    owners: dict[str, set[int]] = {}
    for i, name in enumerate(names):
        owners.setdefault(name.casefold(), set()).add(i)
    codes: list[str] = []
    taken: set[str] = set()
    for i, name in enumerate(names):
        words = re.findall(r"[A-Za-z0-9]+", name) or ["R"]
        initials = "".join(w[0] + re.sub(r"\D", "", w[1:]) for w in words)
        base = initials.upper() if len(words) > 1 else words[0][:2].upper()
        code, n = base, 1
        while code in taken or owners.get(code.casefold(), set()) - {i}:
            n += 1
            code = f"{base}{n}"
        codes.append(code)
        taken.add(code)
    return codes


def _require_column(gdf: gpd.GeoDataFrame, column: str, option: str, path: Path) -> None:
    if column not in gdf.columns:
        fields = ", ".join(c for c in gdf.columns if c != "geometry")
        raise AtlasFileError(f"{str(path)!r} has no column {column!r} (set {option}=...; columns: {fields}).")


def _texts(column, field: str, path: Path) -> list[str]:
    """The stripped texts of a name / code column; a null or empty cell is an error naming its feature."""
    blank = [str(i) for i, v in enumerate(column) if v is None or (isinstance(v, float) and v != v) or not str(v).strip()]
    if blank:
        raise AtlasFileError(
            f"{str(path)!r}: feature(s) {', '.join(blank[:8])}{' …' if len(blank) > 8 else ''} (counting from 0) "
            f"have no {field!r}; give every region a name (or remove the feature)."
        )
    return [str(v).strip() for v in column]


def warn_overlaps(names: list[str], geoms: list) -> list[tuple[str, str, float]]:
    """One :class:`OverlapWarning` listing every pair of regions overlapping by more than :data:`OVERLAP_SHARE`
    of the smaller one with the overlap in km²; returns ``(name, name, km²)`` (geometries in metres)."""
    tree = shapely.STRtree(geoms)
    found = []
    for i, geom in enumerate(geoms):
        for j in (int(j) for j in tree.query(geom, predicate="intersects")):
            if j <= i:
                continue
            area = float(shapely.intersection(geom, geoms[j]).area)
            if area > OVERLAP_SHARE * min(geom.area, geoms[j].area):
                found.append((names[i], names[j], area / 1e6))
    if found:
        pairs = "; ".join(f"{a!r} and {b!r} by {km2:,.1f} km²" for a, b, km2 in found[:_MAX_PAIRS])
        more = f" (and {len(found) - _MAX_PAIRS} more pairs)" if len(found) > _MAX_PAIRS else ""
        warnings.warn(f"Regions overlap: {pairs}{more}; a point there belongs to both (fix the polygons so "
                      "regions only touch).", OverlapWarning, stacklevel=3)
    return found


def _reject_duplicates(values: list[str], what: str, path: Path) -> None:
    """Refuse a name / code given to two features, naming the features (counting from 0) and the fix; names that
    differ only in case, spacing or accents (``Ward 7``, ``WARD 7``) are one name to questions and answers."""
    where: dict[str, list[int]] = {}
    for i, v in enumerate(values):
        where.setdefault(v if v.startswith("\0") else normalize_name(v) or v, []).append(i)  # "\0": a blank
    dupes = [f"{' / '.join(repr(s) for s in dict.fromkeys(values[i] for i in at))} (features "
             f"{', '.join(map(str, at))})" for at in where.values() if len(at) > 1]
    if dupes:
        same = " (case, spacing and accents aside)" if any(" / " in d for d in dupes) else ""
        raise AtlasFileError(f"Duplicate region {what}s{same} in {str(path)!r}: {'; '.join(dupes[:_MAX_PAIRS])}; "
                             f"give every region its own {what} (or merge its features into one MultiPolygon).")


def _checked_geometry(geom, label: str, path: Path):
    if geom is None or geom.is_empty:
        raise AtlasFileError(f"Feature {label!r} has empty geometry; remove it or give it a polygon.")
    if geom.geom_type not in ("Polygon", "MultiPolygon"):
        raise AtlasFileError(f"Feature {label!r} is a {geom.geom_type}; regions must be polygons.")
    repaired = not geom.is_valid
    if repaired:
        fixed = shapely.make_valid(geom)
        parts = [g for g in getattr(fixed, "geoms", [fixed]) if g.geom_type in ("Polygon", "MultiPolygon")]
        geom = shapely.union_all(parts)
    if geom.is_empty or geom.area == 0:
        raise AtlasFileError(f"Feature {label!r} has no area (its rings' points lie on one line or repeat one "
                             "point); give it a real polygon, or remove the feature.")
    if repaired:
        warnings.warn(f"{str(path)!r}: feature {label!r} had invalid geometry; repaired with make_valid.",
                      stacklevel=3)
    return geom


def central_longitude(lonlat: gpd.GeoSeries) -> float:
    """The middle of the regions' longitudes, read across the antimeridian when that spans less: regions at
    179°E and 179°W are 2° apart (centre 180), not 358°."""
    west, _, east, _ = lonlat.total_bounds
    bounds = lonlat.bounds
    shifted_west = bounds["minx"].where(bounds["minx"] >= 0, bounds["minx"] + 360).min()
    shifted_east = bounds["maxx"].where(bounds["minx"] >= 0, bounds["maxx"] + 360).max()
    if shifted_east - shifted_west < east - west:
        middle = (shifted_west + shifted_east) / 2
        return float(middle - 360 if middle > 180 else middle)
    return float((west + east) / 2)


def _unwrap(lon: float, centre: float) -> float:
    """``lon`` written within 180° of ``centre`` (so positions east of the antimeridian compare as east)."""
    return centre + (lon - centre + 180.0) % 360.0 - 180.0


def _equal_area_crs(bounds, lon_0: float | None = None) -> str:
    """An Albers equal-area CRS fitted to lon/lat bounds (standard parallels at 1/6 and 5/6 of the span),
    centred on ``lon_0`` (default: the middle of the bounds)."""
    west, south, east, north = bounds
    span = north - south
    lon_0 = (west + east) / 2 if lon_0 is None else lon_0
    if abs(round(south + span / 6, 4) + round(north - span / 6, 4)) < 1e-3:  # parallels mirror the equator:
        return f"+proj=cea +lat_ts=0 +lon_0={lon_0:.4f} +datum=WGS84 +units=m +no_defs"  # Albers' cylinder limit
    return (
        f"+proj=aea +lat_1={south + span / 6:.4f} +lat_2={north - span / 6:.4f} +lat_0={(south + north) / 2:.4f} "
        f"+lon_0={lon_0:.4f} +datum=WGS84 +units=m +no_defs"
    )


def _positions(codes, lonlat: gpd.GeoSeries, projected: gpd.GeoSeries, crs: str, centre: float = 0.0
               ) -> dict[str, Position]:
    inverse = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True).transform
    out = {}
    for code, ll, eq in zip(codes, lonlat, projected):
        largest = max(getattr(eq, "geoms", [eq]), key=lambda p: p.area)
        lon, lat = inverse(*largest.centroid.coords[0])
        west, south, east, north = ll.bounds
        if abs(centre) > 90:  # an atlas around the antimeridian: longitudes continue past ±180
            lon, west, east = _unwrap(lon, centre), _unwrap(west, centre), _unwrap(east, centre)
            east = max(east, west)
        out[code] = Position(lon, lat, west, south, east, north, eq.area / 1e6)
    return out
