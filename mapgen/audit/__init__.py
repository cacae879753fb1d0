"""Pixel truth audit: a pixel-reading oracle that answers every question from the image, and an audit of
which questions are recoverable from pixels (and why not)."""

from mapgen.audit.oracle import (
    MapReading,
    OracleMap,
    oracle_map,
    oracle_predictions,
    pixel_baseline,
    read_map,
)

__all__ = ["MapReading", "OracleMap", "oracle_map", "oracle_predictions", "pixel_baseline", "read_map"]
