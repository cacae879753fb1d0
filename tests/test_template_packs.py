"""A template pack written outside the repository — two templates from existing functions, one from the pack's
own function, Chinese texts — lints, previews, and builds from a config in English (a grid atlas whose borders
are known by construction) and in Chinese; every answer is recomputed here from the map facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import write_grid

from mapgen.cli import main
from mapgen.scene import load_scene

TEMPLATES = """\
definitions:
  higher neighbour: a neighbour whose value is higher (on a discrete map, in a higher legend class)
templates:
  - id: pack_pair_higher
    answer_type: binary
    params:
      X: Region
      Y: {type: Region, from: "others(readable_regions(), X)"}
    text: ["Is the value of {{ X }} higher than the value of {{ Y }}?"]
    program:
      - answer: compare(X, 'higher', Y)
  - id: pack_map_extreme
    answer_type: single
    params:
      E: {type: Extreme, values: [highest, lowest]}
    text: ["Which {{ state }} has the {{ E }} value on the map?"]
    program:
      - answer: extreme_region(all_regions(), E)
  - id: pack_higher_neighbours
    answer_type: count
    params:
      X: {type: Region, from: with_neighbors()}
    text: ["How many {{ states }} bordering {{ X }} have a higher value than {{ X }}?"]
    program:
      - answer: higher_neighbours(X)
    uses: [higher neighbour]
"""
FUNCTIONS = '''\
"""The pack's own function."""

from mapgen.questions import FUNCTIONS, INVALID, register


@register("Region", "Int", relative=True)
def higher_neighbours(ctx, region):
    """How many neighbours of ``region`` have a higher value (INVALID when one is too close to call)."""
    compare = FUNCTIONS["compare"].fn
    count = 0
    for other in FUNCTIONS["neighbors"].fn(ctx, region):
        higher = compare(ctx, other, "higher", region)
        if higher is INVALID:
            return INVALID
        count += bool(higher)
    return count
'''
CHINESE = """\
templates:
  pack_pair_higher: ["{{ X }}的数值是否高于{{ Y }}？"]
  pack_map_extreme: ["地图上哪个{{ state }}的数值{{ E }}？"]
  pack_higher_neighbours: ["与{{ X }}接壤的{{ states }}中，有多少个的数值高于{{ X }}？"]
"""
IDS = ["pack_pair_higher", "pack_map_extreme", "pack_higher_neighbours"]


def write_pack(folder: Path, chinese: bool = True) -> Path:
    (folder / "lang").mkdir(parents=True)
    (folder / "templates.yaml").write_text(TEMPLATES, encoding="utf-8")
    (folder / "functions.py").write_text(FUNCTIONS, encoding="utf-8")
    if chinese:
        (folder / "lang" / "zh.yaml").write_text(CHINESE, encoding="utf-8")
    return folder


def write_configs(root: Path) -> tuple[Path, Path]:
    """An English build on a 4×4 grid atlas and a Chinese build on China, both naming the pack ../pack."""
    write_grid(root / "project" / "regions", stem="gridland")
    (root / "project" / "regions" / "gridland.csv").rename(root / "project" / "gridland.csv")
    questions = f"questions: {{packs: [../pack], templates: {IDS}, per_template: 2, per_image: 6, min_per_template: 0}}\n"
    en = root / "project" / "en.yaml"
    en.write_text("name: grid-pack\nseed: 3\ncountries:\n  - name: regions/gridland.geojson\n    maps: 4\n"
                  "    statistics: {curated: [], files: [gridland.csv], synthetic: {count: 3}}\n"
                  + questions + "tasks: [vqa]\n")
    zh = root / "project" / "zh.yaml"
    zh.write_text("name: china-pack\nseed: 3\ncountries:\n  - {name: china, maps: 3, language: zh}\n" + questions
                  + "tasks: [vqa]\n")
    return en, zh


def run(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("outside")
    pack = write_pack(root / "pack")
    en, zh = write_configs(root)
    run("build", en, "-o", root / "en", "--workers", "1")
    run("build", zh, "-o", root / "zh", "--workers", "1")
    return {"pack": pack, "en": root / "en", "zh": root / "zh"}


def rook_neighbours(code: str, n: int = 4) -> set[str]:
    """The grid's borders by construction: ``C<row letter><column>`` touches the cells above, below and beside."""
    row, col = ord(code[1]) - 65, int(code[2:])
    cells = [(row + dr, col + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    return {f"C{chr(65 + r)}{c}" for r, c in cells if 0 <= r < n and 1 <= c <= n}


def expected_answer(q: dict, scene, neighbours) -> object:
    """The answer recomputed from the map facts: a level is the legend class (discrete) or the value."""
    level = {c: (r.class_index if scene.map_type == "discrete" else r.value) for c, r in scene.regions.items()
             if r.value == r.value}  # NaN: no value
    p = q["params"]
    if q["template_id"] == "pack_pair_higher":
        return "Yes" if level[p["X"]] > level[p["Y"]] else "No"
    if q["template_id"] == "pack_map_extreme":
        pick = max if p["E"] == "highest" else min
        best = pick(level.values())
        (code,) = [c for c, v in level.items() if v == best]  # asked only when unique
        return code
    return sum(level[o] > level[p["X"]] for o in neighbours(p["X"]))


def _questions(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_pack_lints_and_previews(builds: dict[str, Path]) -> None:
    assert run("templates", "lint", builds["pack"]).strip() == f"{builds['pack']}: ok"
    listed = run("templates", "list", "--templates", builds["pack"])
    assert [line.split("\t")[0] for line in listed.splitlines()] == IDS
    functions = run("templates", "functions", "--templates", builds["pack"])
    assert "higher_neighbours(Region) -> Int" in functions
    a_map = sorted((builds["en"] / "maps").glob("gridland-0000-annotated.json"))[0]
    out = run("templates", "preview", "pack_higher_neighbours", "--templates", builds["pack"], "--map", a_map, "-n", "2")
    assert "Q: How many regions bordering Cell" in out and "higher_neighbours(X)" in out
    prompt = run("prompt", "--template", "pack_higher_neighbours", "--templates", builds["pack"], "--map", a_map)
    question = out.splitlines()[0].removeprefix("Q: ")  # preview's first question: the same template, map and seed
    assert prompt.startswith(f"[image 1] {a_map.with_suffix('.png')}") and f"Question: {question}" in prompt
    unknown = CliRunner().invoke(main, ["prompt", "--template", "pack_higher_neighbours", "--map", str(a_map)])
    assert unknown.exit_code == 2 and "no template 'pack_higher_neighbours'" in unknown.output  # pack not named


def test_english_build_answers_hold_on_the_grid(builds: dict[str, Path]) -> None:
    questions = _questions(builds["en"])
    assert {q["template_id"] for q in questions} == set(IDS)
    for q in questions:
        scene = load_scene(builds["en"] / "maps" / f"{q['map_id']}.json")
        for code in scene.regions:  # the borders the map facts hold are the grid's
            assert set(scene.regions[code].neighbors) == rook_neighbours(code)
        want = expected_answer(q, scene, rook_neighbours)
        if q["template_id"] == "pack_map_extreme":
            want = scene.regions[want].name
        assert q["answer"] == want, q["question"]
    manifest = json.loads((builds["en"] / "manifest.json").read_text())
    from mapgen.questions.packs import open_pack

    assert manifest["packs"]["pack"] == {"path": "packs/pack", "sha256": open_pack(builds["pack"]).digest(),
                                         "source": "../pack"}
    assert {"packs/pack/templates.yaml", "packs/pack/functions.py", "packs/pack/lang/zh.yaml"} <= set(manifest["files"])
    info = json.loads(run("info", builds["en"], "--json"))
    assert set(info["counts"]["questions_by_template_id"]) == set(IDS)


def test_chinese_build_asks_the_packs_chinese_texts_and_answers_hold(builds: dict[str, Path]) -> None:
    questions = _questions(builds["zh"])
    assert len({q["template_id"] for q in questions}) >= 2
    for q in questions:
        scene = load_scene(builds["zh"] / "maps" / f"{q['map_id']}.json")
        want = expected_answer(q, scene, lambda code, s=scene: s.regions[code].neighbors)
        if q["template_id"] == "pack_map_extreme":
            want = scene.local_name(want)
        assert q["answer"] == want, q["question"]
        x = scene.local_name(q["params"]["X"]) if "X" in q["params"] else ""
        if q["template_id"] == "pack_higher_neighbours":
            assert q["question"].startswith(f"与{x}接壤的")
        if q["template_id"] == "pack_pair_higher":
            assert q["question"] == f"{x}的数值是否高于{scene.local_name(q['params']['Y'])}？"


def test_a_build_warns_when_its_language_has_no_text(tmp_path: Path) -> None:
    from mapgen.build import build

    write_pack(tmp_path / "pack", chinese=False)
    _, zh = write_configs(tmp_path)
    with pytest.warns(UserWarning, match="template pack_map_extreme has no Chinese"):
        build(zh, tmp_path / "out", progress=False)


def test_starter_pack_lints(tmp_path: Path) -> None:
    run("templates", "new", "my_first", "-o", tmp_path / "starter")
    assert run("templates", "lint", tmp_path / "starter").strip().endswith("starter: ok")


def test_scene_json_shows_legibility_as_rendered(tmp_path: Path) -> None:
    run("spec", "usa", "--stat", "population_2020", "-o", tmp_path / "spec.json")
    run("render", tmp_path / "spec.json", "-o", tmp_path / "usa.png")  # a render never overwrites its source
    rendered = json.loads((tmp_path / "usa.json").read_text())
    illegible = {code for code, facts in rendered["regions"].items() if not facts["legible"]}
    assert {"DC", "DE", "RI"} <= illegible
    regions = json.loads(run("scene", tmp_path / "usa.json", "--json"))["regions"]
    assert {r["code"] for r in regions if not r["legible"]} == illegible


def test_the_pixel_oracle_reasks_a_packs_questions_from_the_folder(builds: dict[str, Path], tmp_path: Path) -> None:
    run("audit", builds["en"], "-o", tmp_path / "audit")
    rows = [json.loads(line) for line in (tmp_path / "audit" / "audit.jsonl").read_text().splitlines()]
    assert {r["template_id"] for r in rows if "template_id" in r} >= set(IDS) or len(rows) == len(
        _questions(builds["en"]))
