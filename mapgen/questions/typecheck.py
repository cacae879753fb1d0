"""Typed checks of a template's program: every call against the function's declared signature, literals and
parameter values against their types' allowed values, the result against the template's ``answer_type``.

Types are the names :func:`mapgen.questions.functions.register` declares (``Region``, ``Regions``,
``LegendClass``, ``Bool`` …). A literal ``2`` is an ``Int``, ``2.5`` a ``Number``, ``'north'`` a ``Str``. Text
types (:data:`ALLOWED_VALUES`) accept a ``Str`` literal or a ``Choice`` parameter only when every value is one
of theirs, so ``'biggest'`` where an Extreme is expected fails here instead of being read as "lowest".
Every problem is one line ending in the fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mapgen.questions.functions import FUNCTIONS
from mapgen.suggest import did_you_mean

_EXTREME = ("highest", "lowest", "second highest", "second lowest", "third highest", "third lowest")
#: Values of the text types (what the library's functions read; anything else would be misread).
ALLOWED_VALUES: dict[str, tuple[str, ...]] = {
    "Direction": ("north", "south", "east", "west"),
    "Comparison": ("higher", "lower", "similar", "above", "below"),
    "Side": ("above", "below", "higher", "lower"),
    "Extreme": _EXTREME,
    "Shade": ("darkest", "lightest", "second darkest", "second lightest"),
    "Relation": ("at least", "only", "none"),
    "Closeness": ("same", "closest", "most different"),
    "ClassKey": ("level", "width", "regions"),
    "LegendFlag": ("darker_is_higher", "single_hue", "percent"),
    "LegendTrait": ("kind", "spacing"),
}
#: Functions that read more values of a text type than the type's own (function, argument index) -> values.
EXTRA_VALUES: dict[tuple[str, int], tuple[str, ...]] = {}
#: Types a value of another type may stand for (``N`` and ``Int`` literals are numbers, and so on).
WIDER: dict[str, tuple[str, ...]] = {
    "Number": ("N", "Int"), "N": ("Int",), "Int": ("N",), "Choice": ("Str",), "Str": ("Choice",),
    "Set": ("Regions", "Pair", "LegendClasses"), "Value": ("Number", "N", "Int"),
}  # fmt: skip
#: What a parameter's ``from:`` must give: a list of candidates of the parameter's type.
CANDIDATES: dict[str, str] = {"Region": "Regions", "LegendClass": "LegendClasses", "Number": "Numbers"}
#: Result types each answer type can format.
ANSWER_RESULTS: dict[str, tuple[str, ...]] = {
    "binary": ("Bool",), "count": ("Int",), "single": ("Region", "Number", "Str"), "list": ("Regions", "Pair"),
    "range": ("LegendClass", "Range"), "ranking": ("Ranking",),
}  # fmt: skip

Binding = tuple[str, tuple[Any, ...], str]  # (type, values known, what it is: "parameter X" / "step s")


def unknown_keys(mapping: Mapping[str, Any], valid: Iterable[str], what: str) -> list[str]:
    """One problem per key of ``mapping`` that is not valid, naming the closest valid keys (else the valid ones)."""
    valid = sorted(valid)
    return [f"{what} has unknown key {k!r}{did_you_mean(k, valid)}" for k in mapping if k not in valid]


def accepts(expected: str, got: str) -> bool:
    """Whether a value of type ``got`` may be passed where ``expected`` is declared."""
    if expected == got or "Any" in (expected, got):
        return True
    if expected in ALLOWED_VALUES:
        return got in ("Str", "Choice")
    return got in WIDER.get(expected, ())


def givers(kind: str, limit: int = 5) -> str:
    """A few functions whose result has type ``kind`` (for a fix hint)."""
    names = [f"{f.name}({', '.join(f.args)})" for f in sorted(FUNCTIONS.values(), key=lambda f: (len(f.args), f.name))
             if f.returns == kind]
    return ", ".join(names[:limit]) + (", …" if len(names) > limit else "") if names else "none"


def check_param_values(name: str, ptype: str, values: Sequence[Any]) -> list[str]:
    """A parameter's listed values against its type's allowed values."""
    allowed = ALLOWED_VALUES.get(ptype)
    if allowed is None:
        return []
    bad = [v for v in values if v not in allowed]
    return [f"parameter {name!r}: {v!r} is not one of the {ptype} values{did_you_mean(v, allowed)}" for v in bad]


def check_template_types(params: Sequence[Any], program: Sequence[tuple[str, Any]], constraints: Sequence[Any],
                         answer_type: str) -> list[str]:
    """Every typing problem of a template's parameters, program and constraints (see the module docstring)."""
    env: dict[str, Binding] = {}
    errs: list[str] = []
    for p in params:
        errs += check_param_values(p.name, p.type, p.values)
        if p.source is not None:
            kind, problems = infer(p.source, env, f"parameter {p.name!r} (from)")
            errs += problems
            want = CANDIDATES.get(p.type, p.type)
            if kind and not accepts(want, kind):
                errs.append(f"parameter {p.name!r} (from): gives {kind}, a {p.type} parameter needs {want}; "
                            f"use a function giving {want}: {givers(want)}")
        env[p.name] = (p.type, tuple(p.values), f"parameter {p.name}")
    result = None
    for name, node in program:
        result, problems = infer(node, env, f"step {name!r}")
        errs += problems
        env[name] = (result or "Any", (), f"step {name}")
    for i, node in enumerate(constraints, 1):
        kind, problems = infer(node, env, f"constraint {i}")
        errs += problems
        if kind and not accepts("Bool", kind):
            errs.append(f"constraint {i}: gives {kind}, a constraint must give Bool; use a test such as equals(…)")
    answer = env.get("answer", (result, (), ""))[0]
    wanted = ANSWER_RESULTS.get(answer_type, ())
    if answer and wanted and answer != "Any" and answer not in wanted:
        fits = [a for a, kinds in ANSWER_RESULTS.items() if answer in kinds]
        errs.append(f"step 'answer': gives {answer}, but answer_type {answer_type!r} needs {' or '.join(wanted)}; "
                    + (f"write answer_type: {' or '.join(fits)}" if fits else f"end the program with a function "
                       f"giving {wanted[0]}: {givers(wanted[0])}"))
    return errs


def infer(node: tuple, env: Mapping[str, Binding], where: str) -> tuple[str | None, list[str]]:
    """The type of a program node and the typing problems inside it (None when unknown)."""
    if node[0] == "lit":
        value = node[1]
        return ("Str" if isinstance(value, str) else "Int" if isinstance(value, int) else "Number"), []
    if node[0] == "ref":
        return (env[node[1]][0] if node[1] in env else None), []
    fn = FUNCTIONS.get(node[1])
    errs: list[str] = []
    kinds = []
    for arg in node[2]:
        kind, problems = infer(arg, env, where)
        errs += problems
        kinds.append(kind)
    if fn is None or not fn.takes(len(node[2])):
        return None, errs  # unknown functions and arity are reported by the name check
    for i, (arg, want, got) in enumerate(zip(node[2], fn.arg_types(len(node[2])), kinds)):
        errs += _check_arg(node[1], i, arg, want, got, env, where)
    return fn.returns, errs


def _check_arg(name: str, i: int, arg: tuple, want: str, got: str | None, env: Mapping[str, Binding],
               where: str) -> list[str]:
    """Problems of argument ``i`` of a call to ``name``: its type, then its values for a text type."""
    call = f"{where}: {name}() argument {i + 1} ({want})"
    shown = _shown(arg)
    if got is not None and not accepts(want, got):
        origin = f" ({env[arg[1]][2]})" if arg[0] == "ref" and arg[1] in env else ""
        fix = (f"write one of {', '.join(repr(v) for v in _allowed(name, i, want))}" if want in ALLOWED_VALUES
               else f"give a {want} value, e.g. from {givers(want)}")
        return [f"{call} gets {shown} of type {got}{origin}; {fix}"]
    allowed = _allowed(name, i, want)
    if not allowed:
        return []
    values: tuple[Any, ...] = ()
    if arg[0] == "lit":
        values = (arg[1],)
    elif arg[0] == "ref" and arg[1] in env and (env[arg[1]][0] != want or want not in ALLOWED_VALUES):
        # a parameter of a text type is checked itself (check_param_values)
        values = env[arg[1]][1]
    return [f"{call} gets {v!r}, which {name}() would misread{did_you_mean(v, allowed)}" for v in values
            if v not in allowed]


def _shown(node: tuple) -> str:
    """A node as the template writes it (calls shortened)."""
    if node[0] == "call":
        return f"{node[1]}(…)"
    return repr(node[1]) if node[0] == "lit" and isinstance(node[1], str) else str(node[1])


def _allowed(name: str, i: int, want: str) -> tuple[str, ...]:
    return ALLOWED_VALUES.get(want, ()) + EXTRA_VALUES.get((name, i), ())
