"""Command-line entry point ``mapgen``: parses arguments and calls library functions, nothing more.

Each topic lives in its own module (``mapgen/cli/<topic>.py``) defining a click command or group. Commands are
registered by name in :data:`COMMANDS` and imported only when run, so ``mapgen --help`` and light commands never
pay for geopandas, matplotlib and the rest.
"""

from __future__ import annotations

import importlib
import sys
import warnings

import click

from mapgen.cli.errors import (
    ENVIRONMENT,
    closed_pipe,
    exit_quietly_on_closed_pipe,
    explain,
    one_line_warning,
    unexpected,
)
from mapgen.errors import bounded_line

#: Command name → (module, attribute, one-line help shown by ``mapgen --help``; a test keeps it equal to the
#: command's own docstring).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "atlas": ("mapgen.cli.atlas", "atlas",
              "Regions, borders and named groups of the built-in atlases or a vector file."),
    "audit": ("mapgen.cli.audit", "audit_command",
              "Answer every question of BENCH from the pixels alone, explain each disagreement, check legibility."),
    "build": ("mapgen.cli.build", "build_command",
              "Build the benchmark of CONFIG (a YAML path or a packaged config: mapwise, small)."),
    "counterfactual": ("mapgen.cli.counterfactual", "counterfactual_cmd",
                       "Counterfactual set of SOURCE: a spec/render JSON, or a benchmark folder (every annotated "
                       "base map)."),
    "describe": ("mapgen.cli.describe", "describe_cmd",
                 "Describe RENDER_JSON (the .json a `mapgen render` wrote beside the PNG)."),
    "eval": ("mapgen.cli.eval", "eval_command",
             "Score BENCH against --predictions, a --model or a --baseline and write a report folder."),
    "export": ("mapgen.cli.export", "export_command",
               "Export the benchmark in BENCH (a finished `mapgen build` folder) as --format into -o DEST."),
    "human": ("mapgen.cli.human", "human",
              "Human baselines: sample an annotation kit for people, score their answers (majority, agreement)."),
    "import": ("mapgen.cli.mapwise", "import_group",
               "Import a published benchmark (maps rebuilt from metadata, questions as written)."),
    "info": ("mapgen.cli.build", "info_command",
             "Counts per country, variant, template, answer type and split; checksum status."),
    "prompt": ("mapgen.cli.eval", "prompt_command", "Print exactly what a model is sent for one question of BENCH."),
    "questions": ("mapgen.cli.questions", "questions",
                  "Generate questions with computed answers for the map in MAP_JSON."),
    "recheck": ("mapgen.cli.mapwise", "recheck_command",
                "Recompute every answer of an imported MAPWise set (or a raw sample folder) and compare."),
    "render": ("mapgen.cli.render", "render_cmd",
               "Render SOURCE (a map JSON, MAPWise metadata, or a country or vector file with --stat/--data) to "
               "PNG."),
    "report": ("mapgen.cli.audit", "report_command",
               "Write a static HTML site for BENCH: map browser with questions, answers, captions and boxes."),
    "scene": ("mapgen.cli.spec", "scene",
              "The Scene of a map: per region value, class, neighbours, groups; legend facts."),
    "spec": ("mapgen.cli.spec", "spec",
             "The MapSpec of one map of COUNTRY (a name or vector file) from --stat or --data, or --from-metadata."),
    "stats": ("mapgen.cli.stats", "stats", "Statistics: the curated tables that ship, and fresh synthetic ones."),
    "styles": ("mapgen.cli.styles", "styles", "Map styles: the presets that ship, and what each sets."),
    "templates": ("mapgen.cli.questions", "templates", "List, show, preview and lint question templates."),
}


class MapgenGroup(click.Group):
    """Loads commands on demand and turns every failure into one clear line (see :mod:`mapgen.cli.errors`);
    ``mapgen --debug`` shows the traceback of an unexpected one."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module, attr, _ = entry
        return getattr(importlib.import_module(module), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from :data:`COMMANDS`, without importing any command module."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        # Command.get_short_help_str: click.utils.make_default_short_help is deprecated (gone in click 9)
        rows = [(name, click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit)) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except Exception as exc:
            if closed_pipe(exc):  # `mapgen … | head -1`: quiet, like Unix tools
                exit_quietly_on_closed_pipe()
            if ctx.params.get("debug"):
                raise
            message, code = explain(exc) or (unexpected(exc), ENVIRONMENT)
            click.echo(f"Error: {bounded_line(message)}", err=True)
            sys.exit(code)


@click.group(cls=MapgenGroup)
@click.version_option(package_name="mapgen")
@click.option("--debug", is_flag=True, help="Show the traceback of an unexpected error.")
def main(debug: bool) -> None:
    """Generate reproducible choropleth-map benchmarks for vision-language models."""
    if not debug:
        warnings.formatwarning = one_line_warning


if __name__ == "__main__":
    main()
