"""Static HTML report site of a benchmark (map browser, questions, captions, grounding boxes, eval, audit)."""

from mapgen.report_site.site import build_site, markdown_to_html

__all__ = ["build_site", "markdown_to_html"]
