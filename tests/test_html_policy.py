"""Every HTML page mapgen writes carries a Content-Security-Policy that runs no script it did not write: the report
site's pages (tests/test_hostile_bench.py runs a hostile bench through them) and the plotly renderer's interactive
map, checked here in headless Chromium with an injected handler and script."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("plotly")
pytest.importorskip("kaleido")

from test_render_plotly import chromium_console, needs_chromium, plotly_spec  # noqa: E402

from mapgen.render import render  # noqa: E402


def policy_of(page: str) -> str:
    found = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page)
    assert found, page[:500]
    return found.group(1)


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    return render(plotly_spec("india", classes=4, annotated=True, map_id="policy"),
                  tmp_path_factory.mktemp("policy") / "m.html").image


def test_plotly_page_allows_its_own_scripts_only(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    policy = policy_of(text)
    script = next(part for part in policy.split(";") if part.strip().startswith("script-src"))
    assert "unsafe-inline" not in script and "unsafe-eval" not in script and "'self'" not in script
    assert script.count("'sha256-") == len(re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", text)) >= 2
    assert "default-src 'none'" in policy


@needs_chromium
def test_an_injected_handler_does_not_run_but_the_map_draws(page: Path, tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.html"
    text = page.read_text(encoding="utf-8")
    inject = ("<img src=x onerror=\"document.body.dataset.pwned='handler'\">"
              "<script>document.body.dataset.pwned='script'</script>")
    hostile.write_text(text.replace("<body>", "<body>" + inject, 1), encoding="utf-8")
    dom, _console = chromium_console(hostile, tmp_path)
    assert "data-pwned" not in dom
    assert 'class="main-svg"' in dom  # plotly.js (an allowed inline script) still drew the figure
