"""What a map page may be: its size in pixels and where its legend may sit.

One leaf module (no imports) that the spec, map styles, build configs and the CLI all check against, so the
bounds are written once and a style or a command that checks them loads nothing heavy.
"""

from __future__ import annotations

#: Pixels a page may have per side (both bounds included).
MIN_PX, MAX_PX = 100, 4000
#: Where a legend may sit on the page.
LEGEND_POSITIONS = ("right", "left", "bottom", "top", "bottom-left", "bottom-right")


def size_ok(width: int, height: int) -> bool:
    """Whether a page of ``width`` x ``height`` pixels is within :data:`MIN_PX`-:data:`MAX_PX` per side."""
    return MIN_PX <= width <= MAX_PX and MIN_PX <= height <= MAX_PX
