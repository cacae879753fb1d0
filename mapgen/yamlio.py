"""Reading YAML the strict way: ``yaml.safe_load`` that refuses a key given twice in one mapping, and problems as
one line.

PyYAML keeps the last of two equal keys without a word (``countries:`` twice builds only the second list);
:func:`load_yaml` raises :class:`DuplicateKeyError` naming the key and both lines instead. Config files read
through it; template packs, languages and styles can too (it depends on nothing but PyYAML).

Every YAML a user may hand mapgen (configs, styles, packs, languages, prompt strategies, alias files) is read
under a budget (:func:`safe_load`, and :func:`load_yaml` on top of it): before anything is built from the
parsed nodes, a document nested deeper than :data:`MAX_DEPTH` levels, one that refers to itself, or one whose
aliases expand to more than :data:`MAX_NODES` values (a 700-byte "billion laughs" file expands to gigabytes)
is refused in one line (:class:`YAMLBudgetError`, naming the line). No hand-written mapgen file comes near.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

_MERGE_TAG = "tag:yaml.org,2002:merge"

MAX_DEPTH = 64
"""Nesting levels (mappings and lists inside each other) a YAML document may have."""
MAX_NODES = 200_000
"""Values (scalars, lists and mappings, each alias counted as what it expands to) a YAML document may hold."""


class YAMLBudgetError(yaml.MarkedYAMLError):
    """A document nested too deep, referring to itself or expanding (through aliases) beyond the budget."""


class BudgetLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses (:class:`YAMLBudgetError`) a document deeper than :data:`MAX_DEPTH` while
    composing it, and one expanding to more than :data:`MAX_NODES` values or holding a cycle before
    constructing it."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise YAMLBudgetError(problem=f"nested more than {MAX_DEPTH} levels deep",
                                      note="flatten the document",
                                      problem_mark=self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_document(self, node: yaml.Node) -> Any:
        _check_expansion(node)
        return super().construct_document(node)


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a node graph that expands beyond :data:`MAX_NODES` values or contains a cycle (iteratively: the
    graph is at most :data:`MAX_DEPTH` deep, but shared through aliases)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    open_nodes: set[int] = set()
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
            if sizes[key] > MAX_NODES:
                raise YAMLBudgetError(problem=f"expands to more than {MAX_NODES:,} values through its aliases "
                                      "(&anchor / *alias), an alias bomb", problem_mark=node.start_mark,
                                      note="write the values out or use fewer aliases")
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise YAMLBudgetError(problem="refers to itself through an alias (*alias inside its own &anchor)",
                                  problem_mark=node.start_mark, note="remove the loop")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in sizes)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def safe_load(text: str) -> Any:
    """``yaml.safe_load(text)`` under the budget (:class:`BudgetLoader`): the way mapgen reads a YAML text."""
    return yaml.load(text, Loader=BudgetLoader)  # noqa: S506 - a SafeLoader subclass


class DuplicateKeyError(yaml.YAMLError):
    """A mapping that gives the same key twice (one line: the key, both lines, the fix)."""


class UniqueKeyLoader(BudgetLoader):
    """A :class:`BudgetLoader` refusing duplicate keys in a mapping (``<<`` merge keys may still be overridden)."""

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
    return f"{context}{problem}{where}{_fix(exc, problem)}"


def _fix(exc: yaml.YAMLError, problem: str) -> str:
    """The fix a syntax error's line ends with (a budget's problem names its own)."""
    if isinstance(exc, YAMLBudgetError):
        return f"; {exc.note}"
    return "; fix the YAML syntax there" + (" (YAML indents with spaces, not tabs)" if "'\\t'" in problem else "")


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
    return f"{path}:{mark.line + 1}:{mark.column + 1}: {problem}{context}{_fix(exc, problem)}"


def read_text_file(path: str | Path) -> str:
    """The text of a UTF-8 file; one that is not UTF-8 raises :class:`YAMLFileError` naming it and the fix."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise YAMLFileError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
                            "save it as UTF-8") from None


def load_yaml_file(path: str | Path) -> Any:
    """:func:`load_yaml` of a UTF-8 file; a syntax error or a duplicate key raises :class:`YAMLFileError`
    (``FILE:LINE:COL: what; fix``), a file that is not UTF-8 one naming it."""
    text = read_text_file(path)
    try:
        return load_yaml(text)
    except yaml.YAMLError as exc:
        raise YAMLFileError(yaml_file_problem(path, exc)) from None
