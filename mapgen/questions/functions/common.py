"""Small helpers the built-in functions share: valued members, ordering by level, ordinal words."""

from __future__ import annotations

from collections.abc import Iterable

from mapgen.questions.reading import Ctx, Invalid


def valued(ctx: Ctx, regions: Iterable[str]) -> list[str]:
    return [c for c in regions if ctx.lv(c) is not None]


def all_valued(ctx: Ctx, regions: Iterable[str]) -> list[str]:
    out = list(regions)
    if any(ctx.lv(c) is None for c in out):
        raise Invalid
    return out



def sorted_levels(ctx: Ctx, regions: Iterable[str], extreme: str) -> list[str]:
    vals = valued(ctx, regions)
    high = extreme.endswith("highest") or extreme in ("most", "largest")
    return sorted(vals, key=lambda c: (-ctx.level[c] if high else ctx.level[c], c))


ORDINALS = {"second": 1, "third": 2}


def position(extreme: str) -> int:
    """0 for highest/lowest, 1 for "second ...", 2 for "third ..."."""
    return ORDINALS.get(extreme.split(" ", 1)[0], 0)
