"""Writing and reading files safely: the one place for atomic writes, JSON lines and checksums.

Every writer puts the bytes in a temp file beside the target and renames it into place, so a reader (or a crash)
never sees half a file. Every module that writes output goes through here; the benchmark folder's layout is owned
by :mod:`mapgen.benchmark`, which uses these primitives.

Output folders (eval reports, report sites, audits, counterfactual sets, exports) are written whole by
:func:`atomic_folder`: refused when not empty (unless replaced on purpose), locked against a second run, staged
beside the destination and renamed into place at the end, what killed runs left cleaned by the next run, and
marked finished last so readers can refuse anything else (:func:`require_finished`). A build writes in place
instead, unit by unit, so it can resume (:mod:`mapgen.build`); it shares the lock (:func:`held_lock`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, overload


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes, read a megabyte at a time (a million questions' file is ~1 GB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class ChecksumError(ValueError):
    """Files of a folder that are missing or whose bytes differ from the checksums its manifest lists."""


def failing_files(root: str | Path, digests: Mapping[str, str], wanted: Callable[[str], bool] | None = None) -> list[str]:
    """The files of ``digests`` (relative to ``root``; only those ``wanted`` keeps) that are missing or whose
    sha256 differs from the listed one."""
    root = Path(root)
    return [rel for rel, digest in digests.items() if (wanted is None or wanted(rel))
            and (not (root / rel).is_file() or sha256_file(root / rel) != digest)]


def verify_checksums(root: str | Path, digests: Mapping[str, str], listed_in: str, fix: str,
                     wanted: Callable[[str], bool] | None = None) -> None:
    """Refuse (:class:`ChecksumError`, one line naming the first failing file, how many fail and ``fix``) when a
    file ``digests`` lists under ``root`` (those ``wanted`` keeps) is missing or differs from its checksum in
    ``listed_in``."""
    failing = failing_files(root, digests, wanted)
    if not failing:
        return
    first = Path(root) / failing[0]
    if first.is_file():
        what = f"does not match its checksum in {listed_in}"
    else:
        what = f"is {'not a regular file' if first.exists() else 'missing'} (listed in {listed_in})"
    more = f" (and {len(failing) - 1} more: {', '.join(failing[1:4])}{', …' if len(failing) > 4 else ''})" \
        if len(failing) > 1 else ""
    raise ChecksumError(f"{first} {what}{more}: the folder changed after it was written; {fix}")


#: Errors of a disk that has no room left (no space, or over the user's quota).
_FULL = {errno.ENOSPC, errno.EDQUOT}


class DiskFullError(OSError):
    """A write that found no space left; its message names the destination and the space it needed."""

    def __str__(self) -> str:
        return str(self.strerror)


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def disk_full(exc: OSError, path: Path, needed: int | None = None) -> DiskFullError | None:
    """``exc`` as a :class:`DiskFullError` naming ``path``, the bytes ``needed`` and the free space (``None`` for
    any other error)."""
    if isinstance(exc, DiskFullError) or exc.errno not in _FULL:
        return None
    try:
        free = f", {_size(shutil.disk_usage(path.parent).free)} free"
    except OSError:
        free = ""
    need = f"{_size(needed)} needed{free}" if needed is not None else free.lstrip(", ")
    detail = f" ({need})" if need else ""
    message = (f"cannot write {path}: no space left on its disk{detail}; free some space there or choose a folder "
               "on another disk (-o/--output). Nothing half-written was left behind.")
    return DiskFullError(exc.errno, message, str(path))


class FolderError(OSError):
    """A folder that cannot be created (a parent that does not exist and cannot be made, as under ``/proc``)."""

    def __str__(self) -> str:
        return str(self.strerror)


def make_folder(folder: Path) -> None:
    """``folder.mkdir(parents=True, exist_ok=True)``; a path that cannot hold a folder raises :class:`FolderError`
    naming it and the fix."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileNotFoundError as exc:
        raise FolderError(exc.errno, f"cannot create the folder {exc.filename or folder}: {exc.strerror}; choose "
                          "a folder you can write to (-o)", str(folder)) from None


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temp file renamed into place (parents created); returns the path."""
    path = Path(path)
    make_folder(path.parent)
    tmp = _temp_name(path)
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        if (full := disk_full(exc, path, len(data))) is None:
            raise
        raise full from exc
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write UTF-8 text atomically."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def dumps_json(data: Any, *, indent: int | None = 1, sort_keys: bool = True, ensure_ascii: bool = True) -> str:
    """JSON text as mapgen writes it (no NaN: a NaN in output is a bug, never a silent ``NaN`` token); indented
    text by :func:`mapgen.jsontext.dumps_indented` (the same bytes, without ``json``'s pure-Python encoder)."""
    if isinstance(indent, int):
        from mapgen.jsontext import dumps_indented

        return dumps_indented(data, indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
    return json.dumps(data, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii, allow_nan=False)


def write_json_atomic(path: str | Path, data: Any, *, indent: int | None = 1, sort_keys: bool = True,
                      ensure_ascii: bool = True, newline: bool = False) -> Path:
    """Write one JSON document atomically (deterministic bytes: sorted keys by default; ``newline`` ends the
    file with a line break)."""
    text = dumps_json(data, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
    return write_text_atomic(path, text + "\n" if newline else text)


def read_json(path: str | Path) -> Any:
    """One JSON document (``ValueError`` naming the file on bad JSON)."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text, so not a JSON file; save it as UTF-8 JSON") from None


def jsonl_text(records: Iterable[Mapping[str, Any]], *, sort_keys: bool = True, ensure_ascii: bool = True) -> str:
    """JSON lines: one compact object per line, each ending in a newline."""
    return "".join(dumps_json(dict(r), indent=None, sort_keys=sort_keys, ensure_ascii=ensure_ascii) + "\n"
                   for r in records)


def write_jsonl_atomic(path: str | Path, records: Iterable[Mapping[str, Any]], *, sort_keys: bool = True,
                       ensure_ascii: bool = True) -> Path:
    """Write records as JSON lines atomically, a line at a time (``records`` may be a generator: the file's text
    is never held whole)."""
    with jsonl_writer(path, sort_keys=sort_keys, ensure_ascii=ensure_ascii) as write:
        for record in records:
            write(record)
    return Path(path)


@contextmanager
def atomic_file(path: str | Path) -> Iterator[Path]:
    """A temp path beside ``path`` for a writer that takes a file name (e.g. a parquet writer), renamed into
    place when the block ends without an error (removed when it raises): never half a file."""
    path = Path(path)
    make_folder(path.parent)
    tmp = _temp_name(path)
    try:
        yield tmp
        tmp.replace(path)
    except OSError as exc:
        if (full := disk_full(exc, path)) is None:
            raise
        raise full from exc
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def text_writer(path: str | Path) -> Iterator[Callable[[str], Any]]:
    """A function writing UTF-8 text to a temp file beside ``path``, renamed into place when the block ends
    without an error (removed when it raises; :func:`atomic_file`): streamed text, never half a file."""
    with atomic_file(path) as tmp, tmp.open("w", encoding="utf-8", newline="\n") as fh:
        yield fh.write


@contextmanager
def jsonl_writer(path: str | Path, *, sort_keys: bool = True,
                 ensure_ascii: bool = True) -> Iterator[Callable[[Mapping[str, Any]], None]]:
    """A function writing one record as a JSON line to ``path`` (:func:`text_writer`: atomic, streamed)."""
    with text_writer(path) as put:

        def write(record: Mapping[str, Any]) -> None:
            put(dumps_json(dict(record), indent=None, sort_keys=sort_keys, ensure_ascii=ensure_ascii) + "\n")

        yield write


class ShardedJsonl:
    """Records written as JSON lines to numbered shards of ``per_shard`` records each (``shard(i)``: the path of
    shard ``i``), each shard atomic (:func:`jsonl_writer`) and closed as soon as it is full, so one shard's file is
    open at a time. Use it as a context manager; call it with each record. ``paths``: the shards written, in order
    (at least one, empty when no record came)."""

    def __init__(self, shard: Callable[[int], Path], per_shard: int, *, sort_keys: bool = True,
                 ensure_ascii: bool = True) -> None:
        if per_shard < 1:
            raise ValueError(f"per_shard must be at least 1 (got {per_shard})")
        self.shard, self.per_shard = shard, per_shard
        self.sort_keys, self.ensure_ascii = sort_keys, ensure_ascii
        self.paths: list[Path] = []
        self._open: contextlib.ExitStack | None = None
        self._put: Callable[[Mapping[str, Any]], None] | None = None
        self._count = 0

    def __enter__(self) -> ShardedJsonl:
        return self

    def __call__(self, record: Mapping[str, Any]) -> None:
        if self._put is None or self._count == self.per_shard:
            self._next()
        assert self._put is not None
        self._put(record)
        self._count += 1

    def _next(self) -> None:
        """Close the shard being written (renamed into place) and open the next one."""
        if self._open is not None:
            self._open.close()
        path = self.shard(len(self.paths))
        self._open = contextlib.ExitStack()
        self._put = self._open.enter_context(jsonl_writer(path, sort_keys=self.sort_keys,
                                                          ensure_ascii=self.ensure_ascii))
        self.paths.append(path)
        self._count = 0

    def __exit__(self, *exc: Any) -> None:
        if self._open is None and exc[0] is None:
            self._next()  # no record: one empty shard, so the task's records are still listed
        if self._open is not None:
            self._open.__exit__(*exc)


def write_json_list_atomic(path: str | Path, items: Iterable[Any], *, sort_keys: bool = True,
                           ensure_ascii: bool = True, newline: bool = False) -> int:
    """Write a JSON list item by item (``items`` may be a generator; never held whole): the bytes of
    :func:`write_json_atomic` of the list with its default ``indent`` 1. Returns the number of items."""
    n = 0
    with text_writer(path) as put:
        for item in items:
            text = dumps_json(item, indent=1, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
            put(("[\n " if n == 0 else ",\n ") + text.replace("\n", "\n "))
            n += 1
        put(("\n]" if n else "[]") + ("\n" if newline else ""))
    return n


def append_jsonl(path: str | Path, record: Mapping[str, Any], *, sort_keys: bool = False,
                 ensure_ascii: bool = False) -> None:
    """Append one record as a JSON line (for append-only logs and caches, whose readers skip a torn last line)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(jsonl_text([record], sort_keys=sort_keys, ensure_ascii=ensure_ascii))


def write_files_atomic(files: Mapping[Path, bytes]) -> None:
    """Write several files all-or-nothing: every file goes to a temp name first, then all are renamed into place;
    on any failure the temps and the files already renamed are removed."""
    temps: list[tuple[Path, Path]] = []
    done: list[Path] = []
    try:
        for path, data in files.items():
            make_folder(path.parent)
            tmp = _temp_name(path)
            temps.append((tmp, path))  # before writing: a write that fails half-way is removed too
            tmp.write_bytes(data)
        for tmp, path in temps:
            tmp.replace(path)
            done.append(path)
    except BaseException as exc:
        for path in done:
            path.unlink(missing_ok=True)
        full = disk_full(exc, next(iter(files)), sum(map(len, files.values()))) if isinstance(exc, OSError) else None
        if full is None:
            raise
        raise full from exc
    finally:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)


def iter_json_lines(path: str | Path) -> Iterator[tuple[int, Any, str | None]]:
    """``(line number, value, error)`` for each non-blank line, never raising on a bad line: ``error`` is the JSON
    parser's message (and ``value`` ``None``) when the line is not valid JSON (or not UTF-8 text). A byte-order
    mark opening the file (Windows editors write one) is not part of the first line."""
    with Path(path).open(encoding="utf-8-sig", errors="surrogateescape") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                line.encode("utf-8")  # bytes that are not UTF-8 came in as lone surrogates
            except UnicodeEncodeError:
                yield number, None, "not UTF-8 text; save the file as UTF-8"
                continue
            try:
                yield number, json.loads(line), None
            except json.JSONDecodeError as exc:
                yield number, None, exc.msg


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each non-blank line; ``ValueError`` naming the file and line on bad JSON or
    a line that is not a JSON object."""
    for number, record, error in iter_json_lines(path):
        if error is not None:
            raise ValueError(f"{path}:{number}: not valid JSON ({error})")
        if not isinstance(record, dict):
            raise ValueError(f"{path}:{number}: expected a JSON object, got {type(record).__name__}")
        yield number, record


class JsonlRecords(Sequence[dict[str, Any]]):
    """The records of JSON-lines files (one file, or the shards of one in order), read from disk at every pass
    (never held whole): iterate it; ``len`` counts its lines once; indexing reads up to that line (slow, for code
    that expects a list). A missing file has none."""

    def __init__(self, *paths: str | Path) -> None:
        self.paths = [Path(path) for path in paths]
        self._len: int | None = None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for path in self.paths:
            if path.is_file():
                for _, record in iter_jsonl(path):
                    yield record

    def __len__(self) -> int:
        if self._len is None:
            self._len = sum(1 for _ in self)
        return self._len

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return list(self)[index]
        n = index + len(self) if index < 0 else index
        for i, record in enumerate(self):
            if i == n:
                return record
        raise IndexError(index)


def read_jsonl(path: str | Path, missing_ok: bool = False) -> list[dict[str, Any]]:
    """Every record of a JSON-lines file (``[]`` for a missing file when ``missing_ok``)."""
    path = Path(path)
    if missing_ok and not path.is_file():
        return []
    return [record for _, record in iter_jsonl(path)]


def resolves_inside(path: str | Path, root: str | Path) -> bool:
    """Whether ``path``, once ``..`` and links are resolved, lies inside the folder ``root`` (resolved too)."""
    return Path(path).resolve().is_relative_to(Path(root).resolve())


def copy_file(src: str | Path, dst: str | Path) -> None:
    """Copy the bytes of the regular file ``src`` to ``dst`` (parents created). Never a hard link (the copy shares
    nothing with its source) and never anything but a regular file (``ValueError`` for a FIFO, a device or a
    folder, which would hang or leak a reader)."""
    src, dst = Path(src), Path(dst)
    if not src.is_file():
        raise ValueError(f"{src} is not a regular file, so it is not copied; give a folder whose files are regular "
                         "files (an intact copy of the benchmark)")
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copyfile(src, dst)
    except OSError as exc:  # shutil names the source even when the destination's disk is full
        if (full := disk_full(exc, dst, src.stat().st_size)) is None:
            raise
        dst.unlink(missing_ok=True)
        raise full from exc


def refuse_inside(out: str | Path, folder: str | Path, what: str, option: str = "-o") -> None:
    """``ValueError`` when the output folder ``out`` is ``folder`` (an input, ``what`` names it) or lies inside
    it: a command never writes into what it reads."""
    target, source = Path(out).resolve(), Path(folder).resolve()
    if target == source or target.is_relative_to(source):
        where = "is" if target == source else "is inside"
        raise ValueError(f"{option} {out} {where} {what} {folder}; write the output to a folder outside it "
                         f"(e.g. {option} {source.name}-out next to it)")


def _benchmark_folder(folder: Path) -> bool:
    return (folder / "manifest.json").is_file() and (folder / "questions.jsonl").is_file()


def refuse_into_benchmark(out: str | Path, option: str = "-o") -> None:
    """``ValueError`` when the output ``out`` is a benchmark folder (a finished `mapgen build`) or lies inside
    one: no command writes into a benchmark, whose files its manifest's checksums cover."""
    target = Path(out).resolve()
    for folder in (target, *target.parents):
        if _benchmark_folder(folder):
            where = "is" if folder == target else "is inside"
            raise ValueError(f"{option} {out} {where} the benchmark folder {folder}; write the output to a folder "
                             f"outside it (e.g. {option} {folder.name}-out next to it)")


def refuse_overwrite(out: str | Path, source: str | Path, option: str = "-o") -> None:
    """``ValueError`` when the output file ``out`` is the input file ``source``."""
    if Path(out).resolve() == Path(source).resolve():
        raise ValueError(f"{option} {out} is the input file; writing it would overwrite the input — choose another "
                         f"{option} path")


class FolderNotEmptyError(FileExistsError):
    """A destination folder that holds files and may not be replaced."""


def _occupied(path: Path) -> bool:
    return path.exists() and (not path.is_dir() or any(path.iterdir()))


def remove_path(path: Path) -> None:
    """Remove a file, a symlink or a folder tree (nothing when absent)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


_WRITE = {errno.EACCES, errno.EPERM, errno.EROFS}


def _folder_write_error(exc: OSError, tmp: Path, out: Path) -> OSError | None:
    """A write error inside the staging folder ``tmp`` as one naming the destination ``out`` (``None``: an error
    of some other file, e.g. a source that cannot be read, which names itself)."""
    where = Path(exc.filename) if exc.filename else None
    inside = where is None or where.absolute().is_relative_to(tmp)
    if not inside or exc.errno not in _FULL | _WRITE:
        return None
    if exc.errno in _WRITE:
        return OSError(exc.errno, exc.strerror, str(out))
    try:
        free = f" ({_size(shutil.disk_usage(out.parent).free)} free)"
    except OSError:
        free = ""
    return DiskFullError(exc.errno, f"cannot write {out}: no space left on its disk{free}; free some space there "
                         "or choose a folder on another disk (-o/--output). Nothing was left behind.", str(out))


class FolderBusyError(ValueError):
    """A folder another mapgen process is writing (its lock is held)."""


def _holder(path: Path) -> str:
    try:
        pid = path.read_text().strip()
    except OSError:
        pid = ""
    return f"pid {pid}" if pid.isdigit() else "pid unknown"


def _acquire(path: Path, busy: Callable[[str], Exception]) -> int:
    """An open descriptor of ``path`` holding an exclusive flock (the file re-created if it was replaced);
    ``busy(holder)`` is raised when another process holds it."""
    import fcntl

    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise busy(_holder(path)) from None
        with suppress(FileNotFoundError):
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        os.close(fd)  # the holder removed the file as we opened it: lock the new one


@contextmanager
def held_lock(path: Path, busy: Callable[[str], Exception]) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the file ``path`` (holding this pid) until the block ends; raise
    ``busy(holder)`` when another process holds it (the kernel frees the lock of a killed process). Without
    ``fcntl`` (Windows) nothing is locked."""
    if os.name != "posix":
        yield
        return
    fd = _acquire(path, busy)
    try:
        with suppress(OSError):  # a full disk may refuse even these few bytes; the flock holds regardless
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        with suppress(FileNotFoundError):
            path.unlink()
        os.close(fd)


DONE_FILE = ".mapgen-done.json"
"""The completion record :func:`atomic_folder` writes last into a folder it is given a ``kind`` for; readers
refuse a folder without it (:func:`require_finished`)."""

_STAGING = ".partial-"
_OLD = ".old-"


def _staging(out: Path) -> Path:
    return out.with_name(f".{out.name}{_STAGING}{os.getpid()}.tmp")


def staging_folder(path: str | Path) -> bool:
    """Whether ``path`` is a staging folder of :func:`atomic_folder` (a run still writing it, or killed)."""
    name = Path(path).name
    return name.startswith(".") and name.endswith(".tmp") and (_STAGING in name or ".export-" in name)


def _leftovers(out: Path) -> list[Path]:
    """Staging and replaced copies of ``out`` that killed runs left beside it (older mapgen's
    ``.NAME.export-PID.tmp`` too), newest first."""
    prefix = f".{out.name}."
    kinds = (_STAGING.strip("."), _OLD.strip("."), "export-")
    found = [p for p in out.parent.iterdir() if p.name.startswith(prefix)
             and p.name[len(prefix):].startswith(kinds)] if out.parent.is_dir() else []
    return sorted(found, key=lambda p: p.lstat().st_mtime, reverse=True)


def _recover(out: Path, carry: Iterable[str], tmp: Path) -> None:
    """Clean what killed runs left beside ``out`` (the caller holds its lock, so nothing is writing them): a
    replaced copy is put back when ``out`` is gone (a run killed between its two renames), the ``carry``
    files are copied into ``tmp`` (from the newest leftover holding one, else ``out``), the rest removed."""
    leftovers = [p for p in _leftovers(out) if p != tmp]
    if not out.exists():
        old = next((p for p in leftovers if _OLD in p.name), None)
        if old is not None:
            old.rename(out)
            leftovers.remove(old)
    for name in carry:
        source = next((f for f in (*(p / name for p in leftovers), out / name) if f.is_file()), None)
        if source is not None:
            shutil.copyfile(source, tmp / name)
    for path in leftovers:
        remove_path(path)


def _busy(out: Path) -> Callable[[str], Exception]:
    return lambda holder: FolderBusyError(f"{out} is being written by another mapgen run ({holder}); wait for "
                                          "it to finish or stop it, or write to another folder (-o)")


@contextmanager
def atomic_folder(out_dir: str | Path, replace: bool = False, *, kind: str | None = None,
                  carry: Iterable[str] = ()) -> Iterator[Path]:
    """A fresh temporary folder beside ``out_dir`` that takes the place of ``out_dir`` only when the block
    succeeds (it is removed when the block fails): the one way mapgen writes an output folder (eval, report,
    audit, counterfactual sets, exports).

    Refuses a non-empty ``out_dir`` (:class:`FolderNotEmptyError`) unless ``replace``, and a folder another run
    is writing (:class:`FolderBusyError`: a lock file ``.NAME.lock`` beside it is held for the whole block).
    What killed runs left beside it is cleaned first; ``carry`` names files (a cache) copied into the new folder
    from there or from the folder replaced. With ``kind``, :data:`DONE_FILE` is written last, so readers can tell
    a finished folder (:func:`require_finished`).
    """
    out = Path(out_dir).absolute()
    if _occupied(out) and not replace:
        raise FolderNotEmptyError(f"{out} is not empty; choose a new folder or use --force to replace it")
    make_folder(out.parent)
    with held_lock(out.with_name(f".{out.name}.lock"), _busy(out)):
        tmp = _staging(out)
        remove_path(tmp)
        tmp.mkdir()
        try:
            _recover(out, carry, tmp)
            if _occupied(out) and not replace:  # a replaced copy put back
                raise FolderNotEmptyError(f"{out} is not empty; choose a new folder or use --force to replace it")
            yield tmp
            if kind is not None:
                write_json_atomic(tmp / DONE_FILE, {"complete": True, "kind": kind})
        except OSError as exc:
            remove_path(tmp)
            if (named := _folder_write_error(exc, tmp, out)) is None:
                raise
            raise named from exc
        except BaseException:
            remove_path(tmp)
            raise
        old = out.with_name(f".{out.name}{_OLD}{os.getpid()}")
        if out.exists():
            out.rename(old)
        tmp.rename(out)
        remove_path(old)


def require_finished(folder: str | Path, kind: str, option: str) -> Path:
    """``folder`` when :func:`atomic_folder` finished it as ``kind`` (the command that writes it, e.g.
    ``mapgen eval``); else ``ValueError``, one line naming the folder and the fix (a run stopped half-way, a
    staging folder, a folder another command wrote)."""
    path = Path(folder)
    done = path / DONE_FILE
    try:
        record = read_json(done) if done.is_file() else None
    except ValueError:
        record = None
    if not isinstance(record, dict) or record.get("complete") is not True:
        raise ValueError(f"{option} {folder} is not a finished folder of `{kind}` (no {DONE_FILE}: its run was "
                         f"stopped before the end, or `{kind}` did not write it); give the folder `{kind} -o` wrote "
                         "(run it again if it was stopped)")
    if record.get("kind") != kind:
        raise ValueError(f"{option} {folder} was written by `{record.get('kind')}`, not by `{kind}`; give the "
                         f"folder `{kind} -o` wrote")
    return path
