"""The template studio (issue 41 item 4): `mapgen templates studio` writes or serves a page with each template of a
pack on maps rendered by mapgen — questions, gold answers, traces, refused draws, lint — escaped as data, and
the page follows an edit of the pack (checked in headless Chromium, served and written with --watch)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import chromium_pipe
import pytest
from chromium_pipe import CHROMIUM, Browser
from click.testing import CliRunner

from mapgen.cli import main

OLD = "Is the value of {{ X }} higher than the value of {{ Y }}?"
NEW = "Does {{ X }} show a higher value than {{ Y }} does?"
HOSTILE = "Is {{ X }} <img src=x onerror=document.body.dataset.pwned=1> above {{ Y }}?"
ENV = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
"""The studio runs as a process of its own from this checkout."""
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def usa_map(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A map JSON written by `mapgen spec` (the studio renders it)."""
    out = tmp_path_factory.mktemp("maps") / "usa.json"
    _run("spec", "usa", "--stat", "population_2020", "-o", str(out))
    return out


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """A starter pack written by `mapgen templates new`."""
    _run("templates", "new", "higher_pair", "-o", str(tmp_path / "pack"))
    assert OLD in (tmp_path / "pack" / "templates.yaml").read_text(encoding="utf-8")
    return tmp_path / "pack"


def _edit(pack: Path, old: str, new: str) -> None:
    path = pack / "templates.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _studio(pack: Path, usa_map: Path, out: Path) -> str:
    _run("templates", "studio", str(pack), "--maps", str(usa_map), "-o", str(out))
    return out.read_text(encoding="utf-8")


def test_the_page_shows_questions_answers_traces_and_draws(pack: Path, usa_map: Path, tmp_path: Path) -> None:
    page = _studio(pack, usa_map, tmp_path / "studio.html")
    assert 'data-template="higher_pair"' in page and "No problems" in page
    asked = re.findall(r'<p class="q">Is the value of (\w[\w ]*) higher than the value of (\w[\w ]*)\?', page)
    assert len(asked) == 3  # -n 3 on one map
    assert len(re.findall(r"Gold answer: <b>(Yes|No)</b>", page)) == 3
    assert page.count("compare(X, &#39;higher&#39;, Y)") >= 4  # the program, then each question's trace
    assert re.search(r"<li>asked: \d+ of 200 draws</li>", page)
    assert _studio(pack, usa_map, tmp_path / "again.html") == page  # the same pack gives the same page


def test_lint_lines_are_shown_not_fatal(pack: Path, usa_map: Path, tmp_path: Path) -> None:
    _edit(pack, "from: \"others(", "form: \"others(")
    page = _studio(pack, usa_map, tmp_path / "studio.html")
    assert "unknown key &#39;form&#39; (did you mean &#39;from&#39;?)" in page
    assert 'class="lint bad"' in page


@pytest.mark.parametrize(("args", "message"), [
    ((), "give either -o PAGE.html or --serve"),
    (("-o", "studio.txt"), "is no .html file"),
    (("-o", "pack/studio.html"), "lies in the pack"),
])
def test_bad_options_exit_2_in_one_line(pack: Path, tmp_path: Path, args: tuple[str, ...], message: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["templates", "studio", "pack", *args])
    assert result.exit_code == 2 and message in result.output
    assert not (pack / "studio.html").exists()


def test_a_port_in_use_exits_2_naming_it(pack: Path, usa_map: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["templates", "studio", str(pack), "--maps", str(usa_map), "--serve",
                                           "--port", str(port)])
    assert result.exit_code == 2 and f"cannot serve on 127.0.0.1:{port}" in result.output


def _errors(browser: Browser) -> list[str]:
    """Console errors, uncaught exceptions and browser log errors (CSP refusals among them) so far."""
    out = []
    for event in browser.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            out.append(str(params.get("exceptionDetails")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            out.append(str(params.get("args")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            out.append(params["entry"].get("text", ""))
    return out


def _browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Browser:
    """Chromium with every host unresolvable but the studio's own address."""
    flags = [f"{flag}, EXCLUDE 127.0.0.1" if flag.startswith("--host-resolver-rules=") else flag
             for flag in chromium_pipe.FLAGS]
    monkeypatch.setattr(chromium_pipe, "FLAGS", flags)
    browser = Browser(tmp_path / "profile", tmp_path / "downloads")
    browser.page("Log.enable")
    return browser


def _shows(browser: Browser, text: str, timeout: float = 60.0) -> None:
    browser.wait(f"document.body && document.body.innerText.includes({text!r})", timeout=timeout)


@needs_chromium
def test_a_served_page_follows_an_edit_of_the_pack(pack: Path, usa_map: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = [sys.executable, "-m", "mapgen", "templates", "studio", str(pack), "--maps", str(usa_map), "--serve",
           "--port", "0", "--watch"]
    server = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=ENV)
    browser = None
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        url = re.search(r"serving (http://127\.0\.0\.1:\d+/)", line)
        assert url, line
        browser = _browser(tmp_path, monkeypatch)
        browser.open(url.group(1))
        _shows(browser, "Is the value of")
        before = browser.js("document.body.dataset.revision")
        _edit(pack, OLD, NEW)
        _shows(browser, " show a higher value than ")  # the page reloaded itself with the new text
        assert browser.js("document.body.dataset.revision") != before
        assert "Is the value of" not in browser.js("document.body.innerText")
        assert _errors(browser) == []
    finally:
        if browser is not None:
            browser.close()
        server.terminate()
        server.wait(timeout=30)


@needs_chromium
def test_a_written_page_follows_an_edit_and_pack_text_stays_text(pack: Path, usa_map: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "studio.html"
    cmd = [sys.executable, "-m", "mapgen", "templates", "studio", str(pack), "--maps", str(usa_map), "-o", str(out),
           "--watch"]
    writer = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=ENV)
    browser = None
    try:
        assert writer.stderr is not None and "wrote" in writer.stderr.readline()
        browser = _browser(tmp_path, monkeypatch)
        browser.open(out.as_uri())
        _shows(browser, "Is the value of")
        _edit(pack, OLD, HOSTILE)
        _shows(browser, "<img src=x onerror=")  # shown as text, after the file was written again
        time.sleep(0.5)
        assert browser.js("document.body.dataset.pwned") is None
        assert browser.js("document.querySelectorAll('main img').length") == 0
        assert _errors(browser) == []
    finally:
        if browser is not None:
            browser.close()
        writer.terminate()
        writer.wait(timeout=30)
