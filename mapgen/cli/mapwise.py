"""``mapgen import mapwise`` and ``mapgen recheck``: re-answer a published MAPWise benchmark."""

from __future__ import annotations

from pathlib import Path

import click

from mapgen.mapwise.importer import import_mapwise, import_repository, load_imported
from mapgen.mapwise.layout import country_folders, question_table
from mapgen.mapwise.recheck import recheck, summary_rows, write_recheck


@click.group("import")
def import_group() -> None:
    """Import a published benchmark (maps rebuilt from metadata, questions as written)."""


@import_group.command("mapwise")
@click.argument("sample", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write specs/, questions.jsonl, source_questions.csv and manifest.json to "
                   "(one subfolder per country for a repository root).")
@click.option("--country", default=None, help="usa / india / china (default: from the folder name or metadata).")
def import_mapwise_cmd(sample: Path, output: Path, country: str | None) -> None:
    """Import MAPWise maps and questions from SAMPLE: a country folder (MAPWise's dataset/<country> or a sample
    folder with metadata/ and questions.csv) or a repository root / dataset/ (every country)."""
    if country is None and country_folders(sample) and not (sample / "metadata").is_dir():
        imported = import_repository(sample, output)
    else:
        data = import_mapwise(sample, output, country)
        imported = {data.country: data}
    for name, data in imported.items():
        missing = f", {len(data.missing_maps)} maps without metadata" if data.missing_maps else ""
        click.echo(f"{name}: {len(data.specs)} maps, {len(data.questions)} questions{missing} -> {output}", err=True)


@click.command("recheck")
@click.argument("imported", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for verdicts.jsonl, summary.csv, report.md and corrected_questions.csv.")
def recheck_command(imported: Path, output: Path) -> None:
    """Recompute every answer of an imported MAPWise set (or a raw sample folder) and compare."""
    data = load_imported(imported)
    verdicts = recheck(data)
    source = imported / "source_questions.csv"
    write_recheck(data, verdicts, output, source if source.is_file() else question_table(imported))
    for row in summary_rows(verdicts):
        if row["template_no"] == "all":
            click.echo(f"{row['country']}: {row['n']} questions, parsed {row['parsed_pct']}% | agree "
                       f"{row['agree']}, disagree {row['disagree']}, ambiguous {row['ambiguous']}, unparsed "
                       f"{row['unparsed']} -> {output}", err=True)
