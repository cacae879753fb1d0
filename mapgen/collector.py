"""The cyclic garbage collector paused for a block of work that makes many objects and frees few of them."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused(*, promote: bool = False) -> Iterator[None]:
    """Disable the cyclic garbage collector for the block, and enable it again afterwards if it was on.

    ``promote``: first move what the block made to the oldest generation (``freeze`` then ``unfreeze``), so that
    turning the collector back on does not sweep it at once as young objects; a later full collection still
    reaches it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if promote:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
