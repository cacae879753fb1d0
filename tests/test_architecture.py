"""The house rules of docs/ARCHITECTURE.md, checked on the code's own imports and definitions.

Imports are read with ``ast`` from every module of the package, function-level imports included, so a rule
broken inside a function body is still seen.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mapgen"
ARCHITECTURE = PACKAGE.parent / "docs" / "ARCHITECTURE.md"
MAX_FUNCTION_LINES = 60


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_statements(path: Path) -> list[tuple[str, tuple[str, ...], int]]:
    """``(module, names, line)`` of every mapgen import in ``path`` (relative imports resolved; ``names`` is
    empty for ``import mapgen.x``)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[tuple[str, tuple[str, ...], int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, (), node.lineno) for a in node.names if a.name.split(".")[0] == "mapgen"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] == "mapgen":
                out.append((base, tuple(a.name for a in node.names), node.lineno))
    return out


def _imports(path: Path) -> set[str]:
    """mapgen modules imported anywhere in ``path`` (relative imports resolved)."""
    return {module for module, _, _ in _import_statements(path)}


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for target in _imports(path):
            while target not in modules and "." in target:  # `from mapgen.x import name` of a module attribute
                target = target.rpartition(".")[0]
            if target in modules and target != name:
                graph.add_edge(name, target)
    return graph


def test_the_scanner_sees_function_level_imports(tmp_path: Path) -> None:
    src = PACKAGE / "cli" / "__init__.py"
    assert "mapgen.cli.errors" in _imports(src)
    assert any(t.startswith("mapgen.render") for t in _imports(PACKAGE / "build" / "unit.py"))  # imported inside functions


def test_no_import_cycles() -> None:
    cycles = list(nx.simple_cycles(_graph()))
    assert cycles == [], f"import cycles: {cycles}"


def _floor_table() -> list[tuple[int, str]]:
    """``(floor, entry)`` of every entry of the floors table in ARCHITECTURE.md §1 (``geo/``, ``scene``, ``__init__``)."""
    section = ARCHITECTURE.read_text(encoding="utf-8").split("\n## 1.", 1)[1].split("\n## 2.", 1)[0]
    out = []
    for row in (line for line in section.splitlines() if re.match(r"\| \d+ ", line)):
        floor, modules, _rule = (cell.strip() for cell in row.strip("|").split("|", 2))
        for token in (t.strip() for t in modules.split(",")):
            assert re.fullmatch(r"`[\w/]+`", token), f"floor {floor!r}: {token!r} is not a `module` or a `package/`"
            out.append((int(floor.split()[0]), token.strip("`")))
    return out


def _on_entry(module: str, entry: str) -> bool:
    """Whether ``entry`` of the floors table (``package/``, ``module``, ``__init__`` = the package root) covers
    ``module``."""
    name = module.removeprefix("mapgen").removeprefix(".")
    if entry == "__init__":
        return name == ""
    dotted = entry.rstrip("/").replace("/", ".")
    return name == dotted or (entry.endswith("/") and name.startswith(dotted + "."))


def _floors() -> dict[str, list[int]]:
    """Every mapgen module with the floor of each table entry that covers it (a module of a package entry named
    again by an entry of its own is on two floors: a package sits whole on one floor)."""
    table = _floor_table()
    return {m: [floor for floor, entry in table if _on_entry(m, entry)] for m in _modules()}


def test_the_floor_table_is_read() -> None:
    table = _floor_table()
    floors = sorted({floor for floor, _ in table})
    assert floors == list(range(len(floors))) and len(floors) >= 10
    by_entry = dict((entry, floor) for floor, entry in table)
    assert by_entry["resources"] == 0 and by_entry["mapwise/"] < by_entry["scene"] < by_entry["questions/"]
    assert _floors()["mapgen.recheck.verdicts"] == [by_entry["recheck/"]]
    assert _floors()["mapgen"] == [by_entry["__init__"]]


def test_every_module_is_on_exactly_one_floor() -> None:
    misplaced = {m: f for m, f in _floors().items() if len(f) != 1}
    assert misplaced == {}, "modules on no floor or on several (ARCHITECTURE.md §1)"


def test_a_package_sits_whole_on_one_floor() -> None:
    """No entry of the table names a module inside a package entry (the way ``eval/run`` once sat above the rest
    of ``eval/``, hiding an import that ran up from ``tasks/`` to ``eval/``)."""
    entries = [entry for _, entry in _floor_table()]
    nested = [(inner, outer) for outer in entries if outer.endswith("/")
              for inner in entries if inner != outer and inner.startswith(outer)]
    assert nested == []


def test_every_floor_entry_names_code() -> None:
    modules = list(_modules())
    stale = [entry for _, entry in _floor_table() if not any(_on_entry(m, entry) for m in modules)]
    assert stale == []


def test_no_import_runs_up_a_floor() -> None:
    """Every import, function-level ones included, goes to the importer's own floor or one below it."""
    floor = {m: f[0] for m, f in _floors().items() if len(f) == 1}
    up = sorted(f"{a} (floor {floor[a]}) imports {b} (floor {floor[b]})"
                for a, b in _graph().edges if a in floor and b in floor and floor[b] > floor[a])
    assert up == []


def test_readers_of_a_scene_never_import_each_other() -> None:
    """render, questions and describe each read a Scene; none imports another (ARCHITECTURE.md §1, floor 5)."""
    readers = ("mapgen.render", "mapgen.questions", "mapgen.describe")

    def reader(module: str) -> str | None:
        return next((r for r in readers if module == r or module.startswith(r + ".")), None)

    crossing = sorted((a, b) for a, b in _graph().edges if reader(a) and reader(b) and reader(a) != reader(b))
    assert crossing == []


FORBIDDEN_FOR_READERS = ("mapgen.render", "mapgen.questions.engine", "mapgen.questions.templates",
                         "mapgen.questions.functions", "mapgen.counterfactual", "mapgen.build", "mapgen.cfsets")


@pytest.mark.parametrize("floor", ["mapgen.eval", "mapgen.evaluation", "mapgen.export", "mapgen.report_site",
                                   "mapgen.human"])
def test_eval_and_the_consumers_only_read(floor: str) -> None:
    """eval and the consumers (the evaluation run, export, the report site, the human baseline) import nothing
    that renders, generates questions, makes counterfactuals or builds."""
    graph = _graph()
    bad = sorted((a, b) for a, b in graph.edges if (a == floor or a.startswith(floor + "."))
                 and b.startswith(FORBIDDEN_FOR_READERS))
    assert bad == []


QUESTIONS_API = ("mapgen.questions", "mapgen.questions.api")
#: Modules of the engine importable on their own: the Question record, and the text sandbox (jinja2 and its
#: budgets, no engine: prompt texts render in it too).
QUESTIONS_STANDALONE = ("mapgen.questions.record", "mapgen.questions.sandbox")


def test_only_the_question_engines_api_is_used_outside_it() -> None:
    """Outside ``mapgen/questions/`` a module imports from the engine only the names of its public API
    (``mapgen.questions.api.__all__``, re-exported by ``mapgen.questions``), the Question record module and the
    text sandbox."""
    import mapgen.questions
    import mapgen.questions.api

    public = set(mapgen.questions.api.__all__)
    assert set(mapgen.questions.__all__) == public
    bad = []
    for name, path in _modules().items():
        if name == "mapgen.questions" or name.startswith("mapgen.questions."):
            continue
        for module, names, line in _import_statements(path):
            if module in QUESTIONS_API:
                bad += [f"{name}:{line} imports {n} from {module}" for n in names if n not in public]
            elif module.startswith("mapgen.questions.") and module not in QUESTIONS_STANDALONE:
                bad.append(f"{name}:{line} imports {module}")
            elif module == "mapgen" and "questions" in names:
                bad.append(f"{name}:{line} imports the questions package as a module object")
    assert bad == []


def test_atomic_renames_only_in_mapgen_files() -> None:
    """Every atomic write goes through mapgen.files: no other module renames a temp file into place."""
    offenders = []
    for name, path in _modules().items():
        if name == "mapgen.files":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "replace", "rename") and _is_path_rename(node):
                offenders.append(f"{name}:{node.lineno}")
    assert offenders == []


def _is_path_rename(call: ast.Call) -> bool:
    """``tmp.replace(path)`` / ``os.replace(a, b)``: one or two arguments, none of them string literals."""
    func = call.func
    if isinstance(func.value, ast.Name) and func.value.id == "os":
        return True
    return len(call.args) == 1 and not isinstance(call.args[0], ast.Constant) and not call.keywords and \
        isinstance(func.value, ast.Name) and "tmp" in func.value.id.lower()


def test_no_function_over_sixty_lines() -> None:
    long = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{name}.{node.name}: {lines} lines")
    assert long == []


def test_no_function_of_radon_grade_d_or_worse() -> None:
    radon = pytest.importorskip("radon.complexity", reason="radon is in the [dev] extra")
    worse = []
    for name, path in _modules().items():
        for block in radon.cc_visit(path.read_text(encoding="utf-8")):
            if radon.cc_rank(block.complexity) >= "D":
                worse.append(f"{name}.{block.name}: {radon.cc_rank(block.complexity)} ({block.complexity})")
    assert worse == []
