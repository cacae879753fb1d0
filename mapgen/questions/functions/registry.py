"""The function registry and its public decorator :func:`register` (``from mapgen.questions import register``).

Every function of the library — built-in or defined in a template pack's ``functions.py`` — is registered by
this one decorator, which records its argument and result types (for lint and ``mapgen templates functions``)
and applies the reading-tolerance rule of :mod:`mapgen.questions.reading`: a decision the function asked for that
is undefined within the tolerance raises :class:`~mapgen.questions.reading.Invalid`, and the registered function
returns :data:`~mapgen.questions.reading.INVALID` instead.

A name belongs to one function and the registry records whose it is (:class:`Owner`: a module, or a template
pack while :func:`pack_functions` imports its ``functions.py``); :func:`name_taken` is the one rule for a taken
name: a module's function is refused with a ValueError, a pack's is left out and its refusal handed to the pack
loader (:mod:`mapgen.questions.packs`), which reports it as a lint problem. A pack's function is registered
fenced (:mod:`mapgen.questions.fence`): each call's prints go to stderr, an exception, an exit or a breach of the
budget becomes one :class:`~mapgen.questions.fence.PackCodeError` line naming the pack and the function, and its
result is held to its declared type. :func:`watched` lists what a pack's import must leave alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from mapgen.questions.fence import Slot, check_result, fenced, function_slots
from mapgen.questions.reading import INVALID, Invalid, Reading, _Invalid

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Owner:
    """Who registered a function: a module (mapgen's own, or a user's), or a template pack (its name and the
    path of its ``functions.py``; every version and copy of a pack of that name is the same owner)."""

    module: str
    pack: str = ""
    path: str = ""

    def same(self, other: Owner) -> bool:
        """Whether ``other`` is this owner (the same pack, or the same module)."""
        return self.pack == other.pack if self.pack or other.pack else self.module == other.module

    def __str__(self) -> str:
        if self.pack:
            return f"pack {self.pack!r} ({self.path})"
        return f"{'the built-in' if self.module.startswith('mapgen.') else 'the'} module {self.module}"


#: The suffix of a last argument type the function takes any number of times (``"Region Region..."``).
VARIADIC = "..."


@dataclass(frozen=True)
class Function:
    """A library function with its argument and result types (for lint and docs) and its owner."""

    name: str
    fn: Callable[..., Any]
    args: tuple[str, ...]
    returns: str
    doc: str
    relative: bool = False  # uses the border graph (makes a question "relative_region")
    owner: Owner = Owner("")

    @property
    def variadic(self) -> bool:
        """Whether the last argument type ends in ``...`` (the function takes any number of those)."""
        return bool(self.args) and self.args[-1].endswith(VARIADIC)

    def takes(self, n: int) -> bool:
        """Whether a call may pass ``n`` arguments."""
        return n >= len(self.args) - 1 if self.variadic else n == len(self.args)

    def arg_types(self, n: int) -> tuple[str, ...]:
        """The declared type of each of ``n`` arguments (the variadic type repeated; ``n`` must be taken)."""
        if not self.variadic:
            return self.args
        fixed, rest = self.args[:-1], self.args[-1].removesuffix(VARIADIC)
        return fixed + (rest,) * (n - len(fixed))

    def arity(self) -> str:
        """How many arguments it takes, as a lint line says it (``2 arguments (Region, Region)``)."""
        n = len(self.args) - 1 if self.variadic else len(self.args)
        return f"{'at least ' if self.variadic else ''}{n} argument{'' if n == 1 else 's'} ({', '.join(self.args) or 'none'})"


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
    ``ClassKey``, ``Set`` (any set: ``Regions``, ``Pair`` or ``LegendClasses``), ``Any``, ...; the last type
    may end in ``...`` for any number of such arguments (``"Region Region..."``: one region or more, received
    as ``*codes``);
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
    if any(a.endswith(VARIADIC) for a in arg_types[:-1]):
        raise ValueError(f"argument types {' '.join(arg_types)!r}: only the last type may end in {VARIADIC!r}")

    def deco(fn: Callable[P, R]) -> Callable[P, R | _Invalid]:
        safe = guarded(fn)
        key = name or fn.__name__
        owner, refused = _owner_of(fn)
        problem = name_taken(key, fn, owner)
        if problem is None:
            called = _fenced(safe, owner, key, returns) if owner.pack else safe
            FUNCTIONS[key] = Function(key, called, arg_types, returns, (fn.__doc__ or "").strip(), relative, owner)
        elif refused is None:
            raise ValueError(problem)
        else:
            refused.append(problem)
        return safe

    return deco


def _fenced(fn: Callable[..., Any], owner: Owner, name: str, returns: str) -> Callable[..., Any]:
    """A pack's function ``fn`` called in the fence of pack code, its result checked against ``returns``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        with fenced(owner.pack, owner.path, f"function {name!r}"):
            value = fn(*args, **kwargs)
        if value is not INVALID:
            check_result(owner.pack, name, returns, value)
        return value

    call.__name__, call.__qualname__, call.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    call.__module__ = fn.__module__
    call.__wrapped__ = getattr(fn, "__wrapped__", fn)  # type: ignore[attr-defined]
    return call


def watched(owner: Owner) -> list[Slot]:
    """What ``owner`` (a pack being imported) must leave alone: every function registered by someone else (its
    entry, its code, defaults and closure)."""
    out = []
    for name, f in FUNCTIONS.items():
        if f.owner.same(owner):
            continue
        label = f"function {name!r} of {f.owner}"
        out += [Slot(label, FUNCTIONS, name, f, item=True), *function_slots(f.fn, label)]
    return out


_PACKS: list[tuple[Owner, list[str]]] = []  # the packs whose functions.py is being imported, with their refusals


@contextmanager
def pack_functions(module: str, pack: str, path: str) -> Iterator[list[str]]:
    """While the block imports a pack's ``functions.py`` as ``module``, its functions are registered as the
    pack's; yields the refusals (one line each, :func:`name_taken`), which the block's import does not stop."""
    refused: list[str] = []
    _PACKS.append((Owner(module, pack, path), refused))
    try:
        yield refused
    finally:
        _PACKS.pop()


def _owner_of(fn: Callable[..., Any]) -> tuple[Owner, list[str] | None]:
    """The owner of a function being registered and, for a pack's, where its refusal goes."""
    for owner, refused in reversed(_PACKS):
        if owner.module == fn.__module__:
            return owner, refused
    return Owner(fn.__module__), None


def name_taken(key: str, fn: Callable[..., Any], owner: Owner) -> str | None:
    """Why ``owner`` may not register ``fn`` as ``key`` (one line naming both owners and the fix), or None: a
    name belongs to one function; its own owner registering it again (a re-imported module, a pack's new version
    or its copy in a build) replaces it."""
    old = FUNCTIONS.get(key)
    if old is None or (old.owner.same(owner) and (owner.pack or _qualname(old.fn) == fn.__qualname__)):
        return None
    return (f"function {key!r} of {owner} is already registered by {old.owner}; rename it (every function: "
            "`mapgen templates functions`)")


def _qualname(fn: Callable[..., Any]) -> str:
    return str(getattr(fn, "__wrapped__", fn).__qualname__)


def call(ctx: Reading, name: str, *args: Any) -> Any:
    """Call a library function by name."""
    return FUNCTIONS[name].fn(ctx, *args)
