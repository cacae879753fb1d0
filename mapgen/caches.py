"""Every process-wide cache, one kind of thing: bounded, keyed by value or by the identity of a live object, and
cleared together by :func:`clear_all` (tests, notebooks, a long-lived worker between builds).

- :func:`memo` — a bounded ``functools.lru_cache`` of a pure function (arguments are the key, by value).
- :class:`ValueCache` — a bounded LRU mapping for caches filled by hand (``get_or_make(key, make)``).
- :class:`ObjectCache` — facts computed from one object (a canvas, a scene, a question): held by a weak reference
  to the object where it allows one, else with the object itself, and found only for that very object (an
  ``id()`` reused by a new object never hits an old entry).

Each cache is registered by name when made (:func:`caches` lists them with their sizes). The on-disk canvas cache
is :mod:`mapgen.render.canvas_cache`.
"""

from __future__ import annotations

import functools
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, Protocol, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])

#: Entries a cache holds unless told otherwise.
DEFAULT_SIZE = 256


class _Clearable(Protocol):
    def cache_clear(self) -> None: ...


_ALL: dict[str, _Clearable] = {}


def _register(name: str, cache: _Clearable) -> None:
    if name in _ALL and _ALL[name] is not cache:
        name = f"{name}#{sum(n.split('#')[0] == name for n in _ALL)}"
    _ALL[name] = cache


def clear_all() -> None:
    """Empty every registered cache."""
    for cache in _ALL.values():
        cache.cache_clear()


def clear(*names: str) -> None:
    """Empty the registered caches of these names (:func:`caches`; unknown names are skipped)."""
    for name in names:
        if name in _ALL:
            _ALL[name].cache_clear()


def caches() -> dict[str, int]:
    """Every registered cache by name with the number of entries it holds."""
    return {name: _size(cache) for name, cache in _ALL.items()}


def _size(cache: Any) -> int:
    info = getattr(cache, "cache_info", None)
    return info().currsize if info is not None else len(cache)


def memo(maxsize: int = DEFAULT_SIZE) -> Callable[[F], F]:
    """``functools.lru_cache(maxsize)`` registered with :func:`clear_all` (decorate a pure function)."""
    def decorate(fn: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        _register(f"{fn.__module__}.{fn.__qualname__}", cached)
        return cached  # type: ignore[return-value]

    return decorate


class ValueCache(Generic[K, V]):
    """A bounded mapping by value that forgets its least recently used entry when full."""

    def __init__(self, name: str, maxsize: int = DEFAULT_SIZE) -> None:
        self.maxsize = maxsize
        self._data: OrderedDict[K, V] = OrderedDict()
        _register(name, self)

    def get(self, key: K) -> V | None:
        if key not in self._data:
            return None
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key: K, value: V) -> V:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.maxsize:
            self._data.popitem(last=False)
        return value

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value held for ``key``, made (and kept) when there is none."""
        if key in self._data:
            self._data.move_to_end(key)
            return self._data[key]
        return self.put(key, make())

    def values(self) -> list[V]:
        """The values held, least recently used first."""
        return list(self._data.values())

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def cache_clear(self) -> None:
        self._data.clear()


class ObjectCache(Generic[V]):
    """A bounded cache of facts about live objects, found only for the very object they were made from."""

    def __init__(self, name: str, maxsize: int = DEFAULT_SIZE) -> None:
        self._entries: ValueCache[tuple[int, Hashable], tuple[Callable[[], Any], V]] = ValueCache(name, maxsize)

    def get_or_make(self, obj: Any, make: Callable[[], V], key: Hashable = None) -> V:
        """The value held for ``obj`` (and ``key``), made from it when there is none or its holder died."""
        slot = (id(obj), key)
        entry = self._entries.get(slot)
        if entry is not None and entry[0]() is obj:
            return entry[1]
        return self._entries.put(slot, (_reference(obj), make()))[1]

    def values(self) -> list[V]:
        """The values held, least recently used first."""
        return [value for _ref, value in self._entries.values()]

    def __len__(self) -> int:
        return len(self._entries)


def _reference(obj: Any) -> Callable[[], Any]:
    """A weak reference to ``obj``, or (for objects that allow none) a callable holding it."""
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda: obj
