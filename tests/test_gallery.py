"""The documentation's pictures (docs/gallery/, drawn by scripts/gallery.py with mapgen itself) are not stale
against the recipes and source files that drew them, each page shows its pictures beside the commands that make
them, and the staleness check notices a changed source, recipe or picture file."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _load_gallery() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mapgen_docs_gallery", ROOT / "scripts" / "gallery.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


gallery = _load_gallery()
MANIFEST = json.loads((DOCS / "gallery" / "manifest.json").read_text(encoding="utf-8"))


def _mirror(tmp_path: Path, changed: str, text: bytes | None) -> Path:
    """A checkout whose source files are links to the real ones, except `changed` (rewritten, or gone if None)."""
    for rel in MANIFEST["sources"]:
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel != changed:
            target.symlink_to(ROOT / rel)
        elif text is not None:
            target.write_bytes(text)
    return tmp_path


def test_no_picture_is_stale() -> None:
    problems = gallery.stale(MANIFEST)
    assert not problems, "\n".join(problems) + "\nredraw them: python scripts/gallery.py"


def test_the_mirror_of_the_checkout_is_not_stale(tmp_path: Path) -> None:
    assert gallery.stale(MANIFEST, root=_mirror(tmp_path, "", None)) == []


@pytest.mark.parametrize("folder", ["mapgen/render/", "mapgen/questions/", "data/atlas/", "templates/styles/",
                                    "scripts/"])
def test_a_changed_source_makes_the_pictures_stale(tmp_path: Path, folder: str) -> None:
    changed = next(rel for rel in sorted(MANIFEST["sources"]) if rel.startswith(folder))
    root = _mirror(tmp_path, changed, (ROOT / changed).read_bytes() + b"\n")
    problems = gallery.stale(MANIFEST, root=root)
    assert len(problems) == 1 and problems[0].startswith("every picture") and changed in problems[0]


def test_a_removed_source_makes_the_pictures_stale(tmp_path: Path) -> None:
    problems = gallery.stale(MANIFEST, root=_mirror(tmp_path, "mapgen/counterfactual.py", None))
    assert problems and "mapgen/counterfactual.py" in problems[0]


def test_a_changed_recipe_makes_that_picture_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    pictures = gallery.pictures()
    scales = next(p for p in pictures if p.name == "scales")
    changed = dataclasses.replace(scales, commands=(*scales.commands[:-1], scales.commands[-1].replace("0", "1")))
    monkeypatch.setattr(gallery, "pictures", lambda: [changed if p is scales else p for p in pictures])
    assert gallery.stale(MANIFEST) == ["scales: its recipe (files, commands or composer) changed"]


def test_a_picture_file_not_drawn_by_the_gallery_is_noticed(tmp_path: Path) -> None:
    copy = tmp_path / "gallery"
    shutil.copytree(DOCS / "gallery", copy)
    shutil.copyfile(copy / "style-minimal.png", copy / "style-default.png")
    assert gallery.stale(MANIFEST, gallery=copy) == [
        "style-default: docs/gallery/style-default.png is not the file the gallery drew"]


def test_each_page_shows_its_pictures_beside_their_commands() -> None:
    for picture in gallery.pictures():
        page = re.sub(r"\\\n\s*", "", (DOCS / picture.page).read_text(encoding="utf-8"))  # joined continuations
        assert f"](gallery/{picture.name}.png)" in page, (picture.page, picture.name)
        for command in picture.commands:
            assert command in page, (picture.page, command)
        for _, text in picture.files:
            assert text in page, (picture.page, picture.name)


def test_the_pages_that_need_pictures_have_them() -> None:
    pages = {p.page for p in gallery.pictures()}
    assert {"getting-started.md", "rendering.md", "counterfactuals.md", "tasks-and-evaluation.md"} <= pages
    styles = {p.name.removeprefix("style-") for p in gallery.pictures() if p.name.startswith("style-")}
    assert styles == {p.stem for p in (ROOT / "templates" / "styles").glob("*.yaml")}


def test_the_pictures_are_web_sized() -> None:
    files = sorted((DOCS / "gallery").glob("*.png"))
    assert {f.stem for f in files} == set(MANIFEST["pictures"])
    assert sum(f.stat().st_size for f in files) < 4_000_000
    assert all(entry["size"][0] <= 1300 for entry in MANIFEST["pictures"].values())


def test_each_picture_records_the_specs_of_its_maps() -> None:
    pictures = MANIFEST["pictures"]
    assert all(entry["specs"] for entry in pictures.values())
    assert all(len(pictures[f"style-{style}"]["specs"]) == 3 for style in gallery.STYLES)
    assert [m.rsplit("-", 1)[-1] for m in pictures["counterfactual-kinds"]["specs"]] == [
        "s3", "s3", "original", "s3"]  # imaginary, jumbled, original, shuffled: sorted by map id
