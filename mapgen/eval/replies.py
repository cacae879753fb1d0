"""Replies by record id held on disk: a private temporary SQLite database (:class:`ReplyStore`).

An eval run joins a predictions file to the benchmark's questions by id. A dict of id → reply text costs the
replies' text and the dict's share per question (~220 bytes a reply, 220 MB at a million); the store costs SQLite's
page cache (a few MB) whatever the file's size. It is a read-only :class:`~collections.abc.Mapping` in insertion
order (what the tasks read), and answers the run's joins by query: the ids given more than once (in the order of
their first repeat), the ids the benchmark does not have (:meth:`ReplyStore.mark_known`,
:meth:`ReplyStore.unknown`), and the replies to a chunk of questions, each taken once (:meth:`ReplyStore.take`),
with the ids never taken at the end (:meth:`ReplyStore.untaken`).

The database file is SQLite's own temporary one (``sqlite3.connect("")``): it lives in the temporary folder and
is deleted when the connection closes (when the store is collected).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from contextlib import contextmanager
from typing import TypeVar, overload

T = TypeVar("T")

BATCH = 5000
"""Rows written (or ids looked up) per statement."""

_SCHEMA = """
CREATE TABLE replies (
    id TEXT PRIMARY KEY,
    text TEXT,
    given INTEGER NOT NULL DEFAULT 1,
    seq INTEGER,
    first_repeat INTEGER,
    known INTEGER NOT NULL DEFAULT 0,
    taken INTEGER NOT NULL DEFAULT 0
)
"""
_ADD = """
INSERT INTO replies (id, text, seq) VALUES (?, ?, ?)
ON CONFLICT (id) DO UPDATE SET text = excluded.text, given = given + 1,
    first_repeat = coalesce(first_repeat, excluded.seq)
"""
"""A repeated id keeps its place (its first row) and takes the last text, as a dict's assignment does."""

FREE, TAKEN, OTHER = 0, 1, 2
"""``taken`` of a reply: not joined yet, joined to a question, or another task's record (never a question's)."""


def _batches(items: Iterable[T], size: int = BATCH) -> Iterator[list[T]]:
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


class _Values(ValuesView[str | None]):
    _mapping: ReplyStore

    def __iter__(self) -> Iterator[str | None]:
        return (text for _, text in self._mapping.items_in_order())


class _Items(ItemsView[str, str | None]):
    _mapping: ReplyStore

    def __iter__(self) -> Iterator[tuple[str, str | None]]:
        return self._mapping.items_in_order()


class ReplyStore(Mapping[str, str | None]):
    """Replies ``{record id: text}`` (``None``: given without a text) in a temporary SQLite database."""

    def __init__(self, items: Iterable[tuple[str, str | None]] = ()) -> None:
        self._db = sqlite3.connect("", isolation_level=None)  # "": SQLite's private temporary file
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute(_SCHEMA)
        self._given = 0
        self.add(items)

    @classmethod
    def of(cls, texts: Mapping[str, str | None]) -> ReplyStore:
        """The store of a mapping (itself when it is one)."""
        return texts if isinstance(texts, ReplyStore) else cls(texts.items())

    # --- writing ---------------------------------------------------------------------------------------------

    def add(self, items: Iterable[tuple[str, str | None]]) -> None:
        """Add ``(id, text)`` pairs in order; an id given again keeps its place, takes the last text and counts as
        a repeat (:meth:`duplicates`)."""
        for batch in _batches(items):
            start, self._given = self._given, self._given + len(batch)
            with self._transaction():
                self._db.executemany(_ADD, [(key, text, start + i) for i, (key, text) in enumerate(batch)])

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _flag(self, column: str, value: int, ids: Iterable[str], where: str = "") -> None:
        for batch in _batches(ids):
            self._db.execute(f"UPDATE replies SET {column} = ? WHERE id IN (SELECT value FROM json_each(?)){where}",
                       (value, json.dumps(batch)))

    def mark_known(self, ids: Iterable[str]) -> None:
        """Note ``ids`` as ids the benchmark has (streamed past the store, a batch at a time)."""
        self._flag("known", 1, ids)

    def mark_other(self, ids: Iterable[str]) -> None:
        """Note ``ids`` as other tasks' records: never taken, never untaken."""
        self._flag("taken", OTHER, ids, f" AND taken = {FREE}")

    def take(self, ids: Sequence[str]) -> dict[str, str | None]:
        """The replies to ``ids`` not taken before (or marked another task's), now taken."""
        out: dict[str, str | None] = {}
        for batch in _batches(ids):
            rows = self._db.execute(f"UPDATE replies SET taken = {TAKEN} WHERE taken = {FREE} AND id IN "
                                    "(SELECT value FROM json_each(?)) RETURNING id, text", (json.dumps(batch),))
            out.update(rows.fetchall())
        return out

    # --- reading ---------------------------------------------------------------------------------------------

    def __getitem__(self, key: str) -> str | None:
        row = self._db.execute("SELECT text FROM replies WHERE id = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        text: str | None = row[0]
        return text

    def __contains__(self, key: object) -> bool:
        return self._db.execute("SELECT 1 FROM replies WHERE id = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        count: int = self._db.execute("SELECT count(*) FROM replies").fetchone()[0]
        return count

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self.items_in_order())

    def items_in_order(self) -> Iterator[tuple[str, str | None]]:
        """``(id, text)`` in the order the ids were first given."""
        return iter(self._db.execute("SELECT id, text FROM replies ORDER BY rowid"))

    def values(self) -> _Values:
        return _Values(self)

    def items(self) -> _Items:
        return _Items(self)

    def has_text(self) -> bool:
        """Whether any reply has a text (not ``None``)."""
        return self._db.execute("SELECT 1 FROM replies WHERE text IS NOT NULL LIMIT 1").fetchone() is not None

    def duplicates(self) -> list[str]:
        """Each id given more than once, once per repeat, ordered by its first repeat."""
        rows = self._db.execute("SELECT id, given FROM replies WHERE given > 1 ORDER BY first_repeat")
        return [key for key, given in rows for _ in range(given - 1)]

    def unknown(self, limit: int | None = None) -> list[str]:
        """The ids not marked known (the first ``limit``, in the order given)."""
        return [key for (key,) in self._db.execute("SELECT id FROM replies WHERE known = 0 ORDER BY rowid LIMIT ?",
                                                   (-1 if limit is None else limit,))]

    def unknown_count(self) -> int:
        count: int = self._db.execute("SELECT count(*) FROM replies WHERE known = 0").fetchone()[0]
        return count

    def untaken(self) -> UntakenIds:
        """The ids never taken (nor another task's), sorted: a view read from the store when used."""
        return UntakenIds(self._db)


class UntakenIds(Sequence[str]):
    """The sorted ids of a :class:`ReplyStore` never taken (the run's unmatched predictions), read on use."""

    _WHERE = f"FROM replies WHERE taken = {FREE}"

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __len__(self) -> int:
        count: int = self._db.execute(f"SELECT count(*) {self._WHERE}").fetchone()[0]
        return count

    def __iter__(self) -> Iterator[str]:  # UTF-8 byte order is code point order: Python's sort of the ids
        return (key for (key,) in self._db.execute(f"SELECT id {self._WHERE} ORDER BY id"))

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return list(self)[index]
        size = len(self)
        position = index + size if index < 0 else index
        if not 0 <= position < size:
            raise IndexError(index)
        row = self._db.execute(f"SELECT id {self._WHERE} ORDER BY id LIMIT 1 OFFSET ?", (position,)).fetchone()
        key: str = row[0]
        return key

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    __hash__ = None  # type: ignore[assignment]
