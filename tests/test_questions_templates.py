"""Every template's answers on small hand-built Scenes; expected answers are worked out by hand below.

D1 (USA, discrete, breaks 10/20; every state 5 unless listed):
  WA 2, UT 8 -> class 0 "2-8" (with the 5s); NE 11, NV 12, WY 12, AZ 14, OR 15, NM 18 -> class 1 "11-18";
  CO 22, CA 25, MA 28, TX 30 -> class 2 "22-30".
D2 (USA, discrete, breaks 100/200; every state 150 unless listed):
  FL 50, GA 60, VT 90 -> "50-90"; MS 120, LA 180 (+150s) -> "120-180"; AL 250, TN 270, NH 310, ME 320 -> "250-320".
C1 (USA, continuous; every state 50 unless listed): WA 0, OR 30, UT 30, NV 52, AZ 70, NM 72, CO 90, TX 96,
  CA 100. Colour bar 0-100, ticks every 20, tolerance tau = 5.
N1: D1 with Kansas and Oklahoma missing (N/A).
C2 (USA, continuous; every state 500 unless listed): AK 0, HI 1000, OR 250, CA 890. Ticks every 200, tau = 50.
Positions (atlas rule, lat/lon): WA 47.4/-120.4, OR 43.9/-120.6, CA 37.2/-119.5, CO 39.0/-105.5,
TX 31.5/-99.3, MA 42.3/-71.8, WY 43.0/-107.6, AZ 34.3/-111.7, NM 34.4/-106.1.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pandas as pd
import pytest

from mapgen.data.statistic import StatInfo, Statistic
from mapgen.geo.atlas import load_atlas
from mapgen.questions import Question, Template, Unaskable, load_templates
from mapgen.questions import ask as ask_question
from mapgen.scene import Scene, build_scene
from mapgen.spec import make_spec


def _stat(default: float, values: dict[str, float], kind: str = "absolute") -> Statistic:
    codes = load_atlas("usa").codes
    series = pd.Series({c: values.get(c, default) for c in codes}, dtype=float)
    return Statistic(values=series, info=StatInfo(id="hand", country="usa", title="Hand", unit="", kind=kind))


D1_VALUES = {"WA": 2, "UT": 8, "NE": 11, "NV": 12, "WY": 12, "AZ": 14, "OR": 15, "NM": 18,
             "CO": 22, "CA": 25, "MA": 28, "TX": 30}  # fmt: skip
D2_VALUES = {"FL": 50, "GA": 60, "VT": 90, "MS": 120, "LA": 180, "AL": 250, "TN": 270, "NH": 310, "ME": 320}
C1_VALUES = {"WA": 0, "OR": 30, "UT": 30, "NV": 52, "AZ": 70, "NM": 72, "CO": 90, "TX": 96, "CA": 100}
C2_VALUES = {"AK": 0, "HI": 1000, "OR": 250, "CA": 890}


@cache
def hand_scene(name: str):
    if name == "D1":
        return build_scene(make_spec("usa", _stat(5, D1_VALUES), breaks=[10, 20]))
    if name == "D2":
        return build_scene(make_spec("usa", _stat(150, D2_VALUES), breaks=[100, 200]))
    if name == "N1":  # D1 with Kansas and Oklahoma missing (N/A)
        return build_scene(make_spec("usa", _stat(5, {**D1_VALUES, "KS": float("nan"), "OK": float("nan")}),
                                     breaks=[10, 20]))
    if name == "C1":
        return build_scene(make_spec("usa", _stat(50, C1_VALUES), legend="continuous"))
    return build_scene(make_spec("usa", _stat(500, C2_VALUES), legend="continuous"))


def asked_or_none(template: Template, scene: Scene, params: dict[str, Any], reader: bool = False) -> Question | None:
    """The question asked on ``scene``; None when the engine rejects it."""
    try:
        return ask_question(template, scene, params, reader=reader)
    except Unaskable:
        return None


def ask(template: str, scene: str, **params: Any) -> Any:
    """The computed answer (None when the engine rejects the instantiation)."""
    q = asked_or_none(load_templates().get(template), hand_scene(scene), params)
    return None if q is None else q.answer


WC, FC, MEX, NE_, MA_ = "West Coast", "Four Corners states", "bordering Mexico", "New England", "Middle Atlantic"

CASES: list[tuple[str, str, dict[str, Any], Any]] = [
    # 1 legend classes
    ("legend_class_count", "D1", {}, 3),
    ("legend_class_count", "D2", {}, 3),
    # 2 darkness (Blues: darker = higher)
    ("legend_darkness_direction", "D1", {"W": "darkness", "P": "directly"}, "Yes"),
    ("legend_darkness_direction", "C1", {"W": "intensity", "P": "inversely"}, "No"),
    # 3 overall range
    ("legend_overall_range", "D1", {}, "2-30"),
    ("legend_overall_range", "D2", {}, "50-320"),
    ("legend_overall_range", "C1", {}, "0-100"),
    # 4 shades
    ("legend_shade_range", "D1", {"S": "darkest"}, "22-30"),
    ("legend_shade_range", "D1", {"S": "lightest"}, "2-8"),
    ("legend_shade_range", "D2", {"S": "second lightest"}, "120-180"),
    # 5 one hue
    ("legend_colour_kind", "D1", {"K": "different shades of the same colour"}, "Yes"),
    ("legend_colour_kind", "C1", {"K": "multiple distinct colours"}, "No"),
    # 6 percentages
    ("map_percent_or_absolute", "D1", {"K": "percentages"}, "No"),
    ("map_percent_or_absolute", "C1", {"K": "absolute values"}, "Yes"),
    # 7 kind
    ("legend_kind", "D1", {}, "Discrete"),
    ("legend_kind", "C1", {}, "Continuous"),
    # 8 widest class: widths 6/7/8 (D1), 40/60/70 (D2)
    ("legend_widest_class", "D1", {}, "22-30"),
    ("legend_widest_class", "D2", {}, "250-320"),
    # 9 in range
    ("region_in_range", "D1", {"X": "CA", "Y": 2}, "Yes"),
    ("region_in_range", "D1", {"X": "WA", "Y": 1}, "No"),
    ("region_in_range", "C1", {"X": "NV", "Y": 2}, "Yes"),
    ("region_in_range", "C1", {"X": "OR", "Y": 2}, "No"),
    # 9 one region against a number: only when X's class (discrete) / reading (continuous) is on one side
    ("region_vs_number", "D1", {"X": "CA", "S": "above", "N": 20.0}, "Yes"),  # class 22-30 wholly above 20
    ("region_vs_number", "D1", {"X": "WA", "S": "above", "N": 10.0}, "No"),  # class 2-8
    ("region_vs_number", "D1", {"X": "CA", "S": "below", "N": 15.0}, "No"),  # 15 inside 11-18, CA is not there
    ("region_vs_number", "D1", {"X": "OR", "S": "below", "N": 12.0}, None),  # 12 inside OR's class 11-18
    ("region_vs_number", "C1", {"X": "CO", "S": "above", "N": 60.0}, "Yes"),  # 90: 30 above, r = 6
    ("region_vs_number", "C1", {"X": "OR", "S": "below", "N": 40.0}, "Yes"),  # 30
    ("region_vs_number", "C1", {"X": "NV", "S": "above", "N": 50.0}, None),  # 52: within r of 50
    # 10 closer to (OR 30: |30-20|=10 vs 70; CO 90: 50 vs 10)
    ("region_closer_to_number", "C1", {"X": "OR", "A": 20.0, "B": 100.0}, "20"),
    ("region_closer_to_number", "C1", {"X": "CO", "A": 40.0, "B": 100.0}, "100"),
    ("region_closer_to_number", "C1", {"X": "NV", "A": 40.0, "B": 60.0}, None),  # 12 vs 8: closer than tau
    ("region_closer_to_number", "C2", {"X": "OR", "A": 200.0, "B": 600.0}, "200"),
    # 11 members in range
    ("group_regions_in_range", "D1", {"R": WC, "Y": 1}, ["Oregon"]),
    ("group_regions_in_range", "D1", {"R": WC, "Y": 0}, ["Washington"]),
    ("group_regions_in_range", "C1", {"R": FC, "Y": 3}, ["Arizona", "New Mexico"]),
    ("group_regions_in_range", "C1", {"R": WC, "Y": 0}, None),  # WA sits on the 0 tick
    ("group_regions_in_range", "D1", {"R": "bordering Florida", "Y": 2}, []),  # GA and AL are 5s: none
    # 12 extreme range of a group
    ("group_extreme_range", "D1", {"R": WC, "E": "highest"}, "22-30"),
    ("group_extreme_range", "D2", {"R": "bordering Florida", "E": "lowest"}, "50-90"),
    # 13 extreme region
    ("group_extreme_region", "D1", {"R": FC, "E": "highest"}, "Colorado"),
    ("group_extreme_region", "D1", {"R": FC, "E": "lowest"}, "Utah"),
    ("group_extreme_region", "D1", {"R": FC, "E": "second highest"}, None),  # AZ and NM share a class
    ("group_extreme_region", "C1", {"R": WC, "E": "lowest"}, "Washington"),
    ("group_extreme_region", "C1", {"R": FC, "E": "second highest"}, None),  # AZ 70 vs NM 72 within tau
    # 14 vs all neighbours
    ("region_vs_all_neighbours", "D1", {"C": "higher", "X": "CO"}, "Yes"),
    ("region_vs_all_neighbours", "D1", {"C": "higher", "X": "UT"}, "No"),
    ("region_vs_all_neighbours", "C1", {"C": "higher", "X": "CO"}, "Yes"),
    ("region_vs_all_neighbours", "C1", {"C": "similar", "X": "NV"}, "No"),
    # 15 top N
    ("group_top_n", "D1", {"R": WC, "E": "highest", "N": 2}, ["California", "Oregon"]),
    ("group_top_n", "D1", {"R": FC, "E": "highest", "N": 2}, None),  # AZ/NM tie for 2nd
    ("group_top_n", "C1", {"R": WC, "E": "lowest", "N": 2}, ["Oregon", "Washington"]),
    # 16 range of a region
    ("region_range", "D1", {"X": "CA"}, "22-30"),
    ("region_range", "D1", {"X": "UT"}, "2-8"),
    ("region_range", "C1", {"X": "NV"}, "40-60"),
    ("region_range", "C1", {"X": "OR"}, "20-40"),
    # 17 count in range
    ("group_count_in_range", "D1", {"R": WC, "Y": 0}, 1),
    ("group_count_in_range", "D1", {"R": FC, "Y": 1}, 2),
    ("group_count_in_range", "C1", {"R": FC, "Y": 3}, 2),
    # 18 neighbour comparison
    ("neighbour_comparison", "D1", {"X": "CA", "Y": "OR", "C": "higher"}, "Yes"),
    ("neighbour_comparison", "D1", {"X": "OR", "Y": "WA", "C": "similar"}, None),  # one class apart: "similar" to some readers (reading:similar)
    ("neighbour_comparison", "C1", {"X": "AZ", "Y": "NM", "C": "similar"}, "Yes"),
    ("neighbour_comparison", "C1", {"X": "AZ", "Y": "NV", "C": "lower"}, "No"),
    # 19 any two regions
    ("region_comparison", "D1", {"X": "TX", "Y": "CO", "C": "similar"}, "Yes"),
    ("region_comparison", "D1", {"X": "WA", "Y": "TX", "C": "higher"}, "No"),
    ("region_comparison", "C1", {"X": "NM", "Y": "AZ", "C": "similar"}, "Yes"),  # |2| <= tau - 2m = 3
    ("region_comparison", "C1", {"X": "TX", "Y": "CA", "C": "similar"}, None),  # |4| inside the reading margin
    ("region_comparison", "C1", {"X": "TX", "Y": "CO", "C": "similar"}, None),  # |6| within 15 +- 12
    ("region_comparison", "C1", {"X": "TX", "Y": "CO", "C": "lower"}, None),  # |6| <= 2r: a near tie, never "No"
    # 20 direction-most local maximum (D1: CA, CO, TX, MA; C1: CA, CO, TX)
    ("direction_local_extreme", "D1", {"C": "higher", "D": "north"}, "Massachusetts"),
    ("direction_local_extreme", "D1", {"C": "higher", "D": "west"}, "California"),
    # C1: the many 50s border 50s, so whether each is a local maximum depends on how it is read: not asked
    ("direction_local_extreme", "C1", {"C": "higher", "D": "north"}, None),
    ("direction_local_extreme", "D2", {"C": "lower", "D": "north"}, "Vermont"),  # the only local minimum
    ("direction_local_extreme", "D2", {"C": "lower", "D": "west"}, "Vermont"),
    # 20 with a quantifier: "... compared to at least N of its neighbours"
    # D1 west, same class as >= 2: WA (OR 1, ID 0: one), OR (WA, ID, NV, CA: NV only), CA (OR/NV/AZ: none) fail;
    # NV (class 1: OR, AZ) passes, ~2 deg west of ID (class 0: WA, UT, MT)
    ("direction_local_extreme_count", "D1", {"C": "similar", "D": "west", "N": 2}, None),  # a member one class apart: "similar" to some readers (reading:similar)
    # D1 north, higher than >= 2: OR (15 > WA 2, ID 5) at 43.9 before WY (43.0); "all" says Massachusetts
    ("direction_local_extreme_count", "D1", {"C": "higher", "D": "north", "N": 2}, "Oregon"),
    # C1 west, higher than >= 2 (by > 2r = 12): WA, OR (above WA only) fail; CA 100 > OR, NV, AZ
    ("direction_local_extreme_count", "C1", {"C": "higher", "D": "west", "N": 2}, "California"),
    # C1 west, similar to >= 2: OR 30 vs ID 50 / NV 52 (20, 22 apart) could read either way -> not asked
    ("direction_local_extreme_count", "C1", {"C": "similar", "D": "west", "N": 2}, None),
    # 20, "highest / lowest category": the legend's top / bottom class (D1 class 2: MA 42.3 N, CO, CA, TX;
    # class 0 holds the 5s, Hawaii the southernmost; D2 class 2: ME 45.4 N, NH, TN, AL; class 0: FL, GA, VT)
    ("direction_extreme_category", "D1", {"E": "highest", "D": "north"}, "Massachusetts"),
    ("direction_extreme_category", "D1", {"E": "lowest", "D": "south"}, "Hawaii"),
    ("direction_extreme_category", "D2", {"E": "highest", "D": "north"}, "Maine"),
    ("direction_extreme_category", "D2", {"E": "lowest", "D": "south"}, "Florida"),
    # 21 is extreme
    ("group_is_extreme", "D1", {"R": WC, "E": "highest", "X": "CA"}, "Yes"),
    ("group_is_extreme", "D1", {"R": WC, "E": "highest", "X": "OR"}, "No"),
    ("group_is_extreme", "C1", {"R": FC, "E": "lowest", "X": "UT"}, "Yes"),
    # 22 means: D1 WC (0+1+2)/3 = 1, FC (1+2+1+0)/4 = 1, Mexico (1+2+1+2)/4 = 1.5; C1 WC 43.3, FC 65.5
    ("group_mean_comparison", "D1", {"R1": WC, "R2": FC, "C": "similar"}, "Yes"),
    ("group_mean_comparison", "D1", {"R1": MEX, "R2": WC, "C": "higher"}, "Yes"),
    ("group_mean_comparison", "C1", {"R1": WC, "R2": FC, "C": "lower"}, "Yes"),
    ("group_mean_comparison", "C1", {"R1": WC, "R2": FC, "C": "similar"}, None),  # 22.2 apart: 15 +- 12
    ("group_mean_comparison", "C1", {"R1": WC, "R2": FC, "C": "higher"}, "No"),
    # 23 count vs threshold (D1: class 0 max 8, class 1 min 11 -> N = 10)
    ("group_count_threshold", "D1", {"R": FC, "C": "higher", "N": 10.0}, 3),
    ("group_count_threshold", "D1", {"R": FC, "C": "lower", "N": 10.0}, 1),
    ("group_count_threshold", "C1", {"R": WC, "C": "lower", "N": 40.0}, 2),
    ("group_count_in_range_23", "D1", {"R": FC, "Y": 1}, 2),
    ("group_count_in_range_23", "C1", {"R": FC, "Y": 3}, 2),
    # 24 median (D1 FC classes 0,1,1,2 -> class 1; C1 FC (70+72)/2 = 71 -> 60-80)
    ("group_median_in_range", "D1", {"R": FC, "Y": 1}, "Yes"),
    ("group_median_in_range", "D1", {"R": FC, "Y": 2}, "No"),
    ("group_median_in_range", "C1", {"R": FC, "Y": 3}, "Yes"),
    ("group_median_in_range", "C1", {"R": FC, "Y": 2}, "No"),
    # 25 median range
    ("group_median_range", "D1", {"R": FC}, "11-18"),
    ("group_median_range", "D1", {"R": MEX}, None),  # 1,1,2,2: middle two in different classes
    ("group_median_range", "D2", {"R": NE_}, "120-180"),  # 0,1,1,1,2,2
    # 26 members vs threshold
    ("group_regions_threshold", "D1", {"R": FC, "C": "higher", "N": 10.0}, ["Arizona", "Colorado", "New Mexico"]),
    ("group_regions_threshold", "D1", {"R": WC, "C": "lower", "N": 10.0}, ["Washington"]),
    ("group_regions_threshold", "C1", {"R": WC, "C": "lower", "N": 40.0}, ["Oregon", "Washington"]),
    # 27 members vs region
    ("group_regions_vs_region", "D1", {"R": WC, "C": "higher", "X": "NV"}, ["California"]),
    ("group_regions_vs_region", "D1", {"R": WC, "C": "similar", "X": "NV"}, None),  # a member one class apart: "similar" to some readers (reading:similar)
    ("group_regions_vs_region", "D1", {"R": WC, "C": "higher", "X": "TX"}, None),  # TX tops the map: forced empty
    ("group_regions_vs_region", "C1", {"R": FC, "C": "similar", "X": "AZ"}, None),  # CO 20 from AZ: 15 +- 12
    ("group_regions_vs_region", "C1", {"R": FC, "C": "higher", "X": "UT"}, ["Arizona", "Colorado", "New Mexico"]),
    ("group_regions_vs_region", "C1", {"R": FC, "C": "higher", "X": "NV"}, ["Arizona", "Colorado", "New Mexico"]),
    # 28 same / most different
    ("group_regions_closest_value", "D1", {"R": WC, "M": "same", "X": "NV"}, ["Oregon"]),
    ("group_regions_closest_value", "D1", {"R": WC, "M": "most different", "X": "WA"}, ["California"]),
    ("group_regions_closest_value", "C1", {"R": WC, "M": "same", "X": "NV"}, ["Oregon"]),
    ("group_regions_closest_value", "C1", {"R": WC, "M": "most different", "X": "NV"}, None),  # 52 vs 48
    # 29 range with most / fewest regions (D1 43/5/4; D2 3/44/4)
    ("range_with_extreme_count", "D1", {"E": "highest"}, "2-8"),
    ("range_with_extreme_count", "D1", {"E": "lowest"}, "22-30"),
    ("range_with_extreme_count", "D2", {"E": "lowest"}, "50-90"),
    # 30 same / most different amongst a group
    ("group_is_closest_value", "D1", {"R": FC, "M": "same", "X": "AZ", "Y": "NM"}, "Yes"),
    ("group_is_closest_value", "D1", {"R": FC, "M": "most different", "X": "CO", "Y": "UT"}, "Yes"),
    ("group_is_closest_value", "D1", {"R": FC, "M": "most different", "X": "AZ", "Y": "UT"}, "No"),
    # AZ 70 / NM 72 / CO 90 read within 6 each: CO could be closer to AZ than NM is
    ("group_is_closest_value", "C1", {"R": FC, "M": "same", "X": "NM", "Y": "AZ"}, None),
    ("group_is_closest_value", "C1", {"R": FC, "M": "most different", "X": "UT", "Y": "CO"}, "Yes"),
    ("group_is_closest_value", "C1", {"R": FC, "M": "most different", "X": "NM", "Y": "CO"}, "No"),
    # 31 majority
    ("group_majority_threshold", "D1", {"R": FC, "C": "higher", "N": 10.0}, "Yes"),
    ("group_majority_threshold", "D1", {"R": FC, "C": "lower", "N": 10.0}, "No"),
    ("group_majority_threshold", "C1", {"R": FC, "C": "higher", "N": 60.0}, "Yes"),
    ("group_majority_in_range", "D1", {"R": FC, "Y": 1}, None),  # 2 of 4: "at least half" reads Yes (readings)
    ("group_majority_in_range", "D1", {"R": MA_, "Y": 0}, "Yes"),
    ("group_majority_in_range", "D2", {"R": NE_, "Y": 2}, "No"),
    # 32 outlier
    ("group_outlier", "D1", {"R": NE_, "X": "MA"}, "Yes"),  # others all class 0, MA class 2
    ("group_outlier", "D1", {"R": NE_, "X": "ME"}, "No"),
    ("group_outlier", "D1", {"R": FC, "X": "CO"}, None),  # one class outside: ambiguous
    ("group_outlier", "C1", {"R": FC, "X": "UT"}, None),  # 40 below 70-90 (spread 20): 40 - 2r < 20 + 2r
    ("group_outlier", "C1", {"R": FC, "X": "AZ"}, "No"),
    # 33 bordering pair with the highest difference (C1: CA-OR 70, next CO-UT 60)
    ("bordering_pair_max_difference", "D1", {"X": "CA", "Y": "OR"}, "No"),
    ("bordering_pair_max_difference", "D1", {"X": "CO", "Y": "UT"}, None),  # many pairs differ by 2 classes
    ("bordering_pair_max_difference", "C1", {"X": "CA", "Y": "OR"}, None),  # 70 vs CO-UT 60: not 4r apart
    ("bordering_pair_max_difference", "C2", {"X": "CA", "Y": "OR"}, "Yes"),  # 640 vs 390 (4r = 240)
    ("bordering_pair_max_difference", "C2", {"X": "OR", "Y": "WA"}, "No"),
    # 34
    ("is_direction_local_extreme", "D1", {"C": "higher", "D": "north", "X": "MA"}, "Yes"),
    ("is_direction_local_extreme", "D1", {"C": "higher", "D": "north", "X": "CO"}, "No"),
    ("is_direction_local_extreme", "C1", {"C": "higher", "D": "north", "X": "CO"}, None),
    ("is_direction_local_extreme", "D2", {"C": "lower", "D": "north", "X": "VT"}, "Yes"),
    ("is_direction_local_extreme", "D2", {"C": "lower", "D": "north", "X": "FL"}, "No"),
    # 35 count vs region
    ("group_count_vs_region", "D1", {"R": FC, "C": "higher", "X": "UT"}, 3),
    ("group_count_vs_region", "D1", {"R": FC, "C": "similar", "X": "AZ"}, None),  # a member one class apart: "similar" to some readers (reading:similar)
    ("group_count_vs_region", "C1", {"R": FC, "C": "higher", "X": "UT"}, 3),
    ("group_count_vs_region", "C1", {"R": FC, "C": "lower", "X": "CO"}, 3),
    # 36 direction-most in a range
    ("direction_extreme_in_range", "D1", {"Y": 2, "D": "west"}, "California"),
    ("direction_extreme_in_range", "D1", {"Y": 1, "D": "north"}, "Oregon"),  # OR 43.9 vs WY 43.0
    ("direction_extreme_in_range", "C1", {"Y": 3, "D": "east"}, "New Mexico"),
    ("direction_extreme_in_range", "C1", {"Y": 3, "D": "north"}, None),  # AZ 34.3 vs NM 34.4: too close
    # 37 border relations
    ("range_border_relation", "D1", {"X": 2, "Rel": "only", "Y": 0, "N": 2}, "Massachusetts"),
    ("range_border_relation", "D1", {"X": 2, "Rel": "none", "Y": 0, "N": 2}, "California"),
    ("range_border_relation", "D1", {"X": 2, "Rel": "at least", "Y": 1, "N": 2}, None),  # CA and CO
    ("range_border_relation", "D2", {"X": 2, "Rel": "none", "Y": 0, "N": 2}, "Maine"),
    ("range_border_relation", "D2", {"X": 0, "Rel": "at least", "Y": 2, "N": 2}, "Georgia"),
    # 37 with a group as the pool: CA borders only OR, NV, AZ (all class 1); WA borders ID (0), OR borders WA (0).
    # D2 New England: ME borders only NH (class 2); VT, CT, RI border no class-0 state but MA (and NH) do
    ("group_border_relation", "D1", {"R": WC, "Rel": "only", "Y": 1, "N": 2}, "California"),
    ("group_border_relation", "D2", {"R": NE_, "Rel": "only", "Y": 2, "N": 2}, "Maine"),
    ("group_border_relation", "D2", {"R": NE_, "Rel": "none", "Y": 0, "N": 2}, None),  # ME, CT, RI: not unique
    # 38 vs median
    ("region_vs_group_median", "D1", {"R": FC, "X": "CO", "S": "above"}, "Yes"),
    ("region_vs_group_median", "D1", {"R": FC, "X": "UT", "S": "above"}, "No"),
    ("region_vs_group_median", "D1", {"R": FC, "X": "AZ", "S": "above"}, None),
    ("region_vs_group_median", "C1", {"R": FC, "X": "CO", "S": "above"}, "Yes"),
    ("region_vs_group_median", "C1", {"R": FC, "X": "AZ", "S": "below"}, None),  # 70 vs 71
    # 39 all
    ("group_all_threshold", "D1", {"R": FC, "S": "above", "N": 10.0}, "No"),
    ("group_all_threshold", "D1", {"R": MEX, "S": "above", "N": 10.0}, "Yes"),
    ("group_all_threshold", "C1", {"R": FC, "S": "above", "N": 20.0}, "Yes"),
    ("group_all_threshold", "C1", {"R": FC, "S": "above", "N": 60.0}, "No"),
    ("group_all_in_range", "D1", {"R": MA_, "Y": 0}, "Yes"),
    ("group_all_in_range", "D2", {"R": "bordering Florida", "Y": 0}, "No"),
    ("regions_missing_data", "N1", {}, ["Kansas", "Oklahoma"]),
    ("regions_missing_data", "D1", {}, []),  # nothing missing: "None"
    ("group_all_in_range", "C1", {"R": "New England", "Y": 2}, "Yes"),  # all 50: inside 40-60
    ("group_all_in_range", "C1", {"R": FC, "Y": 3}, "No"),  # AZ 70, NM 72 in 60-80; UT 30, CO 90 not
    ("group_all_same_range", "D1", {"R": MA_}, "Yes"),  # NJ, NY, PA all in the lowest class
    ("group_all_same_range", "D1", {"R": FC}, "No"),  # UT, AZ/NM, CO: three classes
    ("group_all_same_range", "C1", {"R": "New England"}, "Yes"),  # all 50: inside 40-60
    ("group_all_same_range", "C1", {"R": FC}, "No"),  # 30, 70, 72, 90
    # 40 closest pair (centroids: CO-TX ~1000 km vs CA-CO ~1250 km; ME-NH ~270 km vs AL-TN ~345 km)
    ("range_closest_pair", "D1", {"Y": 2}, ["Colorado", "Texas"]),
    ("range_closest_pair", "D1", {"Y": 1}, ["Arizona", "New Mexico"]),
    ("range_closest_pair", "D2", {"Y": 2}, ["Maine", "New Hampshire"]),
    ("range_closest_pair_in_group", "D1", {"R": "West", "Y": 1}, ["Arizona", "New Mexico"]),
    ("range_closest_pair_in_group", "D1", {"R": "Midwest", "Y": 0}, ["Illinois", "Indiana"]),
    ("range_closest_pair_in_group", "D2", {"R": WC, "Y": 1}, ["Oregon", "Washington"]),
    ("range_closest_pair_in_group", "D1", {"R": WC, "Y": 2}, None),  # fewer than 3 West Coast states there
    # 41 spacing (D1 gap 4 of span 28; D2 gap 70 of 270)
    ("legend_spacing", "D1", {}, "Significant gaps"),
    ("legend_spacing", "D2", {}, "Significant gaps"),
    # 42 two comparisons
    ("two_comparisons", "D1", {"X": "CO", "Y": "AZ", "Z": "TX", "C1": "higher", "C2": "similar"}, "Yes"),
    ("two_comparisons", "D1", {"X": "CO", "Y": "UT", "Z": "TX", "C1": "higher", "C2": "higher"}, "No"),
    ("two_comparisons", "C1", {"X": "CO", "Y": "UT", "Z": "NV", "C1": "higher", "C2": "higher"}, "Yes"),
    ("two_comparisons", "C1", {"X": "NM", "Y": "AZ", "Z": "CO", "C1": "similar", "C2": "higher"}, "No"),
    # 43 ranking, highest first, ties share a rank
    ("group_ranking", "D1", {"R": FC, "X": "CO", "Y": "AZ", "Z": "UT"}, [["Colorado"], ["Arizona"], ["Utah"]]),
    ("group_ranking", "D1", {"R": FC, "X": "AZ", "Y": "NM", "Z": "UT"}, [["Arizona", "New Mexico"], ["Utah"]]),
    ("group_ranking", "C1", {"R": FC, "X": "AZ", "Y": "NM", "Z": "UT"}, None),  # 70 / 72: never "=" on a bar
    ("group_ranking", "C1", {"R": FC, "X": "CO", "Y": "AZ", "Z": "UT"}, [["Colorado"], ["Arizona"], ["Utah"]]),
]


@pytest.mark.parametrize(("template", "scene", "params", "expected"), CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_template_answer_by_hand(template: str, scene: str, params: dict[str, Any], expected: Any) -> None:
    assert ask(template, scene, **params) == expected


def test_every_template_has_cases_on_two_scenes() -> None:
    scenes: dict[str, set[str]] = {}
    for tid, scene, _, expected in CASES:
        if expected is not None:
            scenes.setdefault(tid, set()).add(scene)
    for t in load_templates():
        assert len(scenes.get(t.id, ())) >= 2 or (t.id == "region_closer_to_number" and scenes[t.id]), t.id


def test_evenly_spaced_legend() -> None:
    # widths 10/10/10, gaps 1 of span 32 (3 %) -> evenly spaced
    vals = {"WA": 0, "OR": 10, "CA": 11, "NV": 21, "AZ": 22, "UT": 32}
    scene = build_scene(make_spec("usa", _stat(5, vals), breaks=[10, 21]))
    q = asked_or_none(load_templates().get("legend_spacing"), scene, {})
    assert q is not None and q.answer == "Evenly spaced"


def test_answers_never_hinge_on_an_illegible_region() -> None:
    base = hand_scene("D1")
    hidden = base.with_pixels({}, {"NM": False})
    t = load_templates()
    # NM's class decides the Four Corners ranking / count, so both are rejected once NM is illegible
    assert asked_or_none(t.get("group_count_in_range"), hidden, {"R": FC, "Y": 1}) is None
    # NM could be in class 2 too, tying with CO: "highest" is rejected
    assert asked_or_none(t.get("group_extreme_region"), hidden, {"R": FC, "E": "highest"}) is None
    # NM is read, but no class it could have changes which range holds the most states (43 in class 0)
    q = asked_or_none(t.get("range_with_extreme_count"), hidden, {"E": "highest"})
    assert q is not None and q.answer == "2-8"


def test_jumbled_values_change_answers_exactly_where_values_moved() -> None:
    t = load_templates().get("region_range")
    swapped = dict(D1_VALUES, CA=D1_VALUES["WA"], WA=D1_VALUES["CA"])
    a = hand_scene("D1")
    b = build_scene(make_spec("usa", _stat(5, swapped), breaks=[10, 20]))
    for code in a.regions:
        qa, qb = asked_or_none(t, a, {"X": code}), asked_or_none(t, b, {"X": code})
        if code in ("CA", "WA"):
            assert qa.answer != qb.answer
        else:
            assert qa.answer == qb.answer


def test_an_empty_answer_accepts_none() -> None:
    q = asked_or_none(load_templates().get("group_regions_in_range"), hand_scene("D1"),
                      {"R": "bordering Florida", "Y": 2})
    assert q is not None and q.answer == [] and "no states" in q.accepted_answers["None"]
