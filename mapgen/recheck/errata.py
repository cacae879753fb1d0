"""An errata a MAPWise user can load: MAPWise's own question table with mapgen's verdict beside each row.

:func:`write_errata` writes into a folder:

- ``errata.csv``: MAPWise's CSV exactly as released (its header, its column order, its trailing empty column)
  plus the columns :data:`ERRATA_COLUMNS` — ``verdict`` (agree / disagree / ambiguous / unparsed), ``reason``
  (for an ambiguous verdict its bucket first, :data:`~mapgen.recheck.reasons.AMBIGUOUS_BUCKETS`),
  ``mapgen_answer`` and ``evidence`` (the evidence image of a disagreement, relative to the folder);
- ``evidence/<map>_row<N>.png`` per disagreement: the map drawn by mapgen's renderer, cropped around the regions
  involved, above its legend;
- ``errata.md``: the disagreements by MAPWise template (question, MAPWise's answer, mapgen's, the deciding values).
"""

from __future__ import annotations

import io
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mapgen.files import write_bytes_atomic, write_text_atomic
from mapgen.recheck.importer import ImportedSet, read_csv_rows
from mapgen.recheck.verdicts import Verdict, csv_text
from mapgen.spec import MapSpec

ERRATA_COLUMNS = ("verdict", "reason", "mapgen_answer", "evidence")
"""Columns added after MAPWise's own."""
PAD = 24
"""Pixels of map kept around the regions involved."""


def errata_rows(source_csv: str | Path, verdicts: Sequence[Verdict], evidence: dict[int, str]
                ) -> tuple[list[str], list[list[str]]]:
    """MAPWise's header and rows with :data:`ERRATA_COLUMNS` appended (``evidence``: row → image path)."""
    header, rows = read_csv_rows(source_csv)
    by_row = {v.row: v for v in verdicts}
    out = []
    for i, row in enumerate(rows, start=1):
        v = by_row.get(i)
        cells = list(row) + [""] * (len(header) - len(row))
        if v is None:
            out.append(cells + ["", "", "", ""])
            continue
        reason = f"{v.bucket}: {v.reason}" if v.bucket else v.reason
        out.append(cells + [v.verdict, reason, v.our_answer or "", evidence.get(i, "")])
    return list(header) + list(ERRATA_COLUMNS), out


def _box(boxes: Iterable[Sequence[float]]) -> tuple[int, int, int, int] | None:
    """The union of (x0, y0, x1, y1) boxes, None for none."""
    found = [b for b in boxes if b and len(b) == 4]
    if not found:
        return None
    return (int(min(b[0] for b in found)), int(min(b[1] for b in found)), int(max(b[2] for b in found)) + 1,
            int(max(b[3] for b in found)) + 1)


def _legend_box(items: list[dict[str, Any]]) -> tuple[int, int, int, int] | None:
    """Where the legend is drawn: the colour bar or swatches with their labels."""
    boxes = []
    for item in items:
        for key in ("colorbar", "box", "swatch", "text_box", "bbox"):
            if isinstance(item.get(key), (list, tuple)) and len(item[key]) == 4:
                boxes.append(item[key])
    return _box(boxes)


def evidence_png(spec: MapSpec, codes: Sequence[str]) -> bytes:
    """The map drawn by mapgen's renderer, cropped around ``codes`` (the whole map when none is drawn), above
    its legend: PNG bytes."""
    from PIL import Image

    from mapgen.render import render

    with tempfile.TemporaryDirectory() as tmp:
        result = render(spec, Path(tmp) / "map.png")
        image = Image.open(io.BytesIO(result.png)).convert("RGB")
    pixels = [result.scene.regions[c].pixels for c in codes if c in result.scene.regions]
    around = _box(p["bbox"] for p in pixels if p and p.get("bbox"))
    w, h = image.size
    if around is None:
        around = (0, 0, w, h)
    crop = image.crop((max(0, around[0] - PAD), max(0, around[1] - PAD), min(w, around[2] + PAD),
                       min(h, around[3] + PAD)))
    legend = _legend_box(result.legend_items)
    parts = [crop]
    if legend is not None:
        parts.append(image.crop((max(0, legend[0] - 4), max(0, legend[1] - 4), min(w, legend[2] + 4),
                                 min(h, legend[3] + 4))))
    out = Image.new("RGB", (max(p.width for p in parts), sum(p.height for p in parts) + 8 * (len(parts) - 1)),
                    "white")
    y = 0
    for p in parts:
        out.paste(p, (0, y))
        y += p.height + 8
    buf = io.BytesIO()
    out.save(buf, format="PNG")
    return buf.getvalue()


def errata_markdown(name: str, verdicts: Sequence[Verdict], evidence: dict[int, str]) -> str:
    """The disagreements by MAPWise template, with the deciding values and the evidence image."""
    by_template: dict[int, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        if v.verdict == "disagree":
            by_template[v.template_no or 0].append(v)
    lines = [f"# MAPWise errata: {name}", "",
             f"{sum(map(len, by_template.values()))} disagreements of {len(verdicts)} questions, by MAPWise template.",
             ""]
    for t, found in sorted(by_template.items()):
        lines += [f"## Template {t} ({len(found)})", ""]
        for v in found:
            values = "; ".join(f"{r['name']} {r['value']}" + (f" ({r['class']})" if r.get("class") else "")
                               for r in v.facts.get("regions", [])[:8])
            image = f" [evidence]({evidence[v.row]})" if v.row in evidence else ""
            lines.append(f"- map {v.map_ref} row {v.row}: {v.question} — MAPWise `{v.ground_truth}`, mapgen "
                         f"`{v.our_answer}`{': ' + values if values else ''}{image}")
        lines.append("")
    return "\n".join(lines)


def write_errata(data: ImportedSet, verdicts: Sequence[Verdict], out: str | Path, source_csv: str | Path,
                 images: bool = True) -> Path:
    """Write ``errata.csv``, ``errata.md`` and (``images``) one evidence PNG per disagreement into ``out``."""
    out = Path(out)
    evidence: dict[int, str] = {}
    for v in verdicts:
        if v.verdict != "disagree" or not images or v.map_ref not in data.specs:
            continue
        rel = f"evidence/{v.map_ref}_row{v.row}.png"
        codes = [r["code"] for r in v.facts.get("regions", [])]
        write_bytes_atomic(out / rel, evidence_png(data.specs[v.map_ref], codes))
        evidence[v.row] = rel
    header, rows = errata_rows(source_csv, verdicts, evidence)
    write_text_atomic(out / "errata.csv", csv_text([header, *rows]))
    write_text_atomic(out / "errata.md", errata_markdown(data.name, verdicts, evidence))
    return out
