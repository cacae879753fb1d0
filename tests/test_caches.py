"""One cache module (issue 39 item 3): every process-wide cache is bounded, keyed by value or by a live object's
identity, cleared by ``clear_all()``; the canvas disk cache is keyed by the font files' digests too."""

from __future__ import annotations

import ast
import gc
import shutil
from pathlib import Path

import pytest

from mapgen.caches import ObjectCache, ValueCache, caches, clear_all, memo

PACKAGE = Path(__file__).resolve().parents[1] / "mapgen"


class Holder:
    """An object facts are cached about (weak-referenceable)."""


def test_a_value_cache_is_bounded_and_forgets_the_least_recently_used() -> None:
    cache: ValueCache[int, str] = ValueCache("test.values", maxsize=2)
    cache.put(1, "a")
    cache.put(2, "b")
    assert cache.get(1) == "a"  # 1 is now the most recently used
    cache.put(3, "c")
    assert 2 not in cache and cache.get(1) == "a" and cache.get(3) == "c" and len(cache) == 2


def test_an_object_cache_never_serves_another_object_with_a_reused_id() -> None:
    cache: ObjectCache[str] = ObjectCache("test.objects", maxsize=8)
    first = Holder()
    assert cache.get_or_make(first, lambda: "first") == "first"
    assert cache.get_or_make(first, lambda: "again") == "first"
    old_id = id(first)
    del first
    gc.collect()
    seen = set()
    for _ in range(10_000):  # a new object soon takes the freed id
        other = Holder()
        if id(other) == old_id:
            assert cache.get_or_make(other, lambda: "other") == "other"
            break
        seen.add(other)
    assert cache.get_or_make(Holder(), lambda: "fresh") == "fresh"


def test_clear_all_empties_every_registered_cache() -> None:
    calls: list[int] = []

    @memo(4)
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    square(3)
    square(3)
    assert calls == [3]
    clear_all()
    square(3)
    assert calls == [3, 3]
    assert any(name.endswith("test_clear_all_empties_every_registered_cache.<locals>.square") for name in caches())


def _module_level_mutables(path: Path) -> list[str]:
    """Module-level names bound to an empty ``{}`` (a hand-made cache), and functions under an unbounded
    ``functools.cache`` / ``lru_cache``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict) and not node.value.keys:
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            found.append(ast.unparse(target))
        if isinstance(node, ast.FunctionDef):
            found += [f"{node.name} (@{ast.unparse(d)})" for d in node.decorator_list
                      if ast.unparse(d).split("(")[0] in ("cache", "lru_cache", "functools.cache", "functools.lru_cache")]
    return found


#: Module-level empty dicts that are registries or ledgers, not caches (clearing them would lose what was
#: registered): names registered by packs, plugins and users; styles read from files; imports of packs done.
NOT_CACHES = {
    "mapgen.benchmark": {"TASK_FILES"}, "mapgen.tasks.registry": {"_TASKS"}, "mapgen.eval.metrics": {"_METRICS"},
    "mapgen.questions.typecheck": {"EXTRA_VALUES"}, "mapgen.questions.packs": {"_IMPORTED"},
    "mapgen.questions.readings": {"_AXES", "_GROUPS"}, "mapgen.questions.functions.registry": {"FUNCTIONS"},
    "mapgen.questions.templates": {"_LANGUAGES"}, "mapgen.render.style": {"_KNOWN"},
    "mapgen.renderers": {"_RENDERERS"}, "mapgen.schemes": {"_SCHEMES", "_SPELLINGS"}, "mapgen.caches": {"_ALL"},
}


def test_no_process_wide_cache_is_made_by_hand() -> None:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if any(part.startswith("_") and part not in ("__init__.py",) and path.is_relative_to(PACKAGE / part)
               for part in ("_data", "_templates", "_configs")):
            continue
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        names = set(_module_level_mutables(path)) - NOT_CACHES.get(module, set())
        if names:
            found[module] = sorted(names)
    assert found == {}, "use mapgen.caches (memo, ValueCache, ObjectCache) for process-wide caches"


def test_a_changed_font_file_gives_a_fresh_canvas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  fresh_caches: None) -> None:
    from mapgen.geo.atlas import load_atlas
    from mapgen.render import api, fonts
    from mapgen.spec import Style

    font = tmp_path / "DejaVuSans.ttf"
    shutil.copyfile(fonts.FAMILIES["DejaVu Sans"], font)
    monkeypatch.setitem(fonts.FAMILIES, "DejaVu Sans", font)
    monkeypatch.setenv("MAPGEN_CANVAS_CACHE", str(tmp_path / "canvas"))
    built: list[object] = []
    build = api.build_canvas
    monkeypatch.setattr(api, "build_canvas", lambda *a: built.append(a) or build(*a))
    atlas, style = load_atlas("usa"), Style(width=640, height=480)

    api.get_canvas(atlas, style)
    clear_all()
    api.get_canvas(atlas, style)
    assert len(built) == 1  # the second process-fresh call read the disk cache
    with font.open("ab") as handle:  # same glyphs, another file: a font upgrade
        handle.write(b"\0" * 16)
    clear_all()
    api.get_canvas(atlas, style)
    assert len(built) == 2
    assert len(list((tmp_path / "canvas").glob("usa-*.pickle"))) == 2
