"""A question's answer does not depend on the order a set's members come in: a Dask worker is a fresh
interpreter with its own hash seed, so a frozenset of regions iterates differently there than in the build
process (found by a cluster build of the train config that differed from the local one in 2 of 120 units)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from mapgen.questions.functions import values


def test_means_relation_sums_a_set_the_same_in_any_order(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []

    def relation(ctx: Any, d: float, cmp: str, mids: float | None = None) -> bool:
        seen.append(d)
        return True

    monkeypatch.setattr(values, "_mean_relation", relation)
    level = {"a": 0.1, "b": 0.2, "c": 0.3, "x": 0.0, "y": 0.0}  # (0.1 + 0.2) + 0.3 != (0.3 + 0.2) + 0.1
    ctx: Any = SimpleNamespace(level=level, lv=level.get, discrete=False)
    for order in (["a", "b", "c"], ["c", "b", "a"]):
        values.means_relation(ctx, order, "higher", ["x", "y"])
    assert seen[0] == seen[1]
