"""A user atlas file is read once per process: config validation, the build's input checks and the build folder's
copy share one read (cached by content), while each copy is still hashed and records its own path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from helpers import write_grid

import mapgen.geo.vector_file as vector_file
from mapgen.build import build
from mapgen.config import load_config
from mapgen.geo.atlas import load_atlas
from mapgen.geo.source import AtlasDigestError, AtlasFile


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The vector files read (parsed) from now on, in order."""
    seen: list[Path] = []
    read = vector_file._read_vector

    def counting(path: Path):
        seen.append(Path(path))
        return read(path)

    monkeypatch.setattr(vector_file, "_read_vector", counting)
    return seen


def test_a_build_with_a_user_atlas_reads_the_file_once(tmp_path: Path, reads: list[Path]) -> None:
    geo, table = write_grid(tmp_path / "in", n=3, stem="reads")
    config = tmp_path / "reads.yaml"
    config.write_text(yaml.safe_dump({"name": "reads", "seed": 1, "questions": {"per_image": 2}, "countries": [
        {"name": str(geo), "maps": 2, "statistics": {"curated": [], "files": [str(table)]}}]}))
    report = build(load_config(str(config)), tmp_path / "out", progress=False)  # as `mapgen build` calls it
    assert reads == [geo]  # before: twice (the config's file, then the folder's copy); the input checks hit a cache
    copy = tmp_path / "out" / "atlases" / "reads" / "reads.geojson"
    assert report.manifest["atlases"]["reads"]["path"] == "atlases/reads/reads.geojson"
    maps = sorted((tmp_path / "out" / "maps").glob("*.json"))
    assert maps and all('"path":"../atlases/reads/reads.geojson"' in m.read_text() for m in maps)  # the copy's
    assert copy.read_bytes() == geo.read_bytes()


def test_a_copy_is_the_same_atlas_at_its_own_path_and_a_changed_copy_is_read_again(
        tmp_path: Path, reads: list[Path]) -> None:
    geo, _ = write_grid(tmp_path / "a", n=2, stem="twin")
    copy = tmp_path / "b" / "twin.geojson"
    copy.parent.mkdir()
    shutil.copy(geo, copy)
    original, twin = load_atlas(geo), load_atlas(copy)
    assert reads == [geo]
    assert twin.file == AtlasFile.of(copy, original.file.name_field) and twin.source == str(copy.resolve())
    assert (twin.names, twin.positions, twin.groups) == (original.names, original.positions, original.groups)
    assert load_atlas(copy) is twin and load_atlas(AtlasFile.of(copy)) is twin  # one Atlas per file and content
    with pytest.raises(AtlasDigestError, match="has changed"):  # a copy is still checked against its digest
        load_atlas(AtlasFile(copy.resolve(), "0" * 64))
    write_grid(copy.parent, n=3, stem="twin")  # the copy changes: read again, as its new content
    assert len(load_atlas(copy).codes) == 9 and reads == [geo, copy]
    other, _ = write_grid(tmp_path / "c", n=2, stem="other")  # the same bytes under another name: its own atlas
    assert other.read_bytes() == geo.read_bytes()
    assert load_atlas(other).name == "other" and reads == [geo, copy, other]


def test_a_build_hashes_its_config_once_and_the_marker_and_manifest_agree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The config's digest covers every user file (the atlas is hashed for it): computed once per build, so the
    folder's marker and the manifest record the same inputs."""
    from mapgen.benchmark import read_marker
    from mapgen.config import BuildConfig

    geo, table = write_grid(tmp_path / "in", n=3, stem="once")
    config = tmp_path / "once.yaml"
    config.write_text(yaml.safe_dump({"name": "once", "seed": 1, "questions": {"per_image": 2}, "countries": [
        {"name": str(geo), "maps": 1, "statistics": {"curated": [], "files": [str(table)]}}]}))
    calls: list[str] = []
    digest = BuildConfig.digest

    def counting(self: BuildConfig, *inputs: object) -> str:
        calls.append(self.name)
        return digest(self, *inputs)  # type: ignore[arg-type]

    monkeypatch.setattr(BuildConfig, "digest", counting)
    report = build(load_config(str(config)), tmp_path / "out", progress=False)
    assert calls == ["once"]
    assert report.manifest["config_digest"] == read_marker(tmp_path / "out")["digest"] == digest(load_config(str(config)))
