"""The re-check's judgement calls on the release text (#40 item 3, from the hand-check of its disagreements):
one colour or several, "closest value" with no member in the class, and borders the image does not show (an
inset's, a lake's, an enclave's; union territories among "states")."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from mapgen.recheck.importer import ImportedSet
from mapgen.recheck.verdicts import Verdict

RELEASE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "release-text" / "dataset"
pytestmark = pytest.mark.skipif(not RELEASE.is_dir(), reason="shared MAPWise release text not available")


@cache
def _imported(country: str) -> ImportedSet:
    from mapgen.recheck.importer import read_sample

    return read_sample(RELEASE / country, read_ticks=False)


def _verdict(country: str, row: int) -> Verdict:
    """The verdict on one row of the release's question table."""
    from mapgen.recheck.verdicts import recheck

    data = _imported(country)
    (v,) = recheck(replace(data, questions=[q for q in data.questions if q.row == row]))
    return v


@pytest.mark.parametrize(("country", "row"), [
    ("usa", 650),  # greys (plotly "ice" sampled at four classes)
    ("usa", 116),  # YlGnBu drawn as four classes from a cream tint to navy
    ("india", 736),  # Emrld: mint to dark teal, 110°
])
def test_one_colour_or_several_is_a_definition_in_the_band(country: str, row: int) -> None:
    v = _verdict(country, row)
    assert "shades of the same colour" in v.question
    assert (v.verdict, v.bucket) == ("ambiguous", "definition_dependent")


def test_a_clear_colour_verdict_stays() -> None:
    """USA 603 (Blues, 1°): one colour, and MAPWise says so."""
    v = _verdict("usa", 603)
    assert (v.verdict, v.our_answer) == ("agree", "Yes")


def test_alaska_border_with_canada_is_not_on_the_image() -> None:
    v = _verdict("usa", 846)
    assert v.question == "What is the highest value range in the Canada bordering region?"
    assert (v.verdict, v.bucket) == ("ambiguous", "inset_position") and "Alaska" in v.reason


@pytest.mark.parametrize("row", [448, 835])
def test_a_border_across_lake_erie_is_a_definition(row: int) -> None:
    v = _verdict("usa", row)
    assert "bordering Canada" in v.question
    assert (v.verdict, v.bucket) == ("ambiguous", "definition_dependent") and "Pennsylvania" in v.reason


def test_a_border_at_an_enclave_is_not_on_the_image() -> None:
    """India 79_2D: Kerala touches Puducherry only at Mahé (9 km²)."""
    v = _verdict("india", 463)
    assert v.question == "Yes or no: all states bordering Kerala have values in the highest range."
    assert (v.verdict, v.bucket) == ("ambiguous", "illegible_region")


def test_union_territories_among_states_are_a_definition() -> None:
    """India 72_4D: Daman and Diu (a union territory on the west coast) has less than Goa."""
    v = _verdict("india", 443)
    assert v.question == "Yes or no: Goa has the least value among the west coast states."
    assert (v.verdict, v.bucket) == ("ambiguous", "definition_dependent") and "Daman and Diu" in v.reason


def test_closest_value_with_no_member_in_the_class() -> None:
    v = _verdict("india", 502)
    assert v.question == "Which states bordering Nepal has the closest value to Punjab?"
    assert (v.verdict, v.bucket) == ("ambiguous", "outside_template_domain")


def test_without_borders_cuts_both_ways() -> None:
    from mapgen.recheck.calls import without_borders
    from mapgen.scene import build_scene

    scene = build_scene(_imported("india").specs["79_2D"])
    cut = without_borders(scene, [("KL", "PD")])
    assert "PD" in scene.group("bordering Kerala") and "PD" not in cut.group("bordering Kerala")
    assert "KL" not in cut.group("bordering Puducherry") and "KL" not in cut.regions["PD"].neighbors


@pytest.mark.parametrize("row", [425, 555])
def test_an_answer_on_a_finer_published_grid_is_not_a_disagreement(row: int) -> None:
    """India 68_0C: Delhi 2,734 "between 2000 - 3000" on a bar mapgen ticks every 2,000 (the published bar's ticks
    are not in the metadata); 93_1C: Odisha 0.08 in "0.0 - 0.1"."""
    v = _verdict("india", row)
    assert v.question.startswith("Between which two legend markings")
    assert (v.verdict, v.bucket) == ("ambiguous", "bar_ticks_unknown")


def test_an_answer_contradicted_on_its_own_grid_stays_a_disagreement() -> None:
    """USA 6617: Nebraska 0.877 is not in "0.6-0.8" on any bar."""
    v = _verdict("usa", 765)
    assert (v.verdict, v.ground_truth, v.our_answer) == ("disagree", "0.6-0.8", "0.8-1.0")


def test_a_number_answer_with_the_maps_unit_word() -> None:
    """India 171_2C counts ₹ lakh: MAPWise's "1 million lakh" is the number 1M the question offers."""
    v = _verdict("india", 983)
    assert v.ground_truth == "1 million lakh" and v.verdict == "agree"


def test_a_misspelt_name_in_the_answer() -> None:
    """India 152_3D: MAPWise answers "Andhra Pradesh, Telanangana"."""
    v = _verdict("india", 831)
    assert v.ground_truth == "Andhra Pradesh, Telanangana" and v.verdict == "agree"
    assert any("read as 'Andhra Pradesh, Telangana'" in n for n in v.notes)


def test_two_groups_sharing_a_head_word() -> None:
    """India 152_3D: "east and northeast India" is East India and Northeast India (West Bengal shares Tamil
    Nadu's class); read as Northeast India alone the answer was empty."""
    v = _verdict("india", 833)
    assert v.question == "Which state in east and northeast India has the same value to Tamil Nadu?"
    assert (v.params["R"], v.verdict) == ("East India or Northeast India", "agree")


@pytest.mark.parametrize("row", [839, 922])
def test_central_india_as_the_central_zonal_council(row: int) -> None:
    """MAPWise's "Central India" answers fit the Central Zonal Council (with Uttar Pradesh and Uttarakhand), not
    Madhya Pradesh and Chhattisgarh alone."""
    v = _verdict("india", row)
    assert "Central India" in v.question
    assert (v.verdict, v.bucket) == ("ambiguous", "definition_dependent") and "Central Zonal Council" in v.reason


def test_union_territories_on_the_whole_map() -> None:
    """India 162_1D: the southernmost "state" in a range is Puducherry, a union territory; Goa without it."""
    v = _verdict("india", 883)
    assert v.question == "Name the southernmost state in the range 29179.60 - 424062.80."
    assert (v.verdict, v.bucket) == ("ambiguous", "definition_dependent") and "Puducherry" in v.reason
