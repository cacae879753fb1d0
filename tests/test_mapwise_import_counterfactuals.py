"""MAPWise import of a whole repository: every accepted path, the four counterfactual kinds, clear errors.

Reads ``../shared/reference/mapwise/repo-sample`` (a slice of MAPWise's repository, layout unchanged) and a MAPWise
export of a tiny mapgen build with a counterfactual set of every kind. The printed names below were read by eye
off repo-sample's PNGs of map 10436 (shuff: ``PA`` on South Carolina, ``NM`` on Montana, ``WA`` on New Mexico,
``OR`` on New York, ``IL`` on Illinois; img: ``MO`` on Illinois, ``NE`` on South Carolina, ``ZO`` on Montana,
``EV`` on New Mexico, ``FE`` on New York; img map 104: ``KR`` on Oregon, ``VA`` on Washington, ``SE`` on Maine) — facts
stated independently of the code that reads the questions and the labels.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import build_tiny

REPO = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "mapwise" / "repo-sample"
SAMPLE = REPO.parent / "sample"
needs_repo = pytest.mark.skipif(not (REPO / "dataset").is_dir(), reason=f"MAPWise's repository slice not at {REPO}")
KINDS = ("img", "jumb", "orgs", "shuff")
CF = tuple(f"counter_factuals/{k}" for k in KINDS)


def _rows(path: Path) -> int:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return sum(1 for r in list(csv.reader(fh))[1:] if any(c.strip() for c in r))


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    from mapgen.recheck.importer import import_repository

    out = tmp_path_factory.mktemp("mwroot") / "imp"
    import_repository(REPO, out, read_ticks=False)
    return out


@needs_repo
@pytest.mark.parametrize(("path", "names"), [
    ("", {"usa", "india", "china", *CF}),
    ("dataset", {"usa", "india", "china", *CF}),
    ("dataset/usa", {"usa"}),
    ("dataset/counter_factuals", set(CF)),
    ("dataset/counter_factuals/shuff", {"counter_factuals/shuff"}),
])
def test_every_accepted_path_names_its_question_folders(path: str, names: set[str]) -> None:
    from mapgen.mapwise.repository import question_folders

    assert set(question_folders(REPO / path)) == names


@pytest.mark.skipif(not SAMPLE.is_dir(), reason=f"MAPWise sample not at {SAMPLE}")
def test_the_older_sample_layout_still_imports(tmp_path: Path) -> None:
    from mapgen.mapwise.repository import question_folders
    from mapgen.recheck.importer import import_repository

    assert set(question_folders(SAMPLE)) == {"usa", "india", "china"}
    sets = import_repository(SAMPLE, tmp_path / "imp", read_ticks=False)
    assert {n: len(d.specs) for n, d in sets.items()} == {"usa": 10, "india": 10, "china": 10}


@needs_repo
def test_root_import_holds_every_country_and_kind_with_every_row(imported: Path) -> None:
    for kind in KINDS:
        manifest = json.loads((imported / "counter_factuals" / kind / "manifest.json").read_text())
        table = REPO / "dataset" / "counter_factuals" / kind / f"{kind}_data.csv"
        assert manifest["kind"] == kind and manifest["country"] == "usa"
        assert manifest["questions"] == _rows(table) and len(manifest["maps"]) == 4 and not manifest["missing_maps"]
        assert manifest["layout"]["answer_col"] == "verified answer"  # what json_data gives as ground truth
    for country in ("usa", "india", "china"):
        assert json.loads((imported / country / "manifest.json").read_text())["kind"] is None


@needs_repo
def test_printed_names_are_the_ones_on_the_pngs_and_the_rest_unknown(imported: Path) -> None:
    from mapgen.recheck.cfimport import is_unknown
    from mapgen.recheck.importer import load_imported
    from mapgen.scene import build_scene

    shuff = build_scene(load_imported(imported / "counter_factuals" / "shuff").specs["10436"])
    assert shuff.renamed
    seen = {c: (shuff.regions[c].name, shuff.regions[c].label) for c in ("SC", "MT", "NM", "NY", "IL")}
    assert seen == {"SC": ("Pennsylvania", "PA"), "MT": ("New Mexico", "NM"), "NM": ("Washington", "WA"),
                    "NY": ("Oregon", "OR"), "IL": ("Illinois", "IL")}
    assert shuff.resolve("Pennsylvania") == "SC"  # the printed name names the shape
    assert is_unknown(shuff.regions["UT"].name)  # no question names Utah's shape: not guessed
    img = build_scene(load_imported(imported / "counter_factuals" / "img").specs["10436"])
    seen = {c: img.regions[c].label for c in ("IL", "SC", "MT", "NM", "NY")}
    assert seen == {"IL": "MO", "SC": "NE", "MT": "ZO", "NM": "EV", "NY": "FE"}
    assert img.resolve("Moxie") == "IL" and img.group("bordering Moxie") == img.regions["IL"].neighbors
    orgs = build_scene(load_imported(imported / "counter_factuals" / "orgs").specs["10436"])
    assert not orgs.renamed and orgs.regions["SC"].name == "South Carolina"


@needs_repo
def test_recheck_reports_each_kind_separately(imported: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mapgen.cli import main
    from mapgen.recheck.verdicts import VERDICTS

    res = CliRunner().invoke(main, ["recheck", str(imported), "-o", str(tmp_path / "rc")])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "rc" / "summary.json").read_text())
    assert set(summary["by_kind"]) == set(KINDS)
    for kind, counts in summary["by_kind"].items():
        assert counts["questions"] == 13 == sum(counts[k] for k in VERDICTS)
        assert (tmp_path / "rc" / "counter_factuals" / kind / "verdicts.jsonl").is_file()
    assert summary["by_country"]["usa"]["questions"] == _rows(REPO / "dataset" / "usa" / "final_us_cleaned8.csv")
    assert summary["questions"] == sum(c["questions"] for c in [*summary["by_country"].values(),
                                                                 *summary["by_kind"].values()])
    assert not any("counter_factuals" in m for m in summary["held_out"]["maps"])


@needs_repo
def test_unestablished_names_and_jumbled_values_are_ambiguous_never_guessed(imported: Path) -> None:
    from mapgen.recheck.importer import load_imported
    from mapgen.recheck.verdicts import recheck

    verdicts = {k: recheck(load_imported(imported / "counter_factuals" / k)) for k in KINDS}
    (west,) = [v for v in verdicts["shuff"] if v.map_ref == "104" and v.template_no == 11]
    assert west.verdict == "ambiguous" and "OR" in west.reason and "not established" in west.reason
    (moxie,) = [v for v in verdicts["img"] if "bordering Moxie" in v.question]
    # a question on invented names is read and judged like any other: here its count of states "similar" to
    # Nexus depends on the declared reading of "similar" (same or adjacent class), never on the names
    assert (moxie.verdict, moxie.bucket) == ("ambiguous", "definition_dependent") and moxie.ground_truth == "2"
    assert "reading:similar" in moxie.reason and "not established" not in moxie.reason
    assert any(v.verdict == "agree" for v in verdicts["img"])
    jumb = Counter(v.verdict for v in verdicts["jumb"])
    assert set(jumb) <= {"ambiguous", "unparsed"} and jumb["ambiguous"] >= 10
    judged = [v for v in verdicts["jumb"] if v.verdict == "ambiguous"]
    assert all("jumbled values" in v.reason and any("original_data_answer" in n for n in v.notes) for v in judged)
    # the control and the renamed kinds agree on the same original-data questions: renaming changed nothing else
    same = {(v.map_ref, v.template_no): v.verdict for v in verdicts["orgs"]}
    for v in verdicts["shuff"]:
        if v.map_ref == "10436" and v.template_no in (12, 35):
            assert v.verdict == same[(v.map_ref, v.template_no)], v.question


# --- clear errors, nothing half-written -----------------------------------------------------------------------


def test_a_folder_that_is_no_mapwise_layout_gets_one_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mapgen.cli import main

    (tmp_path / "stuff").mkdir()
    res = CliRunner().invoke(main, ["import", "mapwise", str(tmp_path / "stuff"), "-o", str(tmp_path / "out")])
    assert res.exit_code != 0 and len(res.output.strip().splitlines()) == 1
    assert "expected a repository root" in res.output and "counter_factuals/<kind>" in res.output
    assert not (tmp_path / "out").exists()


@needs_repo
def test_a_row_without_metadata_names_the_map_and_file_and_writes_nothing(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mapgen.cli import main

    repo = tmp_path / "repo"
    shutil.copytree(REPO / "dataset", repo / "dataset", ignore=shutil.ignore_patterns("*.png"))
    (repo / "dataset" / "china" / "metadata" / "map11_5C.json").unlink()
    runner = CliRunner()
    res = runner.invoke(main, ["import", "mapwise", str(repo), "--no-ocr", "-o", str(tmp_path / "out")])
    assert res.exit_code != 0 and len(res.output.strip().splitlines()) == 1, res.output
    assert "map 11_5C" in res.output and "map11_5C.json" in res.output and "--skip-missing" in res.output
    assert not (tmp_path / "out").exists()  # usa and india were read, but nothing is written before all are
    res = runner.invoke(main, ["import", "mapwise", str(repo), "--no-ocr", "--skip-missing", "-o",
                               str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "out" / "china" / "manifest.json").read_text())["missing_maps"] == ["11_5C"]


@needs_repo
def test_a_counterfactual_kind_without_usa_metadata_says_where_it_looked(tmp_path: Path) -> None:
    from mapgen.recheck.importer import MissingMetadataError, read_sample

    kind = tmp_path / "counter_factuals" / "img"
    shutil.copytree(REPO / "dataset" / "counter_factuals" / "img", kind)
    with pytest.raises(MissingMetadataError, match="usa/metadata"):
        read_sample(kind, read_ticks=False)


# --- mapgen's own export, read back -----------------------------------------------------------------------------

TINY = {
    "name": "mapwise counterfactual round trip",
    "seed": 11,
    "countries": [{"name": "usa", "maps": 2}],
    "counterfactual": {"country": "usa", "maps": 2, "kinds": ["original", "imaginary", "shuffled", "jumbled"]},
    "questions": {"per_image": 8},
}


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory) -> dict:
    from mapgen.export import export
    from mapgen.recheck.importer import import_repository

    bench = build_tiny(tmp_path_factory, TINY, "mwcf")
    exported = export(bench, "mapwise", tmp_path_factory.mktemp("mwcfexp") / "out")
    assert sorted(p.name for p in (exported / "dataset" / "counter_factuals").iterdir()) == list(KINDS)
    return import_repository(exported, tmp_path_factory.mktemp("mwcfimp") / "imp")


def test_export_round_trip_covers_every_kind_without_disagreement(round_trip: dict) -> None:
    from mapgen.recheck.verdicts import recheck

    assert set(round_trip) == {"usa", *CF}
    for name, data in round_trip.items():
        verdicts = Counter(v.verdict for v in recheck(data))
        assert verdicts["disagree"] == 0 and verdicts["unparsed"] == 0, (name, verdicts)
        assert verdicts["agree"] >= 5, (name, verdicts)


@pytest.mark.parametrize("kind", ["shuff", "img", "jumb"])
def test_round_trip_fails_when_the_kind_is_read_as_the_original(round_trip: dict, kind: str) -> None:
    """Metamorphic: judged on the original map (real names, original values), the counterfactual answers must
    stop agreeing — so the agreement above depends on reading what each kind changed."""
    from mapgen.recheck.verdicts import recheck

    data, orgs = round_trip[f"counter_factuals/{kind}"], round_trip["counter_factuals/orgs"]
    plain = {ref: replace(spec, counterfactual=None, values=orgs.specs[ref].values)
             for ref, spec in data.specs.items()}
    verdicts = Counter(v.verdict for v in recheck(replace(data, specs=plain)))
    assert verdicts["agree"] < len(data.questions), verdicts


# --- labels read on the PNGs (OCR) ------------------------------------------------------------------------------

SHUFF_10436 = ("MA:NV FL:UT WV:OR MI:ID LA:WA NM:MT VT:ND CO:SD SD:WY NH:NE RI:KS VA:CO MD:AZ WA:NM CA:CA ND:MN SC:IA "
               "TN:MO DE:WI ME:MI IL:IL AR:IN IN:OH AZ:PA KS:VA AK:WV HI:KY OH:TN NC:NC PA:SC MT:AL KY:GA NJ:FL ID:AR "
               "WI:MS MO:LA WY:OK CT:TX MS:AK NY:HI OK:ME OR:NY")
"""Label printed : shape it sits on, read by eye off shuff/shuff_maps/map_10436.png (the 42 legible ones)."""


def _needs_ocr() -> None:
    from mapgen.recheck.ticks import ocr_available

    if not ocr_available():
        pytest.skip("OCR not available (pytesseract + tesseract: mapgen[ocr], apt tesseract-ocr)")


def _labels(kind: str, ref: str) -> dict[str, str]:
    from mapgen.geo.atlas import load_atlas
    from mapgen.recheck.printed_labels import labels_on_shapes, reference_positions

    cf = REPO / "dataset" / "counter_factuals"
    refs = [cf / k / f"{k}_maps" / f"map_{ref}.png" for k in ("orgs", "jumb")]
    return labels_on_shapes(cf / kind / f"{kind}_maps" / f"map_{ref}.png",
                            reference_positions(refs, load_atlas("usa").codes))


@needs_repo
def test_labels_read_on_a_shuffled_map_are_the_ones_printed_there() -> None:
    _needs_ocr()
    truth = {shape: label for label, shape in (pair.split(":") for pair in SHUFF_10436.split())}
    read = _labels("shuff", "10436")
    assert len(read) >= 20  # about half the states; the small north-eastern ones are not read
    assert {c: truth.get(c) for c in read} == read  # and none is read wrong


@needs_repo
def test_invented_names_in_answers_are_placed_by_their_printed_letters() -> None:
    from mapgen.geo.atlas import load_atlas
    from mapgen.recheck.cfimport import names_from_labels

    _needs_ocr()
    names = names_from_labels("img", _labels("img", "104"), load_atlas("usa"), ["Valara", "Kryon", "Seraphine"])
    assert names["OR"] == "Kryon" and names["WA"] == "Valara"  # KR on Oregon, VA on Washington (by eye)
    assert names.get("ME", "Seraphine") == "Seraphine" and list(names.values()).count("Seraphine") <= 1
