"""The report's "worst cases" page (``worst.html``): the maps a person should look at first, from the legibility
checks of an audit folder (``maps.jsonl`` written by ``mapgen audit``, :mod:`mapgen.audit.legibility`).

Sections, :data:`WORST_N` maps each, every row a thumbnail linking to the map's view in ``index.html``:
smallest fill/background ΔE, smallest class/class ΔE, densest callouts, smallest region-label height, and every
map failing a check (with the regions it made illegible).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mapgen.benchmark import AUDIT_MAPS_FILE, image_rel
from mapgen.files import read_jsonl

WORST_N = 12


@dataclass(frozen=True)
class Section:
    """One ranking: title, what the figure is, the metric key, and whether small is bad."""

    title: str
    figure: str
    key: str
    ascending: bool
    note: Callable[[dict[str, Any]], str]


SECTIONS = (
    Section("Smallest ΔE between a region's fill and the background", "CIEDE2000", "min_background_de", True,
            lambda m: f"region {m.get('min_background_region')}"),
    Section("Smallest ΔE between two legend classes", "CIEDE2000", "min_class_de", True,
            lambda m: "classes " + " and ".join("N/A" if c is None else str(c + 1)
                                                 for c in m.get("closest_classes") or [])),
    Section("Densest callouts", "callouts", "callouts", False,
            lambda m: f"of {m.get('labels')} labels"),
    Section("Smallest region labels", "px tall", "min_label_px", True,
            lambda m: f"region {m.get('min_label_region')}"),
)


def legibility_rows(audit_dir: Path) -> list[dict[str, Any]]:
    """Per map of the audit: id, image, variant and its legibility checks (maps audited before the checks
    existed are left out)."""
    rows = []
    for m in read_jsonl(audit_dir / AUDIT_MAPS_FILE, missing_ok=True):
        if "legibility" in m:
            rows.append({"id": m["map_id"], "image": image_rel(m["map_id"]), "variant": m.get("variant") or "",
                         "country": m.get("country") or "", **m["legibility"]})
    return rows


def ranked(rows: list[dict[str, Any]], section: Section, n: int = WORST_N) -> list[dict[str, Any]]:
    """The ``n`` worst maps of a section (maps without the figure — e.g. no labels — left out; ties by id)."""
    have = [r for r in rows if r["metrics"].get(section.key) is not None]
    sign = 1 if section.ascending else -1
    have.sort(key=lambda r: (sign * r["metrics"][section.key], r["id"]))
    return [{"id": r["id"], "image": r["image"], "variant": r["variant"], "value": r["metrics"][section.key],
             "note": section.note(r["metrics"]), "flags": r["flags"]} for r in have[:n]]


def worst_cases(audit_dir: Path, n: int = WORST_N) -> dict[str, Any]:
    """Everything ``worst.html`` shows: ranked sections and the flagged maps."""
    rows = legibility_rows(audit_dir)
    flagged = [{"id": r["id"], "image": r["image"], "variant": r["variant"], "flags": r["flags"],
                "regions": r["failed_regions"]} for r in rows if r["flags"]]
    sections = [{"title": s.title, "figure": s.figure, "rows": ranked(rows, s, n)} for s in SECTIONS]
    return {"maps": len(rows), "sections": sections, "flagged": flagged}
