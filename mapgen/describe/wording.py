"""Wordings as data: the YAML files in ``templates/describe/`` rendered with a sandboxed jinja2 environment."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import yaml
from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from mapgen.geo.atlas import Atlas
from mapgen.resources import template_path

PLURAL_ENDINGS = ("states", "provinces", "islands", "regions")
_ENV = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)
_ENV.filters["capitalize_first"] = lambda s: s[:1].upper() + s[1:]


@cache
def load_wordings(name: str) -> dict[str, Any]:
    """The parsed ``templates/describe/<name>.yaml`` (cached; do not mutate)."""
    return yaml.safe_load(template_path("describe", f"{name}.yaml").read_text(encoding="utf-8"))


@cache
def _compile(text: str):
    return _ENV.from_string(text)


def render_text(text: str, **context: Any) -> str:
    """Render one wording; collapses doubled spaces."""
    return " ".join(_compile(text).render(**context).split())


def pick(rng: random.Random, options: list[str] | tuple[str, ...]) -> str:
    """One wording chosen by ``rng``."""
    return options[rng.randrange(len(options))]


def plural(word: str) -> str:
    """English plural of a region word (``state`` → ``states``, ``county`` → ``counties``)."""
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word if word.endswith("s") else word + "s"


def join_names(names: list[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def group_phrase(atlas: Atlas, name: str) -> str:
    """How a named group reads after a region word ("bordering Canada", "on the Gulf Coast", ...).

    Rules (``group_phrases`` in ``templates/describe/referring.yaml``): foreign-border groups → "bordering X";
    lake groups named "Lake ..." → "bordering Lake ..."; names ending in "coast" → "on the ..."; plural names
    ("... states", "... provinces", "... islands") → "among the ..."; names ending in the country ("South China")
    → "in South China"; anything else → "in the ...".
    """
    rules = load_wordings("referring")["group_phrases"]
    info = atlas.group_info(name)
    low = name.lower()
    if info.kind == "foreign_border":
        return render_text(rules["foreign_border"], country_name=name.removeprefix("bordering "))
    if info.kind == "lake" and low.startswith("lake "):
        rule = rules["lake"]
    elif low.endswith("coast"):
        rule = rules["coast_named_coast"]
    elif low.endswith(PLURAL_ENDINGS):
        rule = rules["plural_name"]
    elif low.endswith(atlas.title.lower()):
        rule = rules["proper_name"]
    else:
        rule = rules["default"]
    return render_text(rule, name=name)


def group_members_phrase(atlas: Atlas, name: str, words: str) -> str:
    """The members of a group as a noun phrase: "Ganga river states" (plural names), else "states in the West"."""
    if name.lower().endswith(PLURAL_ENDINGS):
        return name
    return f"{words} {group_phrase(atlas, name)}"
