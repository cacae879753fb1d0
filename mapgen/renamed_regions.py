"""The name dictionary of a renamed map, from spec data alone.

A counterfactual spec's ``counterfactual`` mapping holds ``names`` (code → name shown on the map) and
``labels`` (code → code drawn on it). Pure: :mod:`mapgen.counterfactual` writes dictionaries with it and the
eval's prompts read a map JSON's spec with it, neither importing the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def renamed_regions(counterfactual: Mapping[str, Any] | None, real_names: Mapping[str, str]) -> dict[str, Any]:
    """Real name → ``{code, name, label}`` (name shown and code drawn on the map) of every region a
    counterfactual renames; ``{}`` when the names are real. ``real_names`` maps codes to real names, in order."""
    names = (counterfactual or {}).get("names") or {}
    labels = (counterfactual or {}).get("labels") or {}
    return {real: {"code": c, "name": names[c], "label": labels.get(c, c)} for c, real in real_names.items()
            if c in names}
