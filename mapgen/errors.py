"""Errors every floor may raise and the CLI turns into one clear line (kept free of heavy imports)."""

from __future__ import annotations


class BuildError(RuntimeError):
    """A build that cannot proceed as asked (e.g. the folder holds another config)."""
