"""What one ``mapgen render`` call draws: its sources (several, or a CSV of specs) as jobs, and where each writes.

A CSV of specs has a ``source`` column (a country, a vector file or a map JSON) and optionally one column per
``render`` option (``stat``, ``data``, ``colormap``, ``classes``, ``legend-position``, …; dashes or
underscores) and ``output`` (a file name inside ``-o FOLDER``); an empty cell leaves the option as the command
line gives it. Paths in the CSV are relative to the CSV's folder.

Before anything is drawn every job's files are known, so a render never overwrites one of its inputs (the map
JSON, the table and its sidecar, the style file) and two jobs never write the same file: both exit 2.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from mapgen.renderers import OUTPUT_SUFFIXES

#: Options whose value may be a path, resolved against a CSV of specs' folder.
_PATH_OPTIONS = ("data", "style_ref")


@dataclass
class Source:
    """One map to draw: its source, the options it is drawn with, which of them the user set, and (from a CSV
    row) its output file name."""

    source: str
    options: dict[str, Any]
    given: set[str]
    output_name: str | None = None
    where: str = ""  # "row 3 of specs.csv" for a CSV row, for messages


@dataclass
class Job:
    """A spec and the file (or, for ``--all-variants``, the folder) it is rendered to."""

    spec: Any
    output: Path
    inputs: tuple[Path, ...] = field(default=())


def is_spec_csv(source: str) -> bool:
    """A ``.csv`` SOURCE is a list of specs (tables go with ``--data``)."""
    return source.lower().endswith(".csv") and Path(source).is_file()


def expand_sources(ctx: click.Context, sources: tuple[str, ...], options: dict[str, Any],
                   given: set[str]) -> list[Source]:
    """Every map the SOURCE arguments name, in order (a CSV of specs gives one per row)."""
    out: list[Source] = []
    for source in sources:
        if is_spec_csv(source):
            out.extend(_csv_rows(ctx, Path(source), options, given))
        else:
            out.append(Source(source, dict(options), set(given)))
    return out


def _option_names(command: click.Command) -> dict[str, click.Parameter]:
    """Every column name a CSV of specs may use for an option → the option (``legend-position``, ``style``)."""
    names: dict[str, click.Parameter] = {}
    for param in command.params:
        if not isinstance(param, click.Option) or param.name in ("output", "all_variants"):
            continue
        names[str(param.name)] = param
        for opt in (*param.opts, *param.secondary_opts):
            names[opt.lstrip("-").replace("-", "_")] = param
    return names


def _csv_rows(ctx: click.Context, path: Path, options: dict[str, Any], given: set[str]) -> list[Source]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    header = [str(h).strip() for h in (rows[0].keys() if rows else ())]
    params = _option_names(ctx.command)
    if "source" not in header:
        raise click.UsageError(f"{path} has no 'source' column (a CSV of specs: source, then option columns "
                               "such as stat, colormap, output).")
    unknown = [h for h in header if h not in ("source", "output") and h.replace("-", "_") not in params]
    if unknown:
        raise click.UsageError(f"{path}: unknown column(s) {', '.join(unknown)}; use source, output or render "
                               f"options: {', '.join(sorted(p for p in params if '_' not in p or p in options))}.")
    return [_row_source(ctx, path, n, row, params, options, given) for n, row in enumerate(rows, start=2)]


def _row_source(ctx: click.Context, path: Path, line: int, row: dict[str, Any], params: dict[str, click.Parameter],
                options: dict[str, Any], given: set[str]) -> Source:
    where = f"line {line} of {path}"
    cells = {str(k).strip(): (v or "").strip() for k, v in row.items() if k is not None}
    source = cells.pop("source", "")
    if not source:
        raise click.UsageError(f"{where}: the source cell is empty.")
    output = cells.pop("output", "") or None
    opts, row_given = dict(options), set(given)
    for column, text in cells.items():
        if not text:
            continue
        param = params[column.replace("-", "_")]
        try:
            value = param.type_cast_value(ctx, text)
        except click.BadParameter as exc:
            raise click.UsageError(f"{where}, column {column}: {exc.message}") from None
        name = str(param.name)
        opts[name] = _relative(path, value) if name in _PATH_OPTIONS else value
        row_given.add(name)
    return Source(_relative(path, source), opts, row_given, output, where)


def _relative(csv_path: Path, value: Any) -> Any:
    """A path cell resolved against the CSV's folder (a country name, a preset name or an absolute path as is)."""
    if not isinstance(value, str) or Path(value).is_absolute():
        return value
    candidate = csv_path.parent / value
    return str(candidate) if candidate.exists() else value


def output_for(item: Source, spec: Any, output: Path, several: bool) -> Path:
    """The file (or variants folder) a map is written to: ``-o`` itself for one map with a file suffix, else
    ``-o FOLDER/<output cell or map id>.png``."""
    if item.output_name:
        name = Path(item.output_name)
        return output / (name if name.suffix else name.with_suffix(".png"))
    if not several and output.suffix.lower() in OUTPUT_SUFFIXES:
        return output
    return output / f"{spec.map_id}.png"


def written_files(job: Job, all_variants: bool) -> list[Path]:
    """The files rendering ``job`` writes (image, mask, JSON; each variant's with ``--all-variants``)."""
    if not all_variants:
        return _triple(job.output)
    names = ["annotated", "unannotated"] + (["hatched"] if job.spec.legend.kind == "discrete" else [])
    return [f for name in names for f in _triple(job.output / f"{job.spec.map_id}-{name}.png")]


def _triple(image: Path) -> list[Path]:
    return [image, image.with_suffix(".mask.png"), image.with_suffix(".json")]


def job_inputs(item: Source) -> tuple[Path, ...]:
    """The files a map is read from: its source file, its table and the table's sidecar, its style file."""
    paths = [item.source, item.options.get("data"), item.options.get("style_ref")]
    files = [Path(p) for p in paths if p and Path(p).is_file()]
    if item.options.get("data"):
        sidecar = Path(str(item.options["data"]) + "-metadata.json")
        files += [sidecar] if sidecar.is_file() else []
    return tuple(files)


def check_outputs(jobs: list[Job], all_variants: bool) -> None:
    """Exit 2, before anything is written, when a job would overwrite one of the inputs or another job's file."""
    inputs = {p.resolve(): p for job in jobs for p in job.inputs}
    seen: dict[Path, Path] = {}
    for job in jobs:
        for path in written_files(job, all_variants):
            key = path.resolve()
            if key in inputs:
                raise click.UsageError(f"writing {path} would overwrite the input {inputs[key]}; choose another "
                                       "-o (the render writes the image, NAME.mask.png and NAME.json).")
            if key in seen:
                raise click.UsageError(f"two maps would be written to {path}; give each its own output "
                                       "(an 'output' column in a CSV of specs).")
            seen[key] = path
