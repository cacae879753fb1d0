"""The plotly renderer (plotly + kaleido + headless Chromium): PNG, SVG, PDF and interactive HTML of the figure
:mod:`mapgen.render.plotly_figure` builds (plotly's own look for a spec in the default style).

Speed: one long-lived Chromium (kaleido 1.x) per process, driven from a private event-loop thread, MathJax off,
topojson pointed at a local folder of empty topologies (never a download; only geo traces would ask). kaleido
reloads its page after every image; this renderer reloads only every :data:`RELOAD_EVERY` images
(``Plotly.toImage`` draws into a temporary div that it purges, so nothing carries over). A crashed browser is
replaced once per draw. Chromium's PNG is decoded and re-encoded with PIL (RGB, no metadata, the spec's
compression level), so the same spec gives byte-identical files; SVG gets fixed ids and PDF fixed dates for the
same reason. HTML is written by plotly.py with plotly.js embedded (``include_plotlyjs=True``: nothing is fetched
when the page is viewed) and a div id from the map id.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import contextlib
import hashlib
import io
import os
import re
import shutil
import threading
from pathlib import Path
from typing import Any

from PIL import Image

from mapgen.files import write_text_atomic
from mapgen.render.canvas import AtlasCanvas
from mapgen.render.plotly_figure import FONT_FAMILY, PLOTLY_HATCH, build_figure, hatch_fillpattern
from mapgen.render.png import encode_png
from mapgen.spec import MapSpec

__all__ = ["FONT_FAMILY", "PLOTLY_HATCH", "BrowserSession", "ChromiumNotFoundError", "PlotlyRenderer",
           "build_figure", "find_browser", "hatch_fillpattern", "topojson_dir"]

RELOAD_EVERY = 200
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
TOPOJSON_NAMES = tuple(
    f"{scope}_{res}"
    for scope in ("world", "usa", "europe", "asia", "africa", "north-america", "south-america")
    for res in ("110m", "50m")
)
EMPTY_TOPOLOGY = '{"type":"Topology","objects":{},"arcs":[]}'
INSTALL_HINT = (
    "The plotly renderer needs Chromium: install it with `apt-get install chromium` (Debian/Ubuntu) or point "
    "BROWSER_PATH at a Chrome/Chromium executable; or use the matplotlib renderer (`--renderer matplotlib`)."
)


class ChromiumNotFoundError(FileNotFoundError):
    """No usable Chromium/Chrome executable for kaleido (a FileNotFoundError: the CLI prints it as one line)."""


# --- browser -------------------------------------------------------------------------------------------------


def find_browser() -> str:
    """Path of the Chromium/Chrome executable kaleido will use (``BROWSER_PATH`` first), or a clear error."""
    env = os.environ.get("BROWSER_PATH")
    if env:
        if Path(env).is_file() and os.access(env, os.X_OK):
            return env
        raise ChromiumNotFoundError(f"BROWSER_PATH={env!r} is not an executable file. {INSTALL_HINT}")
    for name in BROWSER_NAMES:
        path = shutil.which(name)
        if path:
            return path
    raise ChromiumNotFoundError(f"No Chromium/Chrome found on PATH. {INSTALL_HINT}")


def topojson_dir() -> Path:
    """A local folder of empty topologies, so plotly.js never fetches topojson from a CDN (ARCHITECTURE.md §4)."""
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mapgen" / "topojson"
    root.mkdir(parents=True, exist_ok=True)
    for name in TOPOJSON_NAMES:
        path = root / f"{name}.json"
        if not path.exists():
            write_text_atomic(path, EMPTY_TOPOLOGY)
    return root


class BrowserSession:
    """One long-lived headless Chromium (kaleido) driven from a private event-loop thread."""

    def __init__(self, timeout: float = 90.0, reload_every: int = RELOAD_EVERY) -> None:
        self.browser = find_browser()
        self.topojson = topojson_dir().as_uri() + "/"
        self.timeout, self.reload_every = timeout, reload_every
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="mapgen-kaleido", daemon=True)
        self.thread.start()
        self.kaleido: Any = None
        try:
            self.kaleido = self._call(self._open())
        except BaseException:
            self._stop_loop()
            raise
        atexit.register(self.close)

    async def _open(self):
        from kaleido import Kaleido

        class _Kaleido(Kaleido):
            """Reloads a tab only every ``reload_every`` images instead of after each one."""

            renders = 0

            async def _return_kaleido_tab(inner, tab) -> None:  # noqa: N805
                inner.renders += 1
                if inner.renders % self.reload_every == 0:
                    await tab.reload()
                await inner.tabs_ready.put(tab)

        try:
            k = _Kaleido(n=1, timeout=self.timeout, mathjax=False, path=self.browser)
            await k.open()
        except Exception as exc:  # choreographer raises its own types for a missing/broken browser
            raise ChromiumNotFoundError(f"Could not start {self.browser}: {exc}. {INSTALL_HINT}") from exc
        return k

    def _call(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def png(self, figure: dict[str, Any], width: int, height: int) -> bytes:
        """PNG bytes of a figure at exactly ``width``×``height`` pixels."""
        return self.image(figure, width, height, "png")

    def image(self, figure: dict[str, Any], width: int, height: int, fmt: str) -> bytes:
        """The figure as ``fmt`` (``png``, ``svg``, ``pdf``) bytes at ``width``×``height`` pixels."""
        opts = {"format": fmt, "width": width, "height": height, "scale": 1}
        out = self._call(self.kaleido.calc_fig(figure, opts=opts, topojson=self.topojson))
        return out.encode("utf-8") if isinstance(out, str) else out

    def close(self) -> None:
        """Close the browser and stop the loop thread (idempotent)."""
        if self.kaleido is None or os.getpid() != self.pid:
            return
        try:
            self._call(self.kaleido.close())
        finally:
            self.kaleido = None
            self._stop_loop()

    def _stop_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


def reencode_png(raw: bytes, compress_level: int) -> bytes:
    """Decode Chromium's PNG and re-encode the RGB pixels without metadata (byte-stable output)."""
    with Image.open(io.BytesIO(raw)) as img:
        rgb = img.convert("RGB")
    return encode_png(rgb, compress_level)


def stable_svg(svg: bytes) -> bytes:
    """plotly's SVG with the figure's random id (in clip-path and gradient ids) replaced by a fixed one."""
    text = svg.decode("utf-8")
    uids = sorted(set(re.findall(r'id="clip([0-9a-f]{6})', text)))
    for i, uid in enumerate(uids):
        text = text.replace(uid, f"{i:06x}"[:6] if len(uids) > 1 else "mapgen")
    return text.encode("utf-8")


def stable_pdf(pdf: bytes) -> bytes:
    """Chromium's PDF with its creation and modification dates fixed (same map, same bytes)."""
    return re.sub(rb"\(D:\d{14}[^)]*\)", b"(D:20000101000000+00'00')", pdf)


def html_page(figure: dict[str, Any], div_id: str) -> bytes:
    """A self-contained interactive HTML page of a figure: plotly.js embedded, no CDN, MathJax off."""
    import plotly.io as pio

    config = {"displaylogo": False, "responsive": False, "scrollZoom": False}
    page = pio.to_html(figure, include_plotlyjs=True, include_mathjax=False, full_html=True, div_id=div_id,
                       config=config, validate=False, auto_play=False)
    return with_policy(page).encode("utf-8")


_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S)


def with_policy(page: str) -> str:
    """The page with a Content-Security-Policy that runs its own inline scripts only (each allowed by its
    sha256): no injected script, inline event handler or ``javascript:`` URL runs, nothing is fetched. Styles stay
    inline (plotly.js writes them)."""
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"
                      for body in _INLINE_SCRIPT.findall(page))
    policy = (f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data: blob:; "
              "font-src data:; base-uri 'none'; form-action 'none'; object-src 'none'")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    head = page.find("<head>")
    at = head + len("<head>") if head >= 0 else 0
    return page[:at] + meta + page[at:]


class PlotlyRenderer:
    """Draws maps with plotly through one long-lived Chromium (started on first use)."""

    name = "plotly"

    def __init__(self) -> None:
        self._session: BrowserSession | None = None

    def session(self) -> BrowserSession:
        """The browser session of this process (a new one after a fork)."""
        if self._session is None or self._session.pid != os.getpid():
            self._session = BrowserSession()
        return self._session

    def figure(self, spec: MapSpec, canvas: AtlasCanvas) -> tuple[dict[str, Any], list[dict], dict[str, Any]]:
        """The plotly figure dict of a map (for inspection or ``plotly.io.write_image``)."""
        return build_figure(spec, canvas)

    def draw(self, spec: MapSpec, canvas: AtlasCanvas, fmt: str = "png"
             ) -> tuple[bytes, list[dict[str, Any]], dict[str, Any]]:
        """PNG (or ``fmt``: ``svg``, ``pdf``, ``html``) bytes of a map, its legend item boxes and label records."""
        figure, legend_items, labels = build_figure(spec, canvas, interactive=fmt == "html")
        if fmt == "html":
            return html_page(figure, f"map-{spec.map_id}"), legend_items, labels
        raw = self._image(figure, canvas, fmt)
        if fmt == "svg":
            return stable_svg(raw), legend_items, labels
        if fmt == "pdf":
            return stable_pdf(raw), legend_items, labels
        return reencode_png(raw, spec.style.png_compress_level), legend_items, labels

    def _image(self, figure: dict[str, Any], canvas: AtlasCanvas, fmt: str) -> bytes:
        """The browser's image of a figure; a crashed or wedged browser is replaced and asked once more."""
        lay = canvas.layout
        try:
            return self.session().image(figure, lay.width, lay.height, fmt)
        except ChromiumNotFoundError:
            raise
        except Exception:
            self.close()
            return self.session().image(figure, lay.width, lay.height, fmt)

    def close(self) -> None:
        """Close this process's browser (a later draw starts a new one)."""
        session, self._session = self._session, None
        if session is not None:
            with contextlib.suppress(Exception):  # closing a dead browser may fail; it is gone either way
                session.close()

