"""`mapgen export --format mapwise` read the strict way: as MAPWise's own repository is laid out.

Expectations (file names, CSV headers, json_data record keys, metadata keys, map-name patterns, India codes)
are derived from ``../shared/reference/mapwise/repo-sample`` (a slice of MAPWise's repository as released); the
export is of a real tiny build with a counterfactual set of every kind.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import build_tiny

from mapgen.export import export
from mapgen.files import read_jsonl
from mapgen.geo.atlas import load_atlas

REPO_SAMPLE = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "mapwise" / "repo-sample"
SAMPLE = REPO_SAMPLE / "dataset"
needs_sample = pytest.mark.skipif(not SAMPLE.is_dir(), reason=f"MAPWise's repository slice not found at {SAMPLE}")

TINY = {
    "name": "mapwise export",
    "seed": 11,
    "countries": [{"name": "usa", "maps": 2}, {"name": "india", "maps": 2}, {"name": "china", "maps": 2}],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["original", "imaginary", "shuffled", "jumbled"]},
    "questions": {"per_image": 5},
}
COUNTRIES = ("usa", "india", "china")
KINDS = ("img", "jumb", "orgs", "shuff")


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    return build_tiny(tmp_path_factory, TINY, "mwbuild")


@pytest.fixture(scope="module")
def exported(bench: Path, tmp_path_factory) -> Path:
    return export(bench, "mapwise", tmp_path_factory.mktemp("mwexport") / "out") / "dataset"


def _questions(bench: Path) -> list[dict[str, Any]]:
    return read_jsonl(bench / "questions.jsonl")


def _header(path: Path) -> str:
    return path.read_text(encoding="utf-8-sig").splitlines()[0]


def _table(folder: Path) -> Path:
    (table,) = [p for p in folder.glob("*.csv")]
    return table


def _stem_pattern(stem: str) -> str:
    return re.sub(r"\d+", r"\\d+", stem)


def _json_files(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / "json_data").glob("*.json"))


# --- the same layout as MAPWise's repository ----------------------------------------------------------------


@needs_sample
@pytest.mark.parametrize("country", COUNTRIES)
def test_country_tables_have_mapwise_names_and_headers(exported: Path, country: str) -> None:
    ours, theirs = exported / country, SAMPLE / country
    assert _table(ours).name == _table(theirs).name
    assert _header(_table(ours)) == _header(_table(theirs))  # byte-exact, trailing empty column included
    assert set(_json_files(ours)) == set(_json_files(theirs))
    theirs_dirs = {p.name for p in theirs.iterdir() if p.is_dir()}
    assert theirs_dirs <= {p.name for p in ours.iterdir() if p.is_dir()}


@needs_sample
@pytest.mark.parametrize("kind", KINDS)
def test_counterfactual_tree_has_mapwise_names_and_headers(exported: Path, kind: str) -> None:
    ours, theirs = exported / "counter_factuals" / kind, SAMPLE / "counter_factuals" / kind
    assert _table(ours).name == _table(theirs).name == f"{kind}_data.csv"
    assert _header(_table(ours)) == _header(_table(theirs))
    assert _json_files(ours) == _json_files(theirs)
    assert {p.name for p in (ours / f"{kind}_maps").glob("*.png")}


@needs_sample
def test_json_data_records_read_like_mapwise(exported: Path, bench: Path) -> None:
    (sample_keys,) = {tuple(r) for f in SAMPLE.rglob("json_data/*.json") for r in json.loads(f.read_text())}
    sample_types = {r["ground_truth_type"] for f in SAMPLE.rglob("json_data/*.json") for r in json.loads(f.read_text())}
    root = exported.parent
    count = 0
    for path in exported.rglob("json_data/*.json"):
        for record in json.loads(path.read_text()):
            count += 1
            assert tuple(record) == sample_keys
            assert record["ground_truth_type"] in sample_types
            assert (root / record["map_path"]).is_file(), record["map_path"]
            assert Path(record["map_path"]).stem == record["map_no"]
            assert path.name.startswith(f"{record['country']}_{record['map_type']}_")
    assert count == len(_questions(bench))  # every question once, in its variant's file


@needs_sample
@pytest.mark.parametrize("country", COUNTRIES)
def test_map_names_and_metadata_keys_follow_mapwise(exported: Path, country: str) -> None:
    def stems(folder: Path) -> set[str]:
        return {p.stem for p in folder.rglob("*") if p.suffix in (".png", ".json") and p.parent.name != "json_data"}

    patterns = {_stem_pattern(s) for s in stems(SAMPLE / country)}
    assert {_stem_pattern(s) for s in stems(exported / country)} <= patterns
    sample_keys = {json.loads(p.read_text())["legend_type"]: set() for p in (SAMPLE / country / "metadata").iterdir()}
    for p in (SAMPLE / country / "metadata").iterdir():
        meta = json.loads(p.read_text())
        sample_keys[meta["legend_type"]].add(tuple(meta))
    for p in (exported / country / "metadata").rglob("*.json"):  # the hatched images' own metadata too
        meta = json.loads(p.read_text())
        assert tuple(meta) in sample_keys[meta["legend_type"]], (p.name, tuple(meta))
        assert str(meta["map_id"]) in p.stem


@needs_sample
def test_india_uses_mapwise_codes(exported: Path) -> None:
    sample = {r["region"] for p in (SAMPLE / "india" / "metadata").iterdir() for r in json.loads(p.read_text())["data"]}
    for p in (exported / "india" / "metadata").rglob("*.json"):
        data = json.loads(p.read_text())["data"]
        codes = [r["region"] for r in data]
        assert len(codes) == len(set(codes))
        assert sample <= set(codes) and set(codes) - sample == {"LA"}  # Ladakh: drawn apart on mapgen's maps
        by_code = {r["region"]: r["value"] for r in data}
        assert by_code["DN"] == by_code["DD"]  # one unit in mapgen's atlas, two records in MAPWise's


# --- what a MAPWise-layout reader finds in it -----------------------------------------------------------------


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@needs_sample
@pytest.mark.parametrize("country", COUNTRIES)
def test_table_rows_join_to_metadata_and_images(exported: Path, country: str) -> None:
    folder = exported / country
    rows = _rows(_table(folder))
    assert rows
    for row in rows:
        number = row.get("map_no") or row["map_id"]
        stem = f"map_{number}" if country == "usa" else f"map{number}"
        meta = json.loads((folder / "metadata" / f"{stem}.json").read_text())
        assert (folder / "with_annotations" / f"{stem}.png").is_file()
        if "c_or_d" in row:
            assert row["c_or_d"] == ("c" if meta["legend_type"] == "Continuous" else "d")
        if row["template_no"] == "1":  # "How many categories does the legend contain?"
            assert int(row["ground_truth"]) == len([d for d in meta["class_descriptions"] if d != "N/A"])
        if "verified answer" in row:
            assert row["verified answer"] == row["ground_truth"]


def test_every_question_is_a_row_and_answers_match_the_build(exported: Path, bench: Path) -> None:
    questions = [q for q in _questions(bench) if not q.get("counterfactual_set")]
    rows = [r for c in COUNTRIES for r in _rows(_table(exported / c))]
    texts = Counter((r["question"], r["ground_truth"]) for r in rows)
    from mapgen.mapwise.released_wording import mapwise_text

    for q in questions:
        assert (mapwise_text(q), _gold(q)) in texts, q["question"]  # MAPWise's wording, the build's answer


def _gold(q: dict[str, Any]) -> str:
    from mapgen.export.common import answer_text

    return answer_text(q["answer"], q["answer_type"], empty="None")


def test_shuffled_maps_record_the_name_printed_on_each_shape(exported: Path, bench: Path) -> None:
    atlas = load_atlas("usa")
    (meta_path,) = (exported / "counter_factuals" / "shuff" / "metadata").iterdir()
    data = json.loads(meta_path.read_text())["data"]
    printed = {r["region"]: r["printed_name"] for r in data}
    assert sorted(printed.values()) == sorted(atlas.names[c] for c in atlas.codes)  # a permutation of real names
    assert sum(printed[c] != atlas.names[c] for c in printed) > len(printed) // 2
    (spec_path,) = (bench / "maps").glob("cf-*-shuffled.json")
    names = json.loads(spec_path.read_text())["spec"]["counterfactual"]["names"]
    assert printed == names
    rows = {r["question"] for r in _rows(exported / "counter_factuals" / "shuff" / "shuff_data.csv")}
    asked = [q for q in _questions(bench) if q["map_id"] == spec_path.stem]
    named = [(q, c) for q in asked for c in q["params"].values() if isinstance(c, str) and c in printed]
    if not named:  # no question names a region: then no exported row may name one either
        assert not any(n in r for r in rows for n in printed.values())
    for q, code in named:  # a region parameter is written by the name printed on its shape, in the export too
        assert printed[code] in q["question"] and any(printed[code] in r for r in rows)


def test_imaginary_names_recorded_and_original_control_keeps_real_names(exported: Path) -> None:
    cf = exported / "counter_factuals"
    (img,) = (cf / "img" / "metadata").iterdir()
    atlas = load_atlas("usa")
    real = set(atlas.names.values())
    assert not {r["printed_name"] for r in json.loads(img.read_text())["data"]} & real
    (orgs,) = (cf / "orgs" / "metadata").iterdir()
    assert all("printed_name" not in r for r in json.loads(orgs.read_text())["data"])
    assert img.name == orgs.name  # a counterfactual map takes its source map's number, as in MAPWise


def test_export_is_deterministic(bench: Path, exported: Path, tmp_path: Path) -> None:
    again = export(bench, "mapwise", tmp_path / "again") / "dataset"
    ours = {p.relative_to(exported): p.read_bytes() for p in exported.rglob("*") if p.is_file()}
    theirs = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert ours == theirs


def test_mapgen_reads_its_export_back_as_mapwise_and_finds_no_answer_to_dispute(exported: Path, tmp_path: Path) -> None:
    from mapgen.recheck.importer import import_repository
    from mapgen.recheck.verdicts import recheck

    imported = import_repository(exported.parent, tmp_path / "imp")
    assert set(imported) == {*COUNTRIES, *(f"counter_factuals/{k}" for k in KINDS)}  # every kind is read back
    for country, data in imported.items():
        assert not data.missing_maps
        verdicts = [v.verdict for v in recheck(data)]
        assert "disagree" not in verdicts, country
        assert verdicts.count("agree") >= len(verdicts) // 2, (country, Counter(verdicts))


HATCHED = {
    "name": "mapwise hatched round trip",
    "seed": 5,
    "countries": [{"name": "usa", "maps": 3}],
    "legend": {"types": ["discrete"], "classes": [3, 4, 5]},
    "variants": {"annotated": True, "unannotated": False, "hatched": True, "colormaps": ["viridis"]},
    # 40 per image: every eligible template is asked, so colour questions on hatched images do not hang on which
    # 20 the sampler happens to keep (with 20, main kept two; a change in legible regions kept none)
    "questions": {"per_template": 2, "per_image": 40},
    "tasks": ["vqa"],
}


def test_hatched_questions_round_trip_without_disagreement(tmp_path_factory, tmp_path: Path) -> None:
    """Colour questions differ between a map's viridis image and its grey hatched image (viridis is darker where
    values are lower, the hatched greys darker where higher); MAPWise's layout shares one metadata file between
    the variants, so the recheck must judge hatched-only questions (json_data says which) on the hatched map."""
    from mapgen.recheck.importer import import_repository
    from mapgen.recheck.verdicts import recheck

    bench = build_tiny(tmp_path_factory, HATCHED, "mwhatched")
    exported = export(bench, "mapwise", tmp_path / "out")
    data = import_repository(exported, tmp_path / "imp")["usa"]
    hatched = [q for q in data.questions if q.variant == "hatched"]
    colour = [q for q in hatched if q.template_no in (2, 4, 5)]
    assert colour, "the build should ask shade/colour questions on hatched images"
    verdicts = recheck(data)
    unparsed = [(v.question, v.reason) for v in verdicts if v.verdict == "unparsed"]
    assert not unparsed  # every question mapgen writes parses back (its own wordings are rules too)
    assert Counter(v.verdict for v in verdicts)["disagree"] == 0, [
        (v.question, v.ground_truth, v.our_answer) for v in verdicts if v.verdict == "disagree"]
    # the same questions judged on the coloured map disagree (the test can fail): not every one of them — a
    # shade question whose two orders happen to pick the same class agrees on both maps — but most
    judged = [recheck(replace(data, questions=[replace(q, variant=None)]))[0].verdict for q in colour]
    assert sum(v in ("disagree", "ambiguous") for v in judged) > len(judged) / 2, (judged, [q.question for q in colour])


RECLASSIFIED = {
    "name": "mapwise hatched maps with their own classes",
    "seed": 5,
    "countries": [{"name": "usa", "maps": 3, "statistics": {
        "curated": [], "synthetic": {"count": 3, "distributions": ["lognormal", "heavy_tailed"]}}}],
    "legend": {"types": ["discrete"], "classes": [5, 6], "schemes": ["natural_breaks", "quantiles"]},
    "variants": {"annotated": True, "unannotated": False, "hatched": True, "colormaps": ["viridis"]},
    "questions": {"per_template": 2, "per_image": 40},
    "tasks": ["vqa"],
}


def test_hatched_image_ships_its_own_metadata_and_the_round_trip_agrees(tmp_path_factory, tmp_path: Path) -> None:
    """A hatched map re-classified for its patterns (a class holding only specks too small to hatch) has other
    classes than its colour sibling: its metadata goes to metadata/hatched/, and its questions are judged on it.
    Without that file the same questions disagree or do not parse (the test can fail)."""
    from mapgen.recheck.importer import HATCHED_SPEC, import_repository
    from mapgen.recheck.verdicts import recheck

    bench = build_tiny(tmp_path_factory, RECLASSIFIED, "mwreclassified")
    maps = bench / "maps"
    labels = {p.name: [c["label"] for c in json.loads(p.read_text())["spec"]["legend"]["classes"]]
              for p in maps.glob("*.json")}
    differ = [n for n in labels if n.endswith("-hatched.json") and labels[n] != labels[n.replace("hatched", "annotated")]]
    assert differ, "the config should give a hatched map classes of its own"
    exported = export(bench, "mapwise", tmp_path / "out")
    usa = exported / "dataset" / "usa"
    own_classes = []  # the hatched metadata lists the hatched image's classes, the shared one the colour's
    for own_file in sorted((usa / "metadata" / "hatched").glob("*.json")):
        own = [d for d in json.loads(own_file.read_text())["class_descriptions"] if d != "N/A"]
        shared = [d for d in json.loads((usa / "metadata" / own_file.name).read_text())["class_descriptions"]
                  if d != "N/A"]
        own_classes.append(own)
        assert (own != shared) == (own in [labels[n] for n in differ]), own_file.name
    assert sorted(own_classes) == sorted(v for n, v in labels.items() if n.endswith("-hatched.json"))
    data = import_repository(exported, tmp_path / "imp")["usa"]
    verdicts = Counter(v.verdict for v in recheck(data))
    assert set(verdicts) == {"agree"}, verdicts
    shared_only = replace(data, specs={k: s for k, s in data.specs.items() if not k.endswith(HATCHED_SPEC)})
    assert Counter(v.verdict for v in recheck(shared_only))["agree"] < sum(verdicts.values())
