"""``mapgen import mapwise`` and ``mapgen recheck``: re-answer a published MAPWise benchmark."""

from __future__ import annotations

from pathlib import Path

import click

from mapgen.mapwise.importer import import_mapwise, import_repository, imported_countries, load_imported
from mapgen.mapwise.layout import country_folders, question_table
from mapgen.mapwise.recheck import recheck, summary_json, summary_rows, write_recheck, write_summary


@click.group("import")
def import_group() -> None:
    """Import a published benchmark (maps rebuilt from metadata, questions as written)."""


@import_group.command("mapwise")
@click.argument("sample", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write specs/, questions.jsonl, source_questions.csv and manifest.json to "
                   "(one subfolder per country for a repository root).")
@click.option("--country", default=None, help="usa / india / china (default: from the folder name or metadata).")
@click.option("--ocr/--no-ocr", default=True, show_default=True,
              help="Read continuous maps' colour-bar ticks off their published PNGs (needs mapgen[ocr] and "
                   "tesseract; skipped silently without them).")
def import_mapwise_cmd(sample: Path, output: Path, country: str | None, ocr: bool) -> None:
    """Import MAPWise maps and questions from SAMPLE: a country folder (MAPWise's dataset/<country> or a sample
    folder with metadata/ and questions.csv) or a repository root / dataset/ (every country)."""
    if country is None and country_folders(sample) and not (sample / "metadata").is_dir():
        imported = import_repository(sample, output, read_ticks=ocr)
    else:
        data = import_mapwise(sample, output, country, read_ticks=ocr)
        imported = {data.country: data}
    for name, data in imported.items():
        missing = f", {len(data.missing_maps)} maps without metadata" if data.missing_maps else ""
        click.echo(f"{name}: {len(data.specs)} maps, {len(data.questions)} questions{missing} -> {output}", err=True)


@click.command("recheck")
@click.argument("imported", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for verdicts.jsonl, summary.csv, summary.json, report.md and corrected_questions.csv "
                   "(one subfolder per country, plus an overall summary.json, for a repository import).")
def recheck_command(imported: Path, output: Path) -> None:
    """Recompute every answer of an imported MAPWise set (or a raw sample folder) and compare.

    IMPORTED may be one country's import or raw folder, the output of importing a repository root, or a raw
    repository root: every country in it is rechecked and an overall summary.json is written."""
    countries = imported_countries(imported)
    verdicts: list = []
    for name, folder in countries.items():
        data = load_imported(folder)
        found = recheck(data)
        verdicts += found
        source = folder / "source_questions.csv"
        out = output / name if len(countries) > 1 else output
        write_recheck(data, found, out, source if source.is_file() else question_table(folder))
        for row in summary_rows(found):
            if row["template_no"] == "all":
                click.echo(f"{row['country']}: {row['n']} questions, parsed {row['parsed_pct']}% | agree "
                           f"{row['agree']}, disagree {row['disagree']}, ambiguous {row['ambiguous']}, unparsed "
                           f"{row['unparsed']} -> {out}", err=True)
    summary = summary_json(verdicts)
    if len(countries) > 1:
        write_summary(summary, output)
    held = summary["held_out"]
    if held["questions"]:
        click.echo(f"held-out maps ({len(held['maps'])}): {held['questions']} questions, parsed "
                   f"{held['parsed_pct']}%", err=True)
