"""MAPWise/MapQA metadata ⇄ mapgen: legends (:func:`legend_from_mapwise`, :func:`legend_to_mapwise`,
:func:`mapwise_class`) and whole maps (:func:`spec_from_mapwise`, :func:`spec_to_mapwise`).

This module sits on the spec floor: it imports geo, data, legend and spec only, so scene and the CLI may use
:func:`load_map_spec` (a mapgen spec, a render/scene JSON embedding one, or MAPWise metadata).

Legends: discrete labels are kept verbatim; classes are sorted by their label bounds (index 0 = lowest) and
:attr:`MapwiseProvenance.class_to_index` maps MAPWise class numbers (positions in ``class_descriptions``; the
N/A class, e.g. -1 or 3, maps to None) to ours. ``colorscales`` is read lowest-value class first, then the
N/A colour if listed. Percent labels over fraction values set ``label_scale=100``. Two dialects: "kff" (USA)
lists classes lowest first then "N/A", ``num_classes`` counts real classes, class number = our index, N/A = -1;
"mapqa" (India/China) lists classes in display order then the N/A entries, ``num_classes`` counts all entries.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from mapgen.data.statistic import StatInfo
from mapgen.geo.atlas import Atlas, as_atlas, shipped_atlas
from mapgen.legend import (
    Legend,
    LegendClass,
    MapwiseProvenance,
    continuous_legend,
    hex_to_rgb_string,
    parse_label,
    to_hex_color,
)
from mapgen.legend.model import LEGEND_ORDERS
from mapgen.spec import AttachedAtlas, MapSpec, Style, is_nan, read_spec_json

MAPWISE_NA = "N/A"
_LEGEND_KEYS = ("legend_type", "legend_order", "num_classes", "num_symbols", "class_descriptions", "colorscales")
_MAPWISE_DERIVED = {
    # MAPWise's India maps use the 2014-2019 layout: J&K still includes Ladakh, DNH and Daman & Diu are separate.
    "india": {"LA": ("JK",), "DH": ("DN", "DD")},
}


def is_mapwise_metadata(data: Any) -> bool:
    """True for a MAPWise/MapQA metadata dict (not a mapgen spec)."""
    return isinstance(data, dict) and "mapgen_spec" not in data and "data" in data and "legend_type" in data


def load_map_spec(path: str | Path) -> MapSpec:
    """The MapSpec of a map file: a mapgen spec, a render or scene JSON embedding one, or MAPWise metadata."""
    data = read_spec_json(path)
    if is_mapwise_metadata(data):
        return spec_from_mapwise(data)
    if "mapgen_spec" not in data:
        raise ValueError(f"{path} is neither a mapgen map JSON (no 'mapgen_spec' key) nor MAPWise metadata; give the "
                         ".json that `mapgen spec` or `mapgen render` wrote")
    return MapSpec.from_dict(data, base=Path(path).parent)


# ============================================================================================ legends


def _mapwise_values(meta: dict) -> list[float]:
    return [float("nan") if d.get("value") is None else float(d["value"]) for d in meta.get("data", [])]


def _present(meta: dict) -> tuple[str, ...]:
    return tuple(k for k in _LEGEND_KEYS if k in meta) + (("colormap_name",) if "colormap_name" in meta else ())


def _dialect(meta: dict) -> Literal["kff", "mapqa"]:
    return "kff" if "class_descriptions" in meta and "num_symbols" in meta else "mapqa"  # USA (KFF) vs India/China


_PERCENT_TITLE = re.compile(r"%|\bper\s*cent\b|\bpercent(age)?\b", re.IGNORECASE)


def says_percent(meta: dict) -> bool:
    """Whether a map's values are percentages: its ``data_type`` (USA, KFF) or, where the metadata has none
    (India/China, MapQA), its title's unit ("(%)", "(Per Cent)"), which is all a reader of the image has."""
    if meta.get("data_type"):
        return str(meta["data_type"]).lower().startswith("percent")
    title = meta.get("title")
    text = title.get("text", "") if isinstance(title, dict) else title
    return bool(_PERCENT_TITLE.search(str(text or "")))


def _continuous_from_mapwise(meta: dict, values: list[float]) -> Legend:
    percent = says_percent(meta)
    finite = [v for v in values if not math.isnan(v)]
    scale = 100.0 if percent and finite and max(abs(v) for v in finite) <= 1.0 else 1.0
    leg = continuous_legend(
        pd.Series(values, dtype=float), colormap=meta.get("colormap_name") or "Blues", percent=percent,
        label_scale=scale,
    )
    return replace(leg, mapwise=MapwiseProvenance(dialect=_dialect(meta), keys=_present(meta)))


@dataclass(frozen=True)
class _Classes:
    """The classes a MAPWise legend lists: label bounds by class number, ranked lowest first, N/A numbers."""

    descs: list[str]
    parsed: dict[int, tuple[float, float]]
    ranked: list[int]
    na_numbers: list[int]

    @classmethod
    def read(cls, descs: list[str]) -> _Classes:
        real = [i for i, d in enumerate(descs) if d.strip() != MAPWISE_NA]
        parsed: dict[int, tuple[float, float]] = {}
        for i in real:
            lo, hi = parse_label(descs[i])
            if lo is None or hi is None:
                raise ValueError(f"MAPWise class label {descs[i]!r} is not a closed range")
            parsed[i] = (lo, hi)
        ranked = sorted(real, key=lambda i: (parsed[i][0], parsed[i][1]))
        return cls(descs, parsed, ranked, [i for i, d in enumerate(descs) if d.strip() == MAPWISE_NA])

    def class_to_index(self) -> dict[int, int | None]:
        mapping: dict[int, int | None] = {c: j for j, c in enumerate(self.ranked)}
        for i in self.na_numbers:
            mapping[i] = None
        if self.na_numbers:
            mapping[-1] = None
        return mapping

    def label_scale(self, meta: dict) -> float:
        """100 when percent labels describe fraction values (USA KFF maps), else 1: whichever fits more regions."""
        n = len(self.descs)
        scores = {}
        for scale in (1.0, 100.0):
            hits = 0
            for d in meta.get("data", []):
                c, v = d.get("class"), d.get("value")
                if v is None or c is None or not -n <= c < n or (c % n) not in self.parsed:
                    continue
                lo, hi = self.parsed[c % n]
                hits += lo - 1e-9 <= float(v) * scale <= hi + 1e-9
            scores[scale] = hits
        return 100.0 if scores[100.0] > scores[1.0] else 1.0

    def breaks(self, meta: dict, scale: float) -> tuple[float, ...]:
        """Class edges for ``class_of``: each label's upper bound, moved so the regions' own classes hold.

        MAPWise labels are rounded (a value printed as a shared boundary may sit in either class, and a few USA
        values lie outside their label), so an edge is raised to the largest value MAPWise put in the class and,
        if the next class already starts at or below it, set just under that class's smallest value.
        """
        members: dict[int, list[float]] = {c: [] for c in self.ranked}
        for d in meta.get("data", []):
            c, v = d.get("class"), d.get("value")
            if c in members and v is not None and not math.isnan(float(v)):
                members[c].append(float(v))
        edges = []
        for j, c in enumerate(self.ranked):
            edge = max([self.parsed[c][1] / scale, *members[c]])
            nxt = self.ranked[j + 1] if j + 1 < len(self.ranked) else None
            if nxt is not None and members[nxt] and min(members[nxt]) <= edge:
                edge = float(np.nextafter(min(members[nxt]), -np.inf))
            edges.append(edge)
        return tuple(edges)


def _discrete_from_mapwise(meta: dict, values: list[float]) -> Legend:
    cl = _Classes.read(list(meta["class_descriptions"]))
    percent = any("%" in cl.descs[i] for i in cl.ranked)
    scale = cl.label_scale(meta) if percent else 1.0
    colors = [to_hex_color(c) for c in meta.get("colorscales", [])]
    n = len(cl.ranked)
    if len(colors) < n:
        raise ValueError(f"colorscales has {len(colors)} colours for {n} classes")
    classes = tuple(
        LegendClass(index=j, lower=cl.parsed[c][0] / scale, upper=cl.parsed[c][1] / scale, label=cl.descs[c],
                    color=colors[j])
        for j, c in enumerate(cl.ranked)
    )
    order = meta.get("legend_order", "small_to_large")
    provenance = MapwiseProvenance(
        dialect=_dialect(meta), keys=_present(meta), na_entries=len(cl.na_numbers),
        na_in_colorscales=len(colors) > n, class_numbers=tuple(cl.ranked), class_to_index=cl.class_to_index(),
    )
    return Legend(
        kind="discrete",
        classes=classes,
        order=order if order in LEGEND_ORDERS else "small_to_large",
        vmin=classes[0].lower,
        vmax=classes[-1].upper,
        colormap=meta.get("colormap_name") or "Blues",
        colors=tuple(colors[:n]),
        percent=percent,
        scheme="mapwise",
        na_label=MAPWISE_NA if cl.na_numbers or any(math.isnan(v) for v in values) else None,
        na_color=colors[n] if len(colors) > n else Legend.na_color,
        breaks=cl.breaks(meta, scale),
        label_scale=scale,
        mapwise=provenance,
    )


def legend_from_mapwise(meta: dict) -> Legend:
    """A Legend from one MAPWise/MapQA metadata dict (continuous: ``continuous_legend`` over the data range)."""
    values = _mapwise_values(meta)
    if str(meta.get("legend_type", "")).lower() == "continuous":
        return _continuous_from_mapwise(meta, values)
    return _discrete_from_mapwise(meta, values)


def _provenance(legend: Legend) -> MapwiseProvenance:
    return legend.mapwise or MapwiseProvenance()


def _keep(out: dict[str, Any], keys: tuple[str, ...] | None, default: list[str]) -> dict[str, Any]:
    return {k: out[k] for k in (default if keys is None else keys) if k in out}


def _continuous_to_mapwise(legend: Legend, cmap_name: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "legend_type": "Continuous",
        "legend_order": "N/A",
        "num_classes": 0,
        "num_symbols": 0,
        "class_descriptions": [],
        "colormap_name": cmap_name,
    }
    prov = _provenance(legend)
    return _keep(out, prov.keys, list(out) if prov.dialect == "kff" else ["legend_type", "colormap_name"])


def legend_to_mapwise(legend: Legend) -> dict[str, Any]:
    """Legend-level MAPWise metadata fields (``legend_type``, ``legend_order``, ``num_classes``,
    ``class_descriptions``, ``colorscales``, ``colormap_name``; ``num_symbols`` in the USA dialect), in the
    dialect the legend was read in (new legends: "kff"); ``colorscales`` lowest class first, then N/A."""
    cmap_name = legend.colormap + ("_r" if legend.reversed else "")
    if legend.kind == "continuous":
        return _continuous_to_mapwise(legend, cmap_name)
    prov = _provenance(legend)
    na_entries = (1 if legend.na_label else 0) if prov.na_entries is None else prov.na_entries
    shown = legend.classes if prov.dialect == "kff" else legend.display_classes()
    descs = [c.label for c in shown] + [MAPWISE_NA] * na_entries
    colors = [hex_to_rgb_string(c.color) for c in legend.classes]
    na_in_colorscales = legend.na_label is not None if prov.na_in_colorscales is None else prov.na_in_colorscales
    if na_in_colorscales:
        colors.append(hex_to_rgb_string(legend.na_color))
    out = {
        "legend_type": "Discrete",
        "legend_order": legend.order,
        "num_classes": legend.k if prov.dialect == "kff" else len(descs),
        "num_symbols": len(descs),
        "class_descriptions": descs,
        "colormap_name": cmap_name,
        "colorscales": colors,
    }
    return _keep(out, prov.keys, [k for k in out if prov.dialect == "kff" or k != "num_symbols"])


def mapwise_class(legend: Legend, value: float | None) -> tuple[int, str]:
    """MAPWise ``(class, description)`` of one region value, in the legend's dialect (N/A: -1 or its slot)."""
    kff = _provenance(legend).dialect == "kff"
    idx = legend.class_of(value)
    if idx is None:
        return (-1 if kff else legend.k), MAPWISE_NA
    return (idx if kff else legend.display_slot(idx)), legend.classes[idx].label


def legend_position(legend: Legend, value: float) -> str | float | None:
    """MAPWise's ``legend_position``: the colour-bar position (2 decimals) on continuous maps; on discrete maps
    ``legend_<1-based display slot>`` (USA/KFF dialect) or ``legend_position_<class, lowest = 0>`` (MapQA)."""
    if legend.kind == "continuous":
        pos = legend.position_of(value)
        return None if pos is None else round(pos, 2)
    idx = legend.class_of(value)
    if _provenance(legend).dialect == "kff":
        slot = legend.k if idx is None else legend.display_slot(idx)
        return f"legend_{slot + 1}"
    return f"legend_position_{legend.k if idx is None else idx}"


# ============================================================================================ maps


def country_of_mapwise(meta: dict[str, Any]) -> str:
    """Which built-in atlas a MAPWise metadata dict belongs to (by scope, else by its region codes)."""
    scope = str(meta.get("scope") or "").lower()
    if scope in ("usa", "us", "usa-states"):
        return "usa"
    regions = [d["region"] for d in meta.get("data", [])]
    best, best_hits = "", -1
    for name in ("usa", "india", "china"):
        atlas = shipped_atlas(name)
        hits = sum(atlas.find(r) is not None for r in regions)
        if hits > best_hits:
            best, best_hits = name, hits
    return best


def _region_values(meta: dict[str, Any], atlas: Atlas) -> tuple[dict[str, float], dict[str, float | None]]:
    """(values by atlas code, NaN = N/A; the original values by MAPWise region, None = N/A)."""
    values = {code: math.nan for code in atlas.codes}
    original: dict[str, float | None] = {}
    for rec in meta["data"]:
        value = math.nan if rec.get("value") is None else float(rec["value"])
        original[rec["region"]] = None if math.isnan(value) else value  # JSON-safe: null is N/A
        code = atlas.resolve(rec["region"])
        if math.isnan(values[code]):
            values[code] = value
    return values, original


def _derive(country: str, values: dict[str, float], original: dict[str, float | None]) -> dict[str, str]:
    """Fill regions MAPWise's layout lacks from their parent (in ``values``); derived code → parent code."""
    derived = {}
    for code, parents in _MAPWISE_DERIVED.get(country, {}).items():
        if code in original or not math.isnan(values.get(code, 0.0)):
            continue
        found = next(((p, v) for p in parents if (v := original.get(p)) is not None), None)
        if found is not None:
            parent, values[code] = found
            derived[code] = parent
    if derived:
        warnings.warn(f"MAPWise map lacks {sorted(derived)}; values taken from {derived}.", stacklevel=3)
    return derived


def _style(meta: dict[str, Any]) -> Style:
    legend_meta = meta.get("legend") or {}
    return Style(
        renderer="matplotlib",
        annotated=True,
        background=meta.get("paper_bgcolor") or "white",
        legend_orientation=legend_meta.get("orientation", "vertical"),
        legend_position="bottom" if legend_meta.get("orientation") == "horizontal" else "right",
    )


def _stat(meta: dict[str, Any], legend: Legend, country: str, title: str) -> StatInfo:
    percent = legend.percent or says_percent(meta)
    return StatInfo(
        id=f"mapwise_{meta.get('map_id')}",
        country=country,
        title=title,
        unit="%" if percent else "",
        kind="percent" if percent else "absolute",
        source=meta.get("KFF_file_name") or "MAPWise",
    )


MAPWISE_EDITIONS: dict[str, tuple[str, str]] = {"india": ("india-mapwise", "LA")}
"""Country → (the atlas edition drawn as MAPWise drew it, the region whose absence says a map uses it)."""


def mapwise_atlas(meta: dict[str, Any], country: str) -> str:
    """The atlas a MAPWise map is rebuilt on: the country's MAPWise edition when the metadata lacks the region
    that edition does not have (India without Ladakh: J&K whole, DN and DD apart), else the country's atlas
    (mapgen's own export writes Ladakh, so it round-trips on mapgen's atlas)."""
    if country not in MAPWISE_EDITIONS:
        return country
    edition, marker = MAPWISE_EDITIONS[country]
    atlas = shipped_atlas(country)
    for rec in meta.get("data", []):
        try:
            if atlas.resolve(str(rec["region"])) == marker:
                return country
        except LookupError:
            continue
    return edition


def spec_from_mapwise(meta: dict[str, Any], country: str | None = None, map_id: str | None = None,
                      atlas: str | None = None) -> MapSpec:
    """Rebuild a MapSpec from MAPWise/MapQA metadata (values, classes, labels, order, colours, style) on
    ``atlas`` (default: the country's atlas; :func:`mapwise_atlas` chooses MAPWise's edition).

    On the country's atlas, regions MAPWise's India layout lacks take their parent's value (Ladakh ← J&K, DH ←
    DNH or Daman & Diu), recorded in ``extra["derived"]``; the original records are kept in ``extra["mapwise"]``
    for export.
    """
    country = country or country_of_mapwise(meta)
    atlas = atlas or country
    atlas_obj = as_atlas(atlas)
    values, original = _region_values(meta, atlas_obj)
    derived = _derive(country, values, original) if atlas == country else {}
    legend = legend_from_mapwise(meta)
    title = meta.get("title")
    title_text = title.get("text", "") if isinstance(title, dict) else (title or "")
    return MapSpec(
        map_id=map_id or f"mapwise-{country}-{meta.get('map_id')}",
        atlas=atlas,
        values=values,
        legend=legend,
        stat=_stat(meta, legend, country, title_text),
        style=_style(meta),
        title=title_text,
        extra={"mapwise": {k: v for k, v in meta.items() if k != "data"}, "mapwise_values": original,
               "derived": derived},
        attached=AttachedAtlas(atlas, (), atlas_obj),
    )


def _same(original: float, value: float, code: str, derived: dict[str, str]) -> bool:
    if is_nan(original) or is_nan(value):
        return True
    return math.isclose(original, value) or code in derived


def _region_records(spec: MapSpec) -> list[dict[str, Any]]:
    """One MAPWise data record per region (imported maps keep their original region names and values)."""
    atlas = spec.get_atlas()
    original: dict[str, float] = spec.extra.get("mapwise_values") or {}
    data = []
    for region in (list(original) if original else list(atlas.codes)):
        code = atlas.resolve(region)
        value = spec.values.get(code, math.nan)
        if region in original and _same(original[region], value, code, spec.extra.get("derived", {})):
            value = original[region]
        record: dict[str, Any] = {"region": region, "value": None if is_nan(value) else value}
        if spec.legend.kind == "discrete":
            cls, desc = mapwise_class(spec.legend, value)
            record |= {"description": desc, "class": cls}
        record["legend_position"] = legend_position(spec.legend, value)
        data.append(record)
    return data


def spec_to_mapwise(spec: MapSpec) -> dict[str, Any]:
    """MAPWise/MapQA metadata for a spec. Imported specs keep their original region codes and extra fields."""
    base = dict(spec.extra.get("mapwise") or {})
    data = _region_records(spec)
    out = {
        "map_id": base.get("map_id", spec.map_id),
        "map_type": "Choropleth",
        **{k: v for k, v in base.items() if k not in ("map_id", "map_type")},
        **legend_to_mapwise(spec.legend),
        "missing_data": any(r["value"] is None for r in data),
        "data": data,
    }
    if "paper_bgcolor" not in base:
        out["paper_bgcolor"] = spec.style.background
    if "title" not in base:
        out["title"] = spec.title
    if base.get("missing_data") in ("True", "False"):
        out["missing_data"] = str(out["missing_data"])
    return out
