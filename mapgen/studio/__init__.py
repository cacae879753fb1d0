"""The template studio (``mapgen templates studio``): one self-contained page that shows, for each template of a
pack, a few maps rendered by mapgen with the questions asked of them, their gold answers and program traces, why
the other draws were refused, and the pack's lint messages; written to a file or served on localhost, refreshed
when the pack's files change (:mod:`mapgen.studio.watch`).

- :mod:`mapgen.studio.collect`: the maps (rendered once) and what the engine says of each template on them;
- :mod:`mapgen.studio.page`: that as HTML (jinja2 with autoescape; a pack's text is data, never markup);
- :mod:`mapgen.studio.watch`: the pack's files polled for changes, the page rewritten or served.
"""

from __future__ import annotations

from mapgen.studio.collect import StudioMap, default_maps, load_maps, studio_view
from mapgen.studio.page import studio_page
from mapgen.studio.watch import Studio, serve_studio, write_studio

__all__ = ["Studio", "StudioMap", "default_maps", "load_maps", "serve_studio", "studio_page", "studio_view", "write_studio"]
