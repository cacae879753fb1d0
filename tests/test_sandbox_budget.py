"""The template sandbox's budget: hostile texts stop inside the sandbox, fast, with one line naming the budget;
texts that read files or look attributes up by name are refused at lint, naming the template."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import template_record, templates_plus

from mapgen.cli import main
from mapgen.questions.sandbox import MAX_STEPS, TEXT_ENV, TextLimitError, check_template_source, text_problems

NAMES = {"X", "Y", "state", "states", "State", "States"}
TAIL = " {{ X }} {{ Y }}?"
HOSTILE = [  # (text, words the one-line refusal must contain)
    ("{% macro f(n) %}{% for i in range(100) %}{{ f(n) }}{% endfor %}{% endmacro %}{{ f(1) }}", "depth budget"),
    ("{% macro f(n) %}{% if n %}{% for i in range(100) %}{{ f(n - 1) }}{% endfor %}{% endif %}{% endmacro %}"
     "{{ f(6) }}", "step budget"),  # 100⁶ calls
    ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "depth budget"),
    ("{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "size budget"),
    ("{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}", "size budget"),
    ("{% set ns = namespace(s=[1]) %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}", "size budget"),
    ("{% set ns = namespace(s=[1]) %}{% for i in range(60) %}{% set ns.s = ns.s * 2 %}{% endfor %}", "size budget"),
    ("{% set l = ['x'] %}{% for i in range(40) %}{% set _ = l.extend(l) %}{% endfor %}", "size budget"),
    ("{% set l = [] %}{% for i in range(100) %}{% for j in range(100) %}{% set _ = l.append(i) %}{% endfor %}"
     "{% endfor %}", "step budget"),
    ("{% set s = 'x' * 9999 %}{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}", "step budget"),
    ("{% macro m() %}{% for i in range(100) %}{{ caller() }}{% endfor %}{% endmacro %}"
     "{% call m() %}{% call m() %}{% call m() %}x{% endcall %}{% endcall %}{% endcall %}", "step budget"),
    ("{% set b = 'x'.encode() * 9999 %}{{ (b * 9999)|length }}", "size budget"),
    ("{{ [X]|tojson(indent=10**10) }}", "size budget"),
    ("{{ lipsum(n=2000000) }}", "lipsum"),
    ("{{ ''.ljust(10**10) }}", "size budget"),
    ("{{ '1'.zfill(10**10) }}", "size budget"),
    ("{{ X|center(10**10) }}", "size budget"),
    ("{{ X|indent(10**10) }}", "size budget"),
    ("{{ [1]|batch(10**9, 'x')|list }}", "size budget"),
    ("{{ [1]|slice(10**10)|list }}", "size budget"),
    ("{{ '{:>9999999999}'.format(1) }}", "output budget"),
    ("{{ '{:>{w}}'.format(1, w=10**9) }}", "nested format field"),
    ("{{ '%9999999999d'|format(1) }}", "output budget"),
    ("{{ '%9999999999d' % 1 }}", "output budget"),
    ("{{ ('x' * 9000)|join('y' * 9000) }}", "size budget"),
    ("{{ ('x' * 5000)|replace('x', 'x' * 5000) }}", "size budget"),
    ("{{ range(10**12)|list|length }}", "range()"),
    ("{{ ((10**100)**100)**100 }}", "number budget"),
    ("{% set ns = namespace(n=10**100) %}{% for i in range(60) %}{% set ns.n = ns.n * ns.n %}{% endfor %}",
     "number budget"),
    ("{% for i in range(100) %}{% for j in range(100) %}{{ lipsum(1) }}{% endfor %}{% endfor %}", "output budget"),
]


def _refusal(text: str, queue) -> None:
    start = time.perf_counter()
    problems = text_problems(text, NAMES)
    queue.put((time.perf_counter() - start, problems))


def _refused_in_a_child(text: str, timeout: float = 20.0) -> tuple[float, list[str]]:
    """Run :func:`text_problems` in a forked child, so a regression that hangs fails instead of hanging."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_refusal, args=(text, queue))
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail(f"the sandbox did not stop {text!r} within {timeout} s")
    assert child.exitcode == 0, f"the child died (exit {child.exitcode}) on {text!r}"
    return queue.get(timeout=5)


@pytest.mark.parametrize(("text", "budget"), HOSTILE)
def test_a_hostile_text_stops_inside_the_sandbox_fast_with_one_line(text: str, budget: str) -> None:
    seconds, problems = _refused_in_a_child(text + TAIL)
    assert len(problems) == 1 and "\n" not in problems[0], problems
    assert budget in problems[0], problems
    assert seconds < 2.0, f"{seconds:.2f} s to refuse {text!r}"


REFUSED = [  # (text, words of the refusal)
    ("{% include '/etc/passwd' %}", "{% include %}"),
    ("{% import 'x.html' as m %}", "{% import %}"),
    ("{% from 'x.html' import m %}", "import %}"),
    ("{% extends 'base.html' %}", "{% extends %}"),
    ("{{ X|attr('__class__')|attr('__mro__') }}", "|attr()"),
    ("{{ X.__class__.__mro__ }}", "is private"),
    ("{{ X['__class__'] }}", "'__class__'"),
    ("{{ [X]|map(attribute='__class__')|list }}", "'__class__'"),
    ("{% for a in [[1]] recursive %}{{ loop(a) }}{% endfor %}", "recursive loop"),
]


@pytest.mark.parametrize(("text", "words"), REFUSED)
def test_reading_files_and_attributes_by_name_is_refused(text: str, words: str) -> None:
    problems = check_template_source(text + TAIL)
    assert problems and words in problems[0] and "refused by the sandbox" in problems[0]
    assert text_problems(text + TAIL, NAMES) == problems[:1]
    with pytest.raises(Exception, match="refused by the sandbox"):  # and never compiled for a render either
        TEXT_ENV.from_string(text + TAIL)


def test_lint_refuses_include_import_extends_attr_naming_each_template(tmp_path: Path) -> None:
    records = "".join(template_record(f"hostile_{i}", text + TAIL) for i, (text, _) in enumerate(REFUSED[:5]))
    path = templates_plus(tmp_path / "hostile.yaml", records)
    result = CliRunner().invoke(main, ["templates", "lint", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    for i, (_, words) in enumerate(REFUSED[:5]):
        lines = [line for line in result.output.splitlines() if f"template hostile_{i}:" in line]
        refusals = [line for line in lines if "refused by the sandbox" in line]
        assert len(refusals) == 1 and words in refusals[0] and str(path) in refusals[0], result.output
        assert "self-contained" in refusals[0] or "use the parameter's value" in refusals[0]


def test_a_budget_breach_at_render_names_the_template() -> None:
    compiled = TEXT_ENV.from_string("{{ X|center(N) }}")
    with pytest.raises(TextLimitError, match=r"^template colour_7: .*size budget"):
        TEXT_ENV.render_limited(compiled, {"X": "Ohio", "N": 10**10}, "colour_7")


def test_the_step_budget_is_per_render_and_plain_texts_render_as_before() -> None:
    busy = TEXT_ENV.from_string("{% for i in range(90) %}{% for j in range(100) %}{% endfor %}{% endfor %}ok")
    for _ in range(3):  # 9,090 steps each time: under the budget every time, so the count does not carry over
        assert TEXT_ENV.render_limited(busy, {}) == "ok"
    assert MAX_STEPS > 90 * 100 + 90
    plain = TEXT_ENV.from_string("Is {{ X }} {{ C|than }} {{ Y }}, the {{ D|most }} of the {{ states }}?")
    values = {"X": "Texas", "Y": "Ohio", "C": "higher", "D": "north", "states": "states"}
    assert TEXT_ENV.render_limited(plain, values) == "Is Texas higher than Ohio, the northernmost of the states?"
    assert TEXT_ENV.render_limited(TEXT_ENV.from_string("{{ 'a' ~ X ~ 'b' }} {{ [1, 2] + [3] }} {{ 3 * 4 }}"),
                                   {"X": "-"}) == "a-b [1, 2, 3] 12"
