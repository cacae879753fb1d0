"""`mapgen render --all-variants -o DIR/` writes every variant into DIR (#41 item 5: it used to write into a
folder named like a PNG); a file path with --all-variants is a usage error naming the fix."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from PIL import Image

from mapgen.cli import main


def test_all_variants_go_into_the_folder_given(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["render", "usa", "--stat", "population_2020", "--all-variants", "-o", f"{out}/"])
    assert result.exit_code == 0, result.output
    images = sorted(p.name for p in out.iterdir() if p.suffix == ".png" and not p.name.endswith(".mask.png"))
    assert [n.rsplit("-", 1)[-1] for n in images] == ["annotated.png", "hatched.png", "unannotated.png"]
    assert all(p.is_file() for p in out.iterdir())  # no folder named like a PNG
    for name in images:
        with Image.open(out / name) as image:
            assert image.size[0] == 800


def test_all_variants_with_a_file_path_names_the_folder_to_give(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["render", "usa", "--stat", "population_2020", "--all-variants",
                                       "-o", str(tmp_path / "map.png")])
    assert result.exit_code == 2 and "give a folder" in result.output and "map.png" in result.output
    assert list(tmp_path.iterdir()) == []
