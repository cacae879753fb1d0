"""Question texts made only of words and slots render by joining pieces (``CompiledText.plain``), skipping
jinja2's per-render context: the joined text must be what jinja2 prints, for every shipped text in every language
(with the language's word table as ``finalize`` and its lookup filters), and anything else must go through jinja2."""

from __future__ import annotations

import random

import pytest

from mapgen.questions import load_templates
from mapgen.questions.sandbox import MAX_OUTPUT, TEXT_ENV, CompiledText, TextLimitError, TextSandbox
from mapgen.questions.templates import load_language

LANGUAGES = ("en", "es", "hi", "zh")


def _texts(code: str) -> list[tuple[str, TextSandbox, str, list]]:
    lang = None if code == "en" else load_language(code)
    out = []
    for t in load_templates():
        if lang is not None and not lang.has_text(t):
            continue
        variants = t.text if lang is None else lang.variants(t)
        for sources in variants.values():
            out += [(t.id, TEXT_ENV if lang is None else lang.env, s, list(t.params)) for s in sources]
    return out


def _values(params: list, rng: random.Random) -> dict[str, object]:
    """Each parameter one of its own values (so word tables and filters apply) or a sample word."""
    values: dict[str, object] = {}
    for p in params:
        values[p.name] = rng.choice(list(p.values)) if p.values else rng.choice(["Texas", "the West Coast", "3.5"])
        values[f"{p.name}_low"], values[f"{p.name}_high"] = "10", "20"
    return values | {"state": "state", "states": "states", "State": "State", "States": "States"}


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_plain_text_joins_to_what_jinja_prints(code: str) -> None:
    rng = random.Random(code)
    plain = 0
    for tid, env, source, params in _texts(code):
        compiled = env.compile_text(source)
        for _ in range(4):
            values = _values(params, rng)
            want = "".join(compiled.template.generate(values))
            assert env.render_limited(compiled, values) == want, (code, tid, source)
            if compiled.pieces is not None:
                assert compiled.plain(values) == want
                plain += 1
    assert plain > 100  # most texts take the fast path


def test_texts_with_tags_or_arguments_go_through_jinja() -> None:
    for source in ("{% if M == 'same' %}a{% else %}b{% endif %} {{ X }}", "{{ X | default('y') }}", "{{ 'a' }}",
                   "{{ X ~ Y }}", "{{ X.upper() }}"):
        compiled = TEXT_ENV.compile_text(source)
        assert compiled.pieces is None, source
        assert TEXT_ENV.render_limited(compiled, {"M": "same", "X": "x", "Y": "y"}) == "".join(
            compiled.template.generate({"M": "same", "X": "x", "Y": "y"}))


def test_a_missing_slot_and_the_output_budget_are_jinja_s_to_decide() -> None:
    compiled = TEXT_ENV.compile_text("Is {{ X }} higher than {{ Y }}?")
    assert isinstance(compiled, CompiledText) and compiled.pieces is not None
    assert compiled.plain({"X": "CA"}) is None
    assert TEXT_ENV.render_limited(compiled, {"X": "CA"}) == "Is CA higher than ?"  # jinja2's undefined prints ""
    with pytest.raises(TextLimitError, match="longer than"):
        TEXT_ENV.render_limited(compiled, {"X": "x" * MAX_OUTPUT, "Y": "y"})
    with pytest.raises(TextLimitError, match="^template t1: "):
        TEXT_ENV.render_limited(compiled, {"X": "x" * MAX_OUTPUT, "Y": "y"}, "t1")
