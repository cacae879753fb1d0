"""Pixel truth audit: a pixel-reading oracle that answers every question from the image, and an audit of
which questions are recoverable from pixels (and why not); the audit writes the oracle's answers as an ordinary
predictions file; and the legibility checks of every rendered map (:mod:`mapgen.audit.legibility`), whose failing
regions the build marks illegible before asking questions."""

from mapgen.audit.oracle import MapReading, OracleMap, answer, oracle_map, read_map

__all__ = ["MapReading", "OracleMap", "answer", "oracle_map", "read_map"]
