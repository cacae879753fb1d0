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
@click.option("--maps", "maps", type=bounded(1, None), default=None,
              help="At most this many maps per country (MAPWise: 75); default: any map.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the sample.")
@click.option("-o", "--out", "out", required=True, type=click.Path(file_okay=True),
              help="Kit folder (must be new or empty, unless --force).")
@click.option("--force", is_flag=True, help="Replace a non-empty kit folder.")
def sample_command(bench: str, n: int, maps: int | None, seed: int, out: str, force: bool) -> None:
    """Sample -n questions per country of BENCH, stratified as MAPWise's, into an annotation kit folder."""
    from mapgen.files import refuse_into_benchmark
    from mapgen.human.kit import write_kit

    refuse_into_benchmark(out)
    info = write_kit(bench, out, n=n, seed=seed, force=force, maps=maps)
    types = ", ".join(f"{t} {s:.0%}" for t, s in info["shares"]["answer_type"].items())
    click.echo(f"{info['questions']} questions on {info['maps']} maps ({info['templates']} templates; {types})")
    click.echo(f"kit: {out} (open {Path(out) / 'index.html'} in a browser; gold.jsonl stays with you)")


@human.command("score")
@click.argument("kit", type=click.Path(exists=True, file_okay=False))
@click.argument("more", nargs=-1, metavar="", type=click.Path(exists=True, dir_okay=False))  # --answers a b c
@click.option("--answers", "answers", required=True, multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="One predictions JSONL per annotator (the page's export): --answers a.jsonl b.jsonl c.jsonl.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the kappa bootstrap.")
@click.option("-o", "--out", "out", required=True, type=click.Path(file_okay=False), help="Report folder.")
def score_command(kit: str, more: tuple[str, ...], answers: tuple[str, ...], seed: int, out: str) -> None:
    """Score every annotator's answers to KIT, their majority answer (MAPWise Tables 9, 10) and their agreement."""
    from mapgen.files import refuse_inside
    from mapgen.human.kit import load_gold
    from mapgen.human.report import write_human_report
    from mapgen.human.score import read_annotator, score_annotators

    refuse_inside(out, kit, "the kit folder")
    result = score_annotators(load_gold(kit), [read_annotator(a) for a in (*answers, *more)], seed=seed)
    write_human_report(result, kit, out)
    items, kappa = result.items, result.kappa["all"]
    click.echo(f"{len(result.annotators)} annotators, {len(items)} questions: majority accuracy "
               f"{items['main'].mean():.2%}, majority agreement {items['agreement'].mean():.2%}, Fleiss' kappa "
               f"{kappa['kappa']:.3f} [{kappa['ci95'][0]:.3f}, {kappa['ci95'][1]:.3f}]")
    click.echo(f"report: {out}")
