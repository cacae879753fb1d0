"""Counterfactual sets: questions re-asked on counterfactual maps with answers recomputed, linked to originals."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapgen.build import build
from mapgen.cfsets import benchmark_sources, make_counterfactual_set, original_scene, set_kinds
from mapgen.cli import main
from mapgen.counterfactual import name_dictionary, prompt_note
from mapgen.geo.atlas import load_atlas
from mapgen.questions import Question, Unaskable, ask, generate_questions, load_templates
from mapgen.questions.functions import reading
from mapgen.render import render
from mapgen.scene import build_scene
from mapgen.spec import load_spec, make_spec

BORDER_TEMPLATE = """
templates:
  - id: border_list
    mapwise: null
    answer_type: list
    map_types: [discrete, continuous]
    params:
      X: {type: Region, from: "with_neighbors()"}
    text: ["Which {{ states }} border {{ X }}?"]
    program:
      - answer: neighbors(X)
"""
FOCUS = ("region_range", "region_in_range", "group_regions_in_range")
TINY_BENCH = {
    "name": "tiny-cf",
    "seed": 5,
    "countries": [{"name": "usa", "maps": 1}, {"name": "india", "maps": 1}],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["jumbled"]},
    "variants": {"unannotated": False, "hatched": False},
    "questions": {"per_image": 8},
    "tasks": ["vqa"],
}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def us_spec():
    return make_spec("usa", "population_2020", classes=5)


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    path = tmp_path_factory.mktemp("tpl") / "border.yaml"
    path.write_text(BORDER_TEMPLATE, encoding="utf-8")
    builtin = load_templates()
    return [builtin.get(t) for t in FOCUS] + list(load_templates(path))


@pytest.fixture(scope="module")
def cfset(us_spec, templates, tmp_path_factory):
    out = tmp_path_factory.mktemp("cf") / "set"
    return make_counterfactual_set([us_spec], seed=3, out_dir=out, per_template=12, templates=templates)


def _by_kind(cfset, kind: str) -> list[dict]:
    return [q for q in cfset.questions if q["counterfactual_set"] == kind]


def _cf_scene(cfset, kind: str):
    (record,) = [m for m in cfset.maps if m["counterfactual_set"] == kind]
    return build_scene(load_spec(cfset.out_dir / "maps" / f"{record['map_id']}.json"))


# --- layout and links ---------------------------------------------------------------------------------------


def test_set_writes_maps_questions_dictionaries_and_links(cfset, us_spec) -> None:
    out = cfset.out_dir
    assert [m["counterfactual_set"] for m in cfset.maps] == ["original", "imaginary", "shuffled", "jumbled"]
    assert _jsonl(out / "questions.jsonl") == json.loads(json.dumps(cfset.questions))
    originals = {q["question_id"]: q for q in _jsonl(out / "originals.jsonl")}
    assert originals and all(q["map_id"] == us_spec.map_id for q in originals.values())
    for m in _jsonl(out / "maps.jsonl"):
        assert (out / m["image"]).exists() and (out / m["image"]).with_suffix(".mask.png").exists()
        spec = load_spec(out / "maps" / f"{m['map_id']}.json")
        assert spec.style.annotated and json.loads((out / m["dictionary"]).read_text()) == name_dictionary(spec)
        assert m["counterfactual"] == (None if m["variant"] == "original" else m["variant"])
        asked = [q for q in cfset.questions if q["map_id"] == m["map_id"]]
        skipped = [s for s in cfset.skipped if s["map_id"] == m["map_id"]]
        assert len(asked) + len(skipped) == len(originals)  # every original is asked or its skip is recorded
        for q in asked:
            assert q["prompt_note"] == prompt_note(spec) and q["image"] == m["image"]
            original = originals[q["original_question_id"]]
            assert q["template_id"] == original["template_id"] and q["original_answer"] == original["answer"]
            assert q["answer_changed"] == (q["answer"] != original["answer"])
    assert not list(out.rglob("*.tmp"))
    manifest = json.loads((out / "set.json").read_text())
    assert manifest["counts"] == cfset.summary() and "questions.jsonl" in manifest["files"]


def test_control_answers_equal_the_originals(cfset) -> None:
    control = _by_kind(cfset, "original")
    assert len(control) == len(cfset.originals) and not [s for s in cfset.skipped if s["counterfactual_set"] == "original"]
    for q in control:
        assert q["answer"] == q["original_answer"] and q["question"] == q["original_question"]
        assert not q["answer_changed"] and q["counterfactual"] is None and q["prompt_note"] == ""


def test_questions_keep_the_recorded_text_variant(cfset, templates) -> None:
    originals = {q["question_id"]: q for q in cfset.originals}
    assert all(isinstance(q["text_variant"], int) for q in originals.values())  # recorded at generation
    for q in cfset.questions:
        assert q["text_variant"] == originals[q["original_question_id"]]["text_variant"]
    # an older record without the field falls back to the seeded draw on the new map
    q = Question.from_dict(next(iter(originals.values())))
    old = Question.from_dict({k: v for k, v in q.to_dict().items() if k != "text_variant"})
    assert old.text_variant is None
    template = next(t for t in templates if t.id == q.template_id)
    scene = original_scene(load_spec(cfset.out_dir / "maps" / f"{cfset.maps[0]['map_id']}.json"))
    asked = ask(template, scene, old.params, old.text_variant, seed=3, original=scene)
    assert asked.text_variant is not None and asked.answer == q.answer


# --- jumbled: answers change exactly where moved values matter ----------------------------------------------


def test_jumbled_region_range_changes_iff_the_class_changed(cfset, us_spec) -> None:
    before, after = build_scene(us_spec), _cf_scene(cfset, "jumbled")
    qs = [q for q in _by_kind(cfset, "jumbled") if q["template_id"] == "region_range"]
    assert qs
    for q in qs:
        x = q["params"]["X"]
        assert q["answer"] == after.regions[x].class_label  # recomputed from the jumbled map
        assert q["answer_changed"] == (before.regions[x].class_index != after.regions[x].class_index)
    assert any(q["answer_changed"] for q in qs)
    # both directions on every legible region (the sampled questions may happen to be all changed ones)
    template = load_templates().get("region_range")
    moved = kept = 0
    for code in before.legible(before.valued()):
        try:
            q0, q1 = ask(template, before, {"X": code}), ask(template, after, {"X": code})
        except Unaskable:
            continue
        same_class = before.regions[code].class_index == after.regions[code].class_index
        assert (q0.answer == q1.answer) == same_class, code
        moved, kept = moved + (not same_class), kept + same_class
    assert moved and kept


def test_jumbled_yes_no_and_lists_change_exactly_where_values_matter(cfset, us_spec) -> None:
    before, after = build_scene(us_spec), _cf_scene(cfset, "jumbled")
    changed = 0
    for q in _by_kind(cfset, "jumbled"):
        if q["template_id"] == "region_in_range":
            x, y = q["params"]["X"], q["params"]["Y"]
            assert q["answer"] == ("Yes" if after.regions[x].class_index == y else "No")
            assert q["answer_changed"] == ((before.regions[x].class_index == y) != (after.regions[x].class_index == y))
        elif q["template_id"] == "group_regions_in_range":
            members = reading(after).groups[q["params"]["R"]]
            y = q["params"]["Y"]
            old = {c for c in members if before.regions[c].class_index == y}
            new = {c for c in members if after.regions[c].class_index == y}
            assert q["answer"] == sorted(after.regions[c].name for c in new)
            assert q["answer_changed"] == (old != new)
        changed += q["answer_changed"]
    assert changed


def test_jumbled_skips_record_why(cfset) -> None:
    for s in cfset.skipped:
        assert s["reason_kind"] in {"invalid", "constraint", "illegible", "parameter", "template"} and s["reason"]


def test_re_asking_refuses_a_tie(us_spec) -> None:
    template = load_templates().get("group_extreme_region")
    scene0 = original_scene(us_spec)
    (q,) = generate_questions(scene0, [template], per_template=1, seed=1)
    members = reading(scene0).groups[q.params["R"]]
    tied = replace(us_spec, values={c: (5.0e6 if c in members else v) for c, v in us_spec.values.items()})
    with pytest.raises(Unaskable) as err:
        ask(template, build_scene(tied), q.params, q.text_variant, original=scene0)
    assert err.value.kind == "invalid" and "extreme_region" in err.value.reason
    again = ask(template, scene0, q.params, q.text_variant, original=scene0)
    assert (again.answer, again.question) == (q.answer, q.question)


# --- renamed maps: geography maps through the renaming ------------------------------------------------------


@pytest.mark.parametrize("kind", ["imaginary", "shuffled"])
def test_renamed_geography_answers_map_through_the_renaming(cfset, kind: str) -> None:
    atlas = load_atlas("usa")
    scene = _cf_scene(cfset, kind)
    rename = {atlas.names[c]: scene.regions[c].name for c in atlas.codes}
    qs = _by_kind(cfset, kind)
    assert len(qs) == len(cfset.originals)  # values stay with the shapes: nothing becomes invalid
    borders = [q for q in qs if q["template_id"] == "border_list"]
    assert borders
    for q in qs:
        assert not q["answer_changed_beyond_names"]
        if q["answer_type"] == "list":
            assert q["answer"] == sorted(rename[n] for n in q["original_answer"])
    for q in borders:
        x = q["params"]["X"]
        assert q["question"] == f"Which states border {scene.regions[x].name}?"
        assert q["answer"] == sorted(scene.regions[c].name for c in atlas.neighbors(x))
    countries = {f"bordering {c}" for c in atlas.bordering_countries}  # "bordering Mexico" has no centre region
    ring = [q for q in qs if q["template_id"] == "group_regions_in_range" and q["params"]["R"].startswith("bordering ")
            and q["params"]["R"] not in countries]
    assert ring
    for q in ring:  # "states bordering <X>" asks about the shape now labelled X
        centre = reading(scene).group_centre[q["params"]["R"]]
        assert q["params"]["R"] == f"bordering {scene.regions[centre].name}"
        assert set(reading(scene).groups[q["params"]["R"]]) == set(atlas.neighbors(centre))


def test_shuffled_texas_question_asks_about_the_shape_labelled_texas(cfset) -> None:
    scene = _cf_scene(cfset, "shuffled")
    for q in _by_kind(cfset, "shuffled"):
        if q["template_id"] == "border_list":
            shape = scene.resolve(q["question"].removeprefix("Which states border ").rstrip("?"))
            assert shape == q["params"]["X"] and scene.regions[shape].label != shape


@pytest.mark.parametrize("country,stat", [("usa", "population_2020"), ("india", "literacy_2011"),
                                          ("china", None)])
def test_all_kinds_render_for_every_country(country: str, stat: str | None, tmp_path) -> None:
    from mapgen.data.curated import list_stats

    spec = make_spec(country, stat or list_stats(country)[0].id, classes=4)
    result = make_counterfactual_set([spec], seed=2, out_dir=tmp_path, templates=[load_templates().get("region_range")])
    assert [m["variant"] for m in result.maps] == ["original", "imaginary", "shuffled", "jumbled"]
    assert all((tmp_path / m["image"]).stat().st_size > 0 for m in result.maps)
    assert {q["counterfactual_set"] for q in result.questions} == {"original", "imaginary", "shuffled", "jumbled"}


# --- determinism and atomicity ------------------------------------------------------------------------------


def test_same_seed_same_bytes_other_seed_other_names(us_spec, templates, tmp_path) -> None:
    runs = [make_counterfactual_set([us_spec], ["imaginary", "jumbled"], seed=s, out_dir=tmp_path / f"r{i}",
                                    templates=templates) for i, s in enumerate((4, 4, 5))]
    a, b, c = (r.out_dir for r in runs)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    assert (a / "questions.jsonl").read_bytes() != (c / "questions.jsonl").read_bytes()


def test_a_crash_leaves_no_half_written_files(us_spec, templates, tmp_path, monkeypatch) -> None:
    import mapgen.cfsets

    calls = []

    def failing(spec, path, atlas=None):
        calls.append(spec.map_id)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        return render(spec, path, atlas)

    monkeypatch.setattr(mapgen.cfsets, "render", failing)
    with pytest.raises(RuntimeError):
        make_counterfactual_set([us_spec], ["shuffled"], seed=1, out_dir=tmp_path / "cf", templates=templates)
    out = tmp_path / "cf"
    assert not list(out.rglob("*.tmp")) and not (out / "questions.jsonl").exists() and not (out / "set.json").exists()


def test_kinds_are_validated_and_ordered() -> None:
    assert set_kinds(["jumbled", "imaginary"]) == ["original", "imaginary", "jumbled"]
    assert set_kinds(["shuffled"], include_original=False) == ["shuffled"]
    with pytest.raises(ValueError, match="inverted"):
        set_kinds(["inverted"])


# --- CLI ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "b"
    build(TINY_BENCH, out, progress=False)
    return out


def test_cli_on_a_benchmark_re_asks_its_questions(bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "cf"
    result = CliRunner().invoke(main, ["counterfactual", str(bench), "--kind", "shuffled,jumbled,imaginary",
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "jumbled:" in result.output
    base = [m["map_id"] for m in _jsonl(bench / "maps.jsonl") if m["variant"] == "annotated"]
    maps = _jsonl(out / "maps.jsonl")
    assert sorted({m["source_map_id"] for m in maps}) == sorted(base) and len(maps) == 4 * len(base)
    bench_ids = {q["question_id"]: q for q in _jsonl(bench / "questions.jsonl")}
    originals = {q["question_id"] for q in _jsonl(out / "originals.jsonl")}
    for map_id in base:
        recorded = {i for i, q in bench_ids.items() if q["map_id"] == map_id}
        if recorded:
            assert recorded <= originals
    questions = _jsonl(out / "questions.jsonl")
    assert questions and all(q["original_question_id"] in originals for q in questions)
    for q in questions:
        if q["counterfactual_set"] == "original":
            assert q["answer"] == q["original_answer"]
            if q["original_question_id"] in bench_ids:
                assert q["split"] == bench_ids[q["original_question_id"]]["split"]
        assert (out / q["image"]).exists()


def test_cli_on_a_single_map(us_spec, tmp_path: Path) -> None:
    rendered = render(us_spec.with_style(annotated=False), tmp_path / "map.png")
    out = tmp_path / "cf"
    args = ["counterfactual", str(rendered.json), "--kind", "imaginary", "--seed", "3", "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    maps = _jsonl(out / "maps.jsonl")
    assert [m["map_id"] for m in maps] == [f"{us_spec.map_id}-original", f"{us_spec.map_id}-imaginary-s3"]
    assert all(m["annotated"] for m in maps)
    book = json.loads((out / "dictionaries" / f"{us_spec.map_id}-imaginary-s3.json").read_text())
    assert len(book["regions"]) == 51
    notes = {q["prompt_note"] for q in _jsonl(out / "questions.jsonl") if q["counterfactual"] == "imaginary"}
    assert len(notes) == 1 and notes.pop().startswith("The map in the image uses fictional names")

    alone = CliRunner().invoke(main, [*args[:-1], str(tmp_path / "alone"), "--no-original"])
    assert alone.exit_code == 0, alone.output
    assert [m["variant"] for m in _jsonl(tmp_path / "alone" / "maps.jsonl")] == ["imaginary"]


def test_cli_refuses_bad_kinds_and_counterfactual_sources(cfset, tmp_path: Path) -> None:
    source = cfset.out_dir / "maps" / f"{cfset.maps[0]['source_map_id']}-original.json"
    bad = CliRunner().invoke(main, ["counterfactual", str(source), "--kind", "mirrored", "-o", str(tmp_path)])
    assert bad.exit_code == 2 and "mirrored" in bad.output
    cf_map = cfset.out_dir / cfset.maps[1]["image"].replace(".png", ".json")
    again = CliRunner().invoke(main, ["counterfactual", str(cf_map), "-o", str(tmp_path / "x")])
    assert again.exit_code == 2 and "already a counterfactual" in again.output


def test_benchmark_sources_fall_back_to_maps_without_a_counterfactual(tmp_path: Path) -> None:
    records = [{"map_id": "a-unannotated", "variant": "unannotated", "counterfactual": None},
               {"map_id": "cf-a-jumbled", "variant": "jumbled", "counterfactual": "jumbled"},
               {"map_id": "cf-a-original", "variant": "original", "counterfactual": None}]
    (tmp_path / "maps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert benchmark_sources(tmp_path) == [tmp_path / "maps" / "a-unannotated.json"]
