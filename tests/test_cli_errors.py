"""The CLI's error boundary: one line, the right exit code, no traceback, nothing left behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import template_record, templates_plus

from mapgen.cli import main
from mapgen.cli.errors import explain, missing_dependency


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def _one_line_error(result) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_output_under_a_file_is_one_line_exit_1(tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    result = run("spec", "usa", "--stat", "population_2020", "-o", str(blocker / "map.json"))
    assert result.exit_code == 1
    assert str(blocker) in _one_line_error(result)
    assert blocker.read_text() == "x" and sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_unknown_name_is_input_error_exit_2() -> None:
    result = run("atlas", "neighbors", "usa", "Texs")
    assert result.exit_code == 2 and "(did you mean 'Texas'?)" in _one_line_error(result)


def test_workers_below_one_refused_before_anything_is_written(tmp_path: Path) -> None:
    result = run("build", "small", "-o", str(tmp_path / "b"), "--workers", "0")
    assert result.exit_code == 2 and not (tmp_path / "b").exists()


def test_unexpected_error_says_how_to_see_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    import mapgen.cli.atlas as atlas_cli

    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(atlas_cli, "open_atlas", boom)
    result = run("atlas", "neighbors", "usa", "TX")
    assert result.exit_code == 1
    line = _one_line_error(result)
    assert "unexpected RuntimeError: disk on fire" in line and "--debug" in line
    debug = run("--debug", "atlas", "neighbors", "usa", "TX")
    assert isinstance(debug.exception, RuntimeError)


@pytest.mark.parametrize(("module", "extra"), [("kaleido", "plotly"), ("pycocoevalcap.bleu", "eval"),
                                               ("mlcroissant", "export"), ("distributed", "dask")])
def test_missing_optional_dependency_names_the_extra(module: str, extra: str) -> None:
    exc = ModuleNotFoundError(f"No module named '{module}'", name=module)
    message, code = explain(exc)
    assert code == 1 and f"pip install 'mapgen[{extra}]'" in message


def test_a_missing_core_module_is_not_passed_off_as_an_optional_extra() -> None:
    assert missing_dependency(ModuleNotFoundError("x", name="numpy")) is None
    assert explain(ModuleNotFoundError("x", name="numpy")) is None  # unexpected: shown with the --debug hint


@pytest.mark.parametrize(("text", "limit"), [
    ("{% for i in range(99999) %}{% for j in range(99999) %}x{% endfor %}{% endfor %} {{ X }} {{ Y }}?", "range()"),
    ("{% for i in range(9) %}{% for j in range(9) %}{% for k in range(9) %}{% endfor %}{% endfor %}{% endfor %}"
     "{{ X }} {{ Y }}?", "nests 3 loops"),
    ("{{ 'x' * 10**10 }} {{ X }} {{ Y }}?", "repetition"),
    ("{{ 2 ** 1000000 }} {{ X }} {{ Y }}?", "power"),
    ("{{ 'x' * 100000 }} {{ X }} {{ Y }}?", "repetition"),
    ("{% for i in range(99) %}{{ X }} and {{ Y }} or {{ X }} and {{ Y }} {% endfor %}?", "longer than"),
    ("{{ X.__class__.__mro__[1].__subclasses__() }} {{ Y }}?", "sandbox"),
])
def test_hostile_template_texts_fail_lint_in_one_line_and_fast(tmp_path: Path, text: str, limit: str) -> None:
    path = templates_plus(tmp_path / "hostile.yaml", template_record("hostile", text))
    result = run("templates", "lint", str(path))
    assert result.exit_code != 0 and limit in result.output and "Traceback" not in result.output


def test_a_warning_is_one_line_without_source_path(monkeypatch: pytest.MonkeyPatch) -> None:
    import warnings

    import mapgen.cli.atlas as atlas_cli

    real = atlas_cli.open_atlas

    def warns(*args, **kwargs):
        warnings.warn("equal_interval leaves 2 usable classes", UserWarning, stacklevel=2)
        return real(*args, **kwargs)

    monkeypatch.setattr(atlas_cli, "open_atlas", warns)
    monkeypatch.setattr(warnings, "formatwarning", warnings.formatwarning)  # restored after the test
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        shown: list[str] = []
        monkeypatch.setattr(warnings, "showwarning", lambda m, c, f, n, file=None, line=None:
                            shown.append(warnings.formatwarning(m, c, f, n, line)))
        result = run("atlas", "neighbors", "usa", "TX")
    assert result.exit_code == 0
    assert shown == ["Warning: equal_interval leaves 2 usable classes\n"]
