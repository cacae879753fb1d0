"""Measure the facts of atlas editions (``data/atlas/editions.yaml``) that need geometry.

For every edition, writes ``data/atlas/<key>.facts.json`` with, for each merged or split unit: its position
(centroid of its largest part in the base's equal-area display projection, as ``scripts/build_atlas.py`` does),
extent and area, and the land borders (``mapgen.geo.adjacency`` rule) of split units. A merged unit's extent and
area are those of its base units combined (measured at full resolution by ``build_atlas.py``); a split unit's are
measured on the simplified display geometry, so they are approximate::

    python scripts/build_editions.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyproj

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mapgen.geo.adjacency import MIN_BORDER_KM, border_lengths  # noqa: E402
from mapgen.geo.atlas import load_atlas  # noqa: E402
from mapgen.geo.edition import code_map, edition_geometry, editions  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "data" / "atlas"


def main_part(geom):
    return max(geom.geoms, key=lambda p: p.area) if hasattr(geom, "geoms") else geom


def position(geom, crs: str) -> dict[str, float]:
    """Position, extent and area of a display geometry (equal-area metres)."""
    inverse = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    lon, lat = inverse.transform(*main_part(geom).centroid.coords[0])
    x0, y0, x1, y1 = geom.bounds
    xs, ys = inverse.transform([x0, x0, x1, x1], [y0, y1, y0, y1])
    return {"lon": round(lon, 4), "lat": round(lat, 4), "west": round(min(xs), 4), "south": round(min(ys), 4),
            "east": round(max(xs), 4), "north": round(max(ys), 4), "area_km2": round(geom.area / 1e6, 1)}


def edition_facts(key: str, rules: dict) -> dict:
    base = load_atlas(rules["base"])
    mapping = code_map(rules)
    names = {c: c for c in dict.fromkeys(n for c in base.codes for n in mapping.get(c, [c]))}
    gdf = edition_geometry(base, rules, names)
    regions: dict[str, dict[str, float]] = {}
    for new, bases in (rules.get("merge") or {}).items():
        pos = position(gdf.geometry[new], base.crs)
        parts = [base.positions[b] for b in bases]
        pos |= {"west": min(p.west for p in parts), "south": min(p.south for p in parts),
                "east": max(p.east for p in parts), "north": max(p.north for p in parts),
                "area_km2": round(sum(p.area_km2 for p in parts), 1)}
        regions[new] = pos
    split = [new for parts in (rules.get("split") or {}).values() for new in parts]
    for new in split:
        regions[new] = position(gdf.geometry[new], base.crs)
    codes = list(gdf.index)
    others = [c for c in codes if c not in split]
    edges = []
    for (i, j), km in border_lengths([gdf.geometry[c] for c in split], [gdf.geometry[c] for c in others]).items():
        if km > MIN_BORDER_KM:
            edges.append([split[i], others[j], round(km, 1)])
    for (i, j), km in border_lengths([gdf.geometry[c] for c in split]).items():
        if km > MIN_BORDER_KM:
            edges.append([split[i], split[j], round(km, 1)])
    return {"edition": key, "base": rules["base"], "regions": dict(sorted(regions.items())), "edges": sorted(edges),
            "note": "split units measured on the simplified display geometry (approximate)"}


def main() -> None:
    for key, rules in editions().items():
        facts = edition_facts(key, rules)
        with open(OUT / f"{key}.facts.json", "w", encoding="utf-8") as fh:
            json.dump(facts, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"{key}: {len(facts['regions'])} units measured, borders {facts['edges']}")


if __name__ == "__main__":
    main()
