"""Eval, report, audit and counterfactual folders are written like builds (#37 item 6): a non-empty folder is
refused without ``--force``, one run per folder (a lock), all-or-nothing (a staging folder renamed at the end,
what killed runs left cleaned), and readers refuse a folder its run did not finish. Real CLI runs; the kill -9
cases run ``mapgen`` in a subprocess that SIGKILLs itself with every file staged, just before the rename."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.files import DONE_FILE

REPO = Path(__file__).resolve().parents[1]
TINY = Path(__file__).parent / "data" / "disk_full.yaml"


def run(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output.strip()


def refused(code_output: tuple[int, str], *fragments: str) -> str:
    code, output = code_output
    assert code == 2 and len(output.splitlines()) == 1 and "Traceback" not in output, output
    for fragment in fragments:
        assert fragment in output, output
    return output


def staged(parent: Path) -> list[Path]:
    """What a run left beside its output folder: staging folders, replaced copies, locks."""
    return [p for p in parent.iterdir() if p.name.startswith(".")]


KILLED_BEFORE_RENAME = """
import os, pathlib, signal, sys
rename = pathlib.Path.rename
def kill_first(self, target):  # the worst moment: every file staged, nothing renamed into place yet
    if ".partial-" in self.name:
        os.kill(os.getpid(), signal.SIGKILL)
    return rename(self, target)
pathlib.Path.rename = kill_first
from mapgen.cli import main
sys.argv[0] = "mapgen"
main()
"""


def killed_run(parent: Path, *args: object) -> Path:
    """Run ``mapgen ARGS`` in a subprocess that is SIGKILLed just before its staging folder would be renamed
    into place (deterministic: the moment a finished-looking folder would be most tempting); returns the
    staging folder it left."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", KILLED_BEFORE_RENAME, *map(str, args)], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    stages = [p for p in parent.glob(".*.partial-*.tmp") if any(p.rglob("*"))]
    assert len(stages) == 1, stages
    return stages[0]


def test_eval_refuses_an_old_report_and_force_replaces_it_whole(eval_bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("eval", eval_bench, "--baseline", "pixel", "-o", out)[0] == 0
    assert (out / "audit" / "audit.jsonl").is_file() and (out / "plots").is_dir()
    # before: exit 0, the new summary.json beside the old run's plots/ and audit/
    refused(run("eval", eval_bench, "--baseline", "random", "--no-plots", "-o", out), str(out), "--force")
    assert (out / "audit").is_dir()  # untouched
    assert run("eval", eval_bench, "--baseline", "random", "--no-plots", "-o", out, "--force")[0] == 0
    assert not (out / "audit").exists() and not (out / "plots").exists()
    assert (out / DONE_FILE).is_file() and staged(tmp_path) == []


def test_report_refuses_an_existing_site_without_force(eval_bench: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert run("report", eval_bench, "-o", site)[0] == 0
    (site / "mine.txt").write_text("kept")
    # before: the site was overwritten in place
    refused(run("report", eval_bench, "-o", site), str(site), "--force")
    assert (site / "mine.txt").read_text() == "kept"
    assert run("report", eval_bench, "-o", site, "--force")[0] == 0
    assert not (site / "mine.txt").exists() and (site / "index.html").is_file() and staged(tmp_path) == []


def test_audit_and_counterfactual_refuse_a_non_empty_folder(eval_bench: Path, tmp_path: Path) -> None:
    for command in (("audit", eval_bench), ("counterfactual", eval_bench, "--kind", "imaginary")):
        out = tmp_path / command[0]
        out.mkdir()
        (out / "notes.txt").write_text("mine")
        refused(run(*command, "-o", out), str(out), "--force")
        assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert run("audit", eval_bench, "-o", tmp_path / "audit", "--force", "--quiet")[0] == 0
    assert (tmp_path / "audit" / "audit.jsonl").is_file() and not (tmp_path / "audit" / "notes.txt").exists()


def test_a_second_run_into_a_folder_being_written_is_refused(eval_bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom mapgen.files import atomic_folder\n"
         f"with atomic_folder({str(out)!r}) as tmp:\n    print('held', flush=True)\n    time.sleep(60)"],
        env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        # before: both runs exit 0 and one report is silently gone
        message = refused(run("eval", eval_bench, "--baseline", "random", "--no-plots", "-o", out),
                          "being written by another mapgen run", f"pid {holder.pid}")
        assert str(out) in message
    finally:
        holder.kill()
        holder.wait()
    assert run("eval", eval_bench, "--baseline", "random", "--no-plots", "-o", out)[0] == 0  # the lock died with it
    assert (out / "summary.json").is_file() and staged(tmp_path) == []


def test_kill_9_during_eval_leaves_no_folder_a_reader_accepts(eval_bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    stage = killed_run(tmp_path, "eval", eval_bench, "--baseline", "pixel", "-o", out)
    assert not out.exists()
    # before: `report --eval` accepted the half-written folder
    refused(run("report", eval_bench, "-o", tmp_path / "site", "--eval", stage), "not a finished folder of `mapgen eval`",
            "stopped before the end")
    oracle = next(stage.rglob("predictions.jsonl"))  # the pixel oracle's answers, staged with the audit
    refused(run("eval", eval_bench, "--predictions", oracle, "-o", tmp_path / "e2"),
            "staging folder of a run that did not finish")
    assert not (tmp_path / "site").exists()
    assert run("eval", eval_bench, "--baseline", "random", "--no-plots", "-o", out)[0] == 0
    assert not stage.exists() and staged(tmp_path) == []  # the next run into the folder cleans what was left


def test_kill_9_during_report_leaves_no_site(eval_bench: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    stage = killed_run(tmp_path, "report", eval_bench, "-o", site)
    assert not site.exists() and stage.name.startswith(".site.partial-")  # before: a site/ without index.html
    assert run("report", eval_bench, "-o", site)[0] == 0
    assert (site / "index.html").is_file() and staged(tmp_path) == []


def test_kill_9_during_counterfactual_leaves_no_set_a_reader_accepts(eval_bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "cf"
    stage = killed_run(tmp_path, "counterfactual", eval_bench, "--kind", "imaginary", "-o", out)
    assert not out.exists() and any(stage.rglob("*"))
    # before: the half-written set (maps, no set.json) was read as a benchmark without a word
    refused(run("eval", stage, "--baseline", "random", "-o", tmp_path / "ev"), "staging folder", "did not finish")
    refused(run("export", stage, "--format", "jsonl", "-o", tmp_path / "ex"), "staging folder")


def test_an_unfinished_or_foreign_folder_is_refused_by_report(eval_bench: Path, tmp_path: Path) -> None:
    audit = tmp_path / "audit"
    assert run("audit", eval_bench, "-o", audit, "--quiet")[0] == 0
    refused(run("report", eval_bench, "-o", tmp_path / "s1", "--eval", audit), "written by `mapgen audit`, not by `mapgen eval`")
    (audit / DONE_FILE).unlink()  # as a run stopped before its last file
    refused(run("report", eval_bench, "-o", tmp_path / "s2", "--audit", audit), "not a finished folder of `mapgen audit`")
    assert not (tmp_path / "s1").exists() and not (tmp_path / "s2").exists()


def test_kill_9_during_an_hf_export_leaves_a_named_staging_folder_the_next_export_removes(
        eval_bench: Path, tmp_path: Path) -> None:
    pytest.importorskip("datasets")
    dest = tmp_path / "hf"
    stage = killed_run(tmp_path, "export", eval_bench, "--format", "hf", "-o", dest)
    assert not dest.exists() and stage.name.startswith(".hf.partial-")  # before: .hf.export-PID.tmp, kept forever
    code, output = run("export", eval_bench, "--format", "jsonl", "-o", dest)
    assert code == 0, output
    assert not stage.exists() and staged(tmp_path) == []


def test_leftovers_of_killed_exports_are_cleaned_by_the_next_run(eval_bench: Path, tmp_path: Path) -> None:
    dest = tmp_path / "hf"
    for name in (".hf.export-4242.tmp", ".hf.partial-4243.tmp"):  # an older mapgen's name, and this one's
        (tmp_path / name / "data").mkdir(parents=True)
        (tmp_path / name / "data" / "half.parquet").write_bytes(b"PAR1")
    code, output = run("export", eval_bench, "--format", "jsonl", "-o", dest)
    assert code == 0, output
    assert staged(tmp_path) == [] and (dest / "questions.jsonl").is_file()


@pytest.mark.parametrize("command", [("audit", "--quiet"), ("counterfactual", "--kind", "imaginary")])
def test_a_full_disk_leaves_no_partial_folder(full_disk: Path, eval_bench: Path, command: tuple[str, ...]) -> None:
    out = full_disk / "out"
    code, output = run(command[0], eval_bench, *command[1:], "-o", out)
    assert code == 1 and len(output.splitlines()) == 1 and "no space left" in output, output
    assert str(out) in output and list(full_disk.iterdir()) == []  # before: a partial folder


def test_a_build_on_a_full_disk_says_how_to_finish_it(full_disk: Path) -> None:
    out = full_disk / "bench"
    code, output = run("build", TINY, "-o", out, "--quiet")
    assert code == 1 and len(output.splitlines()) == 1 and "no space left" in output, output
    assert f"-o {out} --resume" in output  # before: no word of --resume
    refused(run("eval", out, "--baseline", "random", "-o", full_disk.parent / "ev"), "unfinished build", "--resume")
