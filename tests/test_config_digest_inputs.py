"""Every file a config names is read beside the config and is in its digest (issue 37, item 5): real ``mapgen
build`` runs of a tiny grid config in ``cfg/`` started from another folder (holding a decoy style of the same name),
and ``--resume`` after a change to each input (style, table, atlas, template pack) refused naming that file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import write_grid

from mapgen.config import load_config
from mapgen.render.style import text_digest

ROOT = Path(__file__).resolve().parents[1]
STYLE = 'page:\n  background: "#fff1e5"\n'
DECOY = 'page:\n  background: "#123456"\n'
PACK = """\
templates:
  - id: digest_pair
    answer_type: binary
    params:
      X: Region
      Y: {type: Region, from: "others(readable_regions(), X)"}
    text: ["Is the value of {{ X }} higher than the value of {{ Y }}?"]
    program:
      - answer: compare(X, 'higher', Y)
"""
CONFIG = """\
name: digest
seed: 2
countries:
  - name: gridland.geojson
    maps: 2
    statistics: {curated: [], files: [gridland.csv], synthetic: {count: 0}}
variants: {styles: [mystyle.yaml]}
questions: {packs: [pack], per_template: 1, per_image: 2, min_per_template: 0}
tasks: [vqa]
"""
#: A change to each file the config names that keeps it valid: (file, text replaced, replacement; "" appends).
CHANGES = [("mystyle.yaml", "", "# edited\n"), ("gridland.csv", ",1.0\n", ",1.5\n"),
           ("gridland.geojson", '"pop": 0', '"pop": 99'), ("pack/templates.yaml", "", "# edited\n")]


def change(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert not old or old in text
    path.write_text(text.replace(old, new, 1) if old else text + new, encoding="utf-8")


def mapgen(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``mapgen ARGS`` run from this tree in a child process started in ``cwd``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "mapgen", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def write_project(root: Path) -> Path:
    """``cfg/`` (config, style, grid atlas and table, a template pack) and ``run/`` holding a decoy style."""
    cfg = root / "cfg"
    write_grid(cfg, stem="gridland")
    (cfg / "mystyle.yaml").write_text(STYLE, encoding="utf-8")
    (cfg / "pack").mkdir()
    (cfg / "pack" / "templates.yaml").write_text(PACK, encoding="utf-8")
    (cfg / "c.yaml").write_text(CONFIG, encoding="utf-8")
    (root / "run").mkdir()
    (root / "run" / "mystyle.yaml").write_text(DECOY, encoding="utf-8")
    return cfg / "c.yaml"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built from ``run/`` as ``mapgen build ../cfg/c.yaml -o out``."""
    root = tmp_path_factory.mktemp("digest")
    write_project(root)
    result = mapgen("build", "../cfg/c.yaml", "-o", "out", "--workers", "1", cwd=root / "run")
    assert result.returncode == 0, result.stderr
    return root


def test_a_style_file_is_read_beside_the_config_not_in_the_working_folder(built: Path) -> None:
    specs = [json.loads(p.read_text()) for p in sorted((built / "run" / "out" / "maps").glob("*.json"))]
    assert specs
    for spec in specs:
        style = spec["spec"]["style"]
        assert (style["look"], style["look_digest"], style["background"]) == ("mystyle.yaml", text_digest(STYLE),
                                                                             "#fff1e5")


def test_a_config_builds_from_a_folder_without_its_style(built: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = mapgen("build", built / "cfg" / "c.yaml", "-o", tmp_path / "out", "--workers", "2", cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    a_spec = json.loads(next((tmp_path / "out" / "maps").glob("*.json")).read_text())
    assert a_spec["spec"]["style"]["background"] == "#fff1e5"


def test_a_missing_style_file_is_named_beside_the_config(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    (config.parent / "mystyle.yaml").unlink()
    result = mapgen("build", "../cfg/c.yaml", "-o", "out", cwd=tmp_path / "run")  # run/ holds a mystyle.yaml
    assert result.returncode == 2
    assert f"variants.styles: no style file '{config.parent / 'mystyle.yaml'}'" in result.stderr, result.stderr


def test_every_named_file_is_in_the_digest(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    digests = {load_config(config).digest()}
    for name, old, new in CHANGES:
        change(config.parent / name, old, new)
        digests.add(load_config(config).digest())
    assert len(digests) == 5  # each change made a new digest


@pytest.mark.parametrize(("edit", "named"), zip(CHANGES, ["style mystyle.yaml", "file gridland.csv",
                                                          "file gridland.geojson", "template pack pack"]),
                         ids=[c[0] for c in CHANGES])
def test_resume_after_a_change_refuses_naming_the_changed_file(built: Path, tmp_path: Path,
                                                                edit: tuple[str, str, str], named: str) -> None:
    project = tmp_path / "project"
    shutil.copytree(built, project)
    again = mapgen("build", "../cfg/c.yaml", "-o", "out", "--resume", cwd=project / "run")
    assert again.returncode == 0, again.stderr  # unchanged: resumes
    change(project / "cfg" / edit[0], edit[1], edit[2])
    result = mapgen("build", "../cfg/c.yaml", "-o", "out", "--resume", cwd=project / "run")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"Error: out was built from another version of {named} (paths are relative to the folder of "
        "../cfg/c.yaml); put the old version back to --resume, or use another folder or --force to rebuild.")
