"""A resumed build drops the half-written temporary files of a worker killed mid-write (kill -9 of a build can
leave ``maps/.NAME.PID.tmp``), so the resumed folder holds exactly what a fresh build's does."""

from __future__ import annotations

from pathlib import Path

from mapgen.build import build

TINY = {"name": "partial", "seed": 2, "countries": [{"name": "usa", "maps": 1}], "variants": {"hatched": False},
        "questions": {"per_image": 2}, "tasks": ["vqa"]}


def test_resume_drops_a_killed_workers_temporary_files(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    build(TINY, out, progress=False)
    left = [out / "maps" / ".usa-0000-annotated.png.4242.tmp", out / "units" / ".usa-0000.json.4242.tmp"]
    for path in left:
        path.write_bytes(b"half")
    build(TINY, out, resume=True, progress=False)
    assert not any(path.exists() for path in left)
    assert (out / "maps" / "usa-0000-annotated.png").is_file()
