"""Static HTML report: files, data, Markdown tables, and a headless-Chromium load + screenshot check."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from mapgen.build import build
from mapgen.cli import main
from mapgen.evaluation import Baseline, run_eval
from mapgen.report_site import build_site, markdown_to_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--virtual-time-budget=5000"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    bench = root / "bench"
    build({"name": "sitetest", "seed": 1, "countries": [{"name": "china", "maps": 2}],
           "questions": {"per_template": 1, "per_image": 5}}, bench, progress=False)
    run_eval(bench, Baseline("random"), out_dir=root / "eval")
    from mapgen.audit.audit import audit_benchmark

    audit_benchmark(bench, root / "audit")
    build_site(bench, root / "site", eval_dir=root / "eval", audit_dir=root / "audit")
    return root / "site"


def load_data(site: Path) -> dict:
    text = (site / "data.js").read_text()
    assert text.startswith("window.MAPGEN_SITE = ")
    return json.loads(text[len("window.MAPGEN_SITE = ") :].rstrip().rstrip(";"))


def test_site_files_and_data(site: Path) -> None:
    for rel in ("index.html", "data.js", "assets/app.js", "assets/style.css"):
        assert (site / rel).is_file()
    data = load_data(site)
    assert len(data["maps"]) == 5  # 2 maps: annotated + unannotated (+ hatched when discrete)
    for m in data["maps"]:
        assert (site / m["image"]).is_file() and not m["image"].startswith("/")
        assert m["country"] == "china" and m["variant"]
    assert any(m["boxes"] for m in data["maps"]) and any(m["captions"] for m in data["maps"])
    q = next(q for m in data["maps"] for q in m["q"])
    assert {"text", "answer", "t", "at", "pred", "score", "oracle", "oracle_ok"} <= set(q)
    page = (site / "index.html").read_text()
    assert "Evaluation" in page and "Pixel audit" in page and "<table>" in page
    assert 'src="eval/plots/' in page and (site / "eval" / "plots").is_dir()
    assert "file://" not in page and not re.search(r"https?://", page.split("<footer>")[0])  # nothing fetched


def test_worst_cases_page_ranks_maps_from_the_audit(site: Path) -> None:
    import re
    from urllib.parse import unquote

    from mapgen.files import read_jsonl
    from mapgen.report_site.worst import SECTIONS, worst_cases

    audit = site.parent / "audit"
    rows = {r["map_id"]: r["legibility"] for r in read_jsonl(audit / "maps.jsonl")}
    worst = worst_cases(audit)
    for section, spec in zip(worst["sections"], SECTIONS):
        values = [r["value"] for r in section["rows"]]
        assert values == sorted(values, reverse=not spec.ascending)
        have = sorted((m["metrics"][spec.key] for m in rows.values() if m["metrics"].get(spec.key) is not None),
                      reverse=not spec.ascending)
        assert values == have[: len(values)]  # the worst ones, not any ones
        for r in section["rows"]:
            assert rows[r["id"]]["metrics"][spec.key] == r["value"]
    assert {r["id"] for r in worst["flagged"]} == {m for m, leg in rows.items() if leg["flags"]}
    page = (site / "worst.html").read_text()
    assert 'href="worst.html"' in (site / "index.html").read_text()
    linked = {unquote(m) for m in re.findall(r'href="index.html#map=([^"]+)"', page)}
    assert linked and linked <= set(rows)
    for src in re.findall(r'<img src="([^"]+)"', page):
        assert (site / src).is_file()


def test_markdown_tables_become_html() -> None:
    out = markdown_to_html("# Title\n\n| a | b |\n|---|---:|\n| x `y` | 1 |\n\n- one\n- two <b>\n")
    assert "<h2>Title</h2>" in out
    assert '<td class="num">1</td>' in out and "<code>y</code>" in out
    assert "<li>two &lt;b&gt;</li>" in out


def test_cli_report(site: Path, tmp_path: Path) -> None:
    bench = site.parent / "bench"
    res = CliRunner().invoke(main, ["report", str(bench), "-o", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "s" / "index.html").is_file()


def _chromium(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_page_loads_in_headless_chromium_without_errors(site: Path, tmp_path: Path) -> None:
    url = (site / "index.html").resolve().as_uri()
    dom = _chromium(["--dump-dom", url], tmp_path).stdout
    assert 'data-status="ready"' in dom, dom[-2000:]
    assert "ready maps=5 cards=5" in dom
    assert '<pre id="site-errors"></pre>' in dom, dom[dom.find("site-errors") - 50 :][:2000]
    detail = _chromium(["--dump-dom", url + "#map=china-0000-annotated"], tmp_path).stdout
    assert "<svg viewBox" in detail and "<rect" in detail and '<pre id="site-errors"></pre>' in detail


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_screenshot_shows_maps(site: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    url = (site / "index.html").resolve().as_uri()
    _chromium([f"--screenshot={shot}", "--window-size=1280,900", url], tmp_path)
    image = np.asarray(Image.open(shot).convert("RGB"))
    assert image.shape[:2] == (900, 1280)
    grid = image[180:900]  # below the header and filters: the map cards
    colours = len(np.unique(grid.reshape(-1, 3), axis=0))
    assert colours > 500  # rendered maps (antialiased polygons, legends), not an empty page
    assert grid.std() > 20
