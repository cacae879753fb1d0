"""``mapgen describe``: attributes, referring expressions and captions of a rendered map (VRSBench tasks)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from mapgen.cli.limits import REFERRING, SEED
from mapgen.describe import (
    caption_eval_record,
    describe,
    grounding_eval_records,
    scene_from_render_json,
    training_records,
    write_jsonl,
)
from mapgen.files import refuse_into_benchmark, refuse_overwrite, write_text_atomic


@click.command("describe")
@click.argument("render_json", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Annotations JSON to write (default: print to stdout).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed for target choice and wordings.")
@click.option("--n-referring", type=REFERRING, default=8, show_default=True, help="Referring expressions to make.")
@click.option("--records", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write VRSBench records here: captions.jsonl, grounding.jsonl, train_llava.jsonl.")
def describe_cmd(render_json: Path, output: Path | None, seed: int, n_referring: int, records: Path | None) -> None:
    """Describe RENDER_JSON (the .json a `mapgen render` wrote beside the PNG)."""
    if output is not None:
        refuse_overwrite(output, render_json)
    if records is not None:
        refuse_into_benchmark(records, "--records")
    scene = scene_from_render_json(render_json)
    if not any(g.kind in ("coast", "sea") for g in scene.groups.values()):
        click.echo(f"Note: {scene.country_title} has no coast or sea group, so coastal referring expressions are "
                   "skipped (a user atlas can add one with kind: coast in its <stem>.groups.yaml).", err=True)
    annotations = describe(scene, seed=seed, n_referring=n_referring)
    text = json.dumps(annotations, indent=1, ensure_ascii=False, allow_nan=False)
    if output is None:
        click.echo(text)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(output, text)
        refs = annotations["referring"]
        click.echo(f"{output}  ({len(annotations['attributes'])} regions, {len(refs)} referring expressions, "
                   f"{len(annotations['captions']['sentences'])}-sentence caption)")
    if records is not None:
        image = render_json.with_suffix(".png").name
        write_jsonl(records / "captions.jsonl", [caption_eval_record(annotations, image)])
        write_jsonl(records / "grounding.jsonl", grounding_eval_records(annotations, image))
        write_jsonl(records / "train_llava.jsonl", training_records(annotations, image=image, seed=seed))
        click.echo(f"records in {records}")
