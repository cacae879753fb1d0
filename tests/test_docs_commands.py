"""docs/getting-started.md and docs/rendering.md run as written: each page's files (a block after
``<!-- file: NAME -->``) are written and its bash blocks run in order, in an empty folder beside a link to the
checkout's ``data/`` (the pages are read from the root of a checkout).

Only setting up is not run: ``pip install …`` and ``apt-get install …`` (the test runs in an installed checkout)
and ``python -m pytest`` (the suite this test is part of). Blocks that draw with ``--renderer plotly`` run where
plotly and Chromium are installed."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("getting-started.md", "rendering.md")
_BLOCK = re.compile(r"(?:<!-- file: (?P<file>\S+) -->\n)?```(?P<lang>\w+)\n(?P<body>.*?)```", re.S)
_SETUP = re.compile(r"^(?:pip install [^&]*(?:&& )?|apt-get install .*|python -m pytest.*)")


def page_steps(page: str) -> list[tuple[str, str, str]]:
    """(kind, target, text) in page order: ("file", name, content) or ("bash", "", commands)."""
    steps = []
    for m in _BLOCK.finditer((ROOT / "docs" / page).read_text(encoding="utf-8")):
        if m["file"]:
            steps.append(("file", m["file"], m["body"]))
        elif m["lang"] == "bash":
            steps.append(("bash", "", m["body"]))
    return steps


def runnable(commands: str) -> str:
    """The block without its setting-up lines."""
    return "\n".join(_SETUP.sub("", line) for line in commands.splitlines())


def plotly_ready() -> bool:
    return bool(importlib.util.find_spec("plotly") and importlib.util.find_spec("kaleido")
                and (os.environ.get("BROWSER_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
                     or shutil.which("google-chrome")))


def test_setting_up_is_all_that_is_left_out() -> None:
    left_out = [line for page in PAGES for kind, _, text in page_steps(page) if kind == "bash"
                for line in text.splitlines() if _SETUP.match(line)]
    assert left_out == ["pip install -e '.[dev]' && mapgen build small -o bench-small", "python -m pytest -n 2",
                        "pip install -e '.[plotly]'     # plotly + kaleido",
                        "apt-get install -y chromium fonts-dejavu-core fonts-noto-core"]
    assert runnable(left_out[0]) == "mapgen build small -o bench-small"


@pytest.mark.parametrize("page", PAGES)
def test_the_page_runs_as_written(tmp_path: Path, page: str) -> None:
    (tmp_path / "data").symlink_to(ROOT / "data")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    ran = 0
    for kind, target, text in page_steps(page):
        if kind == "file":
            (tmp_path / target).write_text(text, encoding="utf-8")
            continue
        if "--renderer plotly" in text and not plotly_ready():
            continue
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", runnable(text)], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{text}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        ran += 1
    assert ran >= 5
    if page == "getting-started.md":
        assert (tmp_path / "bench-small" / "questions.jsonl").stat().st_size > 0
        assert (tmp_path / "out" / "map.png").is_file() and (tmp_path / "germany.png").is_file()
        assert len(list((tmp_path / "out").glob("*-hatched.png"))) == 1
    else:
        assert len([p for p in (tmp_path / "styles").glob("*.png") if not p.name.endswith(".mask.png")]) == 18
        assert {p.name for p in (tmp_path / "from-csv").glob("*.png")} >= {"land.png", "x.png"}
