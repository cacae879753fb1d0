"""Where a user atlas comes from: a vector file's path, content digest and field choices (no geometry here).

Every artefact that names a user atlas (a spec, a render's JSON, a build manifest) stores an :class:`AtlasFile`
record: the file's path *relative to the artefact itself*, its sha256 (:func:`file_digest`: the geometry and
the optional groups file) and the name/code fields. Reading the
artefact resolves the path against the artefact's folder and refuses a file whose content changed
(:class:`AtlasDigestError`), so a map is never silently re-computed on other geometry.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mapgen.files import sha256_file

#: File endings read as vector files (``.json`` only when the file holds a GeoJSON FeatureCollection).
VECTOR_SUFFIXES = (".geojson", ".gpkg", ".shp", ".zip", ".fgb")
#: Files a shapefile consists of besides the ``.shp`` (hashed with it).
SHAPEFILE_PARTS = (".shp", ".shx", ".dbf", ".prj", ".cpg")


class AtlasDigestError(ValueError):
    """A user atlas file whose content differs from the digest an artefact recorded."""


def is_atlas_path(name: str | os.PathLike) -> bool:
    """True when ``name`` names a vector file (by ending; a ``.json`` file only if it is a GeoJSON collection)."""
    text = str(name)
    lower = text.lower()
    if lower.endswith(VECTOR_SUFFIXES):
        return True
    if lower.endswith(".json") and Path(text).is_file():
        return _is_geojson(Path(text))
    return False


def _is_geojson(path: Path) -> bool:
    with path.open("rb") as fh:
        head = fh.read(4096).decode("utf-8", "ignore")
    if '"FeatureCollection"' in head or '"Feature"' in head:
        try:
            return json.loads(path.read_text(encoding="utf-8")).get("type") in ("FeatureCollection", "Feature")
        except (ValueError, AttributeError):
            return False
    return False


def atlas_files(path: Path) -> list[Path]:
    """The files that make up a vector file (a shapefile's sidecars included), sorted."""
    if path.suffix.lower() != ".shp":
        return [path]
    parts = [path.with_suffix(ext) for ext in SHAPEFILE_PARTS]
    return sorted(p for p in parts if p.is_file())


def file_digest(path: str | Path) -> str:
    """sha256 of an atlas: of the file's bytes when it stands alone; otherwise over its parts in order (a
    shapefile's sidecars, the ``<stem>.groups.yaml`` beside it), each prefixed by its suffix — so changing the
    groups file changes the atlas's digest too."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"Atlas file {str(path)!r} does not exist.")
    files = atlas_files(path) + [p for p in (groups_file(path),) if p.is_file()]
    if len(files) == 1:
        return sha256_file(path)
    h = hashlib.sha256()
    for part in files:
        suffix = ".groups.yaml" if part.name.endswith(".groups.yaml") else part.suffix.lower()
        h.update(suffix.encode() + b"\0" + part.read_bytes())
    return h.hexdigest()


def groups_file(path: Path) -> Path:
    """Where the optional user groups YAML of an atlas file lives: ``<stem>.groups.yaml`` beside it."""
    return path.with_name(f"{path.stem}.groups.yaml")


@dataclass(frozen=True)
class AtlasFile:
    """A user atlas file: absolute path, content digest, and the fields that name and code its regions."""

    path: Path
    sha256: str
    name_field: str | None = None
    code_field: str | None = None

    @classmethod
    def of(cls, path: str | Path, name_field: str | None = None, code_field: str | None = None) -> AtlasFile:
        """The reference to a file as it is now (digest computed)."""
        path = Path(path).resolve()
        return cls(path, file_digest(path), name_field, code_field)

    @property
    def stem(self) -> str:
        return self.path.stem

    def record(self, relative_to: str | Path | None = None) -> dict[str, Any]:
        """JSON-ready record; the path relative to ``relative_to`` (a folder) when given, else absolute."""
        path = str(self.path)
        if relative_to is not None:
            path = os.path.relpath(self.path, Path(relative_to).resolve())
        return {"path": Path(path).as_posix(), "sha256": self.sha256, "name_field": self.name_field,
                "code_field": self.code_field}

    @classmethod
    def from_record(cls, record: dict[str, Any], base: str | Path | None = None) -> AtlasFile:
        """Inverse of :meth:`record`: a relative path is resolved against ``base`` (the artefact's folder)."""
        path = Path(record["path"])
        if not path.is_absolute():
            path = Path(base or ".") / path
        return cls(path.resolve(), str(record["sha256"]), record.get("name_field"), record.get("code_field"))

    def verify(self) -> None:
        """Refuse a missing file or one whose content changed since the digest was recorded."""
        if not self.path.is_file():
            raise FileNotFoundError(
                f"Atlas file {str(self.path)!r} (recorded with sha256 {self.sha256[:12]}…) does not exist; "
                "put the file back or re-make the map from the file you have."
            )
        now = file_digest(self.path)
        if now != self.sha256:
            raise AtlasDigestError(
                f"Atlas file {str(self.path)!r} has changed: digest mismatch (recorded sha256 {self.sha256[:12]}…, "
                f"file now {now[:12]}…). Restore the original file or re-make the map from the new one."
            )
