"""Options shared by the commands that take an atlas (a built-in country or a vector file) and a user table.

Kept free of heavy imports: ``mapgen atlas …`` on a built-in country must not pay for geopandas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from mapgen.errors import DataError

KINDS = ("absolute", "percent")  # mapgen.data.statistic.KINDS (not imported: it loads pandas)

_ATLAS_OPTIONS = (
    click.option("--name-field", default=None,
                 help="Column holding region names when the atlas is a vector file (default: detected)."),
    click.option("--code-field", default=None,
                 help="Column holding region codes when the atlas is a vector file (default: made from names)."),
)

_TABLE_OPTIONS = (
    click.option("--data", "--stat-file", "data", type=click.Path(exists=True, dir_okay=False), default=None,
                 help="User table (CSV/TSV/Parquet) with a region column (names, codes or aliases) and values."),
    click.option("--region-col", default=None, help="Region column of --data (default: detected)."),
    click.option("--value-col", default=None, help="Value column of --data (default: detected)."),
    click.option("--kind", type=click.Choice(list(KINDS)), default=None,
                 help="Kind of --data values (default: its metadata sidecar, else absolute)."),
    click.option("--unit", default=None, help="Unit of --data values."),
    click.option("--on-missing", type=click.Choice(["warn", "error", "ignore"]), default="warn", show_default=True,
                 help="Empty cells in --data: N/A with a warning, an error, or N/A silently."),
)


def _apply(options: tuple) -> Callable[[Callable], Callable]:
    def decorate(fn: Callable) -> Callable:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


#: ``--name-field`` / ``--code-field`` for commands whose argument may be a vector file.
atlas_options = _apply(_ATLAS_OPTIONS)
#: ``--data`` (alias ``--stat-file``) and the options that read it.
table_options = _apply(_TABLE_OPTIONS)


def open_atlas(source: str, name_field: str | None = None, code_field: str | None = None):
    """A built-in atlas by name or a user atlas by path (``--name-field`` / ``--code-field`` apply to files)."""
    from mapgen.geo.atlas import load_atlas

    return load_atlas(source, name_field=name_field, code_field=code_field)


def user_table(atlas, options: dict[str, Any], title: str | None = None):
    """The Statistic of ``options["data"]`` joined to ``atlas`` (warnings printed on stderr)."""
    import warnings

    from mapgen.data.user_tables import load_table

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stat = load_table(options["data"], atlas, region_col=options["region_col"], value_col=options["value_col"],
                          kind=options["kind"], unit=options["unit"], title=title,
                          on_missing=options["on_missing"])
    for w in caught:
        click.echo(f"Warning: {w.message}", err=True)
    return stat


def statistic_for(atlas, stat_id: str | None, options: dict[str, Any], title: str | None = None):
    """The statistic a command was given: a curated id (``--stat``) or a user table (``--data``), exactly one."""
    if bool(stat_id) == bool(options.get("data")):
        raise click.UsageError("Give exactly one of --stat (a curated table, see `mapgen stats list`) or "
                               "--data TABLE.csv (a user table).")
    return stat_id or user_table(atlas, options, title)


@contextmanager
def naming_table(table: str | None) -> Iterator[None]:
    """Inside: an error about a statistic's values (a :class:`~mapgen.errors.DataError`: a table's cells, too few
    distinct values for a legend) names the user table ``table`` they came from, when the message does not."""
    try:
        yield
    except DataError as exc:
        if table is None or str(Path(table)) in str(exc) or table in str(exc):
            raise
        raise DataError(f"{table}: {exc}") from None
