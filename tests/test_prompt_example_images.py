"""A prompt strategy's ``example_images`` are images inside the strategy's folder: a model is sent their bytes, so
a text file beside the strategy (and a path out of its folder, see tests/test_prompt_paths.py) is refused by
`prompt` (and `eval --model`, which loads strategies the same way) before anything is sent (issue 37)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.build import build
from mapgen.cli import main
from mapgen.files import read_jsonl

SECRET = "TOP-SECRET do not send"


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("prompt-images") / "bench"
    build({"name": "examples", "seed": 2, "countries": [{"name": "china", "maps": 1}],
           "questions": {"per_template": 1, "per_image": 2}}, out, progress=False)
    return out


def strategy(folder: Path, images: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mine.yaml"
    path.write_text(json.dumps({"name": "mine", "text": "Question: {{ question }}", "example_images": images}))
    return path


def prompt(bench: Path, path: Path) -> tuple[int, str]:
    question = read_jsonl(bench / "questions.jsonl")[0]["question_id"]
    ran = CliRunner().invoke(main, ["prompt", str(bench), "--prompt", str(path), "--question", question, "--json"])
    return ran.exit_code, ran.output


def test_a_text_file_beside_the_strategy_is_not_sent(bench: Path, tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "secret.txt").write_text(SECRET)
    code, out = prompt(bench, strategy(tmp_path / "s", ["secret.txt"]))
    assert code == 2 and "example_images: 'secret.txt' is not a PNG or JPEG image" in out, out
    assert SECRET not in out


def test_a_path_out_of_the_strategy_folder_is_refused(bench: Path, tmp_path: Path) -> None:
    image = next((bench / "maps").glob("*.png"))
    shutil.copyfile(image, tmp_path / "outside.png")
    code, out = prompt(bench, strategy(tmp_path / "s", ["../outside.png"]))
    assert code == 2 and "example_images: '../outside.png' resolves to" in out, out
    assert "outside the strategy's folder" in out
    code, out = prompt(bench, strategy(tmp_path / "t", ["/etc/hostname"]))
    assert code == 2 and "outside the strategy's folder" in out, out


def test_an_image_beside_the_strategy_is_sent(bench: Path, tmp_path: Path) -> None:
    image = next((bench / "maps").glob("*.png"))
    (tmp_path / "s" / "examples").mkdir(parents=True)
    shutil.copyfile(image, tmp_path / "s" / "examples" / "ex.png")
    code, out = prompt(bench, strategy(tmp_path / "s", ["examples/ex.png"]))
    assert code == 0, out
    images = json.loads(out)["images"]
    assert images[0].endswith("examples/ex.png") and len(images) == 2
