"""Command-line entry point ``mapgen``: parses arguments and calls library functions, nothing more.

Each topic lives in its own module (``mapgen/cli/<topic>.py``) defining a click command or group; this module
registers them on :func:`main`.
"""

from __future__ import annotations

import sys

import click

from mapgen.build import BuildError
from mapgen.geo.names import UnknownNameError


class MapgenGroup(click.Group):
    """Turns library errors (unknown names, bad input) into one clear line and exit code 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (UnknownNameError, ValueError, FileNotFoundError, BuildError) as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(2)


@click.group(cls=MapgenGroup)
@click.version_option(package_name="mapgen")
def main() -> None:
    """Generate reproducible choropleth-map benchmarks for vision-language models."""


def _register() -> None:
    from mapgen.cli.atlas import atlas
    from mapgen.cli.audit import audit_command, report_command
    from mapgen.cli.build import build_command, info_command
    from mapgen.cli.counterfactual import counterfactual_cmd
    from mapgen.cli.describe import describe_cmd
    from mapgen.cli.eval import eval_command, prompt_command
    from mapgen.cli.export import export_command
    from mapgen.cli.mapwise import import_group, recheck_command
    from mapgen.cli.questions import questions, templates
    from mapgen.cli.render import render_cmd
    from mapgen.cli.spec import scene, spec
    from mapgen.cli.stats import stats

    for command in (atlas, build_command, info_command, stats, spec, scene, render_cmd, eval_command, prompt_command, questions, templates, describe_cmd, counterfactual_cmd, export_command, audit_command, report_command, import_group, recheck_command):
        main.add_command(command)


_register()

if __name__ == "__main__":
    main()
