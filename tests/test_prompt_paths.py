"""A prompt strategy sends no file from outside its folder and its texts run under a work budget (issue 37):
real ``mapgen prompt`` and ``mapgen eval --model`` runs (against a loopback stub server) on a tiny grid build,
with strategy files written here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ChatStub, one_map_grid_config

ROOT = Path(__file__).resolve().parents[1]
SECRET = "top secret words\n"
NESTED = ("{% for a in range(100) %}{% for b in range(100) %}{% for c in range(100) %}x{% endfor %}{% endfor %}"
          "{% endfor %}{{ question }}")


def mapgen(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``mapgen ARGS`` run from this tree in a child process."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "mapgen", *map(str, args)], capture_output=True, text=True,
                          env=full, timeout=300)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-map build on a 4×4 grid."""
    root = tmp_path_factory.mktemp("prompts")
    built = mapgen("build", one_map_grid_config(root, "prompts"), "-o", root / "out", "--workers", "1")
    assert built.returncode == 0, built.stderr
    return root / "out"


def first_question(bench: Path) -> str:
    return str(json.loads((bench / "questions.jsonl").read_text().splitlines()[0])["question_id"])


def strategies(root: Path, bench: Path) -> dict[str, Path]:
    """Strategy files in ``root/prompts``: an example image inside, paths leaving the folder, a nested loop."""
    folder = root / "prompts"
    (folder / "examples").mkdir(parents=True)
    (root / "secret.txt").write_text(SECRET, encoding="utf-8")
    shutil.copy(next((bench / "maps").glob("*.png")), folder / "examples" / "worked.png")
    (folder / "examples" / "link.png").symlink_to(root / "secret.txt")
    files = {"inside": ["examples/worked.png"], "parent": ["../secret.txt"], "absolute": [str(root / "secret.txt")],
             "link": ["examples/link.png"], "dotted": ["examples/../../secret.txt"]}
    out = {}
    for name, images in files.items():
        out[name] = folder / f"{name}.yaml"
        out[name].write_text(json.dumps({"text": "{{ question }}", "example_images": images}), encoding="utf-8")
    out["nested"] = folder / "nested.yaml"
    out["nested"].write_text(json.dumps({"text": NESTED}), encoding="utf-8")
    return out


@pytest.mark.parametrize("name", ["parent", "absolute", "link", "dotted"])
def test_prompt_refuses_an_example_image_outside_the_strategys_folder(bench: Path, tmp_path: Path, name: str) -> None:
    strategy = strategies(tmp_path, bench)[name]
    result = mapgen("prompt", bench, "--question", first_question(bench), "--prompt", strategy)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert line.startswith(f"Error: prompt strategy {strategy}: example_images: ")
    assert f"resolves to '{tmp_path / 'secret.txt'}', outside the strategy's folder '{tmp_path / 'prompts'}'" in line
    assert SECRET.strip() not in result.stdout + result.stderr


def test_an_example_image_inside_the_folder_is_sent_first(bench: Path, tmp_path: Path) -> None:
    strategy = strategies(tmp_path, bench)["inside"]
    result = mapgen("prompt", bench, "--question", first_question(bench), "--prompt", strategy)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"[image 1] {tmp_path / 'prompts' / 'examples' / 'worked.png'}\n")


def test_a_strategy_found_by_name_is_held_to_its_folder_too(bench: Path, tmp_path: Path) -> None:
    strategy = strategies(tmp_path, bench)["parent"]
    result = mapgen("prompt", bench, "--question", first_question(bench), "--prompt", "parent",
                    env={"MAPGEN_PROMPTS": str(strategy.parent)})
    assert result.returncode == 2 and f"prompt strategy {strategy}: example_images: '../secret.txt'" in result.stderr


def test_nested_loops_in_a_prompt_text_fail_fast_in_one_line(bench: Path, tmp_path: Path) -> None:
    strategy = strategies(tmp_path, bench)["nested"]
    start = time.monotonic()
    result = mapgen("prompt", bench, "--question", first_question(bench), "--prompt", strategy)
    assert time.monotonic() - start < 60
    assert result.returncode == 2 and result.stdout == ""
    assert f"Error: prompt strategy {strategy}: a prompt text takes more than 10,000 steps" in result.stderr


@pytest.mark.parametrize("name", ["parent", "link", "nested"])
def test_eval_with_a_model_sends_nothing_for_a_refused_strategy(bench: Path, tmp_path: Path, name: str) -> None:
    strategy = strategies(tmp_path, bench)[name]
    bodies: list[str] = []
    server = ChatStub(lambda body: bodies.append(json.dumps(body)) or '{"answer": "Yes"}')
    try:
        result = mapgen("eval", bench, "--model", "openai:tiny", "--base-url", server.url, "--prompt", strategy,
                        "--retries", "0", "--no-plots", "-o", tmp_path / "report", env={"MAPGEN_API_KEY": "x"})
    finally:
        server.close()
    assert result.returncode == 2, result.stderr
    assert f"prompt strategy {strategy}" in result.stderr
    assert server.requests == 0 and not bodies


def test_eval_with_a_model_sends_an_example_image_from_inside(bench: Path, tmp_path: Path) -> None:
    strategy = strategies(tmp_path, bench)["inside"]
    bodies: list[dict] = []
    server = ChatStub(lambda body: bodies.append(body) or '{"answer": "Yes"}')
    try:
        result = mapgen("eval", bench, "--model", "openai:tiny", "--base-url", server.url, "--prompt", strategy,
                        "--retries", "0", "--no-plots", "--limit", "1", "-o", tmp_path / "report",
                        env={"MAPGEN_API_KEY": "x"})
    finally:
        server.close()
    assert result.returncode == 0, result.stderr
    images = [part for part in bodies[0]["messages"][-1]["content"] if part.get("type") == "image_url"]
    assert len(images) == 2  # the example, then the map
