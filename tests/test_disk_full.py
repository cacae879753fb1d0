"""A full disk (ENOSPC, on a real 128 KB tmpfs) names the destination and the space needed, and leaves no
half-written file; ``export`` names its destination, not a source file (#28 item 7). Needs permission to mount
a tmpfs (root in the CI container); skipped elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.files import DiskFullError, write_bytes_atomic

TINY = Path(__file__).parent / "data" / "disk_full.yaml"


def _temps(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def test_a_write_that_does_not_fit_names_its_path_and_size(full_disk: Path) -> None:
    target = full_disk / "big.bin"
    with pytest.raises(DiskFullError) as err:
        write_bytes_atomic(target, b"x" * 512 * 1024)
    assert f"cannot write {target}: no space left" in str(err.value) and "512.0 KB needed" in str(err.value)
    assert not target.exists() and _temps(full_disk) == []


def test_a_build_on_a_full_disk_names_the_file_and_leaves_no_temp(full_disk: Path) -> None:
    out = full_disk / "bench"
    result = CliRunner().invoke(main, ["build", str(TINY), "-o", str(out), "--quiet"])
    message = result.output.strip()
    # before: "cannot write: No space left on device; choose a folder you can write to" (no path)
    assert result.exit_code == 1 and len(message.splitlines()) == 1
    assert f"cannot write {out}" in message and "needed" in message and "no space left" in message
    assert _temps(full_disk) == []


def test_export_on_a_full_disk_names_the_destination(full_disk: Path, eval_bench: Path) -> None:
    dest = full_disk / "export"
    result = CliRunner().invoke(main, ["export", str(eval_bench), "--format", "jsonl", "-o", str(dest)])
    message = result.output.strip()
    assert result.exit_code == 1 and len(message.splitlines()) == 1
    assert f"cannot write {dest}: no space left" in message and str(eval_bench) not in message
    assert not dest.exists() and list(full_disk.iterdir()) == []  # the staging folder is gone too
