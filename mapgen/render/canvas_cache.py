"""A disk cache of the canvases of built-in atlases, so that one ``mapgen render`` call does not recompute the
projected shapes, mask, label plan and pixel facts (1-2 s) that every earlier call already computed.

A canvas file is keyed by the page layout (:func:`mapgen.render.api.layout_key`) and by the *edition*: a digest
of everything the canvas is computed from — the shipped atlas data (``data/atlas/``), the style presets, the
source of ``mapgen/render``, ``mapgen/geo`` and ``mapgen/spec.py``, and the versions of numpy, shapely,
matplotlib and Pillow — and by the digests of the font files text is measured in (:func:`fonts_digest`), so a
changed atlas, placement rule, library or font never reads a stale canvas. A loaded
canvas is the computed one (pickled floats, arrays and geometries are exact): renders are byte-identical.

Files live in ``$XDG_CACHE_HOME/mapgen/canvas`` (``~/.cache/mapgen/canvas``), written atomically; set
``MAPGEN_CANVAS_CACHE=off`` to neither read nor write them (or to a folder to use that one). User atlases
(vector files) are not cached. Nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.caches import ValueCache, memo
from mapgen.files import sha256_file, write_bytes_atomic
from mapgen.geo.atlas import BUILTIN
from mapgen.resources import data_path, template_path

if TYPE_CHECKING:
    from mapgen.geo.atlas import Atlas
    from mapgen.render.canvas import AtlasCanvas

ENV = "MAPGEN_CANVAS_CACHE"
_LIBRARIES = ("numpy", "shapely", "matplotlib", "pillow", "scipy")
_SOURCES = ("render", "geo")


def cache_dir() -> Path | None:
    """The folder canvas files are kept in, or None when the cache is switched off."""
    setting = os.environ.get(ENV, "")
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    if setting:
        return Path(setting)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mapgen" / "canvas"


@memo(1024)
def edition_digest() -> str:
    """Digest of the atlas data, style presets, canvas code and library versions a canvas is computed from."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    files = [f for sub in _SOURCES for f in sorted((package / sub).glob("*.py"))] + [package / "spec.py"]
    for folder in (data_path("atlas"), template_path("styles")):
        files += sorted((Path(str(folder)) / p.name for p in folder.iterdir() if p.is_file()), key=str)
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for name in _LIBRARIES:
        digest.update(f"{name}={metadata.version(name)}\0".encode())
    return digest.hexdigest()[:20]


def font_files() -> list[Path]:
    """Every font file on this machine that a canvas may measure text in: the Latin families a style may name
    and the fonts of the other scripts."""
    from mapgen.render.fonts import FAMILIES
    from mapgen.render.text import SCRIPT_FONTS

    paths = [*FAMILIES.values(), *(Path(entry[1]) for entry in SCRIPT_FONTS.values())]
    return sorted({p for p in paths if p.is_file()}, key=str)


#: Content digests of font files by (path, size, modification time): a file is hashed again only when it changes.
_FONT_DIGESTS: ValueCache[tuple[str, int, int], str] = ValueCache("render.canvas_cache.font_digests", maxsize=64)
FONT_DIGESTS_FILE = "font-digests.json"


def fonts_digest(folder: Path) -> str:
    """Digest of the content of every font file (:func:`font_files`). Each file's digest is kept, by its size and
    modification time, in this process and in ``folder``'s :data:`FONT_DIGESTS_FILE`, so an unchanged font costs
    a ``stat`` and an upgraded one is hashed again."""
    kept = _read_font_digests(folder)
    digest, fresh = hashlib.sha256(), {}
    for path in font_files():
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        file_digest = _FONT_DIGESTS.get(key) or _FONT_DIGESTS.put(key, _file_digest(key, kept.get(key[0])))
        fresh[key[0]] = [key[1], key[2], file_digest]
        digest.update(f"{path.name}={file_digest}\0".encode())
    if fresh != kept:
        with contextlib.suppress(OSError):
            write_bytes_atomic(folder / FONT_DIGESTS_FILE, json.dumps(fresh, sort_keys=True).encode())
    return digest.hexdigest()[:20]


def _file_digest(key: tuple[str, int, int], known: Any) -> str:
    """The digest ``known`` for the file of ``key`` (path, size, mtime) when it was kept for that size and time,
    else the file hashed."""
    if isinstance(known, list) and len(known) == 3 and tuple(known[:2]) == key[1:]:
        return str(known[2])
    return sha256_file(key[0])


def _read_font_digests(folder: Path) -> dict[str, Any]:
    try:
        kept = json.loads((folder / FONT_DIGESTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _path(atlas: Atlas, key: tuple) -> Path | None:
    folder = cache_dir()
    if folder is None or atlas.file is not None or atlas.name not in BUILTIN:
        return None
    name = hashlib.sha256(repr((edition_digest(), fonts_digest(folder), key)).encode()).hexdigest()[:24]
    return folder / f"{atlas.name}-{name}.pickle"


def load_canvas(atlas: Atlas, key: tuple) -> AtlasCanvas | None:
    """The cached canvas of ``atlas`` for layout ``key`` (the atlas object attached), or None."""
    path = _path(atlas, key)
    if path is None or not path.is_file():
        return None
    try:
        stored: dict[str, Any] = pickle.loads(path.read_bytes())
    except Exception:  # a torn or foreign file: compute the canvas again
        return None
    if stored.get("key") != repr(key) or stored.get("codes") != atlas.codes:
        return None
    return replace(stored["canvas"], atlas=atlas)


def save_canvas(canvas: AtlasCanvas, key: tuple) -> None:
    """Keep ``canvas`` for later processes (quietly skipped when the cache folder cannot be written)."""
    path = _path(canvas.atlas, key)
    if path is None:
        return
    data = pickle.dumps({"key": repr(key), "codes": canvas.atlas.codes, "canvas": replace(canvas, atlas=None)},  # type: ignore[arg-type]
                        protocol=pickle.HIGHEST_PROTOCOL)
    with contextlib.suppress(OSError):
        write_bytes_atomic(path, data)
