"""The studio page as HTML: jinja2 with autoescape (a pack's texts, values and lint lines are data: markup in them
shows as text), its style and its one script inline, each allowed by its hash in the page's
Content-Security-Policy, which allows nothing else — no other script, no inline handler, nothing fetched but the
served page's own revision. Images are the maps' PNGs as ``data:`` URIs, each written once."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any

from jinja2 import Environment

from mapgen.resources import template_path
from mapgen.studio.collect import StudioMap

#: Where a served page asks for the revision of the pack it shows (:mod:`mapgen.studio.watch`).
REVISION_PATH = "/_studio/revision"
#: How often a page written to a file with ``--watch`` reloads itself (seconds).
FILE_REFRESH_SECONDS = 2


def _asset(name: str) -> str:
    return template_path("studio", f"{name}.j2").read_text(encoding="utf-8")


def _hash(body: str) -> str:
    return f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"


def policy(style: str, script: str | None) -> str:
    """The page's CSP: its inline style and script by hash, ``data:`` images, the served revision."""
    scripts = f"script-src {_hash(script)}; connect-src 'self'; " if script is not None else ""
    return (f"default-src 'none'; {scripts}style-src {_hash(style)}; img-src data:; base-uri 'none'; "
            "form-action 'none'; object-src 'none'")


def studio_page(view: dict[str, Any], maps: Sequence[StudioMap], revision: str, mode: str = "file") -> str:
    """The HTML of ``view`` (:func:`mapgen.studio.collect.studio_view`) over ``maps``. ``mode``: ``file`` (a
    static page), ``file-watch`` (reloads itself every :data:`FILE_REFRESH_SECONDS`) or ``served`` (reloads
    when :data:`REVISION_PATH` gives another revision)."""
    from mapgen import __version__

    style = _asset("studio.css")
    script = _asset("watch.js") if mode == "served" else None
    images = [{"id": f"map-{i}", "w": m.scene.width, "h": m.scene.height,
               "uri": "data:image/png;base64," + base64.b64encode(m.png).decode()} for i, m in enumerate(maps)]
    env = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return env.from_string(_asset("page.html")).render(
        view=view, images=images, style=style, script=script, csp=policy(style, script), revision=revision,
        refresh=FILE_REFRESH_SECONDS if mode == "file-watch" else None, revision_path=REVISION_PATH,
        version=__version__)
