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
from mapgen.mapmaking import read_table

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


#: The ``--data`` options that say how to read the table (the keyword arguments of ``load_table``).
TABLE_READING = ("region_col", "value_col", "kind", "unit", "on_missing")


def statistic_for(atlas, stat_id: str | None, options: dict[str, Any], title: str | None = None):
    """The statistic a command was given: a curated id (``--stat``) or a user table (``--data``, read by
    :func:`mapgen.mapmaking.read_table`, its warnings printed on stderr), exactly one."""
    if bool(stat_id) == bool(options.get("data")):
        raise click.UsageError("Give exactly one of --stat (a curated table, see `mapgen stats list`) or "
                               "--data TABLE.csv (a user table).")
    if stat_id:
        return stat_id
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stat = read_table(atlas, options["data"], title, **{k: options[k] for k in TABLE_READING})
    for w in caught:
        click.echo(f"Warning: {w.message}", err=True)
    return stat


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
