"""The sandbox question texts render in: jinja2's sandbox plus a budget of work and size enforced inside it.

A question text is a sentence, so one render may take at most :data:`MAX_STEPS` steps (calls, macro calls and
loop iterations), call macros at most :data:`MAX_DEPTH` deep, loop at most :data:`MAX_LOOP_DEPTH` levels deep
over at most :data:`MAX_RANGE` numbers, build no string, list or mapping above :data:`MAX_ITEMS` items (``*``,
``+``, ``~``, methods and filters, widths of ``ljust``/``center``/``format``/``%``), no number above
:data:`MAX_BITS` bits, no ``lipsum`` above :data:`MAX_LIPSUM` paragraphs, and print at most :data:`MAX_OUTPUT`
characters. Every breach raises :class:`TextLimitError` naming the budget, so a hostile text fails in one
clear line within milliseconds, never a hang or a ``MemoryError``. Texts that read other files (``include``,
``import``, ``extends``), look attributes up by name (``|attr``) or touch ``_`` attributes are refused when they
compile (:func:`check_template_source` lists why, for lint).
"""

from __future__ import annotations

import operator
import re
import string
from collections.abc import Callable, Iterable, Iterator
from functools import wraps
from typing import Any

from jinja2 import TemplateError, TemplateSyntaxError, nodes, pass_context
from jinja2.exceptions import SecurityError
from jinja2.filters import FILTERS
from jinja2.parser import Parser
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment
from jinja2.utils import _PassArg, generate_lorem_ipsum
from jinja2.visitor import NodeTransformer

MAX_LOOP_DEPTH = 2
MAX_RANGE = 100
MAX_ITEMS = 10_000
MAX_EXPONENT = 100
MAX_OUTPUT = 2_000
MAX_STEPS = 10_000
MAX_DEPTH = 20
MAX_BITS = 10_000
MAX_LIPSUM = 5

_DIRECTION_MOST = {"north": "northernmost", "south": "southernmost", "east": "easternmost", "west": "westernmost"}
_THAN = {"higher": "higher than", "lower": "lower than", "similar": "similar to", "above": "above", "below": "below"}
#: str methods whose integer argument is the size of the string they build.
_WIDTH_METHODS = frozenset({"ljust", "rjust", "center", "zfill", "expandtabs"})
_PRINTF = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_SIZED = (str, bytes, bytearray, list, tuple, dict, set, frozenset)
_DUNDER = re.compile(r"__[A-Za-z]")


class TextLimitError(ValueError):
    """A question text that breaks one of the sandbox's limits."""


class BudgetContext(Context):
    """A render's context, carrying the steps taken and the macro call depth of that one render."""

    steps = 0
    depth = 0


def _step(context: Any, count: int = 1) -> None:
    context.steps += count
    if context.steps > MAX_STEPS:
        raise TextLimitError(f"a question text takes more than {MAX_STEPS:,} steps (the sandbox's step budget: "
                             "calls, macro calls and loop iterations); loop and call less.")


def _too_big(what: str, size: int) -> TextLimitError:
    return TextLimitError(f"{what} of {size:,} items in a question text (the sandbox's size budget is "
                          f"{MAX_ITEMS:,}); build smaller strings and lists.")


def _check_size(value: Any, what: str = "a value") -> Any:
    if isinstance(value, _SIZED) and len(value) > MAX_ITEMS:
        raise _too_big(what, len(value))
    return value


def _check_number(value: Any, what: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_ITEMS:
        raise TextLimitError(f"{what} is {value:,} in a question text (the sandbox's size budget is {MAX_ITEMS:,}); "
                             "use a smaller number.")


def _check_bits(bits: int) -> None:
    if bits > MAX_BITS:
        raise TextLimitError(f"a number of about {bits:,} bits in a question text (the sandbox's number budget is "
                             f"{MAX_BITS:,} bits); use smaller numbers.")


def _check_widths(fmt: str) -> None:
    """Refuse format widths and precisions above :data:`MAX_OUTPUT` in a ``str.format`` string."""
    try:
        fields = [spec for _, _, spec, _ in string.Formatter().parse(fmt) if spec]
    except ValueError:
        return  # malformed: str.format itself raises a clear error
    for spec in fields:
        if "{" in spec:
            raise TextLimitError("a nested format field ('{:{w}}') in a question text is refused by the sandbox; "
                                 "write the width as a number.")
        for number in re.findall(r"\d+", spec):
            if int(number) > MAX_OUTPUT:
                raise TextLimitError(f"the format width {int(number):,} in a question text (at most "
                                     f"{MAX_OUTPUT:,}, the sandbox's output budget); use a smaller width.")


def _check_printf(fmt: Any) -> None:
    """Refuse ``%`` widths and precisions above :data:`MAX_OUTPUT` (and ``*`` widths) in a ``%`` format string."""
    if not isinstance(fmt, str):
        return
    for match in _PRINTF.finditer(fmt):
        for width in match.groups():
            if width == "*" or (width and int(width) > MAX_OUTPUT):
                raise TextLimitError(f"the % format width {width} in a question text (at most {MAX_OUTPUT:,}, the "
                                     "sandbox's output budget); use a smaller width.")


def _limited_range(*args: int) -> range:
    items = range(*args)
    if len(items) > MAX_RANGE:
        raise TextLimitError(f"range() of {len(items)} items in a question text (at most {MAX_RANGE}).")
    return items


def _limited_lipsum(n: int = MAX_LIPSUM, html: bool = True, min: int = 20, max: int = 100) -> str:  # noqa: A002
    if not 0 <= n <= MAX_LIPSUM or max > 100 or min > max:
        raise TextLimitError(f"lipsum(n={n}, min={min}, max={max}) in a question text (the sandbox allows at most "
                             f"{MAX_LIPSUM} paragraphs of at most 100 words); ask for less.")
    return generate_lorem_ipsum(n, html, min, max)


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes, bytearray, list, tuple)) else 1


def _power(left: Any, right: Any) -> Any:
    if isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
        raise TextLimitError(f"power {right} in a question text (at most {MAX_EXPONENT}).")
    if isinstance(left, int) and isinstance(right, int) and right > 0:
        _check_bits(left.bit_length() * right)
    return operator.pow(left, right)


def _times(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, int):
        _check_bits(left.bit_length() + right.bit_length())
        return operator.mul(left, right)
    count = right if isinstance(right, int) else left if isinstance(left, int) else 1
    if count * max(_size(left), _size(right)) > MAX_ITEMS:
        raise TextLimitError(f"repetition into more than {MAX_ITEMS} items in a question text (the sandbox's size "
                             "budget); repeat less.")
    return operator.mul(left, right)


def _guard_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` (a jinja2 filter) refusing integer arguments above :data:`MAX_ITEMS`, ``%`` widths and results
    above :data:`MAX_ITEMS` items."""
    skip = 2 if _PassArg.from_obj(func) is not None else 1  # (context,) value, then the filter's own arguments

    @wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        for arg in (*args[skip:], *kwargs.values()):
            _check_number(arg, f"an argument of |{name}")
        if len(args) >= skip:
            _precheck_filter(name, args[skip - 1], args[skip:], kwargs)
        return _check_size(func(*args, **kwargs), f"the result of |{name}")

    return guarded


def _precheck_filter(name: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse ``|format``, ``|replace`` and ``|join`` calls that would build a string above the budget."""
    if name == "format":
        _check_printf(value)
    size = 0
    if name == "replace" and len(args) >= 2:
        size = _replace_size(str(value), str(args[0]), str(args[1]))
    elif name == "join" and isinstance(value, (list, tuple, str)):
        sep = str(args[0] if args else kwargs.get("d", ""))
        size = sum(len(str(x)) for x in value) + len(sep) * max(len(value) - 1, 0)
    if size > MAX_ITEMS:
        raise _too_big(f"the result of |{name}", size)


@pass_context
def _counted(context: Any, iterable: Any) -> Any:
    """A loop's iterable, each item counted as a step."""
    if hasattr(iterable, "__len__"):
        _step(context, len(iterable))
        return iterable
    return _counting(context, iterable)


def _counting(context: Any, iterable: Iterable[Any]) -> Iterator[Any]:
    for item in iterable:
        _step(context)
        yield item


def _concat(items: list[Any]) -> str:
    """``a ~ b``, refusing a result above :data:`MAX_ITEMS` characters before it is built."""
    parts = [str(item) for item in items]
    size = sum(map(len, parts))
    if size > MAX_ITEMS:
        raise _too_big("a joined string (~)", size)
    return "".join(parts)


def _replace_size(owner: str, old: Any, new: Any) -> int:
    if not isinstance(old, str) or not isinstance(new, str):
        return len(owner)
    return len(owner) + (owner.count(old) if old else len(owner) + 1) * len(new)


def _precheck_method(obj: Any, args: tuple[Any, ...]) -> None:
    """Refuse a str method call that would build a string above the size budget."""
    owner, name = getattr(obj, "__self__", None), getattr(obj, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in _WIDTH_METHODS:
        for arg in args:
            _check_number(arg, f"the width in {name}()")
    size = 0
    if name == "replace" and len(args) >= 2:
        size = _replace_size(owner, args[0], args[1])
    elif name == "join" and args and isinstance(args[0], (list, tuple)):
        size = sum(len(str(x)) for x in args[0]) + len(owner) * max(len(args[0]) - 1, 0)
    if size > MAX_ITEMS:
        raise _too_big(f"a {name}() result", size)


class _Guard(NodeTransformer):
    """Counts loop iterations as steps and builds ``~`` through the size check."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)  # transforms the children in place (and returns ``node`` itself)
        node.iter = nodes.Filter(node.iter, "_mapgen_steps", [], [], None, None, lineno=node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)  # in place, as above
        items = nodes.List(node.nodes, lineno=node.lineno)
        return nodes.Filter(items, "_mapgen_concat", [], [], None, None, lineno=node.lineno)


class TextSandbox(SandboxedEnvironment):
    """jinja2's sandbox with the budget of this module, bounded ``range`` and ``lipsum``, and the text filters
    ``most`` (north → northernmost) and ``than`` (higher → higher than)."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})
    context_class = BudgetContext

    def __init__(self, words: dict[str, str] | None = None, tables: dict[str, dict[str, str]] | None = None,
                 **options: Any) -> None:
        """``words``: how a value prints in ``{{ P }}`` (a translation's word table; English prints values as
        they are); ``tables``: filters that look a value up (a translation's ``most``, ``than`` …); ``options``:
        more jinja2 environment options (``undefined``, ``trim_blocks`` …)."""
        table = dict(words or {})
        super().__init__(autoescape=False, keep_trailing_newline=False,
                         finalize=(lambda v: table.get(v, v) if isinstance(v, str) else v) if table else None,
                         **options)
        self.globals["range"] = _limited_range
        self.globals["lipsum"] = _limited_lipsum
        self.filters.update({name: _guard_filter(name, f) for name, f in FILTERS.items() if name in self.filters})
        self.filters["_mapgen_steps"] = _counted
        self.filters["_mapgen_concat"] = _concat
        self.filters["most"] = lambda d: _DIRECTION_MOST.get(str(d), f"{d}-most")
        self.filters["than"] = lambda c: _THAN.get(str(c), str(c))
        for name, lookup in (tables or {}).items():
            self.filters[name] = lambda v, lookup=lookup: lookup.get(str(v), str(v))

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        """Parse, refuse what :func:`source_problems` names, and route loops and ``~`` through the budget."""
        tree = super()._parse(source, name, filename)
        problems = source_problems(tree)
        if problems:
            raise SecurityError(problems[0])  # not a syntax error: jinja2 would append the source to its message
        return _Guard().visit(tree)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        """A call from a text: one step, one level of depth, size checks before and after."""
        _step(__context)
        _precheck_method(__obj, args)
        __context.depth += 1
        try:
            if __context.depth > MAX_DEPTH:
                raise TextLimitError(f"macros in a question text call each other more than {MAX_DEPTH} deep (the "
                                     "sandbox's depth budget); remove the recursion.")
            result = SandboxedEnvironment.call(__self, __context, __obj, *args, **kwargs)
        finally:
            __context.depth -= 1
        _check_size(getattr(__obj, "__self__", None), "a grown list or mapping")
        return _check_size(result)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``str.format`` as jinja2's sandbox wraps it, refusing widths above the output budget."""
        wrapped = super().wrap_str_format(value)
        if wrapped is not None:
            _check_widths(value.__self__)
        return wrapped

    def call_binop(self, context: Any, operator_name: str, left: Any, right: Any) -> Any:
        """``*``, ``**``, ``+`` and ``%`` refusing results above the size and number budgets before they are built."""
        if operator_name == "**":
            return _power(left, right)
        if operator_name == "+":
            if isinstance(left, _SIZED) and isinstance(right, _SIZED) and len(left) + len(right) > MAX_ITEMS:
                raise _too_big("a sum (+)", len(left) + len(right))
            return operator.add(left, right)
        if operator_name == "%":
            _check_printf(left)
            return _check_size(operator.mod(left, right), "a % formatted string")
        return _times(left, right)

    def compile_text(self, source: str) -> CompiledText:
        """A text compiled once for many renders (:class:`CompiledText`)."""
        return CompiledText(self.from_string(source), _plain_pieces(self, self.parse(source)))

    def render_limited(self, template: Any, values: dict[str, Any], name: str = "", max_output: int = MAX_OUTPUT) -> str:
        """Render a compiled text (a jinja2 template or a :class:`CompiledText`), stopping as soon as it passes
        ``max_output`` characters; a breach of the budget names the template ``name`` when given."""
        if isinstance(template, CompiledText):
            text = template.plain(values)
            if text is not None and len(text) <= max_output:
                return text
            template = template.template
        out, size = [], 0
        try:
            for chunk in template.generate(values):
                size += len(chunk)
                if size > max_output:
                    raise TextLimitError(f"question text longer than {max_output} characters (the sandbox's output "
                                         "budget); shorten the text.")
                out.append(chunk)
        except TextLimitError as exc:
            if name:
                raise TextLimitError(f"template {name}: {exc}") from None
            raise
        return "".join(out)


# ------------------------------------------------------------------------------------------------ lint checks

_REFUSED_TAGS = {
    nodes.Include: "{% include %} reads another file",
    nodes.Import: "{% import %} reads another file",
    nodes.FromImport: "{% from … import %} reads another file",
    nodes.Extends: "{% extends %} reads another file",
}


def _node_problem(node: nodes.Node) -> str | None:
    """Why the sandbox refuses one node of a text (``None`` when it does not)."""
    for kind, why in _REFUSED_TAGS.items():
        if isinstance(node, kind):
            return f"{why}; a question text must be self-contained: write the words into the text itself"
    if isinstance(node, nodes.Filter) and node.name == "attr":
        return "|attr() looks attributes up by name; use the parameter's value itself"
    if isinstance(node, nodes.Getattr) and node.attr.startswith("_"):
        return f"the attribute {node.attr!r} is private; use the parameter's value itself"
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const) and str(node.arg.value).startswith("_"):
        return f"the key {node.arg.value!r} is private; use the parameter's value itself"
    if isinstance(node, nodes.Const) and isinstance(node.value, str) and _DUNDER.match(node.value):
        return f"the name {node.value!r} is private; use the parameter's value itself"
    if isinstance(node, nodes.For) and node.recursive:
        return "a recursive loop has no bound; loop over a flat list"
    return None


def source_problems(tree: nodes.Node) -> list[str]:
    """Why the sandbox refuses a parsed text (each reason with its fix; empty when it accepts it)."""
    problems = [f"refused by the sandbox: {why}." for node in (tree, *tree.find_all(nodes.Node))
                if (why := _node_problem(node))]
    return list(dict.fromkeys(problems))


def check_template_source(source: str, env: TextSandbox | None = None) -> list[str]:
    """Why the sandbox refuses a text (``include``, ``import``, ``extends``, ``|attr``, private attributes,
    recursive loops, a syntax error), one line each with the fix; empty when it accepts it."""
    try:
        tree = Parser(env or TEXT_ENV, source).parse()
    except TemplateSyntaxError as exc:
        return [f"text rejected by the sandbox: {exc.message} (line {exc.lineno}); fix the jinja2 syntax"]
    return source_problems(tree)


def loop_depth(node: nodes.Node, depth: int = 0) -> int:
    """The deepest nesting of ``{% for %}`` loops under ``node``."""
    here = depth + 1 if isinstance(node, nodes.For) else depth
    return max([here, *(loop_depth(child, here) for child in node.iter_child_nodes())])


def text_problems(source: str, names: Iterable[str], env: TextSandbox | None = None) -> list[str]:
    """Why a text cannot be a question template: a syntax error, a construct the sandbox refuses, loops nested
    too deep, or a limit broken when it renders with every name set to a sample word (in ``env``, default
    :data:`TEXT_ENV`). Empty when fine."""
    env = env or TEXT_ENV
    refused = check_template_source(source, env)
    if refused:
        return refused[:1]
    try:
        depth = loop_depth(env.parse(source))
        if depth > MAX_LOOP_DEPTH:
            return [f"text nests {depth} loops (at most {MAX_LOOP_DEPTH})"]
        env.render_limited(env.from_string(source), {name: "Sample" for name in names})
    except TemplateError as exc:
        return [f"text rejected by the sandbox: {' '.join(str(exc).split())}"]
    except TextLimitError as exc:
        return [str(exc)]
    except (TypeError, ValueError, ArithmeticError):
        pass  # the sample words are not the parameters' real types: only the limits are checked here
    return []


Piece = tuple[str, str, Callable[[Any], Any] | None, Callable[[Any], Any] | None]  # data, slot, filter, finalize


class CompiledText:
    """A question text compiled once: a jinja2 template and, when the text is only words and slots (``{{ X }}``,
    ``{{ D | most }}``: no tags, literals or filter arguments), the pieces that join into what jinja2 prints, so
    the thousands of renders of a build skip jinja2's per-render context. Anything else renders through jinja2."""

    def __init__(self, template: Any, pieces: tuple[Piece, ...] | None) -> None:
        self.template, self.pieces = template, pieces

    def plain(self, values: dict[str, Any]) -> str | None:
        """The text joined from its pieces, as jinja2 prints it (``str(finalize(filter(value)))`` per slot); None
        when the text is not plain or a slot has no value (jinja2 then decides)."""
        if self.pieces is None:
            return None
        out = []
        for data, slot, fn, finalize in self.pieces:
            if not slot:
                out.append(data)
                continue
            if slot not in values:
                return None
            value = values[slot] if fn is None else fn(values[slot])
            out.append(str(value if finalize is None else finalize(value)))
        return "".join(out)


def _plain_pieces(env: SandboxedEnvironment, tree: nodes.Template) -> tuple[Piece, ...] | None:
    """The pieces of a parsed text made only of words and ``{{ name }}`` / ``{{ name | filter }}`` slots (a
    filter that takes no context and no arguments); None otherwise."""
    pieces: list[Piece] = []
    finalize = env.finalize
    for output in tree.body:
        if not isinstance(output, nodes.Output):
            return None
        for node in output.nodes:
            if isinstance(node, nodes.TemplateData):
                pieces.append((node.data, "", None, None))
            elif isinstance(node, nodes.Name) and node.ctx == "load":
                pieces.append(("", node.name, None, finalize))
            elif (isinstance(node, nodes.Filter) and isinstance(node.node, nodes.Name) and not node.args
                  and not node.kwargs and node.dyn_args is None and node.dyn_kwargs is None
                  and node.name in env.filters and _PassArg.from_obj(env.filters[node.name]) is None):
                pieces.append(("", node.node.name, env.filters[node.name], finalize))
            else:
                return None
    return tuple(pieces)


TEXT_ENV = TextSandbox()
"""The one sandbox question texts are checked and rendered in."""
