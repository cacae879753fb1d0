"""Reading MAPWise questions by filling their template's slots (mapgen.recheck.slots), and a small slice of the
full release's text read end to end (the full figures: benchmarks/recheck_release.py)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise"
SAMPLE = REFERENCE / "sample"
RELEASE = REFERENCE / "release-text" / "dataset"
pytestmark = pytest.mark.skipif(not SAMPLE.is_dir(), reason="../shared (MAPWise reference material) is absent")


@cache
def scene(country: str, ref: str):
    from mapgen.recheck.groups import with_mapwise_groups
    from mapgen.recheck.importer import read_sample
    from mapgen.scene import build_scene

    return with_mapwise_groups(build_scene(read_sample(SAMPLE / country).specs[ref]))


def read(country: str, ref: str, text: str, template_no: int):
    from mapgen.mapwise.aliases import load_aliases
    from mapgen.questions import load_templates
    from mapgen.recheck.slots import read_by_slots

    return read_by_slots(text, scene(country, ref), template_no, load_templates(), load_aliases())


def test_label_of_another_template_is_read_by_its_slots():
    p = read("usa", "10436", "Yes or no: Oklahoma has higher value than Maine.", 21)
    assert p.ok and p.template_id == "region_comparison" and p.params == {"X": "OK", "Y": "ME", "C": "higher"}
    assert any("template 19" in n for n in p.notes)


def test_misspellings_are_read_fuzzily_and_noted():
    p = read("usa", "10436", "Which state has the leasest value in the west coast region?", 13)
    assert p.ok and p.params == {"R": "West Coast", "E": "lowest"}
    assert any("leasest" in n for n in p.notes)
    p = read("india", "108_0D", "Is Karanataka higher than Kerala? Yes or no", 19)
    assert not p.ok or p.params["X"] == "KA"


def test_curated_and_derived_groups():
    p = read("india", "108_0D", "How many states in the Satpura Range have a value higher than Kerala?", 35)
    assert p.ok and p.params["R"] == "Satpura Range" and p.params["X"] == "KL"
    p = read("india", "108_0D", "Which states north of Maharashtra have a value higher than Karnataka?", 27)
    assert p.ok and p.params["R"] == "north of Maharashtra" and "MP" in p.groups["north of Maharashtra"].members
    p = read("india", "108_0D", "How many states that either border China or Nepal have a value higher than Kerala?",
             35)
    assert p.ok and p.groups[p.params["R"]].kind == "union"


def test_unfilled_slot_is_named():
    p = read("india", "108_0D", "Which state in the northeast region has the most different value?", 28)
    assert not p.ok and re.match(r"slot \w+ \(\w+\) of \w+: ", p.reason)  # "most different" from what?


def test_unread_group_phrase_is_an_unknown_group():
    p = read("usa", "10436", "Which states on the North coast have missing data?", 37)
    assert not p.ok and "north coast" in p.reason


def test_values_outside_the_domain_are_read_not_asked():
    p = read("usa", "10436", "What is the second highest value range in the west coast region?", 12)
    assert p.ok and p.template_id == "group_extreme_range" and p.params["E"] == "second highest"
    assert p.outside and "outside the template's domain" in p.outside[0]


def test_a_region_where_a_number_goes_is_its_value():
    p = read("india", "108_0D", "Is the value of Bihar closer to Punjab or West Bengal?", 10)
    sc = scene("india", "108_0D")
    assert p.ok and p.params["A"] == sc.regions["PB"].value and p.params["B"] == sc.regions["WB"].value
    assert p.in_map_units("Punjab") is not None  # MAPWise's answer naming the region is judged as its value


@pytest.mark.skipif(not RELEASE.is_dir(), reason="../shared release-text is absent")
def test_release_slice_parses(tmp_path: Path):
    """Five maps per country of the full release (not the slice the wording rules were written on)."""
    import shutil

    from mapgen.recheck.importer import import_repository, load_imported
    from mapgen.recheck.verdicts import recheck

    src = tmp_path / "dataset"
    for country, table in (("usa", "final_us_cleaned8.csv"), ("india", "final_india_cleaned4.csv")):
        (src / country / "metadata").mkdir(parents=True)
        lines = (RELEASE / country / table).read_text(encoding="utf-8").splitlines()
        maps = list(dict.fromkeys(line.split(",", 1)[0] for line in lines[1:]))[20:25]
        keep = [lines[0]] + [line for line in lines[1:] if line.split(",", 1)[0] in maps]
        (src / country / table).write_text("\n".join(keep) + "\n", encoding="utf-8")
        for ref in maps:
            for f in (RELEASE / country / "metadata").glob(f"map*{ref}.json"):
                if f.stem in (f"map_{ref}", f"map{ref}"):
                    shutil.copy(f, src / country / "metadata" / f.name)
    import_repository(src, tmp_path / "imp", read_ticks=False)
    verdicts = [v for c in ("usa", "india") for v in recheck(load_imported(tmp_path / "imp" / c))]
    parsed = sum(v.verdict != "unparsed" for v in verdicts) / len(verdicts)
    assert len(verdicts) > 60 and parsed >= 0.9, [v.reason for v in verdicts if v.verdict == "unparsed"]
