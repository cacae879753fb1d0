"""Authoring mistakes each fail ``mapgen templates lint`` with one line naming the template and the fix, and the
same mistake in a build config's pack stops the build before anything is written (lint = load)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.cli import main

GOOD = """\
definitions:
  taller: a higher value
templates:
  - id: my_pair
    answer_type: binary
    params:
      X: Region
      Y: {type: Region, from: "others(readable_regions(), X)"}
    text: ["Is {{ X }} higher than {{ Y }}?"]
    program:
      - answer: compare(X, 'higher', Y)
  - id: my_extreme
    answer_type: single
    params:
      R: RegionGroup
      E: {type: Extreme, values: [highest, lowest]}
    text: ["Which {{ state }} {{ R }} has the {{ E }} value?"]
    program:
      - answer: extreme_region(members(R), E)
    uses: [taller]
"""

# (name, old text, new text, what the one line must say: template id and the fix)
MISTAKES = [
    ("unknown extreme value", "values: [highest, lowest]", "values: [biggest, lowest]",
     ("my_extreme", "'biggest'", "did you mean 'highest'")),
    ("region where a set is expected", "extreme_region(members(R), E)", "extreme_region(R, E)",
     ("my_extreme", "argument 1 (Regions)", "give a Regions value")),
    ("number where a shade is expected", "extreme_region(members(R), E)", "class_by_shade(3)",
     ("my_extreme", "class_by_shade() argument 1 (Shade)", "write one of 'darkest'")),
    ("count answer of a region", "answer_type: single", "answer_type: count",
     ("my_extreme", "answer_type 'count' needs Int", "write answer_type: single")),
    ("misspelt key in a parameter", 'from: "others', 'form: "others',
     ("my_pair", "unknown key 'form'", "did you mean 'from'")),
    ("duplicate id in one file", "id: my_extreme", "id: my_pair",
     ("my_pair", "id used twice in this file", "rename one")),
    ("unknown comparison literal", "compare(X, 'higher', Y)", "compare(X, 'bigger', Y)",
     ("my_pair", "'bigger'", "did you mean 'higher'")),
    ("wrong arity", "compare(X, 'higher', Y)", "compare(X, Y)",
     ("my_pair", "compare() takes 3 arguments", "(Region, Comparison, Region)")),
    ("misspelt template key", "    program:\n      - answer: compare", "    programme: []\n    program:\n      - answer: compare",
     ("my_pair", "unknown key 'programme'", "did you mean 'program'")),
    ("undefined vague word", "    uses: [taller]", "    uses: [tallest]",
     ("my_extreme", "'tallest' without a definition", "add it under 'definitions:'")),
    ("set where a region parameter's candidates are needed", 'from: "others(readable_regions(), X)"',
     'from: "range_of(X)"', ("my_pair", "gives LegendClass", "needs Regions")),
    ("misspelt top-level key", "definitions:", "definition:",
     ("unknown key 'definition'", "did you mean 'definitions'")),
    ("text of an unknown parameter", "Is {{ X }} higher than {{ Y }}?", "Is {{ X }} higher than {{ Z }}?",
     ("my_pair", "unknown parameter 'Z'", "valid:")),
    ("misspelt answer type", "answer_type: binary", "answer_type: binery",
     ("my_pair", "unknown answer_type 'binery'", "did you mean 'binary'")),
    ("misspelt map type under text", 'text: ["Is {{ X }} higher than {{ Y }}?"]',
     'text: {discret: ["Is {{ X }} higher than {{ Y }}?"]}',
     ("my_pair", "text has unknown key 'discret'", "did you mean 'discrete'")),
    ("choice values a function cannot read",
     "      E: {type: Extreme, values: [highest, lowest]}\n    text: [\"Which {{ state }} {{ R }} has the {{ E }} "
     "value?\"]\n    program:\n      - answer: extreme_region(members(R), E)",
     "      E: {type: Extreme, values: [highest, lowest]}\n      S: {type: Choice, values: [over, under]}\n"
     "      N: Number\n      X: Region\n    text: [\"Which {{ state }} {{ R }} has the {{ E }} value?\"]\n"
     "    program:\n      - answer: exceeds(value(X), S, N)",
     ("my_extreme", "exceeds() argument 2 (Side) gets 'over'", "did you mean 'above'")),
    ("id of a built-in template", "id: my_pair", "id: region_in_range",
     ("region_in_range", "also defined in mapwise.yaml", "rename one")),
    ("variadic call with no argument", "compare(X, 'higher', Y)", "ranking(regions())",
     ("my_pair", "regions() takes at least 1 argument (Region, Region...)", "got 0")),
    ("group among the regions of a variadic call", "compare(X, 'higher', Y)", "ranking(regions(X, members(Y)))",
     ("my_pair", "regions() argument 2 (Region) gets members(…) of type Regions", "give a Region value")),
]


def _lint(*paths: Path):
    return CliRunner().invoke(main, ["templates", "lint", *map(str, paths)])


def test_the_good_pack_lints(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    result = _lint(tmp_path / "good.yaml")
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith(": ok")


@pytest.mark.parametrize(("name", "old", "new", "says"), MISTAKES, ids=[m[0] for m in MISTAKES])
def test_mistake_fails_lint_in_one_line_naming_template_and_fix(tmp_path: Path, name: str, old: str, new: str,
                                                                 says: tuple[str, ...]) -> None:
    assert old in GOOD, name
    path = tmp_path / "pack.yaml"
    path.write_text(GOOD.replace(old, new, 1), encoding="utf-8")
    result = _lint(path)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if all(s in line for s in says)]
    assert lines, result.output
    assert lines[0].startswith(str(path)) and "Traceback" not in result.output


@pytest.mark.parametrize(("name", "old", "new", "says"), MISTAKES[:4], ids=[m[0] for m in MISTAKES[:4]])
def test_mistake_never_reaches_a_build(tmp_path: Path, name: str, old: str, new: str, says: tuple[str, ...]) -> None:
    (tmp_path / "pack.yaml").write_text(GOOD.replace(old, new, 1), encoding="utf-8")
    config = tmp_path / "c.yaml"
    config.write_text("countries: [{name: usa, maps: 1}]\nquestions: {packs: [pack.yaml]}\ntasks: [vqa]\n")
    result = CliRunner().invoke(main, ["build", str(config), "-o", str(tmp_path / "out")])
    assert result.exit_code != 0 and says[1] in result.output, result.output
    assert not (tmp_path / "out").exists()


def test_duplicate_ids_across_packs_name_both_files(tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(GOOD, encoding="utf-8")
    b.write_text(GOOD.replace("id: my_extreme", "id: other"), encoding="utf-8")
    result = _lint(a, b)
    assert result.exit_code == 1
    assert f"{b}: template my_pair: id also defined in {a}; rename one" in result.output


def test_a_packs_own_definitions_count_at_load(tmp_path: Path) -> None:
    """Definitions given in the pack are accepted by lint and by loading alike."""
    from mapgen.questions import load_templates

    (tmp_path / "good.yaml").write_text(GOOD.replace("taller", "highest"), encoding="utf-8")
    assert _lint(tmp_path / "good.yaml").exit_code == 0
    assert {t.id for t in load_templates(tmp_path / "good.yaml", builtin=True)} >= {"my_pair", "my_extreme"}


def test_pack_language_and_function_mistakes(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    (pack / "lang").mkdir(parents=True)
    (pack / "templates.yaml").write_text(GOOD, encoding="utf-8")
    (pack / "lang" / "zh.yaml").write_text("templates:\n  my_pair: ['{{ X }}是否高于{{ W }}？']\n  my_extrem: ['x']\n",
                                           encoding="utf-8")
    (pack / "functions.py").write_text("from mapgen.questions import register\n\n\n"
                                       "@register('Region', 'Bool')\ndef compare(ctx, region):\n    return True\n")
    out = _lint(pack).output
    assert "lang/zh.yaml: template my_pair: text (discrete) uses unknown parameter 'W'" in out
    assert "text for unknown template 'my_extrem' (did you mean 'my_extreme'?)" in out
    assert "template my_extreme: no Chinese (Simplified) text; add one under its id" in out
    functions = pack / "functions.py"
    assert (f"{functions}: function 'compare' of pack 'pack' ({functions}) is already registered by the built-in "
            "module mapgen.questions.functions.") in out and "; rename it (every function:" in out
    from mapgen.questions import FUNCTIONS

    assert FUNCTIONS["compare"].args == ("Region", "Comparison", "Region")  # the built-in one is kept


def test_a_function_named_like_another_packs_is_refused_naming_both(tmp_path: Path) -> None:
    """The registry owns the rule: the second pack's function is left out, in one line naming both packs."""
    from mapgen.questions import FUNCTIONS

    code = "from mapgen.questions import register\n\n\n@register('Region', 'Str')\ndef taller(ctx, region):\n" \
           "    return {!r}\n"
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, answer in ((first, "first"), (second, "second")):
        folder.mkdir()
        (folder / "templates.yaml").write_text(GOOD, encoding="utf-8")
        (folder / "functions.py").write_text(code.format(answer), encoding="utf-8")
    try:
        out = _lint(first, second).output
        lines = [line for line in out.splitlines() if "function 'taller'" in line]
        assert lines == [f"{second / 'functions.py'}: function 'taller' of pack 'second' ({second / 'functions.py'}) "
                         f"is already registered by pack 'first' ({first / 'functions.py'}); rename it (every "
                         "function: `mapgen templates functions`)"], out
        assert FUNCTIONS["taller"].fn(None, "CA") == "first" and FUNCTIONS["taller"].owner.pack == "first"
    finally:
        FUNCTIONS.pop("taller", None)


def test_a_folder_without_templates_is_no_pack(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = _lint(tmp_path / "empty")
    assert result.exit_code == 1 and "needs templates.yaml" in result.output and "templates new" in result.output


def test_a_pack_function_may_take_any_number_of_arguments(tmp_path: Path) -> None:
    """A last argument type ending in ``...``: lint checks each extra argument against it, the call receives them."""
    from mapgen.questions import FUNCTIONS, load_templates
    from mapgen.questions.functions import reading

    pack = tmp_path / "vpack"
    pack.mkdir()
    (pack / "functions.py").write_text(
        "from mapgen.questions import register\n\n\n@register('Region Region...', 'Int')\n"
        "def how_many_named(ctx, *codes):\n    \"\"\"How many regions are named.\"\"\"\n"
        "    return len(set(codes))\n", encoding="utf-8")
    good = GOOD.replace("compare(X, 'higher', Y)", "equals(how_many_named(X, Y, X), 2)")
    (pack / "templates.yaml").write_text(good, encoding="utf-8")
    try:
        assert _lint(pack).exit_code == 0
        assert FUNCTIONS["how_many_named"].fn(None, "CA", "OR", "CA") == 2
        (pack / "templates.yaml").write_text(good.replace("how_many_named(X, Y, X)", "how_many_named(X, 'Y')"),
                                             encoding="utf-8")
        out = _lint(pack).output
        assert "how_many_named() argument 2 (Region) gets 'Y' of type Str" in out, out
        (pack / "templates.yaml").write_text(good, encoding="utf-8")
        pair = next(t for t in load_templates(pack) if t.id == "my_pair")
        from test_questions_templates import hand_scene

        from mapgen.questions.engine import run_program

        answer, _ = run_program(pair, reading(hand_scene("D1")), {"X": "CA", "Y": "OR"})
        assert answer is True
    finally:
        FUNCTIONS.pop("how_many_named", None)


def test_only_the_last_argument_type_may_be_variadic() -> None:
    from mapgen.questions import register

    with pytest.raises(ValueError, match="only the last type may end in '...'"):
        register("Region... Region", "Regions")
