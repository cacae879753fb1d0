"""MAPWise re-check figures on the full release (issue 29 item 2): import the release's text (USA and India) and
re-check it, then print the parse rate and verdicts per country, which reader read each question (MAPWise
wording rules or slot filling) and the per-template table of what stays unparsed, with the reasons.

    python benchmarks/recheck_release.py [RELEASE_DIR] [--out DIR] [--markdown] [--sample N [--seed S]]

RELEASE_DIR defaults to ``../shared/reference/mapwise/release-text/dataset`` (no PNGs: no OCR). Prints JSON
(``--markdown``: the tables as Markdown) and the wall-clock and CPU time of the import and of the re-check.
``--sample N`` adds a seeded sample of N disagreements to judge by hand (countries in MAPWise's order USA, India,
China, then by row; ``random.Random(S).sample``, S = 40 by default), each with the question, MAPWise's answer and
verified answer, mapgen's answer and the deciding facts' values.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" / "mapwise" / "release-text" / "dataset"


def _timed(fn: Any, *args: Any, **kw: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _reason_kind(reason: str) -> str:
    """A reason without its map-specific details ("slot Y (LegendClass) of region_in_range: range …")."""
    reason = re.sub(r"'[^']*'", "'…'", reason)
    return re.sub(r"\s*\((?:classes|tick intervals|closest)[^)]*\)?.*$", "", reason)[:110]


def figures(verdicts: list[Any]) -> dict[str, Any]:
    """Per country: questions, parsed %, verdicts (ambiguous by reason), the readers used; per template: the
    unparsed and why; MAPWise's verified-answer column as a second gold."""
    from mapgen.recheck.verdicts import ambiguous_by_reason, second_gold

    out: dict[str, Any] = {"by_country": {}, "unparsed_by_template": {}}
    for country in sorted({v.country for v in verdicts}):
        vs = [v for v in verdicts if v.country == country]
        counts = Counter(v.verdict for v in vs)
        slots = sum(1 for v in vs if any("read by filling the slots" in n for n in v.notes))
        out["by_country"][country] = {
            "questions": len(vs), "parsed_pct": round(100 * (1 - counts["unparsed"] / len(vs)), 1),
            **{k: counts[k] for k in ("agree", "disagree", "ambiguous", "unparsed")},
            "read_by_slots": slots,
            "no_continuous_form": sum(1 for v in vs if "has no continuous-map form" in v.reason),
            "ambiguous_by_reason": ambiguous_by_reason(vs),
        }
    table: dict[int, Counter[str]] = defaultdict(Counter)
    for v in verdicts:
        if v.verdict == "unparsed":
            table[v.template_no or 0][_reason_kind(v.reason)] += 1
    out["unparsed_by_template"] = {str(t): dict(c.most_common()) for t, c in sorted(table.items())}
    out["second_gold"] = second_gold(verdicts)
    return out


COUNTRY_ORDER = ("usa", "india", "china")


def disagreement_sample(verdicts: list[Any], n: int, seed: int = 40) -> list[dict[str, Any]]:
    """A seeded sample of ``n`` disagreements (countries in MAPWise's order, then by row), sorted the same way."""
    import random

    def key(v: Any) -> tuple[int, str, int]:
        order = COUNTRY_ORDER.index(v.country) if v.country in COUNTRY_ORDER else len(COUNTRY_ORDER)
        return order, v.country, v.row

    pool = sorted((v for v in verdicts if v.verdict == "disagree"), key=key)
    picked = sorted(random.Random(seed).sample(pool, min(n, len(pool))), key=key)
    return [{"country": v.country, "row": v.row, "map": v.map_ref, "question": v.question,
             "mapwise": v.ground_truth, "verified": v.verified, "mapgen": v.our_answer,
             "values": {r["name"]: r.get("value") for r in v.facts.get("regions", [])}} for v in picked]


def markdown(fig: dict[str, Any]) -> str:
    lines = ["| country | questions | parsed | agree | disagree | ambiguous | unparsed | read by slots |",
             "|---|---|---|---|---|---|---|---|"]
    for c, f in fig["by_country"].items():
        lines.append(f"| {c} | {f['questions']} | {f['parsed_pct']}% | {f['agree']} | {f['disagree']} | "
                     f"{f['ambiguous']} | {f['unparsed']} | {f['read_by_slots']} |")
    countries = list(fig["by_country"])
    buckets = sorted({b for f in fig["by_country"].values() for b in f["ambiguous_by_reason"]},
                     key=lambda b: -sum(f["ambiguous_by_reason"].get(b, 0) for f in fig["by_country"].values()))
    lines += ["", "| ambiguous because | " + " | ".join(countries) + " |", "|---|" + "---|" * len(countries)]
    lines += [f"| `{b}` | " + " | ".join(str(fig["by_country"][c]["ambiguous_by_reason"].get(b, 0)) for c in countries)
              + " |" for b in buckets]
    gold = fig["second_gold"]
    lines += ["", f"second gold (verified answer): {gold['questions']} questions, {gold['judged']} judged; vs "
                  f"ground_truth {gold['vs_ground_truth']}, vs verified {gold['vs_verified']}; "
                  f"ground_truth/verified {gold['ground_truth/verified']}"]
    lines += ["", "| template | unparsed | why |", "|---|---|---|"]
    for t, reasons in fig["unparsed_by_template"].items():
        why = "; ".join(f"{n} × {r}" for r, n in reasons.items())
        lines.append(f"| {t} | {sum(reasons.values())} | {why} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("release", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--out", type=Path, default=None, help="keep the import here (default: a temporary folder)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--sample", type=int, default=0, help="a seeded sample of N disagreements to judge by hand")
    ap.add_argument("--seed", type=int, default=40)
    args = ap.parse_args(argv)
    if not args.release.is_dir():
        print(f"no release text at {args.release} (../shared is absent?)", file=sys.stderr)
        return 2
    from mapgen.recheck.importer import import_repository, imported_countries, load_imported
    from mapgen.recheck.verdicts import recheck

    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "imported"
        _, import_wall, import_cpu = _timed(import_repository, args.release, out, read_ticks=False)
        verdicts: list[Any] = []
        wall = cpu = 0.0
        for _, folder in sorted(imported_countries(out).items()):
            found, w, c = _timed(recheck, load_imported(folder))
            verdicts += found
            wall, cpu = wall + w, cpu + c
    fig = figures(verdicts)
    if args.sample:
        fig["sample"] = disagreement_sample(verdicts, args.sample, args.seed)
    fig["runtime_s"] = {"import_wall": round(import_wall, 1), "import_cpu": round(import_cpu, 1),
                        "recheck_wall": round(wall, 1), "recheck_cpu": round(cpu, 1)}
    if args.markdown:
        sample = "".join(f"\n{d['country']}:{d['row']} | {d['question']} | MAPWise {d['mapwise']!r} | verified "
                         f"{d['verified']!r} | mapgen {d['mapgen']!r}" for d in fig.get("sample", []))
        print(markdown(fig) + f"\n\nruntime: {fig['runtime_s']}" + sample)
    else:
        print(json.dumps(fig, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
