"""``mapgen audit`` (pixel oracle vs ground truth for every question) and ``mapgen report`` (static HTML site)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mapgen.benchmark import (
    AUDIT_FILE,
    AUDIT_MAPS_FILE,
    AUDIT_MARKDOWN_FILE,
    AUDIT_PREDICTIONS_FILE,
    AUDIT_SUMMARY_FILE,
)

AUDIT_FILES = ", ".join((AUDIT_FILE, AUDIT_MAPS_FILE, AUDIT_SUMMARY_FILE, AUDIT_MARKDOWN_FILE, AUDIT_PREDICTIONS_FILE))


@click.command("audit")
@click.argument("bench", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help=f"Audit folder: {AUDIT_FILES} (new or empty, unless --force; written whole or not at all).")
@click.option("--quiet", is_flag=True, help="No progress line.")
@click.option("--force", is_flag=True, help="Replace a non-empty audit folder (once the new audit is complete).")
def audit_command(bench: Path, out_dir: Path, quiet: bool, force: bool) -> None:
    """Answer every question of BENCH from the pixels alone, explain each disagreement, check legibility."""
    from mapgen.audit.audit import audit_benchmark

    result = audit_benchmark(bench, out_dir, progress=not quiet and sys.stdout.isatty(), force=force)
    s = result.summary
    o = s["overall"]
    acc = "-" if o["oracle_accuracy"] is None else f"{100 * o['oracle_accuracy']:.1f}%"
    click.echo(f"{o['questions']} questions on {s['maps']} maps: pixel oracle {o['oracle_correct']} correct ({acc}); "
               f"{s['misread_regions']}/{s['regions']} regions misread ({s['misread_legible_regions']} legible).")
    for kind, t in s["targets"].items():
        if t["accuracy"] is not None:
            click.echo(f"  {kind:<11} {100 * t['accuracy']:5.1f}%  (target {100 * t['target']:.0f}%: "
                       f"{'met' if t['met'] else 'NOT met'})")
    if s["failure_reasons"]:
        click.echo("  reasons: " + ", ".join(f"{k} ({v})" for k, v in s["failure_reasons"].items()))
    leg = s["legibility"]
    failing = ", ".join(f"{k} ({v})" for k, v in leg["maps_failing"].items() if v) or "none"
    click.echo(f"  legibility: {leg['maps_flagged']} maps fail a check: {failing}; {leg['failed_regions']} regions "
               f"made illegible; {leg['questions_hinging_on_failed_regions']} questions hinge on one.")
    if s["flagged_maps"]:
        click.echo(f"  flagged maps: {len(s['flagged_maps'])} (see {out_dir / AUDIT_MARKDOWN_FILE})")
    click.echo(f"Wrote {out_dir}/{AUDIT_FILES} (score the oracle: mapgen eval {bench} --predictions "
               f"{out_dir / AUDIT_PREDICTIONS_FILE})")


@click.command("report")
@click.argument("bench", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Site folder (open index.html in a browser; new or empty, unless --force).")
@click.option("--eval", "eval_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="An eval report folder (mapgen eval -o) to show predictions, tables and plots.")
@click.option("--audit", "audit_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="An audit folder (mapgen audit -o) to show the pixel oracle's answers and reasons.")
@click.option("--title", help="Page title (default: the benchmark name).")
@click.option("--force", is_flag=True, help="Replace a non-empty site folder (once the new site is complete).")
def report_command(bench: Path, out_dir: Path, eval_dir: Path | None, audit_dir: Path | None,
                   title: str | None, force: bool) -> None:
    """Write a static HTML site for BENCH: map browser with questions, answers, captions and boxes."""
    from mapgen.report_site import build_site

    index = build_site(bench, out_dir, eval_dir=eval_dir, audit_dir=audit_dir, title=title, force=force)
    click.echo(f"Wrote {index} (open it in a browser; no server needed)")
