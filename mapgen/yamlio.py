"""Reading YAML the strict way: ``yaml.safe_load`` that refuses a key given twice in one mapping, and problems as
one line.

PyYAML keeps the last of two equal keys without a word (``countries:`` twice builds only the second list);
:func:`load_yaml` raises :class:`DuplicateKeyError` naming the key and both lines instead. Config files read
through it; template packs, languages and styles can too (it depends on nothing but PyYAML).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

_MERGE_TAG = "tag:yaml.org,2002:merge"


class DuplicateKeyError(yaml.YAMLError):
    """A mapping that gives the same key twice (one line: the key, both lines, the fix)."""


class UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` refusing duplicate keys in a mapping (``<<`` merge keys may still be overridden)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value if isinstance(node, yaml.MappingNode) else ():
            if key_node.tag == _MERGE_TAG:
                continue
            key, line = self.construct_object(key_node, deep=True), key_node.start_mark.line + 1
            try:
                first = seen.get(key)
            except TypeError:
                continue  # an unhashable key: the base class reports it
            if first is not None:
                lines = f"line {line}" if first == line else f"lines {first} and {line}"
                raise DuplicateKeyError(f"the key {key!r} is given twice ({lines}); keep one of them (YAML would "
                                        "silently keep only the last)")
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, except that a key given twice in one mapping raises :class:`DuplicateKeyError`."""
    return yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass


#: libyaml's parser when PyYAML was built with it, else PyYAML's own: the same documents as ``yaml.SafeLoader``.
_FAST_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_shipped(text: str) -> Any:
    """``yaml.safe_load(text)`` for the data files mapgen ships, parsed by libyaml when present (the same result,
    about ten times faster: one ``mapgen render`` call reads half a dozen of them)."""
    return yaml.load(text, Loader=_FAST_SAFE_LOADER)  # noqa: S506 - a safe loader


def yaml_problem(exc: yaml.YAMLError) -> str:
    """One line for a YAML error: what is wrong and where (line, column), without PyYAML's source excerpt."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return " ".join(str(exc).split())
    context, problem = exc.context or "", exc.problem or "syntax error"
    if context:
        start = exc.context_mark
        context = f"{context} that starts at line {start.line + 1}, " if start is not None else f"{context}, "
    mark = exc.problem_mark
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{context}{problem}{where}; fix the YAML syntax there{_tab_hint(problem)}"


def _tab_hint(problem: str) -> str:
    return " (YAML indents with spaces, not tabs)" if "'\\t'" in problem else ""


class YAMLFileError(ValueError):
    """A YAML file that cannot be read, as one line: ``FILE:LINE:COL: what; fix``."""


def yaml_file_problem(path: str | Path, exc: yaml.YAMLError) -> str:
    """``FILE:LINE:COL: what is wrong (where its context started); fix the YAML syntax there`` — one line, in
    the form compilers use, instead of PyYAML's excerpts citing ``<unicode string>``."""
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return f"{path}: {' '.join(str(exc).split())}"
    mark, problem = exc.problem_mark, exc.problem or "syntax error"
    context = ""
    if exc.context:
        start = exc.context_mark
        context = f" ({exc.context}" + (f" that starts at line {start.line + 1}" if start is not None else "") + ")"
    return f"{path}:{mark.line + 1}:{mark.column + 1}: {problem}{context}; fix the YAML syntax there{_tab_hint(problem)}"


def read_utf8(path: str | Path) -> str:
    """The text of a UTF-8 file; one that is not UTF-8 raises :class:`YAMLFileError` naming it and the fix."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise YAMLFileError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
                            "save it as UTF-8") from None


def load_yaml_file(path: str | Path) -> Any:
    """:func:`load_yaml` of a UTF-8 file; a syntax error or a duplicate key raises :class:`YAMLFileError`
    (``FILE:LINE:COL: what; fix``), a file that is not UTF-8 one naming it."""
    try:
        return load_yaml(read_utf8(path))
    except yaml.YAMLError as exc:
        raise YAMLFileError(yaml_file_problem(path, exc)) from None
