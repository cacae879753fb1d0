"""MAPWise's repository layout, exactly as its authors released it (file names, CSV headers, JSON records).

Layout (``DEST`` holds ``dataset/`` like MAPWise's repository root)::

    dataset/usa/final_us_cleaned8.csv        map_no,template_no,question,ground_truth,verified answer,c_or_d,
                                             relative_region (y/n),          (trailing empty column, as released)
    dataset/india/final_india_cleaned4.csv   map_id,template_no,question,ground_truth,Rel reg,type,
    dataset/china/final_china_cleaned3.csv   map_no,template_no,question,ground_truth,c_or_d,relative_region (y/n),
                                             comments,type (Single/list/Binary/Count/Range etc),type,
    dataset/<country>/metadata/<stem>.json   MAPWise/MapQA metadata (:func:`mapgen.mapwise.schema.spec_to_mapwise`)
                                             of a map's colour variants
    dataset/<country>/metadata/hatched/<stem>.json   the hatched image's own metadata (mapgen's addition: its
                                             grey shades, and its own classes where hatching re-classified it)
    dataset/<country>/{with_annotations,wo_annotations,hatched}/<stem>.png
    dataset/<country>/json_data/<country>_<variant>_maps_data.json   what MAPWise's evaluation scripts read:
        [{country, map_type, map_no, map_path, template_no, question, ground_truth, ground_truth_type, c_or_d,
          relative_region}]
    dataset/counter_factuals/<kind>/<kind>_data.csv    map_no,template_no,question,ground_truth (jumb:
        original_data_answer),verified answer,relative_region (y/n),c_or_d,type
    dataset/counter_factuals/<kind>/<kind>_maps/<stem>.png, json_data/<kind>_with_annotations_maps_data.json,
    dataset/counter_factuals/<kind>/metadata/<stem>.json   (mapgen's addition: ``printed_name`` per region)

Map names: a base map (all its variants) is numbered 1, 2, … per country in build order; USA files are
``map_<N>`` and the CSV ``map_no`` is ``N``; India/China files are ``map<N>_0C`` / ``map<N>_0D`` (C continuous,
D discrete) and the CSV id ``<N>_0C``. A counterfactual map takes its source map's number (as in MAPWise).
Kinds: ``img`` imaginary names, ``shuff`` shuffled names, ``jumb`` jumbled values, ``orgs`` the original control.
India's metadata uses MAPWise's codes (BH, CT, ME, MI, OR, PD, UT; Dadra & Nagar Haveli and Daman & Diu, one
unit in mapgen's atlas, are written as the two records DN and DD with that unit's value; Ladakh stays ``LA``).
Both ``ground_truth`` and ``verified answer`` hold mapgen's computed answer; ``original_data_answer`` (jumb) is
the answer of the same question (template and parameters) on the ``orgs`` map when the build has one.
Question text: MAPWise's released wording where a template marks one (:mod:`mapgen.mapwise.released_wording`; China's
regions are "states", as in MAPWise), else mapgen's; ``wording="mapgen"`` keeps the build's text throughout.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mapgen.benchmark import MAPS_DIR, Benchmark, map_json_name
from mapgen.export.common import ExportError, answer_text, image_file
from mapgen.files import copy_file, write_json_atomic, write_text_atomic
from mapgen.mapwise.released_wording import mapwise_text
from mapgen.mapwise.repository import CF_COLUMNS, CF_KINDS, COUNTRY_TABLES, HATCHED_METADATA, VARIANT_FOLDERS

WORDINGS: tuple[str, ...] = ("mapwise", "mapgen")

ANSWER_TYPES: dict[str, str] = {"binary": "Binary", "count": "Count", "single": "Single", "list": "List",
                                "range": "Range", "ranking": "Rank"}
"""mapgen answer type → MAPWise's ``type`` column (``json_data`` writes rankings as ``List``, as MAPWise does)."""
USA_KEYS: tuple[str, ...] = (
    "map_id", "map_type", "KFF_file_name", "scope", "locationmode", "projection", "legend_type", "legend_order",
    "num_classes", "num_symbols", "class_descriptions", "data_type", "missing_data", "data", "colormap_name",
    "colorscales", "showgrid", "paper_bgcolor", "title", "legend")
MAPQA_KEYS: tuple[str, ...] = (
    "map_id", "map_type", "scope", "locationmode", "legend_type", "legend_order", "num_classes",
    "class_descriptions", "missing_data", "data", "colormap_name", "colorscales", "paper_bgcolor", "title", "legend")
"""MAPWise's metadata keys in its order: USA (KFF maps) and India/China (MapQA dialect)."""
INDIA_CODES: dict[str, tuple[str, ...]] = {
    "BR": ("BH",), "CG": ("CT",), "UK": ("UT",), "OD": ("OR",), "ML": ("ME",), "MZ": ("MI",), "PY": ("PD",),
    "DH": ("DN", "DD"),
}
"""mapgen India code → MAPWise's code(s) (MAPWise drew Dadra & Nagar Haveli and Daman & Diu apart)."""


# --- names --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MapName:
    """Where one built map goes in MAPWise's layout."""

    country: str
    number: int
    continuous: bool

    @property
    def csv_id(self) -> str | int:
        return self.number if self.country == "usa" else f"{self.number}_0{'C' if self.continuous else 'D'}"

    @property
    def stem(self) -> str:
        return f"map_{self.number}" if self.country == "usa" else f"map{self.csv_id}"


def source_unit(record: dict[str, Any]) -> str:
    """The base unit a map belongs to (a counterfactual map ``cf-<unit>-<kind>`` → ``<unit>``)."""
    unit = str(record.get("unit_id") or record["map_id"])
    if record.get("counterfactual_set") or record.get("counterfactual") or unit.startswith("cf-"):
        return unit.removeprefix("cf-").rsplit("-", 1)[0]
    return unit


def map_names(bench: Benchmark) -> dict[str, MapName]:
    """map_id → :class:`MapName` for every built map (base maps numbered per country in build order)."""
    numbers: dict[str, int] = {}
    per_country: dict[str, int] = defaultdict(int)
    maps = list(bench.map_index.values())
    for record in sorted(maps, key=lambda r: bool(r.get("counterfactual_set") or r.get("counterfactual"))):
        unit = source_unit(record)
        if unit not in numbers:
            per_country[record["country"]] += 1
            numbers[unit] = per_country[record["country"]]
    return {r["map_id"]: MapName(r["country"], numbers[source_unit(r)], r.get("map_type") == "continuous")
            for r in maps}


def cf_kind(record: dict[str, Any]) -> str | None:
    """MAPWise's folder name of a counterfactual record's kind (None for a base map)."""
    kind = record.get("counterfactual_set") or record.get("counterfactual")
    return CF_KINDS.get(str(kind)) if kind else None


# --- rows ---------------------------------------------------------------------------------------------------


def ground_truth(record: dict[str, Any]) -> str:
    """An answer as MAPWise writes it: ``Yes``/``No``, ``A, B``, ``A > B > C``, ``None`` for nothing."""
    return answer_text(record["answer"], record["answer_type"], empty="None")


def _common(record: dict[str, Any], name: MapName, text: str) -> dict[str, Any]:
    template = record.get("mapwise_template")
    return {
        "template_no": "" if template is None else int(template),
        "question": text,
        "ground_truth": ground_truth(record),
        "c_or_d": "c" if name.continuous else "d",
        "relative_region (y/n)": "Y" if record.get("relative_region") else "N",
        "type": ANSWER_TYPES.get(record["answer_type"], record["answer_type"]),
    }


def country_row(record: dict[str, Any], name: MapName, text: str) -> dict[str, Any]:
    """One row of a country's question table (every header of the three countries filled)."""
    row = _common(record, name, text)
    row.update({"map_no": name.csv_id, "map_id": name.csv_id, "verified answer": row["ground_truth"],
                "Rel reg": row["relative_region (y/n)"], "comments": "", "": ""})
    row["type (Single/list/Binary/Count/Range etc)"] = row["type"]
    return row


def json_record(record: dict[str, Any], name: MapName, text: str, map_type: str, folder: str,
                country: str) -> dict[str, Any]:
    """One ``json_data`` record (what MAPWise's evaluation scripts read)."""
    row = _common(record, name, text)
    return {
        "country": country,
        "map_type": map_type,
        "map_no": name.stem,
        "map_path": f"{folder}/{name.stem}.png",
        "template_no": row["template_no"] if row["template_no"] != "" else None,
        "question": text,
        "ground_truth": row["ground_truth"],
        "ground_truth_type": "List" if row["type"] == "Rank" else row["type"],
        "c_or_d": row["c_or_d"],
        "relative_region": row["relative_region (y/n)"],
    }


def csv_text(columns: tuple[str, ...], rows: list[dict[str, Any]]) -> str:
    """A CSV with exactly ``columns`` as its header (duplicate names allowed, as in China's table)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row.get(c, "") for c in columns])
    return buffer.getvalue()


def unique_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows once each (a question asked on several variants of a map is one row of MAPWise's table)."""
    seen, out = set(), []
    for row in rows:
        key = tuple(sorted((k, str(v)) for k, v in row.items()))
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


# --- metadata -----------------------------------------------------------------------------------------------


def _india_records(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for rec in data:
        for code in INDIA_CODES.get(rec["region"], (rec["region"],)):
            out.append(rec | {"region": code})
    return out


def _country_fields(meta: dict[str, Any], spec: Any, name: MapName) -> dict[str, Any]:
    """The fields MAPWise's files carry for the country, in MAPWise's key order (unknown keys last)."""
    usa = name.country == "usa"
    legend = {"orientation": spec.style.legend_orientation, "position": spec.style.legend_position}
    fields: dict[str, Any] = {"map_id": name.number if usa else str(name.number), "scope": "USA" if usa else None,
              "locationmode": "USA-states" if usa else "geojson-id"}
    if usa:
        fields |= {"KFF_file_name": spec.stat.id, "projection": "albers usa", "showgrid": False,
                   "data_type": "Percentage" if spec.legend.percent else "Number", "title": {"text": spec.title}}
    else:
        fields["missing_data"] = str(meta["missing_data"])
    if spec.legend.kind == "discrete" or usa:
        fields["legend"] = legend
    merged = meta | fields
    order = USA_KEYS if usa else MAPQA_KEYS
    return {k: merged[k] for k in order if k in merged} | {k: v for k, v in merged.items() if k not in order}


def map_metadata(bench: Benchmark, map_id: str, name: MapName) -> dict[str, Any]:
    """MAPWise-schema metadata of one map (MAPWise's map id, fields and India codes; India/China in the MapQA
    dialect; counterfactual maps add each region's ``printed_name`` and ``printed_label``, the name and the
    annotation drawn on its shape)."""
    from mapgen.legend import MapwiseProvenance
    from mapgen.mapwise.schema import spec_to_mapwise
    from mapgen.spec import load_spec

    spec = load_spec(bench.root / MAPS_DIR / map_json_name(map_id))
    if spec.legend.mapwise is None:
        dialect = MapwiseProvenance(dialect="kff" if name.country == "usa" else "mapqa")
        spec = replace(spec, legend=replace(spec.legend, mapwise=dialect))
    meta = _country_fields(spec_to_mapwise(spec), spec, name)
    cf = spec.counterfactual or {}
    if cf.get("names"):
        for rec in meta["data"]:
            rec["printed_name"] = cf["names"].get(rec["region"], rec["region"])
            rec["printed_label"] = (cf.get("labels") or {}).get(rec["region"], rec["region"])
    if name.country == "india":
        meta["data"] = _india_records(meta["data"])
    return meta


# --- writing ------------------------------------------------------------------------------------------------

def metadata_path(image_folder: str, name: MapName) -> str:
    """The metadata file (relative to the folder) describing one image: ``metadata/<stem>.json``, shared by a
    map's colour variants as in MAPWise, or ``metadata/hatched/<stem>.json`` for its hatched image."""
    folder = HATCHED_METADATA if image_folder == "hatched" else "metadata"
    return f"{folder}/{name.stem}.json"


@dataclass
class _Folder:
    """What one country (or counterfactual kind) folder collects before it is written."""

    rel: str
    rows: list[dict[str, Any]]
    records: dict[str, list[dict[str, Any]]]
    maps: dict[str, tuple[str, MapName]]


def _place(record: dict[str, Any], name: MapName) -> tuple[str, str, str, str]:
    """(folder key, folder path, MAPWise map_type, image folder) of a map record."""
    kind = cf_kind(record)
    if kind:
        return kind, f"dataset/counter_factuals/{kind}", "with_annotations", f"{kind}_maps"
    variant = str(record.get("variant"))
    folder = VARIANT_FOLDERS.get(variant, variant)
    return name.country, f"dataset/{name.country}", folder, folder


def _collect(bench: Benchmark, names: dict[str, MapName], wording: str) -> dict[str, _Folder]:
    folders: dict[str, _Folder] = {}
    for map_id, record in bench.map_index.items():
        key, rel, map_type, image_folder = _place(record, names[map_id])
        folder = folders.setdefault(key, _Folder(rel, [], defaultdict(list), {}))
        folder.maps[map_id] = (image_folder, names[map_id])
        folder.records.setdefault(map_type, [])
    for record in bench.question_records:
        name = names[record["map_id"]]
        key, rel, map_type, image_folder = _place(bench.map_index[record["map_id"]] | record, name)
        folder = folders[key]
        text = mapwise_text(record) if wording == "mapwise" else record["question"]
        folder.rows.append(country_row(record, name, text) | {"_record": record})
        folder.records[map_type].append(json_record(record, name, text, map_type, f"{rel}/{image_folder}", key))
    return folders


def _original_answers(folders: dict[str, _Folder]) -> dict[tuple, str]:
    """(map number, template id, params) → ground truth on the ``orgs`` control map."""
    orgs = folders.get("orgs")
    if orgs is None:
        return {}
    return {_question_key(r["_record"], r["map_no"]): r["ground_truth"] for r in orgs.rows}


def _question_key(record: dict[str, Any], number: Any) -> tuple:
    return number, record.get("template_id"), repr(sorted((record.get("params") or {}).items()))


def _table(key: str, folder: _Folder, originals: dict[tuple, str]) -> tuple[str, str]:
    """(file name, CSV text) of one folder's question table."""
    if key in COUNTRY_TABLES:
        file_name, columns = COUNTRY_TABLES[key]
    elif key in CF_KINDS.values():
        file_name, columns = f"{key}_data.csv", CF_COLUMNS
    else:
        file_name, columns = f"final_{key}.csv", COUNTRY_TABLES["usa"][1]
    rows = [{k: v for k, v in r.items() if k != "_record"} for r in folder.rows]
    if key == "jumb":
        columns = tuple("original_data_answer" if c == "ground_truth" else c for c in columns)
        for row, full in zip(rows, folder.rows):
            row["original_data_answer"] = originals.get(_question_key(full["_record"], full["map_no"]), "")
    return file_name, csv_text(columns, unique_rows(rows))


def write(bench: Benchmark, dest: Path, wording: str | None = None, **_: Any) -> None:
    """Write MAPWise's repository layout into ``dest`` (see the module docstring); ``wording`` "mapwise" (the
    default here) writes MAPWise's released wording, "mapgen" the build's own question text."""
    if not bench.question_records:
        raise ExportError(f"{bench.root} has no questions to export.")
    wording = wording or "mapwise"
    if wording not in WORDINGS:
        raise ExportError(f"Unknown wording {wording!r}; choose one of {', '.join(WORDINGS)}.")
    names = map_names(bench)
    folders = _collect(bench, names, wording)
    originals = _original_answers(folders)
    for key, folder in folders.items():
        root = dest / folder.rel
        file_name, text = _table(key, folder, originals)
        write_text_atomic(root / file_name, text)
        for variant, records in folder.records.items():
            write_json_atomic(root / "json_data" / f"{key}_{variant}_maps_data.json", records, sort_keys=False,
                              ensure_ascii=False, newline=True)
        written: set[str] = set()
        for map_id, (image_folder, name) in folder.maps.items():
            copy_file(image_file(bench, map_id), root / image_folder / f"{name.stem}.png")
            meta_file = metadata_path(image_folder, name)
            if meta_file not in written:  # one file per map, shared by its colour variants (as in MAPWise)
                written.add(meta_file)
                write_json_atomic(root / meta_file, map_metadata(bench, map_id, name),
                                  sort_keys=False, ensure_ascii=False, newline=True)
