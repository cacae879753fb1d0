"""Caps on the CLI's numeric options, read from the build config's own field bounds (:mod:`mapgen.config`), so an
option and the config key it mirrors accept the same values: one definition of each limit.

:func:`config_range` is a click type for an option that mirrors a config field (``--per-template`` is
``questions.per_template``: 1-1000); :func:`bounded` one for an option with a limit of its own (a constant of
:mod:`mapgen.config` such as :data:`~mapgen.config.MAX_SEED`). Both refuse a value outside the range while click
parses the arguments, before any work starts (exit 2), naming the range and, for a mirrored field, the key.
"""

from __future__ import annotations

import math
from typing import Any

import click
from pydantic import BaseModel

from mapgen.config import MAX_SEED, MAX_WORKERS, BuildConfig, QuestionChoices


class Bounded(click.IntRange):
    """An integer range whose refusal names the range and where the same limit applies in a config."""

    def __init__(self, low: int | None, high: int | None, source: str = "") -> None:
        super().__init__(low, high)
        self.source = source

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.INT.convert(value, param, ctx)
        low, high = self.min, self.max
        if (low is None or number >= low) and (high is None or number <= high):
            return number
        side = f"less than {low}" if low is not None and number < low else f"more than {high}"
        where = f", {self.source}" if self.source else ""
        wanted = f"from {low} to {high}" if low is not None and high is not None else \
            (f"of at least {low}" if low is not None else f"of at most {high}")
        self.fail(f"{number} is {side}{where}; give a whole number {wanted}.", param, ctx)


class Finite(click.ParamType):
    """A float that is a finite number (``nan``, ``inf`` refused), above ``above`` and at most ``high`` when
    given."""

    name = "float"

    def __init__(self, above: float | None = None, high: float | None = None) -> None:
        self.above, self.high = above, high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number; give one such as 10 or 0.5.", param, ctx)
        if (self.above is not None and number <= self.above) or (self.high is not None and number > self.high):
            low = "" if self.above is None else f"more than {self.above:g}"
            high = "" if self.high is None else f"at most {self.high:g}"
            self.fail(f"{number:g} is out of range; give {' and '.join(x for x in (low, high) if x)}.", param, ctx)
        return number


def _field_bounds(model: type[BaseModel], name: str) -> tuple[int | None, int | None]:
    low = high = None
    for item in model.model_fields[name].metadata:
        low = getattr(item, "ge", low)
        high = getattr(item, "le", high)
    return low, high


def config_range(model: type[BaseModel], name: str, key: str) -> Bounded:
    """The range of the config field ``model.name`` (its ``ge``/``le``), as a click type naming ``key``."""
    low, high = _field_bounds(model, name)
    return Bounded(low, high, f"the limit of a build config's {key}")


def bounded(low: int | None, high: int | None, source: str = "") -> Bounded:
    """A whole number in ``low..high`` (``None``: open end)."""
    return Bounded(low, high, source)


SEED = bounded(0, MAX_SEED, "the range of a build config's seed")
PER_TEMPLATE = config_range(QuestionChoices, "per_template", "questions.per_template")
REFERRING = config_range(BuildConfig, "referring_per_map", "referring_per_map")
WORKERS = bounded(1, MAX_WORKERS)
MAX_DECIMALS = 12
"""The most decimals a synthetic table rounds to (``stats synth --decimals``)."""
FINITE = Finite()
