"""The benchmark folder: its layout, its checksums and the one reader of it (:class:`Benchmark`).

Layout of a build folder (written by :mod:`mapgen.build`)::

    manifest.json            resolved config + digest, mapgen version, counts, sha256 of every file
    maps/<map_id>.png        each image, with <map_id>.mask.png and <map_id>.json (spec + pixel facts) beside it
    maps.jsonl               one record per image (variant, country, split, counterfactual, legend type, …)
    questions.jsonl          Question records + split, variant, country, counterfactual, image
    <task file>.jsonl        the gold records of every other task the config asks for (``captions.jsonl``,
                             ``grounding.jsonl``, …: each task of :mod:`mapgen.tasks` names its file, and
                             registering the task adds it here with :func:`register_record_file`)
    units/<unit_id>.json     per-unit completion records (what resume checks)
    build_log.json           timings per stage (not part of the manifest: it varies run to run)
    .mapgen-build.json       the config the folder holds (its digest), written first

A counterfactual set folder has ``maps/``, ``maps.jsonl`` and ``questions.jsonl`` too, plus ``set.json``,
``originals.jsonl``, ``skipped.jsonl`` and ``dictionaries/<map_id>.json``. Every read and write goes through
:mod:`mapgen.files` (atomic writes, JSON lines, checksums).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mapgen.files import (
    failing_files,
    iter_jsonl,
    read_json,
    read_jsonl,
    remove_path,
    sha256_file,
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
UNITS_DIR = "units"
BUILD_LOG_FILE = "build_log.json"
ATLASES_DIR = "atlases"  # copies of user atlas files (vector file, groups YAML) the maps name
PACKS_DIR = "packs"  # copies of the template packs a build's config names
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
    return (MAPS_DIR, UNITS_DIR, ATLASES_DIR, PACKS_DIR, MANIFEST_FILE, *record_files(), BUILD_LOG_FILE,
            CONFIG_MARKER)

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

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
DEFAULT_STYLE = "default"
"""The style of a map whose record names none (builds leave the default look out of their records)."""


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


# --- checksums ----------------------------------------------------------------------------------------------


def file_digests(root: str | Path, rels: Iterable[str]) -> dict[str, str]:
    """``{relative path: sha256}`` of the listed files that exist under ``root``."""
    root = Path(root)
    return {rel: sha256_file(root / rel) for rel in rels if (root / rel).exists()}


def failing_checksums(root: str | Path, files: Mapping[str, str]) -> list[str]:
    """The listed files (relative to ``root``) that are missing or whose sha256 differs from the listed one."""
    return failing_files(root, files)


Verify = Literal["none", "records", "all"]
"""What a reader verifies before it reads a folder: nothing, every listed file but the images and masks
(``records``: the JSON-lines files, map JSONs, atlas and pack copies), or every listed file (``all``)."""


def _not_image(rel: str) -> bool:
    return not rel.lower().endswith(IMAGE_SUFFIXES)


def _listed_digests(root: Path) -> tuple[str, dict[str, str]]:
    """The file that lists the folder's checksums (a build's manifest, a counterfactual set's ``set.json``) and
    its ``files``; ``("", {})`` for a folder without one."""
    for name in (MANIFEST_FILE, SET_FILE):
        if (root / name).is_file():
            data = _read_listing(root / name)
            files = data.get("files") if isinstance(data, dict) else None
            return (name, dict(files)) if isinstance(files, dict) else ("", {})
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


def verify_folder(root: str | Path, what: Verify = "all") -> None:
    """Refuse a folder whose files differ from the checksums its manifest (or ``set.json``) lists, or an
    unfinished build (one line naming the file and the fix: :class:`~mapgen.files.ChecksumError`,
    :class:`NotABenchmarkError`); ``what``: the files checked (:data:`Verify`). Every reader of a benchmark
    folder (eval, export, report, prompt, audit) calls it through :func:`load_benchmark` before reading."""
    root = Path(root)
    if what == "none":
        return
    if (root / CONFIG_MARKER).is_file() and not (root / MANIFEST_FILE).is_file():
        raise unfinished_build(root)
    listed_in, digests = _listed_digests(root)
    if not digests:
        return
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
    """Write a unit's completion record (last, after its files)."""
    write_json_atomic(unit_record_path(root, unit_id), record)


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


def _index_maps(folder: Path) -> tuple[dict[str, Path], dict[str, Path]]:
    """Images and JSON files in the maps folder by map id."""
    images: dict[str, Path] = {}
    jsons: dict[str, Path] = {}
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            suffix = path.suffix.lower()
            if suffix in IMAGE_SUFFIXES:
                images.setdefault(path.stem, path)
            elif suffix == ".json":
                jsons[path.stem] = path
    return images, jsons


def _questions(path: Path) -> tuple[list[dict[str, Any]], list[Question]]:
    """Raw records and Question objects of a questions file (``ValueError`` naming the line on a bad one)."""
    # imported here, not at the top: loading the question package is slow and `mapgen info` needs none of it
    from mapgen.questions.record import Question

    if not path.is_file():
        return [], []
    records, questions, seen = [], [], set()
    for number, record in iter_jsonl(path):
        try:
            q = Question.from_dict(record)
        except TypeError as exc:
            raise ValueError(f"{path}:{number}: not a Question record ({exc})") from None
        if q.question_id in seen:
            raise ValueError(f"{path}:{number}: duplicate question_id {q.question_id!r}")
        seen.add(q.question_id)
        records.append(record)
        questions.append(q)
    return records, questions


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
    """The questions as the raw records of ``questions.jsonl``."""
    questions: list[Question] = field(default_factory=list)
    _records: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)
    _images: dict[str, Path] = field(default_factory=dict, repr=False)
    _jsons: dict[str, Path] = field(default_factory=dict, repr=False)
    _map_json: dict[str, dict[str, Any] | None] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        """The benchmark's name (the manifest's, else the folder's)."""
        return str(self.manifest.get("name") or self.root.name)

    def records(self, name: str) -> list[dict[str, Any]]:
        """The records of one JSON-lines file of the folder (``[]`` when absent), read once."""
        if name == QUESTIONS_FILE:
            return self.question_records
        if name not in self._records:
            self._records[name] = read_jsonl(self.root / name, missing_ok=True)
        return self._records[name]

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
        """A map's image: the one ``maps.jsonl`` lists, else the one found in ``maps/`` (``None`` when absent)."""
        if map_id in self.map_index:
            return self.root / self.image_rel(map_id)
        return self._images.get(map_id)

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

    def spec(self, map_id: str) -> dict[str, Any] | None:
        """The JSON beside a map's image as a dict (``None`` when absent or unreadable), read once."""
        if map_id not in self._map_json:
            path = self._jsons.get(map_id)
            try:
                data = read_json(path) if path is not None else None
            except (OSError, ValueError):
                data = None
            self._map_json[map_id] = data if isinstance(data, dict) else None
        return self._map_json[map_id]

    def sha256(self, rel: str) -> str | None:
        """The manifest's hash of a file (relative path), if listed."""
        return self.manifest.get("files", {}).get(rel)

    def pack_paths(self) -> list[Path]:
        """The folder's copies of the template packs its build named (manifest ``packs``; empty without)."""
        return [self.root / rec["path"] for _, rec in sorted(self.manifest.get("packs", {}).items())]

    def failing_checksums(self) -> list[str]:
        """Files the manifest lists that are missing or whose hash differs."""
        return failing_checksums(self.root, self.manifest.get("files", {}))

    def map_ids(self, tasks: Iterable[str] | None = None) -> list[str]:
        """Maps that have at least one record in ``tasks`` (every task when None; build order)."""
        have = self.tasks
        used = {r["map_id"] for t in (have if tasks is None else tasks) for r in have.get(t, [])}
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
        if not self.maps and not self.question_records:
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


def load_benchmark(path: str | Path, *, finished: bool = False, verify: Verify = "none") -> Benchmark:
    """Load a benchmark folder, or the folder of the questions file ``path`` (whose questions are then read).

    Missing optional files give empty fields; ``finished`` refuses a folder without ``manifest.json`` (an
    unfinished build); ``verify`` checks the listed checksums first (:func:`verify_folder`). Bad question lines
    raise ``ValueError`` naming the file and line.
    """
    root = Path(path)
    if root.is_file() and root.suffix.lower() != ".jsonl":  # a questions file is JSON lines; anything else is no bench
        raise NotABenchmarkError(f"{root} is not a benchmark folder; give the folder `mapgen build` wrote")
    questions_file = root if root.is_file() else root / QUESTIONS_FILE
    root = root.parent if root.is_file() else root
    if not root.is_dir():
        raise NotABenchmarkError(f"benchmark folder not found: {root}")
    verify_folder(root, verify)
    manifest = read_manifest(root) if finished or (root / MANIFEST_FILE).is_file() else {}
    records, questions = _questions(questions_file)
    images, jsons = _index_maps(root / MAPS_DIR)
    return Benchmark(root=root, manifest=manifest, maps=read_jsonl(root / MAPS_FILE, missing_ok=True),
                     question_records=records, questions=questions, _images=images, _jsons=jsons)
