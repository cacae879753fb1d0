"""The sandbox question texts render in: jinja2's sandbox plus limits on work and output.

A question text is a sentence, so a template may loop at most :data:`MAX_LOOP_DEPTH` levels deep over at most
:data:`MAX_RANGE` items, may not repeat strings or lists into more than :data:`MAX_ITEMS` items or raise to
powers above :data:`MAX_EXPONENT`, and may not render more than :data:`MAX_OUTPUT` characters. Loop depth is
checked when a template is loaded or linted; the rest when it renders. Every breach raises
:class:`TextLimitError` naming the limit, so a hostile template fails with one clear line, never a hang or a
``MemoryError``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any

from jinja2 import TemplateError, nodes
from jinja2.sandbox import SandboxedEnvironment

MAX_LOOP_DEPTH = 2
MAX_RANGE = 100
MAX_ITEMS = 10_000
MAX_EXPONENT = 100
MAX_OUTPUT = 2_000

_DIRECTION_MOST = {"north": "northernmost", "south": "southernmost", "east": "easternmost", "west": "westernmost"}
_THAN = {"higher": "higher than", "lower": "lower than", "similar": "similar to", "above": "above", "below": "below"}


class TextLimitError(ValueError):
    """A question text that breaks one of the sandbox's limits."""


def _limited_range(*args: int) -> range:
    items = range(*args)
    if len(items) > MAX_RANGE:
        raise TextLimitError(f"range() of {len(items)} items in a question text (at most {MAX_RANGE}).")
    return items


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, list, tuple)) else 1


class TextSandbox(SandboxedEnvironment):
    """jinja2's sandbox with bounded ``range``, repetition, powers and output, and the text filters ``most``
    (north → northernmost) and ``than`` (higher → higher than)."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, words: dict[str, str] | None = None, tables: dict[str, dict[str, str]] | None = None) -> None:
        """``words``: how a value prints in ``{{ P }}`` (a translation's word table; English prints values as
        they are); ``tables``: filters that look a value up (a translation's ``most``, ``than`` …)."""
        table = dict(words or {})
        super().__init__(autoescape=False, keep_trailing_newline=False,
                         finalize=(lambda v: table.get(v, v) if isinstance(v, str) else v) if table else None)
        self.globals["range"] = _limited_range
        self.filters["most"] = lambda d: _DIRECTION_MOST.get(str(d), f"{d}-most")
        self.filters["than"] = lambda c: _THAN.get(str(c), str(c))
        for name, lookup in (tables or {}).items():
            self.filters[name] = lambda v, lookup=lookup: lookup.get(str(v), str(v))

    def call_binop(self, context: Any, operator_name: str, left: Any, right: Any) -> Any:
        if operator_name == "**":
            if isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
                raise TextLimitError(f"power {right} in a question text (at most {MAX_EXPONENT}).")
            return operator.pow(left, right)
        count = right if isinstance(right, int) else left if isinstance(left, int) else 1
        if isinstance(count, int) and count * max(_size(left), _size(right)) > MAX_ITEMS:
            raise TextLimitError(f"repetition into more than {MAX_ITEMS} items in a question text.")
        return operator.mul(left, right)

    def render_limited(self, template: Any, values: dict[str, Any]) -> str:
        """Render a compiled text, stopping as soon as it passes :data:`MAX_OUTPUT` characters."""
        out, size = [], 0
        for chunk in template.generate(values):
            size += len(chunk)
            if size > MAX_OUTPUT:
                raise TextLimitError(f"question text longer than {MAX_OUTPUT} characters.")
            out.append(chunk)
        return "".join(out)


def loop_depth(node: nodes.Node, depth: int = 0) -> int:
    """The deepest nesting of ``{% for %}`` loops under ``node``."""
    here = depth + 1 if isinstance(node, nodes.For) else depth
    return max([here, *(loop_depth(child, here) for child in node.iter_child_nodes())])


def text_problems(source: str, names: Iterable[str], env: TextSandbox | None = None) -> list[str]:
    """Why a text cannot be a question template: a syntax error, loops nested too deep, or a limit broken when
    it renders with every name set to a sample word (in ``env``, default :data:`TEXT_ENV`). Empty when fine."""
    env = env or TEXT_ENV
    try:
        tree = env.parse(source)
        depth = loop_depth(tree)
        if depth > MAX_LOOP_DEPTH:
            return [f"text nests {depth} loops (at most {MAX_LOOP_DEPTH})"]
        env.render_limited(env.from_string(source), {name: "Sample" for name in names})
    except TemplateError as exc:
        return [f"text rejected by the sandbox: {exc}"]
    except TextLimitError as exc:
        return [str(exc)]
    except (TypeError, ValueError, ArithmeticError):
        pass  # the sample words are not the parameters' real types: only the limits are checked here
    return []


TEXT_ENV = TextSandbox()
"""The one sandbox question texts are checked and rendered in."""
