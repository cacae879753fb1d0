"""Indented JSON (mapgen.jsontext): the same bytes as ``json.dumps`` with ``indent``, ``sort_keys``,
``ensure_ascii`` and ``allow_nan=False``, for any JSON data, the keys ``json`` converts and the values it refuses."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mapgen.files import dumps_json
from mapgen.jsontext import dumps_indented

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
KEYS = st.text() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.booleans() | st.none()
DATA = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                    | st.dictionaries(st.text(), inner, max_size=4), max_leaves=40)


def _json(data: object, indent: int, sort_keys: bool, ensure_ascii: bool) -> str:
    return json.dumps(data, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(DATA, st.integers(0, 3), st.booleans(), st.booleans())
def test_the_same_text_as_json(data: object, indent: int, sort_keys: bool, ensure_ascii: bool) -> None:
    assert dumps_indented(data, indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii) == _json(
        data, indent, sort_keys, ensure_ascii)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(KEYS, SCALARS, max_size=6))
def test_keys_json_converts(data: dict) -> None:  # mixed key types cannot be sorted: unsorted, as json
    assert dumps_indented(data, 1) == _json(data, 1, False, True)


def test_what_json_refuses_is_refused() -> None:
    for bad in (math.nan, math.inf, -math.inf, {"a": [math.nan]}, {1.5: 1, math.inf: 2}):
        with pytest.raises(ValueError):
            dumps_indented(bad, 1)
    for bad in ({1, 2}, {"a": object()}, {(1, 2): 3}, b"x"):
        with pytest.raises(TypeError):
            dumps_indented(bad, 1)


def test_subclasses_are_written_as_their_base() -> None:
    class Name(str):
        pass

    class Big(int):
        pass

    data = {"s": Name("x"), "i": Big(3), "t": (1, [2, ()]), "e": {}, "l": []}
    assert dumps_indented(data, 1, sort_keys=True) == _json(data, 1, True, True)


def test_mapgen_writes_indented_json_through_it() -> None:
    data = {"b": [1, 2.5, None, True], "a": {"x": "é", "y": []}}
    assert dumps_json(data) == json.dumps(data, indent=1, sort_keys=True, allow_nan=False)
