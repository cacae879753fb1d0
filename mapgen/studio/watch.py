"""The studio page written to a file or served on localhost, made again when the pack's files change (polled:
every file under each pack path, by modification time and size; the maps are rendered once)."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from mapgen.files import write_text_atomic
from mapgen.studio.collect import StudioMap, studio_view
from mapgen.studio.page import REVISION_PATH, studio_page

#: Seconds between two looks at the pack's files.
POLL_SECONDS = 0.5


def pack_files(packs: Sequence[str | Path]) -> list[Path]:
    """Every file of the packs: a pack file itself, or each file under a pack folder (sorted)."""
    out: list[Path] = []
    for pack in map(Path, packs):
        out += sorted(p for p in pack.rglob("*") if p.is_file() and "__pycache__" not in p.parts) if pack.is_dir() else [pack]
    return out


def snapshot(packs: Sequence[str | Path]) -> tuple[tuple[str, int, int], ...]:
    """What a change of the packs' files changes: each file's path, modification time and size."""
    out = []
    for p in pack_files(packs):
        try:
            stat = p.stat()
        except FileNotFoundError:  # removed between the listing and the look
            continue
        out.append((str(p), stat.st_mtime_ns, stat.st_size))
    return tuple(out)


def revision(packs: Sequence[str | Path]) -> str:
    """A short digest of the packs' files (names and contents): the page's revision."""
    digest = hashlib.sha256()
    for p in pack_files(packs):
        digest.update(str(p).encode() + b"\0")
        digest.update(p.read_bytes() if p.is_file() else b"")
    return digest.hexdigest()[:12]


@dataclass
class Studio:
    """The packs and maps of a studio and its current page (made again by :meth:`refresh` on a change)."""

    packs: Sequence[str | Path]
    maps: Sequence[StudioMap]
    mode: str = "file"
    per_map: int = 3
    seed: int = 0
    html: str = ""
    revision: str = ""
    summary: str = ""
    seen: tuple = ()
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refresh(self) -> bool:
        """Make the page again when the packs' files changed since the last time (always the first time);
        whether it did."""
        now = snapshot(self.packs)
        if self.html and now == self.seen:
            return False
        rev = revision(self.packs)
        view = studio_view(self.packs, self.maps, self.per_map, self.seed)
        html = studio_page(view, self.maps, rev, self.mode)
        with self.lock:
            self.html, self.revision, self.seen = html, rev, now
        self.summary = view["error"] or f"revision {rev}: {_count(view['templates'], 'template')}, " \
                                        f"{_count(view['problems'], 'lint problem')}"
        return True


def _count(items: Sequence[object], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def write_studio(studio: Studio, out: str | Path, watch: bool = False, stop: threading.Event | None = None,
                 said: Callable[[str], None] = print) -> Path:
    """Write the page to ``out``; with ``watch``, write it again whenever the packs change, until ``stop`` is set
    (or the process is interrupted)."""
    out = Path(out)
    studio.mode = "file-watch" if watch else "file"
    studio.refresh()
    write_text_atomic(out, studio.html)
    said(f"wrote {out} ({studio.summary})")
    while watch and not (stop and stop.is_set()):
        time.sleep(POLL_SECONDS)
        if studio.refresh():
            write_text_atomic(out, studio.html)
            said(f"wrote {out} ({studio.summary})")
    return out


def serve_studio(studio: Studio, port: int = 8765, watch: bool = False, stop: threading.Event | None = None,
                 said: Callable[[str], None] = print) -> None:
    """Serve the page on ``127.0.0.1:port`` (0: any free port) until ``stop`` is set or the process is
    interrupted; with ``watch``, the page is made again when the packs change and an open page reloads."""
    studio.mode = "served" if watch else "file"
    studio.refresh()
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), _handler(studio))
    except OSError as exc:
        raise ValueError(f"cannot serve on 127.0.0.1:{port} ({exc.strerror}); choose another --port "
                         "(0: any free port)") from None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    said(f"serving http://127.0.0.1:{server.server_address[1]}/ ({studio.summary}); Ctrl-C stops")
    try:
        while not (stop and stop.is_set()):
            time.sleep(POLL_SECONDS)
            if watch and studio.refresh():
                said(studio.summary)
    finally:
        server.shutdown()
        server.server_close()


def _handler(studio: Studio) -> type[BaseHTTPRequestHandler]:
    """A request handler serving ``/`` (the page) and :data:`REVISION_PATH` (its revision) of ``studio``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            with studio.lock:
                html, rev = studio.html, studio.revision
            if self.path in ("/", "/index.html"):
                self._reply(html.encode(), "text/html; charset=utf-8")
            elif self.path == REVISION_PATH:
                self._reply(rev.encode(), "text/plain; charset=utf-8")
            else:
                self.send_error(HTTPStatus.NOT_FOUND)

        def _reply(self, body: bytes, kind: str) -> None:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's name)
            """Quiet: the page polls twice a second."""

    return Handler

