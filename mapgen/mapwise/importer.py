"""Import MAPWise (MapQA-schema) maps and questions: per-map metadata → MapSpecs, question table → raw records.

A country folder holds ``metadata/*.json`` (one MapQA metadata file per map) and its question table: the sample
layout's ``questions.csv`` or, in MAPWise's repository (``dataset/<country>/``), ``final_us_cleaned8.csv`` /
``final_india_cleaned4.csv`` / ``final_china_cleaned3.csv`` (:func:`mapgen.mapwise.layout.question_table`).
:func:`import_repository` imports every country of a repository root (or its ``dataset/``). The three
countries write the CSV slightly differently; :func:`read_questions` finds the columns by name:

- map column ``map_no`` (USA, China) or ``map_id`` (India); template ``template_no``; ``question``;
  ``ground_truth``; optional ``verified answer`` (USA), ``c_or_d``, a relative-region flag, ``type``, ``comments``.
- map ``N`` → ``metadata/map_N.json`` (USA) or ``metadata/mapN.json`` (India/China); both are tried.

:func:`import_mapwise` writes ``specs/<map>.json`` (mapgen specs), ``questions.jsonl``, the original CSV
(``source_questions.csv``, kept for the corrected CSV in MAPWise's own layout) and ``manifest.json``.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import shutil
import warnings
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from mapgen.files import write_json_atomic, write_jsonl_atomic
from mapgen.geo.atlas import BUILTIN
from mapgen.mapwise.layout import country_folders, map_image, metadata_folder, question_table
from mapgen.mapwise.schema import country_of_mapwise, mapwise_atlas, spec_from_mapwise
from mapgen.mapwise.ticks import read_colorbar_ticks
from mapgen.spec import MapSpec, load_spec

MAP_COLUMNS = ("map_no", "map_id", "map")
TEMPLATE_COLUMNS = ("template_no", "template", "template_id")
QUESTION_COLUMNS = ("question",)
ANSWER_COLUMNS = ("ground_truth", "answer", "ground truth")
VERIFIED_COLUMNS = ("verified answer", "verified_answer")


@dataclass
class RawQuestion:
    """One row of a MAPWise questions CSV, as written (nothing parsed yet)."""

    country: str
    row: int  # 1-based data row in the CSV (header excluded)
    map_ref: str  # the CSV's map id, e.g. "1034" or "10_8C"
    map_id: str  # the imported spec's map_id
    template_no: int | None
    question: str
    ground_truth: str
    verified: str | None = None
    columns: dict[str, str] = field(default_factory=dict)  # the full original row
    variant: str | None = None  # "hatched" when json_data lists the question on the hatched image only

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CsvLayout:
    """Which header names a questions CSV uses (kept to write the corrected CSV in the same layout)."""

    header: list[str]
    map_col: str
    template_col: str | None
    question_col: str
    answer_col: str
    verified_col: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ImportedSet:
    """A country's imported sample: specs by map reference, raw questions and the CSV layout."""

    country: str
    specs: dict[str, MapSpec]
    questions: list[RawQuestion]
    layout: CsvLayout
    source: str = ""
    missing_maps: list[str] = field(default_factory=list)


def _find(header: list[str], names: tuple[str, ...], required: bool = True) -> str | None:
    low = {h.strip().lower(): h for h in header}
    for n in names:
        if n in low:
            return low[n]
    if required:
        raise ValueError(f"questions CSV has no {names[0]!r} column (header: {header})")
    return None


def detect_layout(header: list[str]) -> CsvLayout:
    """Column roles of a MAPWise questions CSV (any of the three country layouts)."""
    return CsvLayout(
        header=list(header),
        map_col=_find(header, MAP_COLUMNS),  # type: ignore[arg-type]
        template_col=_find(header, TEMPLATE_COLUMNS, required=False),
        question_col=_find(header, QUESTION_COLUMNS),  # type: ignore[arg-type]
        answer_col=_find(header, ANSWER_COLUMNS),  # type: ignore[arg-type]
        verified_col=_find(header, VERIFIED_COLUMNS, required=False),
    )


def read_csv_rows(path: str | Path) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a CSV exactly as written (duplicate column names kept)."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise ValueError(f"{path} is empty")
    return rows[0], [r + [""] * (len(rows[0]) - len(r)) for r in rows[1:] if any(c.strip() for c in r)]


def _int(text: str) -> int | None:
    try:
        return int(float(text))
    except (TypeError, ValueError):
        return None


def metadata_file(folder: Path, map_ref: str) -> Path | None:
    """The metadata file of a CSV map reference (``map_N.json`` or ``mapN.json``)."""
    for name in (f"map_{map_ref}.json", f"map{map_ref}.json", f"{map_ref}.json"):
        path = folder / name
        if path.is_file():
            return path
    return None


def spec_map_id(country: str, map_ref: str) -> str:
    """The map_id an imported spec gets (unique per country and CSV map reference)."""
    return f"mapwise-{country}-{map_ref}"


def load_metadata(path: str | Path) -> dict[str, Any]:
    """A MapQA metadata dict (NaN values, as MAPWise writes them, become None)."""
    meta = json.loads(Path(path).read_text(encoding="utf-8"))
    for rec in meta.get("data", []):
        value = rec.get("value")
        if isinstance(value, float) and math.isnan(value):
            rec["value"] = None
    return meta


def _country(folder: Path, metas: list[dict[str, Any]], country: str | None) -> str:
    if country:
        return country
    if folder.name.lower() in BUILTIN:
        return folder.name.lower()
    return country_of_mapwise(metas[0]) if metas else "usa"


def read_questions(path: str | Path, country: str) -> tuple[CsvLayout, list[RawQuestion]]:
    """The raw question records of a questions CSV (any MAPWise layout)."""
    header, rows = read_csv_rows(path)
    layout = detect_layout(header)
    idx = {name: header.index(name) for name in header[::-1]}  # first occurrence wins
    out = []
    for i, row in enumerate(rows, start=1):

        def get(col: str | None, row: list[str] = row) -> str:
            return row[idx[col]].strip() if col else ""

        ref = get(layout.map_col)
        out.append(RawQuestion(
            country=country,
            row=i,
            map_ref=ref,
            map_id=spec_map_id(country, ref),
            template_no=_int(get(layout.template_col)),
            question=get(layout.question_col),
            ground_truth=get(layout.answer_col),
            verified=get(layout.verified_col) if layout.verified_col else None,
            columns={h: row[j] for j, h in enumerate(header)},
        ))
    return layout, out


def _ref_of_stem(stem: str) -> str:
    """CSV map reference of a ``json_data`` ``map_no`` (``map_104`` → ``104``, ``map100_4C`` → ``100_4C``)."""
    return stem.removeprefix("map_") if stem.startswith("map_") else stem.removeprefix("map")


def image_variants(folder: str | Path) -> dict[tuple[str, str, str], set[str]]:
    """(map reference, question, ground truth) → the image variants ``json_data/*_maps_data.json`` ask it on
    (``with_annotations``, ``wo_annotations``, ``hatched``); empty when the folder has no ``json_data``."""
    out: dict[tuple[str, str, str], set[str]] = {}
    for path in sorted((Path(folder) / "json_data").glob("*_maps_data.json")):
        with contextlib.suppress(ValueError, TypeError):
            for rec in json.loads(path.read_text(encoding="utf-8")):
                key = (_ref_of_stem(str(rec["map_no"])), str(rec["question"]).strip(), str(rec["ground_truth"]).strip())
                out.setdefault(key, set()).add(str(rec["map_type"]))
    return out


def mark_hatched(questions: list[RawQuestion], variants: dict[tuple[str, str, str], set[str]]) -> None:
    """Set ``variant="hatched"`` on questions asked on the hatched image only: their answer is read off that
    image (its grey shades), not off the coloured map the shared metadata describes."""
    for q in questions:
        if variants.get((q.map_ref, q.question, q.ground_truth)) == {"hatched"}:
            q.variant = "hatched"


def with_published_ticks(spec: MapSpec, image: Path | None) -> MapSpec:
    """``spec`` with the ticks OCR reads off its published colour bar (continuous maps with an image)."""
    if image is None or spec.legend.kind != "continuous":
        return spec
    ticks = read_colorbar_ticks(image)
    if ticks is None:
        return spec
    return replace(spec, extra={**spec.extra, "published_ticks": ticks.to_dict() | {"source": image.name}})


def spec_from_metadata(meta: dict[str, Any], country: str, map_id: str) -> MapSpec:
    """The MapSpec of one metadata dict; atlas regions the metadata does not list at all (and that are not
    derived for the India layout) are excluded, as they are not drawn on MAPWise's map (e.g. Taiwan)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = spec_from_mapwise(meta, country, map_id=map_id, atlas=mapwise_atlas(meta, country))
    atlas = spec.load_atlas()
    listed = set()
    for rec in meta.get("data", []):
        with contextlib.suppress(LookupError):
            listed.add(atlas.resolve(rec["region"]))
    absent = tuple(c for c in atlas.codes if c not in listed and c not in spec.extra.get("derived", {}))
    if not absent:
        return spec
    values = {c: v for c, v in spec.values.items() if c not in absent}
    return replace(spec, values=values, exclude=absent)


def read_sample(folder: str | Path, country: str | None = None, read_ticks: bool = True) -> ImportedSet:
    """Rebuild every map of a MAPWise sample folder and read its questions (nothing is written); with
    ``read_ticks``, a continuous map whose published PNG is in the folder records the tick labels OCR reads off
    its colour bar (``extra["published_ticks"]``, :mod:`mapgen.mapwise.ticks`; nothing without OCR)."""
    folder = Path(folder)
    qpath = question_table(folder)
    meta_dir = metadata_folder(folder)
    files = sorted(meta_dir.glob("*.json"))
    metas = [load_metadata(f) for f in files[:1]]
    country = _country(folder, metas, country)
    layout, questions = read_questions(qpath, country)
    mark_hatched(questions, image_variants(folder))
    specs: dict[str, MapSpec] = {}
    missing = []
    for ref in dict.fromkeys(q.map_ref for q in questions):
        path = metadata_file(meta_dir, ref)
        if path is None:
            missing.append(ref)
            continue
        specs[ref] = spec_from_metadata(load_metadata(path), country, spec_map_id(country, ref))
        if read_ticks:
            specs[ref] = with_published_ticks(specs[ref], map_image(folder, ref))
    return ImportedSet(country, specs, questions, layout, str(folder), missing)


def import_mapwise(folder: str | Path, out: str | Path, country: str | None = None,
                   read_ticks: bool = True) -> ImportedSet:
    """Import a MAPWise sample folder and write it to ``out`` (specs, questions, source CSV, manifest)."""
    data = read_sample(folder, country, read_ticks)
    out = Path(out)
    (out / "specs").mkdir(parents=True, exist_ok=True)
    for ref, spec in data.specs.items():
        spec.save(out / "specs" / f"{ref}.json")
    write_jsonl_atomic(out / "questions.jsonl", (q.to_dict() for q in data.questions), sort_keys=False,
                       ensure_ascii=False)
    shutil.copyfile(question_table(folder), out / "source_questions.csv")
    manifest = {
        "mapwise_import": 1,
        "country": data.country,
        "source": str(Path(folder).resolve()),
        "layout": data.layout.to_dict(),
        "maps": sorted(data.specs),
        "missing_maps": data.missing_maps,
        "questions": len(data.questions),
    }
    write_json_atomic(out / "manifest.json", manifest, sort_keys=False)
    return data


def import_repository(root: str | Path, out: str | Path, read_ticks: bool = True) -> dict[str, ImportedSet]:
    """Import every country of a MAPWise repository root, its ``dataset/`` or a sample root into
    ``out/<country>/`` (each a folder :func:`load_imported` and ``mapgen recheck`` read)."""
    folders = country_folders(root)
    if not folders:
        raise FileNotFoundError(f"{root} holds no MAPWise country folder (dataset/usa, usa/, … with metadata/).")
    return {country: import_mapwise(folder, Path(out) / country, country, read_ticks)
            for country, folder in folders.items()}


def imported_countries(folder: str | Path) -> dict[str, Path]:
    """Name → folder of each imported set under ``folder``: itself (an import or a raw country folder), the
    ``<country>/`` subfolders :func:`import_repository` wrote, or a raw repository root's country folders."""
    folder = Path(folder)
    subs = {p.name: p for p in sorted(folder.iterdir()) if (p / "manifest.json").is_file()}
    if (folder / "manifest.json").is_file() or (folder / "metadata").is_dir():
        return {folder.name: folder}
    return subs or country_folders(folder) or {folder.name: folder}


def load_imported(folder: str | Path) -> ImportedSet:
    """Read back what :func:`import_mapwise` wrote (a raw sample folder is imported on the fly)."""
    folder = Path(folder)
    if not (folder / "manifest.json").is_file():
        return read_sample(folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    specs = {ref: load_spec(folder / "specs" / f"{ref}.json") for ref in manifest["maps"]}
    with open(folder / "questions.jsonl", encoding="utf-8") as fh:
        questions = [RawQuestion(**json.loads(line)) for line in fh if line.strip()]
    return ImportedSet(
        manifest["country"], specs, questions, CsvLayout(**manifest["layout"]), manifest.get("source", ""),
        manifest.get("missing_maps", []),
    )
