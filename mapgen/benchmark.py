"""The benchmark folder: its layout, its checksums and the one reader of it (:class:`Benchmark`).

Layout of a build folder (written by :mod:`mapgen.build`)::

    manifest.json            resolved config + digest, mapgen version, counts, sha256 of every file
    maps/<map_id>.png        each image, with <map_id>.mask.png and <map_id>.json (spec + pixel facts) beside it
    maps.jsonl               one record per image (variant, country, split, counterfactual, legend type, …)
    questions.jsonl          Question records + split, variant, country, counterfactual, image
    <task file>.jsonl        the gold records of every other task the config asks for (``captions.jsonl``,
                             ``grounding.jsonl``, …: each task of :mod:`mapgen.tasks` names its file, and
                             registering the task adds it here with :func:`register_record_file`)
    records/<stem>-NNNNN.jsonl  instead of the task files above when the config shards them (``records.per_shard``):
                             ``records/questions-00000.jsonl``, …, in build order, listed by the manifest's
                             ``record_shards`` (task file → its shards); readers stream them in order
    units/<unit_id>.json     per-unit completion records (what resume checks)
    build_log.json           timings per stage and draws refused per reason (not part of the manifest: it varies
                             run to run)
    .mapgen-build.json       the config the folder holds (its digest), written first

A counterfactual set folder has ``maps/``, ``maps.jsonl`` and ``questions.jsonl`` too, plus ``set.json``,
``originals.jsonl``, ``skipped.jsonl`` and ``dictionaries/<map_id>.json``. Every read and write goes through
:mod:`mapgen.files` (atomic writes, JSON lines, checksums).

Folders travel, so a reader trusts a folder only as far as its manifest (or ``set.json``) vouches for it: every
file a reader uses must be listed with its hash (:func:`verify_listing`), every path a record, the manifest or a map
JSON names stays inside the folder, and ids and labels that become file names are plain names
(:func:`check_records`, :class:`Inside`); :func:`load_benchmark` refuses anything else with one line.
"""

from __future__ import annotations

import os
import re
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mapgen.errors import BuildError
from mapgen.files import (
    ChecksumError,
    JsonlRecords,
    failing_files,
    iter_jsonl,
    read_json,
    read_jsonl,
    remove_path,
    resolves_inside,
    sha256_file,
    staging_folder,
    verify_checksums,
    write_json_atomic,
)

if TYPE_CHECKING:
    from mapgen.questions.record import Question

# --- layout -------------------------------------------------------------------------------------------------

MANIFEST_FILE = "manifest.json"
MAPS_DIR = "maps"
MAPS_FILE = "maps.jsonl"
QUESTIONS_FILE = "questions.jsonl"
RECORDS_DIR = "records"  # the shards of the task files, when a build shards them (records.per_shard)
RECORD_SHARDS = "record_shards"  # the manifest's section: task file → its shards (relative paths, in order)
UNITS_DIR = "units"
BUILD_LOG_FILE = "build_log.json"
ATLASES_DIR = "atlases"  # copies of user atlas files (vector file, groups YAML) the maps name
PACKS_DIR = "packs"  # copies of the template packs a build's config names
INPUTS_DIR = "inputs"  # copies of the statistics tables and style files a build's config names (mapgen.build.inputs)
CONFIG_MARKER = ".mapgen-build.json"

TASK_FILES: dict[str, str] = {}
"""Task name → its record file, in registration order (filled by :func:`mapgen.tasks.register_task`)."""


def register_record_file(task: str, name: str) -> None:
    """Add a task's record file to the folder's layout (what :func:`mapgen.tasks.register_task` calls)."""
    TASK_FILES[task] = name


def unregister_record_file(task: str) -> None:
    """Remove a task's record file from the layout."""
    TASK_FILES.pop(task, None)


def record_files() -> tuple[str, ...]:
    """The JSON-lines files of a build, in the order the manifest hashes them: maps, then each task's."""
    return (MAPS_FILE, *dict.fromkeys(TASK_FILES.values()))


def build_outputs() -> tuple[str, ...]:
    """Everything a build writes (what clearing a build folder removes)."""
    return (MAPS_DIR, UNITS_DIR, ATLASES_DIR, PACKS_DIR, INPUTS_DIR, MANIFEST_FILE, *record_files(), RECORDS_DIR,
            BUILD_LOG_FILE, CONFIG_MARKER)

# counterfactual set folders (mapgen counterfactual)
SET_FILE = "set.json"
ORIGINALS_FILE = "originals.jsonl"
SKIPPED_FILE = "skipped.jsonl"
DICTIONARIES_DIR = "dictionaries"

# audit folders (mapgen audit -o)
AUDIT_FILE = "audit.jsonl"
AUDIT_MAPS_FILE = "maps.jsonl"
AUDIT_SUMMARY_FILE = "summary.json"
AUDIT_MARKDOWN_FILE = "audit.md"
AUDIT_PREDICTIONS_FILE = "predictions.jsonl"
"""The oracle's answers as an ordinary predictions file (``mapgen eval BENCH --predictions``)."""

# the kinds of output folder written whole, named by the command writing them (mapgen.files.atomic_folder;
# readers call require_finished)
AUDIT_KIND, EVAL_KIND, SITE_KIND = "mapgen audit", "mapgen eval", "mapgen report"
SET_KIND = "mapgen counterfactual"

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
DEFAULT_STYLE = "default"
"""The style of a map whose record names none (builds leave the default look out of their records)."""


def shard_rel(name: str, index: int) -> str:
    """Shard ``index`` of the task file ``name``, relative to the folder (``records/questions-00000.jsonl``)."""
    return f"{RECORDS_DIR}/{Path(name).stem}-{index:05d}.jsonl"


def image_name(map_id: str) -> str:
    """File name of a map's image."""
    return f"{map_id}.png"


def mask_name(map_id: str) -> str:
    """File name of a map's region-id mask."""
    return f"{map_id}.mask.png"


def map_json_name(map_id: str) -> str:
    """File name of the JSON beside a map's image (spec + pixel facts)."""
    return f"{map_id}.json"


def image_rel(map_id: str) -> str:
    """A map's image relative to the benchmark folder."""
    return f"{MAPS_DIR}/{image_name(map_id)}"


def image_path(root: str | Path, map_id: str) -> Path:
    """Where a map's image goes in the folder ``root``."""
    return Path(root) / MAPS_DIR / image_name(map_id)


def unit_record_path(root: str | Path, unit_id: str) -> Path:
    """The completion record of a build unit."""
    return Path(root) / UNITS_DIR / f"{unit_id}.json"


def record_image_id(record: Mapping[str, Any]) -> str:
    """Map id of a caption/grounding record (``map_id``, else VRSBench's ``image_id`` without extension)."""
    value = str(record.get("map_id") or record.get("image_id") or "")
    return Path(value).stem if value.lower().endswith(IMAGE_SUFFIXES) else value


class NotABenchmarkError(FileNotFoundError):
    """A path that holds no benchmark (or not a finished build where one is needed)."""


# --- what a folder may name --------------------------------------------------------------------------------

READ_DIRS = (MAPS_DIR, ATLASES_DIR, PACKS_DIR, DICTIONARIES_DIR, RECORDS_DIR)
"""The folders whose files readers open (images, masks, map JSONs, atlas and pack copies, name dictionaries,
record shards): every file in them must be listed in the folder's manifest (or ``set.json``)."""
PATH_FIELDS = ("image", "image_id", "mask", "dictionary", "path")
"""Record fields that name a file of the folder (relative to it)."""
NAME_FIELDS = ("map_id", "unit_id", "source_map_id", "country", "variant", "map_type", "split")
"""Record fields that exports and the report turn into file and folder names: plain names, never paths."""


class FolderPathError(ValueError):
    """A benchmark folder's record naming a file outside the folder (or a name that is a path)."""


class UnlistedFileError(ChecksumError):
    """A file a reader would use that the folder's manifest (or ``set.json``) does not list with its hash."""


_INTACT = "get an intact copy of the benchmark or rebuild it (`mapgen build CONFIG -o FOLDER --force`)"


class Inside:
    """Whether relative paths named by a folder's records stay inside the folder ``root``: no ``..``, not absolute,
    and no link out (each parent folder resolved once, the file itself only when it is a link), so checking every
    record of a large benchmark costs about one ``lstat`` a record."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._real = os.path.realpath(self.root)
        self._parents: dict[str, bool] = {}
        self._seen: dict[str, bool] = {}

    def __call__(self, rel: Any) -> bool:
        if not isinstance(rel, str):
            return False
        if rel not in self._seen:  # many records name the same image
            self._seen[rel] = self._check(rel)
        return self._seen[rel]

    def _check(self, rel: str) -> bool:
        if not rel or "\x00" in rel or "\\" in rel or os.path.isabs(rel) or ".." in rel.split("/"):
            return False
        parent = rel.rpartition("/")[0]
        if parent not in self._parents:
            self._parents[parent] = self._within(os.path.realpath(os.path.join(self.root, parent)))
        path = os.path.join(self.root, rel)
        return self._parents[parent] and (not os.path.islink(path) or self._within(os.path.realpath(path)))

    def _within(self, real: str) -> bool:
        return real == self._real or real.startswith(os.path.join(self._real, ""))


def inside_folder(root: str | Path, rel: Any, where: str, inside: Inside | None = None) -> Path:
    """``root / rel`` when ``rel`` is a relative path that stays inside ``root`` (:class:`Inside`; pass one to
    check many paths of a folder); else :class:`FolderPathError` naming ``where`` (file, line, field), the path and
    the fix."""
    if not (inside or Inside(root))(rel):
        raise FolderPathError(f"{where}: {rel!r} points outside the benchmark folder {root}; a benchmark names only "
                              f"files inside its own folder — {_INTACT}")
    return Path(root) / rel


_NOT_PLAIN = re.compile(r"[/\\\x00]")


def plain_name(value: Any) -> bool:
    """Whether a record's id or label can be a file name (readers turn ``map_id``, ``country``, … into some): not
    empty, not ``.``/``..``, no separator, no NUL (``None``: nothing to check)."""
    if value is None:
        return True
    text = str(value)
    return bool(text) and text not in (".", "..") and _NOT_PLAIN.search(text) is None


def check_name(value: Any, where: str) -> None:
    """Refuse (:class:`FolderPathError`) an id or label that is a path (:func:`plain_name`)."""
    if not plain_name(value):
        raise FolderPathError(f"{where}: {str(value)!r} is not a plain name (it is used as a file name, so it may "
                              f"hold no /, \\, NUL and may not be . or ..); {_INTACT}")


def record_paths(root: Path, manifest: Mapping[str, Any], name: str) -> list[Path]:
    """The files holding the records of the task file ``name`` (``questions.jsonl``, …), in order: its shards when
    the manifest lists them (:data:`RECORD_SHARDS`: each under ``records/``, inside the folder and present), else
    ``root / name``."""
    section = manifest.get(RECORD_SHARDS)
    shards = section.get(name) if isinstance(section, dict) else None
    where = f"{root / MANIFEST_FILE}: field '{RECORD_SHARDS}.{name}'"
    if section is not None and not isinstance(section, dict):
        raise FolderPathError(f"{root / MANIFEST_FILE}: field '{RECORD_SHARDS}' is not a table of task files; "
                              f"{_INTACT}")
    if shards is None:
        return [root / name]
    if not isinstance(shards, list) or not all(isinstance(rel, str) and rel.startswith(f"{RECORDS_DIR}/")
                                               and rel.endswith(".jsonl") for rel in shards):
        raise FolderPathError(f"{where}: not a list of {RECORDS_DIR}/….jsonl files; {_INTACT}")
    inside = Inside(root)
    paths = [inside_folder(root, rel, where, inside) for rel in shards]
    missing = next((path for path in paths if not path.is_file()), None)
    if missing is not None:
        raise NotABenchmarkError(f"{missing} is missing (the manifest lists it among the shards of {name}): the "
                                 f"folder is incomplete; {_INTACT}")
    return paths


def check_records(root: Path, name: str, records: Iterable[Mapping[str, Any]]) -> None:
    """Refuse the first record of the file ``name`` whose path fields (:data:`PATH_FIELDS`) lead outside ``root``
    or whose name fields (:data:`NAME_FIELDS`) are paths (one ``lstat`` a path; messages built only on a refusal)."""
    for _ in checked_records(root, name, records):
        pass


def checked_records(root: Path, name: str, records: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    """``records`` as they pass :func:`check_records` (streamed: each refused before it is yielded)."""
    check = RecordCheck(root, name)
    for number, record in enumerate(records, start=1):
        check(number, record)
        yield record


class RecordCheck:
    """The check of :func:`check_records` for the records of one file, one record at a time: ``check(number,
    record)`` refuses a record whose path fields lead outside ``root`` or whose name fields are paths."""

    def __init__(self, root: Path, name: str) -> None:
        self.root, self.name = root, name
        self._inside, self._plain = Inside(root), set[str]()

    def __call__(self, number: int, record: Mapping[str, Any]) -> None:
        for key in PATH_FIELDS:
            value = record.get(key)
            if value is not None and not self._inside(value):
                inside_folder(self.root, value, f"{self.root / self.name}:{number}: field {key!r}", self._inside)
        for key in NAME_FIELDS:
            value = record.get(key)
            text = value if isinstance(value, str) or value is None else str(value)
            if text is None or text in self._plain:
                continue
            if not plain_name(text):
                check_name(text, f"{self.root / self.name}:{number}: field {key!r}")
            self._plain.add(text)


def _read_dir_files(root: Path) -> list[str]:
    """Every file under :data:`READ_DIRS` (relative, sorted); :class:`FolderPathError` for an entry that links
    outside ``root`` or is no regular file (a FIFO or device would hang a reader). Only links are resolved (a
    walk from ``root`` names no ``..``), so a folder of many thousand maps is checked in well under a second."""
    out: list[str] = []
    prefix = len(os.path.join(root, ""))
    pending = [os.path.join(root, top) for top in READ_DIRS if (root / top).is_dir()]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                rel = entry.path[prefix:].replace(os.sep, "/")
                if entry.is_symlink():
                    inside_folder(root, rel, entry.path)
                if entry.is_dir():
                    pending.append(entry.path)
                elif entry.is_file():
                    out.append(rel)
                else:
                    raise FolderPathError(f"{entry.path} is not a regular file; {_INTACT}")
    return sorted(out)


def used_files(root: str | Path, maps: Iterable[Mapping[str, Any]], questions_file: Path | None = None) -> list[str]:
    """The files of ``root`` a reader uses (relative): its JSON-lines record files (every task's, whether or not
    its plugin is loaded, and the questions file read), every file under :data:`READ_DIRS` and each image
    ``maps.jsonl`` names."""
    root = Path(root)
    rels = sorted(path.name for path in root.glob("*.jsonl"))
    if questions_file is not None and questions_file.is_file():
        rels.append(questions_file.relative_to(root).as_posix())
    rels += [rel for rel in _read_dir_files(root) if _reader_uses(rel)]
    rels += [Path(os.path.normpath(m["image"])).as_posix() for m in maps if isinstance(m.get("image"), str)]
    return list(dict.fromkeys(rels))


def _reader_uses(rel: str) -> bool:
    """Whether a reader opens the file ``rel`` of :data:`READ_DIRS`: the images, masks and JSONs of ``maps/`` and
    ``dictionaries/``, every file of an atlas or pack copy; never a hidden file (a desktop's ``.DS_Store``) or
    Python's bytecode cache (written beside a pack's ``functions.py`` when it is imported)."""
    parts = rel.split("/")
    if any(part.startswith(".") or part == "__pycache__" for part in parts) or rel.endswith(".pyc"):
        return False
    return parts[0] not in (MAPS_DIR, DICTIONARIES_DIR) or rel.lower().endswith((*IMAGE_SUFFIXES, ".json"))


def unlisted_files(root: str | Path, maps: Iterable[Mapping[str, Any]] | None = None,
                   questions_file: Path | None = None, listing: Listing | None = None) -> list[str]:
    """The files a reader of ``root`` uses that its manifest (or ``set.json``) does not list (every one when the
    folder lists none; ``maps``: the ``maps.jsonl`` records, read here when not given)."""
    root = Path(root)
    if maps is None:
        maps = read_jsonl(root / MAPS_FILE, missing_ok=True)
    listed = (listing or _listed_digests(root))[1]
    return [rel for rel in used_files(root, maps, questions_file) if rel not in listed]


def check_atlas_refs(root: Path, rels: Iterable[str]) -> None:
    """Refuse (:class:`FolderPathError`) a map JSON among ``rels`` whose spec names an atlas file (``atlas_file``,
    a user atlas copy) outside ``root``: readers that redraw or audit a map open that file."""
    for rel in rels:
        if not (rel.startswith(f"{MAPS_DIR}/") and rel.endswith(".json")):
            continue
        path = root / rel
        if b'"atlas_file"' not in path.read_bytes():
            continue
        data = read_json(path)
        spec = data.get("spec", data) if isinstance(data, dict) else None
        ref = spec.get("atlas_file") if isinstance(spec, dict) else None
        name = ref.get("path") if isinstance(ref, dict) else None
        if name is not None and (not isinstance(name, str) or not resolves_inside(path.parent / name, root)):
            raise FolderPathError(f"{path}: field 'atlas_file.path': {name!r} points outside the benchmark folder "
                                  f"{root}; a benchmark names only files inside its own folder — {_INTACT}")


def verify_listing(root: Path, maps: list[dict[str, Any]], questions_file: Path, what: Verify,
                   listing: Listing | None = None) -> None:
    """Refuse (:class:`UnlistedFileError`) a folder whose manifest (or ``set.json``) leaves out a file a reader
    uses, whatever its ``files`` say, and (unless ``what`` is ``"none"``) a folder of records that lists nothing
    or a map JSON naming an atlas file outside the folder (:func:`check_atlas_refs`)."""
    listed_in, listed = listing or _listed_digests(root)
    if not listed_in:
        if what != "none" and (maps or questions_file.is_file()):
            raise UnlistedFileError(f"{root} has no {MANIFEST_FILE} listing its files' checksums, so nothing in it "
                                    f"can be trusted; {_INTACT}")
        _read_dir_files(root)  # no links out of the folder, listed or not
        return
    missing = unlisted_files(root, maps, questions_file, (listed_in, listed))
    if missing:
        more = f" (and {len(missing) - 1} more: {', '.join(missing[1:4])}{', …' if len(missing) > 4 else ''})" \
            if len(missing) > 1 else ""
        raise UnlistedFileError(f"{root / missing[0]} is not listed in {root / listed_in}{more}: a benchmark is what "
                                f"its manifest lists, and a file it does not list cannot be checked; {_INTACT}")
    if what != "none":
        check_atlas_refs(root, listed)


# --- checksums ----------------------------------------------------------------------------------------------


def file_digests(root: str | Path, rels: Iterable[str]) -> dict[str, str]:
    """``{relative path: sha256}`` of the listed files that exist under ``root``."""
    root = Path(root)
    return {rel: sha256_file(root / rel) for rel in rels if (root / rel).exists()}


def failing_checksums(root: str | Path, files: Mapping[str, str]) -> list[str]:
    """The listed files (relative to ``root``) that are missing or whose sha256 differs from the listed one (a
    listed path leading outside ``root`` fails unread)."""
    inside = Inside(root)
    outside = [rel for rel in files if not inside(rel)]
    return outside + failing_files(root, {rel: digest for rel, digest in files.items() if rel not in outside})


Verify = Literal["none", "records", "all"]
"""What a reader verifies before it reads a folder: nothing, every listed file but the images and masks
(``records``: the JSON-lines files, map JSONs, atlas and pack copies), or every listed file (``all``)."""


def _not_image(rel: str) -> bool:
    return not rel.lower().endswith(IMAGE_SUFFIXES)


Listing = tuple[str, Mapping[str, str]]
"""The file that lists a folder's checksums (``manifest.json``, ``set.json``; ``""`` for none) and its ``files``."""


def _listed_digests(root: Path, manifest: Mapping[str, Any] | None = None) -> Listing:
    """The file that lists the folder's checksums (a build's manifest, a counterfactual set's ``set.json``) and
    its ``files``; ``("", {})`` for a folder without one (``manifest``: the folder's manifest, read already)."""
    for name in (MANIFEST_FILE, SET_FILE):
        if (root / name).is_file():
            data = manifest if name == MANIFEST_FILE and manifest else _read_listing(root / name)
            files = data.get("files") if isinstance(data, dict) else None
            return (name, files) if isinstance(files, dict) else ("", {})
    return "", {}


def _read_listing(path: Path) -> Any:
    """A manifest or ``set.json``; one that is no JSON is refused naming it and the fix."""
    try:
        return read_json(path)
    except ValueError as exc:
        fix = ("rebuild the folder (`mapgen build CONFIG -o FOLDER --force`)" if path.name == MANIFEST_FILE
               else "make the set again with `mapgen counterfactual`")
        raise NotABenchmarkError(f"{exc}: the file is damaged; {fix}") from None


def unfinished_build(root: Path) -> NotABenchmarkError:
    """The error of a build folder whose build never finished (a config marker, no manifest)."""
    return NotABenchmarkError(f"{root} holds an unfinished build (no {MANIFEST_FILE} yet): finish it with "
                              f"`mapgen build CONFIG -o {root} --resume`")


def check_listed_paths(root: Path, digests: Iterable[str], listed_in: str = MANIFEST_FILE) -> None:
    """Refuse (:class:`FolderPathError`) a listing (``files`` of the manifest or ``set.json``) that names a file
    outside the folder: hashing it would read it."""
    inside = Inside(root)
    for rel in digests:
        if not inside(rel):
            inside_folder(root, rel, f"{root / listed_in}: field 'files'", inside)


def verify_folder(root: str | Path, what: Verify = "all", listing: Listing | None = None) -> None:
    """Refuse a folder whose files differ from the checksums its manifest (or ``set.json``) lists, or an
    unfinished build (one line naming the file and the fix: :class:`~mapgen.files.ChecksumError`,
    :class:`NotABenchmarkError`); ``what``: the files checked (:data:`Verify`). Every reader of a benchmark
    folder (eval, export, report, prompt, audit) calls it through :func:`load_benchmark` before reading."""
    root = Path(root)
    if what == "none":
        return
    if (root / CONFIG_MARKER).is_file() and not (root / MANIFEST_FILE).is_file():
        raise unfinished_build(root)
    listed_in, digests = listing or _listed_digests(root)
    if not digests:
        return
    check_listed_paths(root, digests, listed_in)
    fix = (f"repair it with `mapgen build CONFIG -o {root} --resume` (rebuilds what changed) or rebuild it"
           if listed_in == MANIFEST_FILE else "make the set again with `mapgen counterfactual`")
    verify_checksums(root, digests, str(root / listed_in), fix, None if what == "all" else _not_image)


# --- writing a build folder ---------------------------------------------------------------------------------


def read_marker(root: str | Path) -> dict[str, Any] | None:
    """The config marker of a build folder (``None`` when the folder holds no build)."""
    path = Path(root) / CONFIG_MARKER
    return read_json(path) if path.exists() else None


def write_marker(root: str | Path, digest: str, config: dict[str, Any],
                 inputs: dict[str, dict[str, str]] | None = None) -> None:
    """Mark ``root`` as holding the build of a config (``inputs``: the digests of the files it names, by kind and
    path, so a later build can say which one changed)."""
    write_json_atomic(Path(root) / CONFIG_MARKER, {"digest": digest, "config": config} | (
        {"inputs": inputs} if inputs is not None else {}))


def clear_build(root: str | Path) -> None:
    """Remove everything a build wrote into ``root`` (other files stay)."""
    for name in build_outputs():
        remove_path(Path(root) / name)


def write_unit_record(root: str | Path, unit_id: str, record: dict[str, Any]) -> None:
    """Write a unit's completion record (last, after its files): one line of JSON (json's C encoder; a record
    holds every candidate of the unit, which indented text took ~5 % of a unit's CPU to write)."""
    write_json_atomic(unit_record_path(root, unit_id), record, indent=None)


def verified_unit_record(root: str | Path, unit_id: str) -> dict[str, Any] | None:
    """A unit's completion record if it exists, reads, and every file it lists has its recorded hash."""
    path = unit_record_path(root, unit_id)
    if not path.exists():
        return None
    try:
        record = read_json(path)
    except ValueError:
        return None
    return None if failing_checksums(root, record.get("files", {})) else record


# --- reading ------------------------------------------------------------------------------------------------


def _index_maps(folder: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The names of the images and JSON files in the maps folder by map id (names, not paths: a folder may hold
    a hundred thousand maps)."""
    images: dict[str, str] = {}
    jsons: dict[str, str] = {}
    if folder.is_dir():
        for name in sorted(os.listdir(folder)):
            stem, dot, suffix = name.rpartition(".")
            if name.startswith(".") or not dot or not stem:  # hidden (no map's, not listed) or no suffix
                continue
            suffix = f".{suffix.lower()}"
            if suffix in IMAGE_SUFFIXES:
                images.setdefault(stem, name)
            elif suffix == ".json":
                jsons[stem] = name
    return images, jsons


def _shared(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` with one string object for every equal key and short value (json gives each line its own: the
    map records of a large build take less than half the memory)."""
    memo: dict[str, str] = {}

    def one(value: Any) -> Any:
        return memo.setdefault(value, value) if isinstance(value, str) and len(value) <= 64 else value

    return [{one(key): one(value) for key, value in record.items()} for record in records]


def _questions(root: Path, paths: list[Path]) -> tuple[list[dict[str, Any]], list[Question]]:
    """Raw records and Question objects of a questions file or its shards, each record checked
    (:func:`check_records`; ``ValueError`` naming the line on a bad one)."""
    records, questions = [], []
    for record, q in _iter_questions(root, paths):
        records.append(record)
        questions.append(q)
    return records, questions


def _iter_questions(root: Path, paths: list[Path]) -> Iterator[tuple[dict[str, Any], Question]]:
    """Each raw record of a questions file (or of its shards, in order) with its Question object, streamed and
    checked (:class:`RecordCheck`; ``ValueError`` naming the file and line on a bad one, or on an id repeated
    anywhere once every record has passed: the ids are held as 8-byte hashes only, and the files are read again to
    name the repeat only when two hashes are equal)."""
    # imported here, not at the top: loading the question package is slow and `mapgen info` needs none of it
    from mapgen.questions.record import Question

    hashes = array("q")
    for path in paths:
        if not path.is_file():
            continue
        check = RecordCheck(root, _rel_name(root, path))
        for number, record in iter_jsonl(path):
            try:
                q = Question.from_dict(record)
            except TypeError as exc:
                raise ValueError(f"{path}:{number}: not a Question record ({exc})") from None
            check(number, record)
            hashes.append(hash(q.question_id))
            yield record, q
    if _repeats(hashes):
        _refuse_repeated_id(paths)


def _rel_name(root: Path, path: Path) -> str:
    """A record file's name as messages give it: relative to the folder when inside it, else its own name."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name


def _repeats(hashes: array[int]) -> bool:
    import numpy as np

    values = np.sort(np.frombuffer(hashes, dtype=np.int64))
    return bool((values[1:] == values[:-1]).any())


def _refuse_repeated_id(paths: list[Path]) -> None:
    """``ValueError`` naming the first line of ``paths`` whose question id an earlier line gave (none: two ids
    merely share a hash)."""
    seen = set()
    for path in paths:
        for number, record in iter_jsonl(path):
            qid = record.get("question_id")
            if qid in seen:
                raise ValueError(f"{path}:{number}: duplicate question_id {qid!r}")
            seen.add(qid)


def _hint(kind: str, key: str, known: Iterable[str], root: Path) -> KeyError:
    sample = ", ".join(list(known)[:5])
    return KeyError(f"no {kind} {key!r} in {root} (e.g. {sample})" if sample else f"no {kind} {key!r} in {root}")


@dataclass
class Benchmark:
    """A loaded benchmark folder: manifest, map records, task records (raw, read on first use; questions also as
    Question objects)."""

    root: Path
    manifest: dict[str, Any] = field(default_factory=dict)
    maps: list[dict[str, Any]] = field(default_factory=list)
    question_records: list[dict[str, Any]] = field(default_factory=list)
    """The questions as the raw records of ``questions.jsonl`` (or of its shards)."""
    questions: list[Question] = field(default_factory=list)
    _records: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)
    _images: dict[str, str] = field(default_factory=dict, repr=False)  # map id → image file name in maps/
    _jsons: dict[str, str] = field(default_factory=dict, repr=False)  # map id → JSON file name in maps/
    _map_json: dict[str, dict[str, Any] | None] = field(default_factory=dict, repr=False)
    _questions_file: Path | None = field(default=None, repr=False)
    """The questions file the benchmark was loaded from, when given one (``None``: the folder's questions, one
    file or its shards: :meth:`record_paths`)."""

    def __getattr__(self, name: str) -> Any:
        """``question_records`` and ``questions`` of a benchmark loaded with ``lazy``: read (and checked) on first
        use, so a reader that streams records (:meth:`iter_records`) never holds them."""
        if name not in ("question_records", "questions") or "_questions_file" not in self.__dict__:
            raise AttributeError(name)
        self.question_records, self.questions = _questions(self.root, self.record_paths(QUESTIONS_FILE))
        return self.__dict__[name]

    def _loaded(self, name: str) -> list[dict[str, Any]] | None:
        """The records of a file when they are in memory already (``None``: stream them from the file)."""
        if name == QUESTIONS_FILE:
            return self.__dict__.get("question_records")
        return self._records.get(name)

    @property
    def questions_file(self) -> Path:
        """The questions file the benchmark was loaded from, else ``questions.jsonl`` of its folder (a sharded
        build has none: :meth:`record_paths` gives the files the questions are read from)."""
        return self._questions_file or self.root / QUESTIONS_FILE

    def record_paths(self, name: str) -> list[Path]:
        """The files holding the records of the task file ``name``, in order: the questions file the benchmark
        was loaded from, the shards the manifest lists (:func:`record_paths`), else the folder's file (which
        may be absent: no records)."""
        if name == QUESTIONS_FILE and self._questions_file is not None:
            return [self._questions_file]
        return record_paths(self.root, self.manifest, name)

    @property
    def name(self) -> str:
        """The benchmark's name (the manifest's, else the folder's)."""
        return str(self.manifest.get("name") or self.root.name)

    def records(self, name: str) -> list[dict[str, Any]]:
        """The records of one JSON-lines file of the folder (``[]`` when absent), read once."""
        if name == QUESTIONS_FILE:
            return self.question_records
        if name not in self._records:
            self._records[name] = [dict(record) for record in self._stream(name)]
        return self._records[name]

    def iter_records(self, name: str) -> Iterator[dict[str, Any]]:
        """The records of one JSON-lines file, one at a time: from memory when read already, else streamed from
        the file (checked as they pass, never held; questions also checked as Question records)."""
        loaded = self._loaded(name)
        if loaded is not None:
            yield from loaded
            return
        for record in self._stream(name):
            yield dict(record)

    def _stream(self, name: str) -> Iterator[Mapping[str, Any]]:
        """The records of one task file (its shards in order), read and checked as they pass."""
        paths = self.record_paths(name)
        if name == QUESTIONS_FILE:
            yield from (record for record, _ in _iter_questions(self.root, paths))
            return
        for path in paths:
            if path.is_file():
                yield from checked_records(self.root, _rel_name(self.root, path), (r for _, r in iter_jsonl(path)))

    def has_records(self, name: str) -> bool:
        """Whether one JSON-lines file of the folder has any record (reads at most one)."""
        loaded = self._loaded(name)
        return bool(loaded) if loaded is not None else next(self.iter_records(name), None) is not None

    @property
    def task_names(self) -> list[str]:
        """The registered tasks the folder has records of, in registration order (no file read whole)."""
        return [task for task, name in TASK_FILES.items() if self.has_records(name)]

    @property
    def tasks(self) -> dict[str, list[dict[str, Any]]]:
        """Raw records of each registered task the folder has, by task name (empty tasks left out)."""
        found = {task: self.records(name) for task, name in TASK_FILES.items()}
        return {task: records for task, records in found.items() if records}

    @cached_property
    def by_id(self) -> dict[str, Question]:
        """Questions by ``question_id``."""
        return {q.question_id: q for q in self.questions}

    @cached_property
    def map_index(self) -> dict[str, dict[str, Any]]:
        """``maps.jsonl`` records by ``map_id``."""
        return {m["map_id"]: m for m in self.maps}

    @cached_property
    def map_styles(self) -> dict[str, str]:
        """The map style of each map by id, when any map of the folder records one (builds with
        ``variants.styles``; a map without one has the :data:`DEFAULT_STYLE`); empty for builds that draw every
        map in the default look."""
        if not any("style" in m for m in self.maps):
            return {}
        return {m["map_id"]: str(m.get("style") or DEFAULT_STYLE) for m in self.maps}

    @cached_property
    def countries(self) -> list[str]:
        """Countries (atlas names, lower case) the benchmark's questions are about."""
        return sorted({str(q.country).lower() for q in self.questions if q.country})

    def question(self, question_id: str) -> Question:
        """One question (``KeyError`` with a hint when unknown)."""
        try:
            return self.by_id[question_id]
        except KeyError:
            raise _hint("question", question_id, self.by_id, self.root) from None

    def map(self, map_id: str) -> dict[str, Any]:
        """The ``maps.jsonl`` record of a map (``KeyError`` with a hint when unknown)."""
        try:
            return self.map_index[map_id]
        except KeyError:
            raise _hint("map", map_id, self.map_index, self.root) from None

    def image_rel(self, map_id: str) -> str:
        """A map's image relative to the folder (as ``maps.jsonl`` lists it, else ``maps/<map_id>.png``)."""
        return str(self.map_index.get(map_id, {}).get("image") or image_rel(map_id))

    def image_path(self, map_id: str) -> Path | None:
        """A map's image: the one ``maps.jsonl`` lists, else the one found in ``maps/`` (``None`` when absent);
        always inside the folder (:func:`inside_folder`) and, when it exists, a regular file."""
        if map_id in self.map_index:
            rel = self.image_rel(map_id)
        elif map_id in self._images:
            rel = f"{MAPS_DIR}/{self._images[map_id]}"
        else:
            return None
        path = inside_folder(self.root, rel, f"{self.root / MAPS_FILE}: image of {map_id}")
        if path.exists() and not path.is_file():
            raise FolderPathError(f"{path} (the image of {map_id}) is not a regular file; {_INTACT}")
        return path

    def image_bytes(self, map_id: str) -> bytes:
        """The bytes of a map's image (``KeyError`` when the benchmark has none)."""
        path = self.image_path(map_id)
        if path is None:
            raise _hint("image of map", map_id, self._images, self.root)
        return path.read_bytes()

    def map_json(self, map_id: str) -> dict[str, Any]:
        """The JSON beside a map's image (spec + pixel facts), read once (``KeyError`` when absent or unreadable)."""
        data = self.spec(map_id)
        if data is None:
            raise _hint("readable map JSON for", map_id, self._jsons, self.root)
        return data

    def spec(self, map_id: str, keep: bool = True) -> dict[str, Any] | None:
        """The JSON beside a map's image as a dict (``None`` when absent or unreadable), read once (``keep``
        false: read without keeping it, for a reader passing over every map once)."""
        if map_id in self._map_json:
            return self._map_json[map_id]
        name = self._jsons.get(map_id)
        path = self.root / MAPS_DIR / name if name is not None else None
        try:
            data = read_json(path) if path is not None else None
        except (OSError, ValueError):
            data = None
        data = data if isinstance(data, dict) else None
        if keep:
            self._map_json[map_id] = data
        return data

    def sha256(self, rel: str) -> str | None:
        """The manifest's hash of a file (relative path), if listed."""
        return self.manifest.get("files", {}).get(rel)

    def pack_paths(self) -> list[Path]:
        """The folder's copies of the template packs its build named (manifest ``packs``; empty without)."""
        return [inside_folder(self.root, rec.get("path") if isinstance(rec, dict) else None,
                              f"{self.root / MANIFEST_FILE}: packs.{name}.path")
                for name, rec in sorted(self.manifest.get("packs", {}).items())]

    def failing_checksums(self) -> list[str]:
        """Files the manifest lists that are missing or whose hash differs."""
        return failing_checksums(self.root, self.manifest.get("files", {}))

    def map_ids(self, tasks: Iterable[str] | None = None) -> list[str]:
        """Maps that have at least one record in ``tasks`` (every task when None; build order)."""
        names = TASK_FILES if tasks is None else {t: TASK_FILES[t] for t in tasks if t in TASK_FILES}
        used = {r["map_id"] for name in dict.fromkeys(names.values()) for r in self.iter_records(name)}
        return [m["map_id"] for m in self.maps if m["map_id"] in used]

    def splits(self) -> list[str]:
        """Split names in the order the manifest's config lists them (its keys are sorted), then any other split
        a map has."""
        seen = list(self.manifest.get("config", {}).get("split", {}).get("ratios") or {})
        for m in self.maps:
            if m.get("split") not in seen:
                seen.append(m.get("split"))
        return [s for s in seen if s]

    def require_records(self) -> Benchmark:
        """This benchmark, or :class:`NotABenchmarkError` when it has neither maps nor questions."""
        if not self.maps and not self.has_records(QUESTIONS_FILE):
            raise NotABenchmarkError(f"{self.root} holds no maps.jsonl or questions.jsonl: not a mapgen benchmark; "
                                     "give the folder `mapgen build` wrote")
        return self


def read_manifest(root: str | Path) -> dict[str, Any]:
    """The manifest of a finished build (:class:`NotABenchmarkError` when the folder has none)."""
    path = Path(root) / MANIFEST_FILE
    if not path.is_file() and (Path(root) / CONFIG_MARKER).is_file():
        raise unfinished_build(Path(root))
    if not path.is_file():
        raise NotABenchmarkError(f"{root} has no manifest.json: not a finished mapgen build (see `mapgen build`).")
    manifest = _read_listing(path)
    return manifest if isinstance(manifest, dict) else {}


def load_benchmark(path: str | Path, *, finished: bool = False, verify: Verify = "none",
                   lazy: bool = False) -> Benchmark:
    """Load a benchmark folder, or the folder of the questions file ``path`` (whose questions are then read).

    Missing optional files give empty fields; ``finished`` refuses a folder without ``manifest.json`` (an
    unfinished build); ``verify`` checks the listed checksums first (:func:`verify_folder`). Whatever ``verify``,
    a folder whose manifest leaves out a file a reader uses is refused (:func:`verify_listing`), and so is a record
    naming a file outside the folder or a name that is a path (:func:`check_records`). Bad question lines raise
    ``ValueError`` naming the file and line (with ``lazy``, when they are read: the questions are then read on
    first use, and a reader streaming them with :meth:`Benchmark.iter_records` never holds them all).
    """
    root = Path(path)
    if root.is_file() and root.suffix.lower() != ".jsonl":  # a questions file is JSON lines; anything else is no bench
        raise NotABenchmarkError(f"{root} is not a benchmark folder; give the folder `mapgen build` wrote")
    given = root if root.is_file() else None  # a questions file given instead of the folder
    questions_file = given or root / QUESTIONS_FILE
    root = root.parent if given else root
    if not root.is_dir():
        raise NotABenchmarkError(f"benchmark folder not found: {root}")
    if staging_folder(root):
        raise NotABenchmarkError(f"{root} is the staging folder of a run that did not finish (or is still "
                                 "running); give the folder the run was writing to (-o)")
    manifest = read_manifest(root) if finished or (root / MANIFEST_FILE).is_file() else {}
    listing = _listed_digests(root, manifest)  # the manifest is read once, however large its file list
    verify_folder(root, verify, listing)
    maps = _shared(read_jsonl(root / MAPS_FILE, missing_ok=True))
    check_records(root, MAPS_FILE, maps)
    verify_listing(root, maps, questions_file, verify, listing)
    images, jsons = _index_maps(root / MAPS_DIR)
    bench = Benchmark(root=root, manifest=manifest, maps=maps, _images=images, _jsons=jsons, _questions_file=given)
    del bench.question_records, bench.questions  # read on first use (Benchmark.__getattr__)
    if not lazy:
        bench.questions  # noqa: B018 (read now: a bad line fails the load)
    return bench


def info(out_dir: str | Path) -> dict[str, Any]:
    """Summary of a build folder for ``mapgen info``: counts, checksum status and the files a reader uses that the
    manifest does not list (readers refuse such a folder: :func:`mapgen.benchmark.verify_listing`)."""
    try:
        manifest = read_manifest(out_dir)
    except NotABenchmarkError:
        raise BuildError(f"{out_dir} has no manifest.json: not a finished mapgen build "
                         "(try `mapgen build --resume`).") from None
    check_listed_paths(Path(out_dir), manifest["files"])  # a manifest naming a file outside: refused, not hashed
    return {"name": manifest["name"], "mapgen_version": manifest["mapgen_version"],
            "counts": manifest["counts"] | {"questions_by_template_id": questions_by_template_id(out_dir, manifest)}
            | refusals_logged(out_dir),
            "files": len(manifest["files"]), "files_failing_checksum": failing_checksums(out_dir, manifest["files"]),
            "files_unlisted": unlisted_files(out_dir)}


def refusals_logged(out_dir: str | Path) -> dict[str, Any]:
    """``{"draws_refused_by_reason": …}`` from the folder's build log (empty when it has none)."""
    log = Path(out_dir) / BUILD_LOG_FILE
    data = read_json(log) if log.is_file() else {}
    refused = data.get("draws_refused_by_reason") if isinstance(data, dict) else None
    return {"draws_refused_by_reason": refused} if isinstance(refused, dict) else {}


def questions_by_template_id(out_dir: str | Path, manifest: Mapping[str, Any] | None = None) -> dict[str, int]:
    """Questions per template id (the manifest counts by MAPWise number, where a pack's templates are 'None';
    ``manifest``: the folder's, when read already)."""
    root = Path(out_dir)
    paths = record_paths(root, read_manifest(root) if manifest is None else manifest, QUESTIONS_FILE)
    return dict(sorted(Counter(str(r.get("template_id")) for r in JsonlRecords(*paths)).items()))
