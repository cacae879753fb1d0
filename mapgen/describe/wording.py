"""Wordings as data: the YAML files in ``templates/describe/`` rendered with a sandboxed jinja2 environment."""

from __future__ import annotations

import random
from typing import Any

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from mapgen.caches import memo
from mapgen.resources import template_path
from mapgen.scene import Scene, group_form
from mapgen.yamlio import safe_load

_ENV = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)
_ENV.filters["capitalize_first"] = lambda s: s[:1].upper() + s[1:]


@memo(1024)
def load_wordings(name: str) -> dict[str, Any]:
    """The parsed ``templates/describe/<name>.yaml`` (cached; do not mutate)."""
    return safe_load(template_path("describe", f"{name}.yaml").read_text(encoding="utf-8"))


@memo(1024)
def _compile(text: str):
    return _ENV.from_string(text)


def render_text(text: str, **context: Any) -> str:
    """Render one wording; collapses doubled spaces."""
    return " ".join(_compile(text).render(**context).split())


def pick(rng: random.Random, options: list[str] | tuple[str, ...]) -> str:
    """One wording chosen by ``rng``."""
    return options[rng.randrange(len(options))]


def join_names(names: list[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def group_members_phrase(scene: Scene, name: str) -> str:
    """The members of a group as a noun phrase: "Ganga river states" (plural names), else "states in the West"."""
    if group_form(name, scene.group_info(name).kind, scene.country_title)[0] == "plural":
        return name
    return f"{scene.region_words} {scene.group_phrase(name, 'description')}"
