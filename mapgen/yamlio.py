"""Reading YAML the strict way: ``yaml.safe_load`` that refuses a key given twice in one mapping, and problems as
one line.

PyYAML keeps the last of two equal keys without a word (``countries:`` twice builds only the second list);
:func:`load_yaml` raises :class:`DuplicateKeyError` naming the key and both lines instead. Config files read
through it; template packs, languages and styles can too (it depends on nothing but PyYAML).
"""

from __future__ import annotations

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
    return f"{context}{problem}{where}; fix the YAML syntax there"
