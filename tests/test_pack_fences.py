"""A template pack's Python code is announced and fenced (issue 37, item 4): real ``mapgen`` runs in a child
process (so an ``os._exit`` or a hang in pack code would show as such) on a tiny grid build, with packs written
here whose ``functions.py`` prints, raises, exits, loops, returns the wrong type or changes mapgen's own code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import one_map_grid_config

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = """\
templates:
  - id: fenced_count
    answer_type: count
    params:
      X: Region
    text: ["How many marks does {{ X }} carry?"]
    program:
      - answer: fenced_marks(X)
"""
HEADER = "import os, sys\nfrom mapgen.questions import FUNCTIONS, register\n\n\n"
GOOD = "@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n    return 1\n"


def mapgen(*args: object, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``mapgen ARGS`` run from this tree in a child process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "mapgen", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=timeout)


def write_pack(folder: Path, body: str, templates: str = TEMPLATES) -> Path:
    folder.mkdir(parents=True)
    (folder / "templates.yaml").write_text(templates, encoding="utf-8")
    (folder / "functions.py").write_text(HEADER + body, encoding="utf-8")
    return folder


def errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("Error:")]


@pytest.fixture(scope="module")
def a_map(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A map JSON of a one-map build on a 4×4 grid."""
    root = tmp_path_factory.mktemp("fence")
    built = mapgen("build", one_map_grid_config(root, "fence"), "-o", root / "out", "--workers", "1")
    assert built.returncode == 0, built.stderr
    return root / "out" / "maps" / "gridland-0000-annotated.json"


def test_lint_announces_the_code_it_runs_in_one_line(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "plain", GOOD)
    result = mapgen("templates", "lint", pack)
    assert result.returncode == 0 and result.stdout.strip() == f"{pack}: ok", result.stderr
    announced = [line for line in result.stderr.splitlines() if "Python code of template pack" in line]
    assert announced == [f"mapgen: running the Python code of template pack 'plain' ({pack / 'functions.py'}); "
                         "name only packs you trust"]


def test_prints_go_to_stderr_named_and_stdout_stays_jsonl(tmp_path: Path, a_map: Path) -> None:
    body = "print('loaded')\n\n\n@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n" \
           "    print('marking', region)\n    sys.stdout.write('raw write\\n')\n    return 2\n"
    pack = write_pack(tmp_path / "chatty", body)
    result = mapgen("questions", a_map, "--templates", pack)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]  # every stdout line is a record
    assert records and all(r["answer"] == 2 for r in records)
    assert "pack 'chatty': loaded" in result.stderr.splitlines()
    assert any(line.startswith("pack 'chatty': marking C") for line in result.stderr.splitlines())
    assert "pack 'chatty': raw write" in result.stderr.splitlines()


@pytest.mark.parametrize(("body", "said"), [
    ("@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n    return 1 / 0\n",
     "raised ZeroDivisionError: division by zero (functions.py line 7); fix the function"),
    ("@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n    return 'many'\n",
     "returned 'many' (str), but it is declared to return Int (a whole number)"),
    ("@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n    sys.exit(0)\n",
     "called sys.exit(0); pack code may not end the process"),
    ("@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n    os._exit(0)\n",
     "called os._exit(0); pack code may not end the process"),
    ("import posix\n\n\n@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n    posix._exit(4)\n",
     "called os._exit(4); pack code may not end the process"),
    ("@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n    try:\n        while True:\n            pass\n"
     "    except Exception:\n        return 0\n",
     "ran more than 1,000,000 lines (line "),
    ("import time\n@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n    time.sleep(1000)\n"
     "    return 0\n", "ran longer than 5 s (waiting in a call of functions.py)"),
], ids=["raises", "many", "sys.exit", "os._exit", "posix._exit", "loops", "sleeps"])
def test_a_failing_function_is_one_line_naming_template_pack_and_function(tmp_path: Path, a_map: Path, body: str,
                                                                          said: str) -> None:
    pack = write_pack(tmp_path / "faulty", body)
    result = mapgen("questions", a_map, "--templates", pack, timeout=60)
    assert result.returncode == 2 and result.stdout == "", result.stderr
    (line,) = errors(result)
    assert line.startswith("Error: template fenced_count: pack 'faulty' function 'fenced_marks' ") and said in line
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("tail", "said"), [
    ("sys.exit(0)\n", "pack 'leaving' importing functions.py called sys.exit(0)"),
    ("os._exit(3)\n", "pack 'leaving' importing functions.py called os._exit(3)"),
    ("while True:\n    pass\n", "pack 'leaving' importing functions.py ran more than 1,000,000 lines"),
    ("raise RuntimeError('no database')\n",
     "pack 'leaving' importing functions.py raised RuntimeError: no database (functions.py line 8); fix functions.py"),
], ids=["sys.exit", "os._exit", "loops", "raises"])
def test_an_import_that_exits_loops_or_raises_is_refused_by_lint_and_build(tmp_path: Path, tail: str, said: str) -> None:
    pack = write_pack(tmp_path / "leaving", GOOD + tail)
    result = mapgen("templates", "lint", pack, timeout=60)
    assert result.returncode != 0 and f"{pack / 'functions.py'}: {said}" in result.stdout + result.stderr
    assert "ok" not in result.stdout


def test_a_pack_that_replaces_or_alters_a_builtin_is_refused_naming_both(tmp_path: Path, a_map: Path) -> None:
    body = GOOD + ("import dataclasses\n"
                   "FUNCTIONS['compare'] = dataclasses.replace(FUNCTIONS['compare'], fn=lambda *a: True)\n"
                   "FUNCTIONS['all_regions'].fn.__wrapped__.__code__ = (lambda ctx: []).__code__\n"
                   "del FUNCTIONS['neighbors']\n"
                   "from mapgen.questions.reading import Reading\nReading.decide = lambda *a, **k: True\n")
    pack = write_pack(tmp_path / "usurper", body)
    result = mapgen("templates", "lint", pack)
    said = result.stdout + result.stderr
    assert result.returncode != 0 and "ok" not in result.stdout
    for what in ("function 'compare' of the built-in module mapgen.questions.functions.values",
                 "function 'all_regions' of the built-in module mapgen.questions.functions.sets",
                 "function 'neighbors' of the built-in module mapgen.questions.functions.sets",
                 "the built-in mapgen.questions.reading.Reading.decide"):
        assert f"{pack / 'functions.py'}: pack 'usurper' changed {what} (put back)" in said, said
    used = mapgen("questions", a_map, "--templates", pack)
    assert used.returncode == 2 and used.stdout == "" and "pack 'usurper' changed function 'compare'" in used.stderr


def test_a_change_is_put_back_in_the_process_that_imported_it(tmp_path: Path) -> None:
    """The built-in answers cannot flip: after the refused import the registry and the code are mapgen's own."""
    from mapgen.questions import FUNCTIONS
    from mapgen.questions.packs import import_functions, open_pack
    from mapgen.questions.reading import Reading

    before = FUNCTIONS["compare"], FUNCTIONS["neighbors"], Reading.decide
    code = FUNCTIONS["all_regions"].fn.__wrapped__.__code__
    body = GOOD.replace("fenced_marks", "put_back_marks") + (
        "FUNCTIONS['compare'] = FUNCTIONS['all_regions']\ndel FUNCTIONS['neighbors']\n"
        "FUNCTIONS['all_regions'].fn.__wrapped__.__code__ = (lambda ctx: []).__code__\n"
        "from mapgen.questions.reading import Reading\nReading.decide = lambda *a, **k: True\n")
    try:
        problems = import_functions(open_pack(write_pack(tmp_path / "meddler", body)))
        assert len(problems) == 4 and all("pack 'meddler' changed" in p for p in problems)
        assert (FUNCTIONS["compare"], FUNCTIONS["neighbors"], Reading.decide) == before
        assert FUNCTIONS["all_regions"].fn.__wrapped__.__code__ is code
    finally:
        FUNCTIONS.pop("put_back_marks", None)


def test_a_build_with_a_failing_pack_function_stops_in_one_line(tmp_path: Path, a_map: Path) -> None:
    root = a_map.parents[2]
    write_pack(tmp_path / "pack", "@register('Region', 'Int')\ndef fenced_marks(ctx, region):\n    return 'many'\n")
    config = tmp_path / "c.yaml"
    config.write_text(f"name: fenced\nseed: 1\ncountries:\n  - name: {root / 'gridland.geojson'}\n    maps: 2\n"
                      f"    statistics: {{curated: [], files: [{root / 'gridland.csv'}], synthetic: {{count: 0}}}}\n"
                      "questions: {packs: [pack], templates: [fenced_count], per_template: 1, per_image: 2, "
                      "min_per_template: 0}\ntasks: [vqa]\n", encoding="utf-8")
    result = mapgen("build", config, "-o", tmp_path / "out", "--workers", "2", timeout=300)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert errors(result) == ["Error: template fenced_count: pack 'pack' function 'fenced_marks' returned 'many' "
                              "(str), but it is declared to return Int (a whole number); fix the function or its "
                              "@register result type"]
    assert sum("Python code of template pack" in line for line in result.stderr.splitlines()) == 1


def test_a_pack_cannot_alter_another_packs_function(tmp_path: Path) -> None:
    from mapgen.questions import FUNCTIONS
    from mapgen.questions.packs import import_functions, open_pack

    first = write_pack(tmp_path / "first", GOOD.replace("fenced_marks", "first_marks"))
    second = write_pack(tmp_path / "second", GOOD.replace("fenced_marks", "second_marks")
                        + "FUNCTIONS['first_marks'] = FUNCTIONS['second_marks']\n")
    try:
        assert import_functions(open_pack(first)) == []
        owned = FUNCTIONS["first_marks"]
        assert import_functions(open_pack(second)) == [
            f"pack 'second' changed function 'first_marks' of pack 'first' ({first / 'functions.py'}) (put back); a "
            "pack may only add functions under new names: remove that code"]
        assert FUNCTIONS["first_marks"] is owned
    finally:
        FUNCTIONS.pop("first_marks", None)
        FUNCTIONS.pop("second_marks", None)
