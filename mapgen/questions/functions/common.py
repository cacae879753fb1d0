"""Small helpers the built-in functions share: valued members, ordering by level, ordinal words."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from mapgen.questions.reading import Invalid, Reading


def valued(ctx: Reading, regions: Iterable[str]) -> list[str]:
    """The regions with a value, in order (every one is read)."""
    pool = list(regions)
    ctx.reads.update(pool)
    level = ctx.level
    return [c for c in pool if level[c] is not None]


def all_valued(ctx: Reading, regions: Iterable[str]) -> list[str]:
    """The regions, all of which must have a value (INVALID otherwise; read up to the first without one)."""
    out = list(regions)
    if any(ctx.lv(c) is None for c in out):
        raise Invalid
    return out


def known(ctx: Reading) -> dict[str, float]:
    """``ctx.level`` typed for regions already checked to have a level (by :func:`valued`, :func:`all_valued`,
    ``readable`` or ``ctx.lv``): the same dict, without the None of missing ones (index it with those only)."""
    return cast("dict[str, float]", ctx.level)


def sorted_levels(ctx: Reading, regions: Iterable[str], extreme: str) -> list[str]:
    vals = valued(ctx, regions)
    high = extreme.endswith("highest") or extreme in ("most", "largest")
    level = known(ctx)
    return sorted(vals, key=lambda c: (-level[c] if high else level[c], c))


ORDINALS = {"second": 1, "third": 2}


def position(extreme: str) -> int:
    """0 for highest/lowest, 1 for "second ...", 2 for "third ..."."""
    return ORDINALS.get(extreme.split(" ", 1)[0], 0)
