"""mapgen: reproducible choropleth-map benchmarks for vision-language models."""

from mapgen.geo.atlas import Atlas, RegionGroup, list_atlases, load_atlas
from mapgen.geo.names import UnknownNameError, UnknownRegionError

__version__ = "0.1.0"

__all__ = ["Atlas", "RegionGroup", "UnknownNameError", "UnknownRegionError", "list_atlases", "load_atlas"]
