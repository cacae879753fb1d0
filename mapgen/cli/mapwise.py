"""``mapgen import mapwise`` and ``mapgen recheck``: re-answer a published MAPWise benchmark."""

from __future__ import annotations

from pathlib import Path

import click

from mapgen.files import FolderNotEmptyError
from mapgen.mapwise.repository import cf_kind, question_folders, question_table
from mapgen.recheck.errata import write_errata
from mapgen.recheck.importer import (
    HATCHED_SPEC,
    import_mapwise,
    import_repository,
    imported_countries,
    load_imported,
)
from mapgen.recheck.verdicts import (
    ambiguous_by_reason,
    recheck,
    summary_json,
    summary_rows,
    write_recheck,
    write_summary,
)

NOTES_SHOWN = 3
"""Notes (what the files do not establish) printed per imported set; the manifest keeps them all."""


@click.group("import")
def import_group() -> None:
    """Import a published benchmark (maps rebuilt from metadata, questions as written)."""


@import_group.command("mapwise")
@click.argument("sample", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write specs/, questions.jsonl, source_questions.csv and manifest.json to "
                   "(one subfolder per country and counter_factuals/<kind> for a repository root).")
@click.option("--country", default=None, help="usa / india / china (default: from the folder name or metadata).")
@click.option("--ocr/--no-ocr", default=True, show_default=True,
              help="Read continuous maps' colour-bar ticks and counterfactual maps' printed labels off their "
                   "published PNGs (needs mapgen[ocr] and tesseract; skipped silently without them).")
@click.option("--skip-missing", is_flag=True,
              help="Import the rest when a question row names a map without a metadata file (listed as "
                   "missing_maps) instead of stopping.")
def import_mapwise_cmd(sample: Path, output: Path, country: str | None, ocr: bool, skip_missing: bool) -> None:
    """Import MAPWise maps and questions from SAMPLE: MAPWise's repository root or its dataset/ (every country
    and counterfactual kind), dataset/counter_factuals/ or one <kind>/ folder, one country folder
    (dataset/<country>), or the older sample layout (a root of country folders with metadata/ and questions.csv)."""
    try:
        folders = question_folders(sample)
        if len(folders) == 1 and (sample / "metadata").is_dir() or cf_kind(sample):
            data = import_mapwise(sample, output, country, read_ticks=ocr, skip_missing=skip_missing)
            imported = {data.name: data}
        else:
            imported = import_repository(sample, output, read_ticks=ocr, skip_missing=skip_missing)
    except (ValueError, FolderNotEmptyError) as exc:
        raise click.ClickException(str(exc)) from None
    for name, data in imported.items():
        missing = f", {len(data.missing_maps)} maps without metadata" if data.missing_maps else ""
        maps = sum(not ref.endswith(HATCHED_SPEC) for ref in data.specs)
        click.echo(f"{name}: {maps} maps, {len(data.questions)} questions{missing} -> {output}", err=True)
        for note in data.notes[:NOTES_SHOWN]:
            click.echo(f"  {note}", err=True)
        if len(data.notes) > NOTES_SHOWN:
            click.echo(f"  … {len(data.notes) - NOTES_SHOWN} more notes in {name}/manifest.json", err=True)


@click.command("recheck")
@click.argument("imported", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for verdicts.jsonl, summary.csv, summary.json, report.md and corrected_questions.csv "
                   "(one subfolder per country, plus an overall summary.json, for a repository import).")
@click.option("--errata", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write an errata folder: MAPWise's CSV with verdict, reason, mapgen_answer and evidence "
                   "columns (errata.csv), the disagreements by template (errata.md) and one evidence image per "
                   "disagreement (evidence/; drawn by mapgen's renderer).")
def recheck_command(imported: Path, output: Path, errata: Path | None) -> None:
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
        table = source if source.is_file() else question_table(folder)
        write_recheck(data, found, out, table)
        if errata is not None:
            write_errata(data, found, errata / name if len(countries) > 1 else errata, table)
        for row in summary_rows(found):
            if row["template_no"] == "all":
                click.echo(f"{name}: {row['n']} questions, parsed {row['parsed_pct']}% | agree "
                           f"{row['agree']}, disagree {row['disagree']}, ambiguous {row['ambiguous']}, unparsed "
                           f"{row['unparsed']} -> {out}", err=True)
        reasons = ambiguous_by_reason(found)
        if reasons:
            click.echo("  ambiguous: " + ", ".join(f"{b} {n}" for b, n in reasons.items()), err=True)
    summary = summary_json(verdicts)
    if len(countries) > 1:
        write_summary(summary, output)
    held = summary["held_out"]
    if held["questions"]:
        click.echo(f"held-out maps ({len(held['maps'])}): {held['questions']} questions, parsed "
                   f"{held['parsed_pct']}%", err=True)
    if summary["internal_errors"]:
        click.echo(f"Warning: {summary['internal_errors']} questions failed inside mapgen and are counted unparsed "
                   "('internal error' in verdicts.jsonl); please report them with the question text.", err=True)
