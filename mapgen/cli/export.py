"""``mapgen export``: a build folder → a format evaluation harnesses or training code read."""

from __future__ import annotations

from pathlib import Path

import click

from mapgen.export import FORMATS, export

SPLIT_FORMATS = ("lmms-eval", "vlmevalkit")
"""The formats that export one split (``--split``)."""


@click.command("export")
@click.argument("bench", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), required=True, help="Output format.")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Destination folder (must be new or empty, unless --force).")
@click.option("--split", default=None, help="Split to export (lmms-eval, vlmevalkit; default: test).")
@click.option("--wording", type=click.Choice(["mapwise", "mapgen"]), default=None,
              help="Question text of the mapwise format: MAPWise's released wording (default) or mapgen's.")
@click.option("--mcq", is_flag=True,
              help="Add the multiple-choice form of single/range/count/binary questions (jsonl, hf, vlmevalkit).")
@click.option("--force", is_flag=True, help="Replace a non-empty destination folder.")
def export_command(bench: Path, fmt: str, output: Path, split: str | None, wording: str | None, mcq: bool,
                   force: bool) -> None:
    """Export the benchmark in BENCH (a finished `mapgen build` folder) as --format into -o DEST."""
    if mcq and fmt not in ("jsonl", "hf", "vlmevalkit"):
        raise click.UsageError("--mcq is available for the jsonl, hf and vlmevalkit formats")
    if split is not None and fmt not in SPLIT_FORMATS:  # the other formats export every split
        raise click.UsageError(f"--split is available for the {' and '.join(SPLIT_FORMATS)} formats; "
                               f"{fmt} exports every split")
    if wording is not None and fmt != "mapwise":
        raise click.UsageError("--wording is available for the mapwise format only")
    options: dict = {"split": split} if split is not None else {}
    if wording is not None:
        options["wording"] = wording
    if mcq:
        options["mcq"] = True
    from mapgen.files import refuse_into_benchmark

    refuse_into_benchmark(output)
    out = export(bench, fmt, output, force=force, **options)
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    shown = [f for f in files if not f.startswith(("images/", "data/")) and "/images/" not in f][:8]
    click.echo(f"Exported {bench} as {fmt} to {out} ({len(files)} files): {', '.join(shown)}"
               f"{', …' if len(files) > len(shown) else ''}")
