"""``mapgen build`` and ``mapgen info``: a config → a complete, versioned benchmark folder."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mapgen.benchmark import MAPS_DIR, QUESTIONS_FILE, RECORD_SHARDS, RECORDS_DIR, info
from mapgen.build import build
from mapgen.cli.limits import WORKERS
from mapgen.config import load_config
from mapgen.tasks import tasks
from mapgen.tasks.registry import UnknownTaskError

#: The exit status of a build stopped by Ctrl-C (1, as click's "Aborted!" had it: scripts keep working).
INTERRUPTED = 1


@click.command("build")
@click.argument("config", default="mapwise")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Output folder (default: ./<config name>-bench).")
@click.option("--workers", type=WORKERS, default=1, show_default=True, help="Worker processes.")
@click.option("--resume", is_flag=True, help="Finish an interrupted build; verifies hashes of finished units.")
@click.option("--force", is_flag=True, help="Replace a folder that holds another build.")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option("--scheduler", default=None,
              help="Run on the Dask cluster of this scheduler (implies --executor dask), e.g. tcp://host:8786; "
              "the output folder must be on a filesystem its workers share.")
@click.option("--audit", type=click.Choice(["off", "flag", "drop"]), default=None,
              help="Pixel-oracle audit of every question: flag unrecoverable ones, or drop them (overrides the config).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def build_command(config: str, output: Path | None, workers: int, resume: bool, force: bool, executor: str,
                  scheduler: str | None, audit: str | None, quiet: bool) -> None:
    """Build the benchmark of CONFIG (a YAML path or a packaged config: mapwise, small)."""
    output = output or Path(f"{Path(config).stem}-bench")
    resolved = load_config(config)
    if audit is not None:
        resolved = resolved.model_copy(update={"audit": audit})
    try:
        report = build(resolved, output, workers=workers, resume=resume, force=force, executor=executor,
                       scheduler=scheduler, progress=not quiet)
    except UnknownTaskError as exc:  # the config names a task no plugin registers: say which file
        raise UnknownTaskError(f"{config}: {exc}") from None
    except KeyboardInterrupt:  # Ctrl-C: finished units stay, so --resume picks up where it stopped
        click.echo(f"Error: interrupted; finish it with `mapgen build {config} -o {output} --resume`", err=True)
        sys.exit(INTERRUPTED)
    c = report.manifest["counts"]
    records = ", ".join(f"{c[t.key]} {t.noun or t.name}" for t in tasks() if t.key in c)
    click.echo(f"Built {report.out_dir}: {c['maps']} images, {records}"
               + f" in {report.seconds:.1f} s "
               f"({report.built} units built, {report.reused} reused).")
    stages = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(report.timings.items()))
    if stages:
        click.echo(f"Stage time (summed over workers): {stages}.")
    questions = report.out_dir / (RECORDS_DIR if RECORD_SHARDS in report.manifest else QUESTIONS_FILE)
    click.echo(f"Look at {report.out_dir / MAPS_DIR} for the images and {questions} for the questions; "
               "`mapgen info` summarises the folder.")


@click.command("info")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True)
def info_command(folder: Path, as_json: bool) -> None:
    """Counts per country, variant, template, answer type and split; checksum status."""
    summary = info(folder)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(f"{summary['name']} (mapgen {summary['mapgen_version']}), {summary['files']} files, "
               f"{len(summary['files_failing_checksum'])} failing checksum, "
               f"{len(summary['files_unlisted'])} used but not listed in manifest.json")
    for key, value in summary["counts"].items():
        click.echo(f"{key}: {value}")
    for rel in summary["files_failing_checksum"]:
        click.echo(f"  checksum mismatch or missing: {rel}")
    unlisted = summary["files_unlisted"]
    for rel in unlisted[:10]:
        click.echo(f"  not listed in manifest.json (readers refuse the folder): {rel}")
    if len(unlisted) > 10:
        click.echo(f"  … and {len(unlisted) - 10} more not listed (`mapgen info --json` lists every one)")
