"""What a build's Dask workers read from its folder, so that a worker on another machine needs nothing but the
folder (on a filesystem every worker shares) and an installed mapgen of the same version.

The config is the folder's marker (``.mapgen-build.json``, the resolved config the build wrote first); user
atlases and template packs are the folder's copies (``atlases/``, ``packs/``); statistics tables and style files
are copied into ``inputs/<n>/<file name>`` (:func:`copy_inputs`). ``inputs/files.json`` maps each file the config
names, as written, to its copy relative to the folder, and :func:`folder_config` resolves the config's paths
through it, so a worker opens only files inside the folder, wherever the folder is mounted.
"""

from __future__ import annotations

from pathlib import Path

from mapgen.benchmark import CONFIG_MARKER, INPUTS_DIR, read_marker
from mapgen.build.unit import _atlas_path
from mapgen.caches import ValueCache
from mapgen.config import BuildConfig
from mapgen.errors import BuildError
from mapgen.files import read_json, write_bytes_atomic, write_json_atomic
from mapgen.packs import pack_copy

#: The index of the copies: path as written → path of its copy, relative to the folder.
INDEX_FILE = "files.json"

#: The configs this process read from build folders: (folder, config digest) → config.
_FOLDER_CONFIGS: ValueCache[tuple[str, str], BuildConfig] = ValueCache("build.folder_configs", maxsize=8)


def copy_inputs(config: BuildConfig, out_dir: Path) -> dict[str, str]:
    """Copy the statistics tables and style files of ``config`` into ``out_dir/inputs/`` and write the index of
    every file the config names (its atlases and packs point at the copies the build made before); nothing is
    written for a config that names no file. Returns the index."""
    copies = {c.name: _rel(_atlas_path(config, c, out_dir), out_dir) for c in config.countries if not c.builtin}
    copies |= {name: _rel(pack_copy(config, name, out_dir), out_dir) for name in config.questions.packs}
    named = [f for c in config.countries for f in c.statistics.files] + config.style_files()
    for i, name in enumerate(dict.fromkeys(named)):
        source = config.resolve_path(name)
        rel = f"{INPUTS_DIR}/{i}/{source.name}"
        write_bytes_atomic(out_dir / rel, source.read_bytes())
        copies[name] = rel
    if copies:
        write_json_atomic(out_dir / INPUTS_DIR / INDEX_FILE, copies)
    return copies


def _rel(path: Path, out_dir: Path) -> str:
    return path.relative_to(out_dir).as_posix()


def folder_config(out_dir: str | Path) -> BuildConfig:
    """The config of the build in ``out_dir`` as its marker holds it, every file it names resolved to the folder's
    copy (read once per process and config digest)."""
    folder = Path(out_dir)
    marker = read_marker(folder) if folder.is_dir() else None
    if marker is None or "config" not in marker:
        raise BuildError(f"{folder / CONFIG_MARKER} is missing on this worker: a Dask worker reads the build from its "
                         "folder, so the folder must be on a filesystem every worker shares, at the same path.")
    return _FOLDER_CONFIGS.get_or_make((str(folder), str(marker.get("digest"))), lambda: _config_of(folder, marker))


def _config_of(folder: Path, marker: dict) -> BuildConfig:
    config = BuildConfig.model_validate(marker["config"])
    config._where = str(folder / CONFIG_MARKER)
    index = folder / INPUTS_DIR / INDEX_FILE
    config._copies = {name: folder / rel for name, rel in read_json(index).items()} if index.is_file() else {}
    return config
