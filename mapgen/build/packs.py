"""The template packs of a build: the templates it asks (built-in plus the config's packs), the packs' copies
in the build folder (``packs/<pack>/``, recorded in the manifest with their digests) and the languages that
lack a text for a selected template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mapgen.benchmark import PACKS_DIR
from mapgen.caches import ValueCache
from mapgen.config import BuildConfig
from mapgen.errors import BuildError

_BUILD_TEMPLATES: ValueCache[tuple, tuple[Any, list[Any]]] = ValueCache("build_packs.templates", maxsize=16)


def build_templates(config: BuildConfig, out_dir: Path | None = None) -> tuple[Any, list[Any]]:
    """(every template, the ones asked): the built-in templates plus the config's packs (their copies in
    ``out_dir`` when given, see :func:`copy_packs`), selected by ``questions.templates``. A pack that does not
    lint raises BuildError with every problem, one a line. Cached per process and pack content."""
    from mapgen.questions import open_pack

    q = config.questions
    paths = [pack_copy(config, name, out_dir) if out_dir is not None else config.resolve_path(name)
             for name in q.packs]
    key = (tuple((str(p), open_pack(p).digest()) for p in paths), repr(q.templates))
    return _BUILD_TEMPLATES.get_or_make(key, lambda: _load_build_templates(paths, config))


def _load_build_templates(paths: list[Path], config: BuildConfig) -> tuple[Any, list[Any]]:
    from mapgen.questions import TemplateError, load_templates

    q = config.questions
    try:
        every = load_templates(paths, builtin=True) if paths else load_templates()
        chosen = list(every) if q.templates == "all" else [_chosen(every, t, config) for t in q.templates]
    except TemplateError as exc:
        raise BuildError(f"The build's templates do not load (fix them, `mapgen templates lint` shows the same "
                         f"problems):\n{exc}") from None
    return every, chosen


def _chosen(every: Any, template: str, config: BuildConfig) -> Any:
    """The template ``questions.templates`` names; an unknown id raises BuildError naming the config and the fix."""
    from mapgen.questions import TemplateError
    from mapgen.suggest import did_you_mean

    try:
        return every.get(template)
    except TemplateError:
        raise BuildError(f"{config.where}: questions.templates: no template {template!r}"
                         f"{did_you_mean(template, [t.id for t in every])}; `mapgen templates list` lists them"
                         ) from None


def pack_copy(config: BuildConfig, name: str, out_dir: Path) -> Path:
    """Where a build folder holds its copy of the template pack ``name``: ``packs/<pack>/`` (a single-file pack:
    the file inside that folder)."""
    src = config.resolve_path(name)
    folder = Path(out_dir) / PACKS_DIR / (src.stem if src.is_file() else src.name)
    return folder / src.name if src.is_file() else folder


def copy_packs(config: BuildConfig, out_dir: Path) -> dict[str, Any]:
    """Copy each template pack of the config into ``out_dir/packs/<pack>/`` (a build folder rebuilds from its
    own copy); the manifest's ``packs`` section (path in the folder, digest, path as written) and the copies'
    file digests."""
    from mapgen.questions import copy_pack, open_pack

    section: dict[str, dict[str, str]] = {}
    digests: dict[str, str] = {}
    for name in config.questions.packs:
        pack = open_pack(config.resolve_path(name))
        copy = pack_copy(config, name, out_dir)
        folder = copy.parent if pack.path.is_file() else copy
        digests |= copy_pack(pack, folder)
        section[folder.name] = {"path": copy.relative_to(out_dir).as_posix(), "sha256": pack.digest(),
                                "source": name}
    return {"packs": section, "files": digests}


def missing_texts(config: BuildConfig, templates: list[Any]) -> list[str]:
    """One line per selected template a country's language has no text for (its questions would be skipped)."""
    from mapgen.questions import load_language

    out = []
    for country in config.countries:
        if country.language == "en":
            continue
        lang = load_language(country.language)
        out += [f"{country.name}: template {t.id} has no {lang.name} text, so the build asks it no questions "
                f"there; add lang/{country.language}.yaml to its pack" for t in templates if not lang.has_text(t)]
    return out
