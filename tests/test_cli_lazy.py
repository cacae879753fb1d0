"""The CLI loads commands on demand: help and the atlas commands never import the heavy libraries."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from mapgen.cli import COMMANDS, main

HEAVY = ("geopandas", "matplotlib", "shapely", "pandas", "plotly")

_PROBE = """
import json, sys
from mapgen.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)), file=sys.stderr)
"""


def _heavy_imports(*args: str, heavy: tuple[str, ...] = HEAVY, env: dict[str, str] | None = None) -> list[str]:
    code = _PROBE.format(heavy=heavy)
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, env=env)
    return json.loads(proc.stderr.strip().splitlines()[-1])


#: What one ``mapgen render`` of a built-in statistic does without (issue 30 item 7, one call within 1.5 s): the
#: display geometry and geopandas (the page is sized from the shipped bounds, the canvas read from the disk
#: cache), the build and its config models, jinja2 (no wording is compiled to draw a map).
RENDER_NEEDS_NOT = ("geopandas", "pyproj", "scipy", "jinja2", "mapgen.build", "mapgen.config", "mapgen.tasks")


def test_one_render_call_imports_only_what_it_draws_with(tmp_path: Path) -> None:
    env = os.environ | {"MAPGEN_CANVAS_CACHE": str(tmp_path / "canvas")}
    args = ("render", "usa", "--stat", "population_2020", "-o", str(tmp_path / "m.png"))
    subprocess.run([sys.executable, "-m", "mapgen", *args], capture_output=True, check=True, env=env)  # keeps the canvas
    assert _heavy_imports(*args, heavy=RENDER_NEEDS_NOT, env=env) == []
    assert _heavy_imports(*args, heavy=("matplotlib", "pandas"), env=env) == ["matplotlib", "pandas"]  # the probe sees


@pytest.mark.parametrize("source", ["usa", "atlantis"])
def test_render_gives_the_garbage_collector_back(tmp_path: Path, source: str) -> None:
    """``render`` pauses the cyclic collector while the first map imports its libraries, and restores it, also
    when the call fails."""
    assert gc.isenabled()
    CliRunner().invoke(main, ["render", source, "--stat", "population_2020", "-o", str(tmp_path / "m.png")])
    assert gc.isenabled()


@pytest.mark.parametrize("args", [
    ("--help",), ("atlas", "list"), ("atlas", "show", "india", "--json"), ("atlas", "neighbors", "usa", "CO"),
    ("atlas", "group", "china", "bordering Russia"), ("atlas", "group", "usa"), ("render", "--help"),
    ("spec", "--help"), ("styles", "--help"),
])
def test_light_commands_import_no_heavy_library(args: tuple[str, ...]) -> None:
    assert _heavy_imports(*args) == []


def test_a_heavy_command_still_loads_its_libraries() -> None:
    """The probe can fail: the statistics tables are pandas objects and the probe sees pandas arrive."""
    assert "pandas" in _heavy_imports("stats", "list", "usa")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_listed_help_is_the_commands_own_first_line(name: str) -> None:
    command = main.get_command(click.Context(main), name)
    assert command is not None and command.name == name
    assert COMMANDS[name][2] == (command.help or "").strip().split("\n\n")[0].replace("\n", " ")


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["atlass"])
    assert result.exit_code == 2 and "No such command 'atlass'" in result.output
