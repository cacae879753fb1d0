"""``mapgen counterfactual``: counterfactual map sets (imaginary / shuffled / jumbled + the original control)."""

from __future__ import annotations

from pathlib import Path

import click

from mapgen.cli.limits import PER_TEMPLATE, SEED


@click.command("counterfactual")
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.option("--kind", "kinds", default="imaginary,shuffled,jumbled", show_default=True,
              help="Comma list of kinds: imaginary, shuffled, jumbled.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the transforms and of fresh questions.")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder of the set (maps/, questions.jsonl, dictionaries/, set.json); new or empty, unless --force.")
@click.option("--force", is_flag=True, help="Replace a non-empty folder (once the new set is complete).")
@click.option("--no-original", is_flag=True, help="Leave out the original control maps.")
@click.option("--per-template", type=PER_TEMPLATE, default=1, show_default=True, help="Fresh questions per template and map.")
@click.option("--templates", "template_files", multiple=True, type=click.Path(exists=True),
              help="Template pack(s) (folder or YAML file) instead of the built-in MAPWise templates.")
@click.option("--fresh-questions", is_flag=True,
              help="Benchmark SOURCE: generate new questions instead of re-asking the benchmark's own.")
def counterfactual_cmd(source: Path, kinds: str, seed: int, output: Path, no_original: bool, per_template: int,
                       template_files: tuple[str, ...], fresh_questions: bool, force: bool) -> None:
    """Counterfactual set of SOURCE: a spec/render JSON, or a benchmark folder (every annotated base map)."""
    from mapgen.benchmark import verify_folder
    from mapgen.cfsets import counterfactual_set
    from mapgen.files import refuse_inside, refuse_into_benchmark
    from mapgen.questions import load_templates

    if source.is_dir():  # a benchmark folder: verified, and never written into
        refuse_inside(output, source, "the benchmark folder")
        verify_folder(source, "records")
    refuse_into_benchmark(output)
    result = counterfactual_set(
        source, fresh_questions, kinds=kinds.split(","), seed=seed, out_dir=output, per_template=per_template,
        templates=load_templates(list(template_files)) if template_files else None, include_original=not no_original,
        force=force,
    )
    for kind, c in result.summary().items():
        skipped = ", ".join(f"{k} {n}" for k, n in c["skipped"].items()) or "none"
        click.echo(f"{kind}: {c['maps']} maps, {c['questions']} questions, {c['answer_changed']} answers changed "
                   f"({c['answer_changed_beyond_names']} beyond renaming), skipped: {skipped}")
    click.echo(f"-> {output}")
