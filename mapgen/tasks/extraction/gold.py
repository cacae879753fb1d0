"""Gold tables for the table-extraction task: the whole map read back as ``region → class`` or ``region → value``.

One record per rendered map (``extraction.jsonl``), computed from the Scene alone (ARCHITECTURE.md §1):

- ``rows``: every *legible* region (pixel facts, :attr:`RegionFacts.legible`) in map order, each with its display
  name (``region``), every spelling a reader may use (``accepted``: the names in the map's language first on maps
  whose questions are asked in another language, then the map's name, the atlas's code and aliases, the label drawn
  on the map; counterfactual renamed maps accept only their own names) and
  *discrete / hatched maps*: ``class``, the legend label of its class exactly as printed, ``"N/A"`` for a region
  without data (the legend shows an N/A swatch then);
  *continuous maps*: ``value``, the region's value clipped to the colour bar ``[vmin, vmax]`` (what a reader can
  read off it), ``None`` for a region without data (gold ``"N/A"``).
- ``omitted``: illegible regions (too small to read) with their spellings: a reply may name them, they are
  neither rewarded nor counted as wrong.
- ``classes`` (discrete: the legend labels, lowest class first, ``"N/A"`` appended when a region has no data),
  ``vmin``/``vmax``/``tolerance`` (continuous: the reading tolerance in value units,
  :data:`~mapgen.scene.PERCEPTUAL_TOLERANCE` × span — the tolerance the questions use).
- ``ground_truth``: the gold table as the Markdown table the prompt asks for.
"""

from __future__ import annotations

import math
from typing import Any

from mapgen.describe.wording import load_wordings, render_text
from mapgen.legend.grammar import NA_LABEL, format_value
from mapgen.scene import PERCEPTUAL_TOLERANCE, RegionFacts, Scene

TASK = "extraction"


def table_id(map_id: str) -> str:
    """The record id of a map's gold table."""
    return f"{map_id}-table"


def bar_value(scene: Scene, region: RegionFacts) -> float | None:
    """A region's value as the colour bar shows it (clipped to ``[vmin, vmax]``); None for N/A."""
    if region.missing:
        return None
    lf = scene.legend_facts
    return float(min(max(region.value, lf.vmin), lf.vmax))


def gold_row(scene: Scene, code: str) -> dict[str, Any]:
    """One row of the gold table."""
    r = scene.regions[code]
    row: dict[str, Any] = {"code": code, "region": r.name, "accepted": scene.local_spellings(code)}
    if scene.map_type == "discrete":
        row["class"] = NA_LABEL if r.missing else r.class_label
    else:
        row["value"] = bar_value(scene, r)
    return row


def legend_fields(scene: Scene) -> dict[str, Any]:
    """Legend facts a scorer needs: class labels (discrete) or the bar's ends and reading tolerance."""
    lf = scene.legend_facts
    if scene.map_type == "discrete":
        classes = [c.label for c in scene.legend.classes]
        if any(r.missing for r in scene.regions.values()):
            classes.append(NA_LABEL)
        return {"classes": classes}
    span = float(lf.vmax - lf.vmin)
    return {"vmin": float(lf.vmin), "vmax": float(lf.vmax), "percent": bool(lf.percent),
            "tolerance": PERCEPTUAL_TOLERANCE * span, "tolerance_share": PERCEPTUAL_TOLERANCE}


def cell_text(row: dict[str, Any], percent: bool = False) -> str:
    """The gold cell of a row as printed in a reply (class label, value, or ``N/A``)."""
    if "class" in row:
        return str(row["class"])
    value = row.get("value")
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NA_LABEL
    return format_value(float(value), percent=percent, style="plain", decimals=_decimals(value))


def _decimals(value: float) -> int:
    """Decimals that keep 4 significant digits (readings need far less: the tolerance is 5 % of the bar)."""
    magnitude = math.floor(math.log10(abs(value))) if value else 0
    return max(0, 3 - magnitude)


def markdown(record: dict[str, Any]) -> str:
    """The gold table as a two-column Markdown table (the prompt's requested format)."""
    column = "Class" if record["map_type"] == "discrete" else "Value"
    lines = [f"| Region | {column} |", "| --- | --- |"]
    lines += [f"| {r['region']} | {cell_text(r, record.get('percent', False))} |" for r in record["rows"]]
    return "\n".join(lines)


def gold_table(scene: Scene) -> dict[str, Any]:
    """The gold-table record of one rendered map (see the module doc); needs pixel facts for legibility."""
    if any(r.pixels is None for r in scene.regions.values()):
        raise ValueError(f"Scene {scene.map_id!r} has no pixel facts: render the map before making its gold table.")
    legible = set(scene.legible())
    record: dict[str, Any] = {
        "question_id": table_id(scene.map_id),
        "map_id": scene.map_id,
        "type": TASK,
        "question": render_text(load_wordings("tasks")["extraction_question"][scene.map_type],
                                region=scene.region_word),
        "map_type": scene.map_type,
        "hatched": bool(scene.hatched),
        "annotated": bool(scene.annotated),
        "region_word": scene.region_word,
        **legend_fields(scene),
        "rows": [gold_row(scene, c) for c in scene.codes if c in legible],
        "omitted": [{"code": c, "region": scene.regions[c].name, "accepted": scene.local_spellings(c)}
                    for c in scene.codes if c not in legible],
    }
    record["ground_truth"] = markdown(record)
    return record
