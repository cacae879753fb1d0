"""Template packs: where a pack's files are, importing its functions, its digest and copying it into a build.

A *pack* is a folder holding ``templates.yaml`` (the schema of ``templates/questions/mapwise.yaml``, with its
own ``definitions:``), optionally ``readings.yaml`` (declared readings of its words and groups, the schema
of ``templates/readings.yaml``, see :mod:`mapgen.questions.readings`), optionally ``lang/<code>.yaml`` (question texts keyed by template id, as under
``templates:`` in ``templates/lang/*.yaml``) and optionally ``functions.py`` (functions registered with
``from mapgen.questions import register``). A single YAML file is a pack of templates only. mapgen's own
templates are the built-in pack (:func:`builtin_pack`), read by the same code
(:func:`mapgen.questions.templates.load_templates`).

**A pack's functions.py is Python: naming a pack runs it** (once per process and content), as importing any
module would, and says so in one line on stderr. It is imported only when a pack is named (``--templates``,
``questions: {packs: …}``, ``mapgen templates lint``), never by scanning folders. It is imported in the fence of
:mod:`mapgen.questions.fence` (prints to stderr; an exception, ``sys.exit``, ``os._exit`` or a loop becomes a
problem naming the pack), and afterwards every function registered by mapgen or another pack, and every function,
class and constant of mapgen's modules, must be as it was: a change is put back and refused, naming both. The
fence is no sandbox: name only packs whose code you trust.
"""

from __future__ import annotations

import hashlib
import importlib.util
import multiprocessing
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from mapgen.files import sha256_file
from mapgen.questions.fence import IMPORT_SECONDS, PackCodeError, altered, fenced, module_slots
from mapgen.questions.functions.registry import Owner, pack_functions, watched
from mapgen.questions.readings import builtin_file as builtin_readings_file
from mapgen.questions.readings import load_readings_file
from mapgen.resources import template_path
from mapgen.yamlio import yaml_problem

TEMPLATES_FILE = "templates.yaml"
LANG_DIR = "lang"
FUNCTIONS_FILE = "functions.py"
READINGS_FILE = "readings.yaml"


class PackError(ValueError):
    """A path that is no template pack, or a pack whose functions.py cannot be imported."""


@dataclass(frozen=True)
class Pack:
    """The files of one template pack (see the module docstring)."""

    name: str
    path: Path  # the folder, or the single YAML file
    template_files: tuple[Path, ...]
    lang_files: tuple[tuple[str, Path], ...] = ()  # (language code, file)
    functions: Path | None = None
    builtin: bool = False
    readings: Path | None = None

    def files(self) -> list[Path]:
        """Every file of the pack, templates first."""
        out = [*self.template_files, *(f for _, f in self.lang_files)]
        out += [self.readings] if self.readings and not self.builtin else []
        return out + ([self.functions] if self.functions else [])

    def relative(self, file: Path) -> str:
        """A file's path inside the pack (its name for a single-file pack)."""
        return file.name if self.path.is_file() else file.relative_to(self.path).as_posix()

    def digest(self) -> str:
        """sha256 over the pack's files (their paths inside the pack and contents)."""
        h = hashlib.sha256()
        for f in self.files():
            h.update(f"{self.relative(f)}\0{sha256_file(f)}\n".encode())
        return h.hexdigest()


def open_pack(path: str | Path) -> Pack:
    """The pack at ``path``: a folder with ``templates.yaml``, or one YAML file of templates."""
    path = Path(path)
    if path.is_file():
        return Pack(path.stem, path, (path,))
    if not path.is_dir():
        raise PackError(f"{path}: no such template pack (a folder with {TEMPLATES_FILE}, or a YAML file)")
    templates = path / TEMPLATES_FILE
    if not templates.is_file():
        raise PackError(f"{path}: a template pack folder needs {TEMPLATES_FILE} (write one with "
                        "`mapgen templates new ID -o FOLDER`)")
    lang = path / LANG_DIR
    langs = tuple((f.name[: -len(".yaml")], f) for f in sorted(lang.glob("*.yaml"))) if lang.is_dir() else ()
    functions = path / FUNCTIONS_FILE
    readings = path / READINGS_FILE
    return Pack(path.resolve().name, path, (templates,), langs, functions if functions.is_file() else None,
                readings=readings if readings.is_file() else None)


def builtin_pack() -> Pack:
    """mapgen's own templates (``templates/questions/*.yaml``); their texts in other languages are the shipped
    language files and their functions the library, so the pack lists neither."""
    folder = template_path("questions")
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)
    return Pack("mapgen", Path(str(folder)), tuple(Path(str(f)) for f in files), builtin=True,
                readings=builtin_readings_file())


def is_builtin_file(path: str | Path) -> bool:
    """Whether ``path`` is one of the built-in template files."""
    resolved = Path(path).resolve()
    return any(f.resolve() == resolved for f in builtin_pack().template_files)


def read_yaml(path: Path) -> object:
    """A pack file's YAML (a PackError names the file when it is not valid YAML)."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PackError(f"not valid YAML: {yaml_problem(exc)}") from None  # one line (mapgen.yamlio)


_IMPORTED: dict[tuple[str, str], list[str]] = {}  # (functions.py path, sha256) -> problems
_ANNOUNCED: set[tuple[str, str]] = set()  # (pack name, sha256) of the imports announced


def import_functions(pack: Pack) -> list[str]:
    """Import the pack's ``functions.py`` (once per content) as a module ``mapgen_pack_<pack>_<sha256[:12]>``,
    registering its functions as the pack's; the problems found (an import error, a function the registry
    refuses: named like a built-in one or another pack's)."""
    if pack.functions is None:
        return []
    key = (str(pack.functions.resolve()), sha256_file(pack.functions))
    if key not in _IMPORTED:
        if (pack.name, key[1]) not in _ANNOUNCED:  # once per content: a build's copy of a pack is the same code
            announce(pack.name, pack.functions)
            _ANNOUNCED.add((pack.name, key[1]))
        _IMPORTED[key] = _import(pack.functions, f"mapgen_pack_{pack.name}_{key[1][:12]}", pack.name)
    return _IMPORTED[key]


def _import(path: Path, module_name: str, pack_name: str) -> list[str]:
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[module_name] = module
    owner = Owner(module_name, pack_name, str(path))
    slots = watched(owner) + module_slots()
    with pack_functions(module_name, pack_name, str(path)) as refused:
        try:
            with fenced(pack_name, spec.origin or str(path), "importing functions.py", IMPORT_SECONDS):  # type: ignore[union-attr]
                spec.loader.exec_module(module)  # type: ignore[union-attr]
        except PackCodeError as exc:
            refused.append(str(exc))
    changed = altered(slots)
    return [*refused, *(f"pack {pack_name!r} changed {label} (put back); a pack may only add functions under new "
                        "names: remove that code" for label in changed)]


def announce(pack_name: str, path: Path) -> None:
    """Say on stderr (once, in the main process) that a pack's Python code is about to run."""
    if multiprocessing.parent_process() is None:
        print(f"mapgen: running the Python code of template pack {pack_name!r} ({path}); name only packs you trust",
              file=sys.stderr)


def pack_readings(pack: Pack) -> list[str]:
    """Declare the pack's readings (its ``readings.yaml``, once per file); the problems found."""
    return load_readings_file(pack.readings) if pack.readings is not None else []


STARTER = """\
# A template pack: this file, optionally lang/<code>.yaml (texts in another language, keyed by template id)
# and optionally functions.py (functions of your own, see docs/authoring-templates.md). Check it with
#   mapgen templates lint {folder}
# try it on a map with
#   mapgen templates preview {id} --templates {folder} --map MAP.json
# and use it in a build config with  questions: {{packs: [{folder}]}}

definitions:                 # every vague word a template relies on (listed under its uses:) needs one
  higher: the value of one region is in a higher legend class (discrete maps) or above the other's by more
    than the reading tolerance (continuous maps)

templates:
  - id: {id}
    answer_type: binary      # binary | single | count | list | range | ranking
    map_types: [discrete, continuous]
    params:                  # typed parameters, drawn in order (`mapgen templates functions` lists the types)
      X: Region
      Y: {{type: Region, from: "others(readable_regions(), X)"}}   # from: the candidates, here any other region
    text:                    # jinja2 variants; {{{{ states }}}} is the atlas's region word
      - "Is the value of {{{{ X }}}} higher than the value of {{{{ Y }}}}?"
    program:                 # steps `name: call`; the step named answer is the answer
      - answer: compare(X, 'higher', Y)
    uses: [higher]
"""


def write_starter(template_id: str, folder: str | Path) -> Path:
    """Write a commented starter pack with one template ``template_id`` into ``folder`` (which must not hold
    a templates.yaml yet); returns its templates.yaml."""
    if not template_id.isidentifier():
        raise PackError(f"template id {template_id!r} must be a name like my_template (letters, digits, _)")
    folder = Path(folder)
    target = folder / TEMPLATES_FILE
    if target.exists():
        raise PackError(f"{target} exists already; choose another folder or edit it")
    folder.mkdir(parents=True, exist_ok=True)
    target.write_text(STARTER.format(id=template_id, folder=folder), encoding="utf-8")
    return target


def copy_pack(pack: Pack, dest: Path) -> dict[str, str]:
    """Copy the pack's files into the folder ``dest``; their sha256 by path relative to ``dest``'s parent's
    parent (the build folder: ``packs/<name>/…``)."""
    from mapgen.files import write_bytes_atomic

    digests = {}
    for f in pack.files():
        target = dest / pack.relative(f)
        write_bytes_atomic(target, f.read_bytes())
        digests[f"{dest.parent.name}/{dest.name}/{pack.relative(f)}"] = sha256_file(target)
    return digests
