"""docs/authoring-templates.md is executed: its files are written as shown and its bash blocks run in order in an
empty folder, ending in an English and a Chinese build that ask the pack's questions."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "authoring-templates.md"
_BLOCK = re.compile(r"(?:<!-- file: (?P<file>\S+) -->\n)?```(?P<lang>\w+)\n(?P<body>.*?)```", re.S)


def page_steps() -> list[tuple[str, str, str]]:
    """(kind, target, text) in page order: ("file", path, content) or ("bash", "", commands)."""
    steps = []
    for m in _BLOCK.finditer(PAGE.read_text(encoding="utf-8")):
        if m["file"]:
            steps.append(("file", m["file"], m["body"]))
        elif m["lang"] == "bash":
            steps.append(("bash", "", m["body"]))
    return steps


def test_the_page_writes_a_pack_with_a_function_and_chinese_texts() -> None:
    files = [target for kind, target, _ in page_steps() if kind == "file"]
    assert {"mypack/templates.yaml", "mypack/functions.py", "mypack/lang/zh.yaml"} <= set(files)


def test_the_page_runs(tmp_path: Path) -> None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    for kind, target, text in page_steps():
        if kind == "file":
            (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / target).write_text(text, encoding="utf-8")
            continue
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=tmp_path, env=env, capture_output=True,
                                text=True, timeout=600)
        assert result.returncode == 0, f"{text}\n{result.stdout}\n{result.stderr}"
    pack_ids = {"higher_pair", "map_extreme", "higher_neighbour_count"}
    for bench in ("bench-en", "bench-zh"):
        questions = [json.loads(line) for line in (tmp_path / bench / "questions.jsonl").read_text().splitlines()]
        asked = {q["template_id"] for q in questions}
        assert len(asked & pack_ids) >= 2, (bench, asked)
        manifest = json.loads((tmp_path / bench / "manifest.json").read_text())
        assert manifest["packs"]["mypack"]["path"] == "packs/mypack"
    chinese = [json.loads(line) for line in (tmp_path / "bench-zh" / "questions.jsonl").read_text().splitlines()]
    assert any("接壤" in q["question"] for q in chinese if q["template_id"] == "higher_neighbour_count")
