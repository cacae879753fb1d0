"""``mapgen human``: a sample of a benchmark for people (an annotation kit) and the scoring of their answers."""

from __future__ import annotations

from pathlib import Path

import click

from mapgen.cli.limits import SEED, bounded


@click.group("human")
def human() -> None:
    """Human baselines: sample an annotation kit for people, score their answers (majority, agreement)."""


@human.command("sample")
@click.argument("bench", type=click.Path(exists=True, file_okay=False))
@click.option("-n", "n", type=bounded(1, None), default=150, show_default=True, help="Questions per country.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the sample.")
@click.option("-o", "--out", "out", required=True, type=click.Path(file_okay=True),
              help="Kit folder (must be new or empty, unless --force).")
@click.option("--force", is_flag=True, help="Replace a non-empty kit folder.")
def sample_command(bench: str, n: int, seed: int, out: str, force: bool) -> None:
    """Sample -n questions per country of BENCH, stratified as MAPWise's, into an annotation kit folder."""
    from mapgen.files import refuse_into_benchmark
    from mapgen.human.kit import write_kit

    refuse_into_benchmark(out)
    info = write_kit(bench, out, n=n, seed=seed, force=force)
    types = ", ".join(f"{t} {s:.0%}" for t, s in info["shares"]["answer_type"].items())
    click.echo(f"{info['questions']} questions on {info['maps']} maps ({info['templates']} templates; {types})")
    click.echo(f"kit: {out} (open {Path(out) / 'index.html'} in a browser; gold.jsonl stays with you)")
