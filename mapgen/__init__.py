"""mapgen: reproducible choropleth-map benchmarks for vision-language models."""

from __future__ import annotations

from typing import Any

from mapgen.geo.names import UnknownNameError, UnknownRegionError

__version__ = "0.1.0"

__all__ = ["Atlas", "RegionGroup", "UnknownNameError", "UnknownRegionError", "list_atlases", "load_atlas"]

_ATLAS_NAMES = frozenset({"Atlas", "RegionGroup", "list_atlases", "load_atlas"})


def __getattr__(name: str) -> Any:
    """``mapgen.load_atlas`` and friends, imported on first use (``import mapgen`` stays light)."""
    if name in _ATLAS_NAMES:
        from mapgen.geo import atlas

        return getattr(atlas, name)
    raise AttributeError(f"module 'mapgen' has no attribute {name!r}")
