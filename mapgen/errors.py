"""Errors every floor may raise and the CLI turns into one clear line (kept free of heavy imports)."""

from __future__ import annotations

from collections.abc import Iterable

MAX_LISTED = 8
"""Items (ids, rows, columns) an error line names before it says how many more there are."""
MAX_LINE = 2000
"""Characters of an error line the CLI prints (the middle of a longer one is cut, its start and its fix kept)."""


def listing(items: Iterable[object], shown: int = MAX_LISTED, sep: str = ", ") -> str:
    """The first ``shown`` items (as text) joined by ``sep``, then how many more: a list in an error line stays
    short however long the input (a million duplicate ids name 8 and say "… (999992 more)")."""
    texts = [str(i) for i in items]
    more = f"{sep}… ({len(texts) - shown} more)" if len(texts) > shown else ""
    return sep.join(texts[:shown]) + more


def bounded_line(message: str, limit: int = MAX_LINE) -> str:
    """``message`` cut to about ``limit`` characters: a longer one keeps its start (what is wrong) and its end
    (the fix), saying how much of the middle was left out."""
    if len(message) <= limit:
        return message
    head, tail = message[: limit * 2 // 3], message[-(limit // 3):]
    return f"{head} … ({len(message) - len(head) - len(tail):,} characters left out) … {tail}"


class BuildError(RuntimeError):
    """A build that cannot proceed as asked (e.g. the folder holds another config)."""


class DataError(ValueError):
    """A statistic's values cannot make what was asked (a table's cells, too few distinct values for a legend);
    the CLI names the table the values came from (:func:`mapgen.cli.sources.naming_table`)."""
