"""Croissant (ML Commons) JSON-LD metadata over flat JSONL records and the map images, built and validated
with ``mlcroissant``.

Layout::

    DEST/croissant.json          the metadata: FileObjects (JSONL files and every image, with sha256; image hashes
                                 come from the build manifest), a FileSet ``images/*.png``, and record sets
                                 ``questions``, ``maps``, ``images`` (+ one per other task built: ``captions``,
                                 ``grounding``, …, named by the task's record file)
    DEST/questions.jsonl         flat question rows (:data:`mapgen.export.common.QUESTION_COLUMNS`, minus image
                                 bytes; answers as text and as JSON)
    DEST/maps.jsonl, captions.jsonl, grounding.jsonl, … (each task's flat rows)
    DEST/images/<map_id>.png

Read back with ``mlcroissant.Dataset(jsonld="DEST/croissant.json").records("questions")`` (text values come back
as bytes, keys prefixed by the record-set id, e.g. ``questions/question``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mapgen.benchmark import MAPS_FILE, Benchmark
from mapgen.export.common import ExportError, copy_images, task_rows
from mapgen.files import sha256_file, write_json_atomic, write_jsonl_atomic
from mapgen.tasks import tasks

MAP_COLUMNS: tuple[str, ...] = ("map_id", "image", "split", "country", "variant", "counterfactual", "map_type",
                                "hatched", "annotated", "statistic", "title", "unit_id")
_INTEGER = ("mapwise_template",)
_BOOL = ("relative_region", "hatched", "annotated", "unique")


def _mlc():
    try:
        import mlcroissant as mlc
    except ImportError:
        raise ExportError("The croissant export needs mlcroissant: pip install 'mapgen[export]'.") from None
    return mlc


@contextmanager
def quiet_absl() -> Iterator[None]:
    """Hide mlcroissant's validation warnings (recommended-but-absent properties) for the block."""
    from absl import logging as absl_logging

    before = absl_logging.get_verbosity()
    absl_logging.set_verbosity(absl_logging.ERROR)
    try:
        yield
    finally:
        absl_logging.set_verbosity(before)


def flat(row: dict[str, Any]) -> dict[str, Any]:
    """A row with lists and dicts as JSON text (one scalar per column)."""
    return {k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in row.items()}


def map_row(m: dict[str, Any], image: str) -> dict[str, Any]:
    out = {k: m.get(k) for k in MAP_COLUMNS} | {"image": image}
    out["counterfactual"] = out["counterfactual"] or ""
    return {k: ("" if v is None else v) for k, v in out.items()}


def record_set(mlc, name: str, file_id: str, columns: list[str]):
    """A record set reading ``columns`` from a JSONL FileObject."""
    fields = []
    for col in columns:
        kind = mlc.DataType.INTEGER if col in _INTEGER else mlc.DataType.BOOL if col in _BOOL else mlc.DataType.TEXT
        fields.append(mlc.Field(id=f"{name}/{col}", name=col, data_types=[kind],
                                source=mlc.Source(file_object=file_id, extract=mlc.Extract(column=col))))
    return mlc.RecordSet(id=name, name=name, fields=fields, key=[f"{name}/{columns[0]}"])


def images_record_set(mlc):
    """Image files (name and decoded content) from the ``images/*.png`` FileSet."""
    def field(col: str, kind, prop):
        return mlc.Field(id=f"images/{col}", name=col, data_types=[kind],
                         source=mlc.Source(file_set="image-files", extract=mlc.Extract(file_property=prop)))

    return mlc.RecordSet(id="images", name="images", fields=[
        field("filename", mlc.DataType.TEXT, mlc.FileProperty.filename),
        field("image", mlc.DataType.IMAGE_OBJECT, mlc.FileProperty.content),
    ])


def metadata(bench: Benchmark, dest: Path, files: dict[str, list[str]], images: dict[str, str]):
    """The ``mlcroissant.Metadata`` of the export in ``dest``; raises on validation errors."""
    mlc = _mlc()
    distribution: list[Any] = []
    record_sets = []
    for name, columns in files.items():
        file_id = f"{name}-file"
        distribution.append(mlc.FileObject(id=file_id, name=file_id, content_url=f"{name}.jsonl",
                                           encoding_formats=["application/jsonlines"],
                                           sha256=sha256_file(dest / f"{name}.jsonl")))
        record_sets.append(record_set(mlc, name, file_id, columns))
    for map_id, rel in images.items():
        digest = bench.sha256(bench.image_rel(map_id)) or sha256_file(dest / rel)
        distribution.append(mlc.FileObject(id=f"image-{map_id}", name=f"image-{map_id}", content_url=rel,
                                           encoding_formats=["image/png"], sha256=digest))
    distribution.append(mlc.FileSet(id="image-files", name="image-files", includes=["images/*.png"],
                                    encoding_formats=["image/png"]))
    record_sets.append(images_record_set(mlc))
    manifest = bench.manifest
    md = mlc.Metadata(
        name=bench.name,
        description=(f"Choropleth-map benchmark generated by mapgen {manifest.get('mapgen_version', '')} "
                     f"(config digest {manifest.get('config_digest', '')})."),
        license=["https://creativecommons.org/licenses/by/4.0/"],
        version=str(manifest.get("mapgen_version") or "0.0.0"),
        cite_as=f"mapgen benchmark {bench.name}, config digest {str(manifest.get('config_digest', ''))[:12]}",
        keywords=["choropleth", "maps", "visual question answering", "benchmark"],
        distribution=distribution,
        record_sets=record_sets,
    )
    errors = md.issues.errors
    if errors:
        raise ExportError("Croissant metadata failed validation:\n" + "\n".join(sorted(errors)))
    return md


def write(bench: Benchmark, dest: Path, **_: Any) -> None:
    """Write the JSONL files, the images and ``croissant.json`` into ``dest``."""
    _mlc()
    images = copy_images(bench, dest, bench.map_ids())
    files: dict[str, list[str]] = {}
    for task in tasks():
        name = task.key
        rows = [flat(r | {"image": images[r["map_id"]]}) for r in task_rows(bench, task.name)]
        if rows:
            write_jsonl_atomic(dest / f"{name}.jsonl", rows, ensure_ascii=False)
            files[name] = list(rows[0])
    if not files:
        raise ExportError(f"{bench.root} has no task records to export.")
    maps = [map_row(m, images[m["map_id"]]) for m in bench.maps if m["map_id"] in images]
    write_jsonl_atomic(dest / MAPS_FILE, maps, ensure_ascii=False)
    files["maps"] = list(MAP_COLUMNS)
    with quiet_absl():
        md = metadata(bench, dest, files, images)
    write_json_atomic(dest / "croissant.json", md.to_json(), sort_keys=False, ensure_ascii=False, newline=True)
