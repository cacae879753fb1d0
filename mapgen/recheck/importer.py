"""Import MAPWise (MapQA-schema) maps and questions: per-map metadata → MapSpecs, question table → raw records.

A country folder holds ``metadata/*.json`` (one MapQA metadata file per map) and its question table: the sample
layout's ``questions.csv`` or, in MAPWise's repository (``dataset/<country>/``), ``final_us_cleaned8.csv`` /
``final_india_cleaned4.csv`` / ``final_china_cleaned3.csv`` (:func:`mapgen.mapwise.repository.question_table`).
:func:`import_repository` imports every question folder of a repository root (or its ``dataset/``): the three
countries and ``counter_factuals/{img,jumb,orgs,shuff}`` (:func:`mapgen.mapwise.repository.question_folders`; what
each counterfactual kind changes and how it is read: :mod:`mapgen.recheck.cfimport`). The three countries write
the CSV slightly differently; :func:`read_questions` finds the columns by name:

- map column ``map_no`` (USA, China) or ``map_id`` (India); template ``template_no``; ``question``;
  ``ground_truth``; optional ``verified answer`` (USA), ``c_or_d``, a relative-region flag, ``type``, ``comments``.
- map ``N`` → ``metadata/map_N.json`` (USA) or ``metadata/mapN.json`` (India/China); both are tried.

:func:`import_mapwise` writes ``specs/<map>.json`` (mapgen specs), ``questions.jsonl``, the original CSV
(``source_questions.csv``, kept for the corrected CSV in MAPWise's own layout) and ``manifest.json``.
"""

from __future__ import annotations

import contextlib
import csv
import math
import warnings
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from mapgen.files import (
    FolderNotEmptyError,
    atomic_folder,
    read_json,
    read_jsonl,
    write_bytes_atomic,
    write_json_atomic,
    write_jsonl_atomic,
)
from mapgen.geo.atlas import BUILTIN
from mapgen.mapwise.repository import (
    CF_ANSWER,
    CF_FOLDER,
    CF_KINDS,
    HATCHED_METADATA,
    cf_kind,
    map_image,
    metadata_folder,
    question_folders,
    question_table,
)
from mapgen.mapwise.schema import country_of_mapwise, mapwise_atlas, spec_from_mapwise
from mapgen.recheck.cfimport import (
    JUMBLED_UNKNOWN,
    NAME_KINDS,
    PrintedNames,
    aligned_names,
    answer_names,
    contradictions,
    counterfactual_record,
    merge_names,
    names_from_labels,
    printed_from_metadata,
)
from mapgen.recheck.printed_labels import labels_on_shapes, reference_positions
from mapgen.recheck.ticks import read_colorbar_ticks
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
    kind: str | None = None  # MAPWise's counterfactual kind (img, shuff, jumb, orgs); None on a country's table

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
    kind: str | None = None  # MAPWise's counterfactual kind; None for a country
    notes: list[str] = field(default_factory=list)  # what the files do not establish (counterfactual kinds)

    @property
    def name(self) -> str:
        """The set's name in a repository import: the country, or ``counter_factuals/<kind>``."""
        return f"{CF_FOLDER}/{self.kind}" if self.kind else self.country


def _find(header: list[str], names: tuple[str, ...], required: bool = True) -> str | None:
    low = {h.strip().lower(): h for h in header}
    for n in names:
        if n in low:
            return low[n]
    if required:
        raise ValueError(f"questions CSV has no {names[0]!r} column (header: {header})")
    return None


def detect_layout(header: list[str], counterfactual: bool = False) -> CsvLayout:
    """Column roles of a MAPWise questions CSV (any of the three country layouts); a counterfactual kind's
    answer is its ``verified answer`` column (what json_data gives as ground truth, :data:`layout.CF_ANSWER`)."""
    answers = (CF_ANSWER,) if counterfactual else ANSWER_COLUMNS
    return CsvLayout(
        header=list(header),
        map_col=_find(header, MAP_COLUMNS),  # type: ignore[arg-type]
        template_col=_find(header, TEMPLATE_COLUMNS, required=False),
        question_col=_find(header, QUESTION_COLUMNS),  # type: ignore[arg-type]
        answer_col=_find(header, answers),  # type: ignore[arg-type]
        verified_col=None if counterfactual else _find(header, VERIFIED_COLUMNS, required=False),
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


def spec_map_id(country: str, map_ref: str, kind: str | None = None) -> str:
    """The map_id an imported spec gets (unique per country, counterfactual kind and CSV map reference)."""
    return f"mapwise-{country}-{kind}-{map_ref}" if kind else f"mapwise-{country}-{map_ref}"


def load_metadata(path: str | Path) -> dict[str, Any]:
    """A MapQA metadata dict (NaN values, as MAPWise writes them, become None)."""
    meta = read_json(path)
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


def read_questions(path: str | Path, country: str, kind: str | None = None) -> tuple[CsvLayout, list[RawQuestion]]:
    """The raw question records of a questions CSV (any MAPWise layout; ``kind`` for a counterfactual table)."""
    header, rows = read_csv_rows(path)
    layout = detect_layout(header, counterfactual=kind is not None)
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
            map_id=spec_map_id(country, ref, kind),
            template_no=_int(get(layout.template_col)),
            question=get(layout.question_col),
            ground_truth=get(layout.answer_col),
            verified=get(layout.verified_col) if layout.verified_col else None,
            columns={h: row[j] for j, h in enumerate(header)},
            kind=kind,
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
            for rec in read_json(path):
                key = (_ref_of_stem(str(rec["map_no"])), str(rec["question"]).strip(), str(rec["ground_truth"]).strip())
                out.setdefault(key, set()).add(str(rec["map_type"]))
    return out


def mark_hatched(questions: list[RawQuestion], variants: dict[tuple[str, str, str], set[str]]) -> None:
    """Set ``variant="hatched"`` on questions asked on the hatched image only: their answer is read off that
    image (its grey shades), not off the coloured map the shared metadata describes."""
    for q in questions:
        if variants.get((q.map_ref, q.question, q.ground_truth)) == {"hatched"}:
            q.variant = "hatched"


HATCHED_SPEC = "#hatched"
"""Suffix of the key under which :attr:`ImportedSet.specs` holds a hatched image's own map (see
:data:`mapgen.mapwise.repository.HATCHED_METADATA`)."""


def hatched_specs(questions: list[RawQuestion], folder: Path, country: str) -> dict[str, MapSpec]:
    """``<ref>#hatched`` → the map of a hatched image that has its own metadata file in ``folder`` (mapgen's
    exports), for the maps with questions asked on the hatched image only; empty for MAPWise's release."""
    out: dict[str, MapSpec] = {}
    for q in questions:
        key = q.map_ref + HATCHED_SPEC
        if q.variant != "hatched" or key in out or (path := metadata_file(folder, q.map_ref)) is None:
            continue
        out[key] = spec_from_metadata(load_metadata(path), country, q.map_id + "-hatched")
    return out


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
    atlas = spec.get_atlas()
    listed = set()
    for rec in meta.get("data", []):
        with contextlib.suppress(LookupError):
            listed.add(atlas.resolve(rec["region"]))
    absent = tuple(c for c in atlas.codes if c not in listed and c not in spec.extra.get("derived", {}))
    if not absent:
        return spec
    values = {c: v for c, v in spec.values.items() if c not in absent}
    return replace(spec, values=values, exclude=absent)


class MissingMetadataError(ValueError):
    """A question row names a map whose metadata file is not there."""


def _metadata_path(meta_dir: Path, ref: str, table: Path, row: int, skip_missing: bool) -> Path | None:
    path = metadata_file(meta_dir, ref)
    if path is None and not skip_missing:
        raise MissingMetadataError(
            f"{table.name} row {row} asks about map {ref}, but {meta_dir}/map_{ref}.json (or map{ref}.json) is "
            f"missing: add the metadata file, or import with --skip-missing to leave that map's questions out "
            f"(they are listed as missing_maps).")
    return path


def read_sample(folder: str | Path, country: str | None = None, read_ticks: bool = True,
                skip_missing: bool = False) -> ImportedSet:
    """Rebuild every map of a MAPWise country or counterfactual folder and read its questions (nothing is
    written); with ``read_ticks`` (OCR), a continuous map whose published PNG is in the folder records the tick
    labels OCR reads off its colour bar (``extra["published_ticks"]``, :mod:`mapgen.recheck.ticks`), and a released
    img/shuff map the labels read on its shapes (:mod:`mapgen.recheck.printed_labels`); nothing without OCR.
    A row naming a map without metadata raises :class:`MissingMetadataError` unless ``skip_missing``."""
    folder = Path(folder)
    kind = cf_kind(folder)
    qpath = question_table(folder)
    meta_dir = metadata_folder(folder)
    if not meta_dir.is_dir():
        raise MissingMetadataError(f"{folder} has no metadata folder: expected {meta_dir} (counter_factuals/<kind> "
                                   f"as MAPWise released it reads dataset/usa/metadata).")
    metas = [load_metadata(f) for f in sorted(meta_dir.glob("*.json"))[:1]]
    country = "usa" if kind else _country(folder, metas, country)
    layout, questions = read_questions(qpath, country, kind)
    mark_hatched(questions, image_variants(folder))
    specs: dict[str, MapSpec] = {}
    missing = []
    for q in questions:
        if q.map_ref in specs or q.map_ref in missing:
            continue
        path = _metadata_path(meta_dir, q.map_ref, qpath, q.row, skip_missing)
        if path is None:
            missing.append(q.map_ref)
            continue
        meta = load_metadata(path)
        spec = spec_from_metadata(meta, country, q.map_id)
        specs[q.map_ref] = with_published_ticks(spec, map_image(folder, q.map_ref)) if read_ticks else spec
    specs |= hatched_specs(questions, meta_dir / HATCHED_METADATA.removeprefix("metadata/"), country)
    data = ImportedSet(country, specs, questions, layout, str(folder), missing, kind=kind)
    return with_counterfactuals(data, folder, meta_dir, read_ticks) if kind else data


def with_counterfactuals(data: ImportedSet, folder: Path, meta_dir: Path, read_png: bool = True) -> ImportedSet:
    """A counterfactual kind's specs with what the kind changes: the name printed on each shape (``img``,
    ``shuff``; from the metadata when it records them, else from the ``orgs`` control's questions and, with
    ``read_png``, the labels read on the image) or, for ``jumb`` as MAPWise released it, the mark that its values
    are unknown (:mod:`mapgen.recheck.cfimport`)."""
    kind = data.kind or ""
    own = meta_dir == folder / "metadata"
    if kind == "jumb" and not own:
        data.specs = {ref: replace(s, extra={**s.extra, "values_unknown": JUMBLED_UNKNOWN})
                      for ref, s in data.specs.items()}
        data.notes.append(JUMBLED_UNKNOWN)
    if kind not in NAME_KINDS:
        return data
    aligned = None if own else _aligned(data, folder)
    for ref, spec in list(data.specs.items()):
        atlas = spec.get_atlas()
        meta_file = metadata_file(meta_dir, ref) if own else None
        recorded = printed_from_metadata(load_metadata(meta_file), atlas) if meta_file is not None else None
        if recorded:
            cf = counterfactual_record(kind, recorded[0], atlas, "metadata printed_name", recorded[1])
        else:
            cf = _read_names(data, folder, ref, atlas, aligned.names.get(ref, {}) if aligned else {}, read_png)
        data.specs[ref] = replace(spec, counterfactual=cf)
    return data


def _read_names(data: ImportedSet, folder: Path, ref: str, atlas: Any, aligned: dict[str, str],
                read_png: bool) -> dict[str, Any]:
    """``spec.counterfactual`` of one released img/shuff map: names from the questions, plus (``read_png``) the
    labels OCR reads on its shapes (:mod:`mapgen.recheck.printed_labels`), unless the two contradict each other."""
    kind = data.kind or ""
    labels = _png_labels(folder, ref, atlas) if read_png else {}
    rows = [q for q in data.questions if q.map_ref == ref]
    candidates = [*aligned.values(), *(n for q in rows for n in answer_names(q.ground_truth))]
    found = names_from_labels(kind, labels, atlas, candidates)
    clash = contradictions(kind, aligned, labels, atlas) + [c for c in found if aligned.get(c, found[c]) != found[c]]
    if clash:
        data.notes.append(f"map {ref}: the labels read on the image contradict the questions on "
                          f"{', '.join(sorted(set(clash)))}: the image is not used")
        labels, found = {}, {}
    names = merge_names(aligned, found)
    data.notes.append(f"map {ref}: printed name established on {len(names)} of {len(atlas.codes)} shapes "
                      f"({len(aligned)} from the questions, {len(labels)} labels read on the image)")
    source = "questions aligned with counter_factuals/orgs" + (" + labels read on the image" if labels else "")
    return counterfactual_record(kind, names, atlas, source, {c: labels[c] for c in labels if c not in names})


def _png_labels(folder: Path, ref: str, atlas: Any) -> dict[str, str]:
    """Labels OCR reads on the shapes of a released counterfactual map (positions from ``orgs``/``jumb``)."""
    image = map_image(folder, ref)
    refs = [p for k in (CF_KINDS["original"], CF_KINDS["jumbled"]) if (p := map_image(folder.parent / k, ref))]
    if image is None or not refs:
        return {}
    return labels_on_shapes(image, reference_positions(refs, atlas.codes))


def _aligned(data: ImportedSet, folder: Path) -> PrintedNames | None:
    control = folder.parent / CF_KINDS["original"] / f"{CF_KINDS['original']}_data.csv"
    if not control.is_file():
        data.notes.append(f"no {control}: no printed name is read from the questions")
        return None
    _, orgs = read_questions(control, "usa", CF_KINDS["original"])
    key = [(q.map_ref, str(q.template_no), q.question) for q in orgs]
    found = aligned_names(data.kind or "", [(q.map_ref, str(q.template_no), q.question) for q in data.questions], key)
    for ref, names in found.conflicts.items():
        data.notes.append(f"map {ref}: names read two ways, left unknown: {', '.join(names)}")
    return found


def _write_set(data: ImportedSet, folder: Path, out: Path) -> None:
    """Write one imported set (specs, questions, source CSV, manifest) into ``out``."""
    for ref, spec in data.specs.items():
        spec.save(out / "specs" / f"{ref}.json")
    write_jsonl_atomic(out / "questions.jsonl", (q.to_dict() for q in data.questions), sort_keys=False,
                       ensure_ascii=False)
    write_bytes_atomic(out / "source_questions.csv", question_table(folder).read_bytes())
    manifest = {
        "mapwise_import": 1,
        "country": data.country,
        "kind": data.kind,
        "source": str(Path(folder).resolve()),
        "layout": data.layout.to_dict(),
        "maps": sorted(data.specs),
        "missing_maps": data.missing_maps,
        "questions": len(data.questions),
        "notes": data.notes,
    }
    write_json_atomic(out / "manifest.json", manifest, sort_keys=False)


def _replaceable(out: Path) -> bool:
    """True when ``out`` is absent, empty or an earlier import (only then is it replaced)."""
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return True
    marks = ("manifest.json", "*/manifest.json", f"{CF_FOLDER}/*/manifest.json")
    return out.is_dir() and any(any(out.glob(pattern)) for pattern in marks)


def write_import(sets: dict[str, tuple[ImportedSet, Path]], out: str | Path, single: bool = False) -> None:
    """Write imported sets into ``out`` all at once (a temporary folder renamed into place): one set in ``out``
    itself (``single``), else each in ``out/<name>/``. ``out`` must be empty, absent or an earlier import."""
    out = Path(out)
    if not _replaceable(out):
        raise FolderNotEmptyError(f"{out} holds other files: give an empty folder (or an earlier import's) to -o.")
    with atomic_folder(out, replace=True) as tmp:
        for name, (data, folder) in sets.items():
            _write_set(data, folder, tmp if single else tmp / name)


def import_mapwise(folder: str | Path, out: str | Path, country: str | None = None,
                   read_ticks: bool = True, skip_missing: bool = False) -> ImportedSet:
    """Import one MAPWise country or counterfactual folder and write it to ``out`` (specs, questions, source
    CSV, manifest)."""
    data = read_sample(folder, country, read_ticks, skip_missing)
    write_import({data.name: (data, Path(folder))}, out, single=True)
    return data


def import_repository(root: str | Path, out: str | Path, read_ticks: bool = True,
                      skip_missing: bool = False) -> dict[str, ImportedSet]:
    """Import every question folder of a MAPWise repository root (or its ``dataset/``, ``counter_factuals/``, a
    sample root) into ``out/<name>/``: ``usa``, ``india``, ``china``, ``counter_factuals/<kind>`` (each a folder
    :func:`load_imported` and ``mapgen recheck`` read). Everything is read before anything is written."""
    folders = question_folders(root)
    sets = {name: (read_sample(folder, None if name.startswith(CF_FOLDER) else name, read_ticks, skip_missing),
                   folder) for name, folder in folders.items()}
    write_import(sets, out)
    return {name: data for name, (data, _) in sets.items()}


def imported_countries(folder: str | Path) -> dict[str, Path]:
    """Name → folder of each imported set under ``folder``: itself (an import or a raw question folder), the
    ``<country>/`` and ``counter_factuals/<kind>/`` subfolders :func:`import_repository` wrote, or a raw
    repository root's question folders."""
    folder = Path(folder)
    if (folder / "manifest.json").is_file() or (folder / "metadata").is_dir() or cf_kind(folder):
        return {folder.name: folder}
    found = sorted(folder.glob("*/manifest.json")) + sorted(folder.glob(f"{CF_FOLDER}/*/manifest.json"))
    subs = {p.parent.relative_to(folder).as_posix(): p.parent for p in found}
    if subs:
        return subs
    try:
        return question_folders(folder)
    except ValueError:
        return {folder.name: folder}


def load_imported(folder: str | Path) -> ImportedSet:
    """Read back what :func:`import_mapwise` wrote (a raw sample folder is imported on the fly)."""
    folder = Path(folder)
    if not (folder / "manifest.json").is_file():
        return read_sample(folder)
    manifest = read_json(folder / "manifest.json")
    specs = {ref: load_spec(folder / "specs" / f"{ref}.json") for ref in manifest["maps"]}
    questions = [RawQuestion(**record) for record in read_jsonl(folder / "questions.jsonl")]
    return ImportedSet(
        manifest["country"], specs, questions, CsvLayout(**manifest["layout"]), manifest.get("source", ""),
        manifest.get("missing_maps", []), kind=manifest.get("kind"), notes=manifest.get("notes", []),
    )
