"""A disk cache of the canvases of built-in atlases, so that one ``mapgen render`` call does not recompute the
projected shapes, mask, label plan and pixel facts (1-2 s) that every earlier call already computed.

A canvas file is keyed by the page layout (:func:`mapgen.render.api.layout_key`) and by the *edition*: a digest
of everything the canvas is computed from — the shipped atlas data (``data/atlas/``), the style presets, the
source of ``mapgen/render``, ``mapgen/geo`` and ``mapgen/spec.py``, and the versions of numpy, shapely,
matplotlib and Pillow — so a changed atlas, placement rule or library never reads a stale canvas. A loaded
canvas is the computed one (pickled floats, arrays and geometries are exact): renders are byte-identical.

Files live in ``$XDG_CACHE_HOME/mapgen/canvas`` (``~/.cache/mapgen/canvas``), written atomically; set
``MAPGEN_CANVAS_CACHE=off`` to neither read nor write them (or to a folder to use that one). User atlases
(vector files) are not cached. Nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from dataclasses import replace
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.files import write_bytes_atomic
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


@cache
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


def _path(atlas: Atlas, key: tuple) -> Path | None:
    folder = cache_dir()
    if folder is None or atlas.file is not None or atlas.name not in BUILTIN:
        return None
    name = hashlib.sha256(repr((edition_digest(), key)).encode()).hexdigest()[:24]
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
