"""Errors every floor may raise and the CLI turns into one clear line (kept free of heavy imports)."""

from __future__ import annotations


class BuildError(RuntimeError):
    """A build that cannot proceed as asked (e.g. the folder holds another config)."""


class DataError(ValueError):
    """A statistic's values cannot make what was asked (a table's cells, too few distinct values for a legend);
    the CLI names the table the values came from (:func:`mapgen.cli.sources.naming_table`)."""
