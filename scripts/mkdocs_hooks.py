"""MkDocs hooks for the documentation site (``hooks:`` in mkdocs.yml).

Docstrings cite names with Sphinx roles (``:func:`render```), which mkdocstrings renders as the role's text
before the code; the hook drops the role. Tables escape pipes inside code (``\\|``) so GitHub renders them; the
site shows them unescaped. mkdocs-click prints click 8.2's ``Sentinel.UNSET`` as the default of a flag
that has none; the hook leaves the cell empty.
"""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:attr|class|data|exc|func|meth|mod|obj|ref):(?=<code>)")
_UNSET = "<code>Sentinel.UNSET</code>"
_CODE = re.compile(r"<code>(.*?)</code>", re.DOTALL)


def _unescape_pipes(match: re.Match[str]) -> str:
    return "<code>" + match.group(1).replace("\\|", "|") + "</code>"


def on_page_content(html: str, **_: Any) -> str:
    """Drop Sphinx roles before code, unescape table pipes inside code, blank unset defaults."""
    return _CODE.sub(_unescape_pipes, _ROLE.sub("", html.replace(_UNSET, "")))
