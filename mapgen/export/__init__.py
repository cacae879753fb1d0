"""Export a build folder to the formats evaluation harnesses and training code read.

``export(bench_dir, fmt, out_dir)`` writes one format into a fresh folder, atomically (a temporary folder beside
``out_dir`` renamed into place). Formats live one per module and register in :data:`FORMATS`; each module has
``write(bench, dest, **options)`` filling ``dest`` (the temporary folder) and a module docstring with its layout.

=============  =====================================================================================
``jsonl``      questions/captions/grounding JSONL with image paths relative to DEST, images in DEST/images
``hf``         Hugging Face ``datasets`` parquet (Image feature with PNG bytes), one config per task
``llava``      LLaVA training conversations per split
``lmms-eval``  an lmms-eval task folder (YAML + utils.py scoring with mapgen) over parquet data
``vlmevalkit`` a VLMEvalKit TSV (base64 images) and a dataset class file
``mapwise``    MAPWise's per-country questions CSV/JSON and map metadata JSON
``croissant``  Croissant JSON-LD metadata over JSONL records and the images, validated with mlcroissant
=============  =====================================================================================
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from mapgen.benchmark import NotABenchmarkError, load_benchmark
from mapgen.export.common import ExportError
from mapgen.files import FolderNotEmptyError, atomic_folder

FORMATS: dict[str, str] = {
    "jsonl": "mapgen.export.jsonl",
    "hf": "mapgen.export.hf",
    "llava": "mapgen.export.llava",
    "lmms-eval": "mapgen.export.lmms_eval",
    "vlmevalkit": "mapgen.export.vlmevalkit",
    "mapwise": "mapgen.export.mapwise",
    "croissant": "mapgen.export.croissant",
}
"""Format name → module with a ``write(bench, dest, **options)`` function."""


def list_formats() -> list[str]:
    return list(FORMATS)


def export(bench_dir: str | Path, fmt: str, out_dir: str | Path, force: bool = False, **options: Any) -> Path:
    """Export the build at ``bench_dir`` as ``fmt`` into the fresh folder ``out_dir`` (returned, absolute).

    The build's files are verified against its manifest first (:func:`mapgen.benchmark.verify_folder`). A
    non-empty ``out_dir`` is refused unless ``force`` (which replaces it once the export has succeeded).
    ``options`` go to the format's ``write`` (e.g. ``split`` for lmms-eval/VLMEvalKit).
    """
    if fmt not in FORMATS:
        raise ExportError(f"Unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    module = import_module(FORMATS[fmt])
    try:
        bench = load_benchmark(bench_dir, finished=True, verify="all", lazy=True)  # refuses a tampered build
    except NotABenchmarkError as exc:
        raise ExportError(str(exc)) from None
    out = Path(out_dir).absolute()
    if out == bench.root.absolute() or bench.root.absolute().is_relative_to(out):
        raise ExportError(f"{out} holds the build itself; export into another folder.")
    try:
        with atomic_folder(out, replace=force) as tmp:
            module.write(bench, tmp, final_dir=out, **options)
    except FolderNotEmptyError:  # raised before anything is written
        raise ExportError(f"{out} is not empty; choose a new folder or use --force to replace it.") from None
    return out


__all__ = ["ExportError", "FORMATS", "export", "list_formats"]
