"""The function registry and its public decorator :func:`register` (``from mapgen.questions import register``).

Every function of the library — built-in or defined in a template pack's ``functions.py`` — is registered by
this one decorator, which records its argument and result types (for lint and ``mapgen templates functions``)
and applies the reading-tolerance rule of :mod:`mapgen.questions.reading`: a decision the function asked for that
is undefined within the tolerance raises :class:`~mapgen.questions.reading.Invalid`, and the registered function
returns :data:`~mapgen.questions.reading.INVALID` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from mapgen.questions.reading import INVALID, Invalid, Reading, _Invalid

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Function:
    """A library function with its argument and result types (for lint and docs)."""

    name: str
    fn: Callable[..., Any]
    args: tuple[str, ...]
    returns: str
    doc: str
    relative: bool = False  # uses the border graph (makes a question "relative_region")


#: Every registered function by name (what template programs call).
FUNCTIONS: dict[str, Function] = {}


def guarded(fn: Callable[P, R]) -> Callable[P, R | _Invalid]:
    """``fn`` returning :data:`INVALID` where it (or a reading decision it asked for) raises :class:`Invalid`."""

    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R | _Invalid:
        try:
            return fn(*args, **kwargs)
        except Invalid:
            return INVALID

    wrapped.__name__, wrapped.__qualname__, wrapped.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    wrapped.__module__ = fn.__module__
    wrapped.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapped


def register(
    args: tuple[str, ...] | str, returns: str, relative: bool = False, name: str | None = None
) -> Callable[[Callable[P, R]], Callable[P, R | _Invalid]]:
    """Register a question function under its Python name (or ``name``), with its argument and result types.

    ``args`` are the parameter types after the :class:`~mapgen.questions.reading.Reading` (a space-separated
    string or a tuple; ``""`` for none): ``Region``, ``Regions``, ``RegionGroup``, ``LegendClass``, ``Number``,
    ``Value``, ``Int``, ``Bool``, ``Comparison``, ``Extreme``, ``Direction``, ``Choice``, ``N``, ``LegendClasses``,
    ``ClassKey``, ``Set`` (any set: ``Regions``, ``Pair`` or ``LegendClasses``), ``Any``, ...;
    ``returns`` is the result type; ``relative=True`` marks a function that reads the border graph (its
    questions are ``relative_region``). The decorated function is returned guarded: a decision of the reading
    API that is undefined within the tolerance makes it return :data:`~mapgen.questions.reading.INVALID`.

    A complete pack function (in a pack's ``functions.py``)::

        from mapgen.questions import register

        @register("Region Region Number", "Bool")
        def differ_by_at_least(scene, a, b, amount):
            \"\"\"Whether the values of ``a`` and ``b`` differ by at least ``amount`` (value units).\"\"\"
            gap = scene.estimate(a).minus(scene.estimate(b)).magnitude()
            return gap.above(amount)   # INVALID when a reading within the tolerance could say either

    and a template calls it as ``differ_by_at_least(X, Y, N)``.
    """
    arg_types = tuple(args.split()) if isinstance(args, str) else tuple(args)

    def deco(fn: Callable[P, R]) -> Callable[P, R | _Invalid]:
        safe = guarded(fn)
        key = name or fn.__name__
        _check_free(key, fn)
        FUNCTIONS[key] = Function(key, safe, arg_types, returns, (fn.__doc__ or "").strip(), relative)
        return safe

    return deco


PACK_MODULE_PREFIX = "mapgen_pack_"
"""The module names under which :mod:`mapgen.questions.packs` imports a pack's ``functions.py``: the pack loader
judges their names itself after the import (naming both owners, restoring the first), so they are let through."""


def _check_free(key: str, fn: Callable[..., Any]) -> None:
    """A name belongs to one function: registering another module's function under a taken name is an error
    (re-registering the same function, as a re-imported module does, replaces it; a pack's functions are checked
    by the pack loader)."""
    old = FUNCTIONS.get(key)
    if old is None or fn.__module__.startswith(PACK_MODULE_PREFIX):
        return
    prev = getattr(old.fn, "__wrapped__", old.fn)
    if (prev.__module__, prev.__qualname__) != (fn.__module__, fn.__qualname__):
        raise ValueError(f"a question function named {key!r} is already registered (by {prev.__module__}); "
                         "choose another name")


def call(ctx: Reading, name: str, *args: Any) -> Any:
    """Call a library function by name."""
    return FUNCTIONS[name].fn(ctx, *args)
