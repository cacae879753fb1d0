"""Locate files shipped with mapgen (``data/`` and ``templates/``) in a checkout or an installed wheel."""

from __future__ import annotations

import sys
from importlib import resources

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:  # Python 3.10 has it in importlib.abc only
    from importlib.abc import Traversable


def data_path(*parts: str) -> Traversable:
    """Return a path inside the shipped ``data/`` folder."""
    node = resources.files("mapgen._data")
    for part in parts:
        node = node / part
    return node


def template_path(*parts: str) -> Traversable:
    """Return a path inside the shipped ``templates/`` folder."""
    node = resources.files("mapgen._templates")
    for part in parts:
        node = node / part
    return node


def config_path(*parts: str) -> Traversable:
    """Return a path inside the shipped ``configs/`` folder."""
    node = resources.files("mapgen._configs")
    for part in parts:
        node = node / part
    return node
