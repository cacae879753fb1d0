"""The CLI loads commands on demand: help and the atlas commands never import the heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

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


def _heavy_imports(*args: str) -> list[str]:
    code = _PROBE.format(heavy=HEAVY)
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return json.loads(proc.stderr.strip().splitlines()[-1])


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
