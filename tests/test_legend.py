"""Tests for mapgen.legend: classification, labels, colours, MAPWise import/export."""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import mapclassify as mc
import numpy as np
import pandas as pd
import pytest

from mapgen.legend import (
    HATCHES,
    DiscreteOptions,
    LabelOptions,
    Legend,
    LegendClass,
    continuous_legend,
    discrete_legend,
    format_range,
    format_ranges,
    get_colormap,
    nice_ticks,
    parse_label,
    relative_luminance,
)
from mapgen.legend.grammar import find_range
from mapgen.mapwise.schema import legend_from_mapwise, legend_to_mapwise, mapwise_class

SHARED = Path(__file__).resolve().parents[2] / "shared"
MAPWISE = SHARED / "reference" / "mapwise"


def _reference_files() -> list[Path]:
    if not MAPWISE.exists():
        return []
    return sorted(MAPWISE.glob("metadata/*.json")) + sorted(MAPWISE.glob("sample/*/metadata/*.json"))


@pytest.fixture(scope="module")
def reference_metadata() -> list[tuple[str, dict]]:
    if not MAPWISE.exists():
        pytest.skip(f"reference material not found at {MAPWISE}")
    files = _reference_files()
    assert len(files) >= 30
    return [(str(f.relative_to(MAPWISE)), json.loads(f.read_text())) for f in files]


def labels(legend: Legend) -> list[str]:
    return [c.label for c in legend.classes]


# ---------------------------------------------------------------- classification and labels


def test_equal_interval_labels_by_hand():
    # 0,10,...,100 in 4 equal intervals of width 25: edges 25, 50, 75, 100 (upper-inclusive).
    values = pd.Series(range(0, 101, 10), index=[f"R{i}" for i in range(11)])
    leg = discrete_legend(values, DiscreteOptions(k=4, scheme="equal_interval"))
    assert leg.breaks == (25.0, 50.0, 75.0, 100.0)
    assert labels(leg) == ["0-20", "30-50", "60-70", "80-100"]  # data min-max of each class
    assert [(c.lower, c.upper) for c in leg.classes] == [(0, 20), (30, 50), (60, 70), (80, 100)]
    assert [c.index for c in leg.classes] == [0, 1, 2, 3]
    by_breaks = discrete_legend(values, DiscreteOptions(k=4, scheme="equal_interval", labels=LabelOptions(bounds="breaks")))
    assert labels(by_breaks) == ["0-25", "25-50", "50-75", "75-100"]
    open_ended = discrete_legend(values, DiscreteOptions(k=4, scheme="equal_interval", labels=LabelOptions(open_ends=True)))
    assert labels(open_ended) == ["<30", "30-50", "60-70", ">70"]


def test_equal_interval_non_integer_edges_get_one_decimal():
    leg = discrete_legend(pd.Series(range(1, 10)), DiscreteOptions(k=3, scheme="equal_interval", labels=LabelOptions(bounds="breaks")))
    assert labels(leg) == ["1.0-3.7", "3.7-6.3", "6.3-9.0"]
    assert labels(discrete_legend(pd.Series(range(1, 10)), DiscreteOptions(k=3, scheme="equal_interval"))) == [
        "1-3",
        "4-6",
        "7-9",
    ]


def test_percent_fractions_reproduce_kff_labels():
    # The values of MAPWise's USA map_10436 class edges: rounding to 0 decimals would print "14%" twice.
    values = pd.Series([0.102, 0.136, 0.137, 0.17, 0.172, 0.196, 0.197, 0.267])
    leg = discrete_legend(values, DiscreteOptions(k=4, scheme="quantiles", percent=True, label_scale=100))
    assert labels(leg) == ["10.2%-13.6%", "13.7%-17.0%", "17.2%-19.6%", "19.7%-26.7%"]
    assert leg.classes[0].lower == pytest.approx(0.102)  # bounds stay in value units


@pytest.mark.parametrize("scheme", ["quantiles", "equal_interval", "natural_breaks", "fisher_jenks"])
def test_class_of_agrees_with_mapclassify_yb(scheme):
    rng = np.random.default_rng(7)
    y = rng.gamma(2.0, 50.0, size=60).round(1)
    leg = discrete_legend(pd.Series(y), DiscreteOptions(k=5, scheme=scheme))
    ref = {
        "quantiles": mc.Quantiles(y, k=5),
        "equal_interval": mc.EqualInterval(y, k=5),
        "natural_breaks": mc.FisherJenks(y, k=5),
        "fisher_jenks": mc.FisherJenks(y, k=5),
    }[scheme]
    assert [leg.class_of(v) for v in y] == list(ref.yb)
    assert leg.breaks == pytest.approx(tuple(ref.bins))
    assert len(set(labels(leg))) == len(leg.classes)
    for c in leg.classes:  # every data value lies inside its class's inclusive bounds
        members = y[np.asarray([leg.class_of(v) for v in y]) == c.index]
        assert c.lower <= members.min() and members.max() <= c.upper


def test_natural_breaks_is_deterministic():
    y = pd.Series(np.random.default_rng(3).normal(100, 30, 50))
    a = discrete_legend(y, DiscreteOptions(k=6, scheme="natural_breaks"))
    b = discrete_legend(y, DiscreteOptions(k=6, scheme="natural_breaks"))
    assert a == b


def test_class_of_boundaries_are_upper_inclusive():
    leg = discrete_legend(pd.Series(np.arange(0, 31)), DiscreteOptions(breaks=[10, 20]))
    assert leg.k == 3 and leg.scheme == "user_defined"
    assert leg.class_of(10) == 0
    assert leg.class_of(10.0001) == 1
    assert leg.class_of(20) == 1
    assert leg.class_of(20.5) == 2
    assert leg.class_of(-5) == 0  # below the data: first class
    assert leg.class_of(1000) == 2  # above the data: last class
    assert leg.class_of(float("nan")) is None
    assert leg.class_of(None) is None


def test_user_breaks_validation():
    y = pd.Series(np.arange(0, 31))
    with pytest.raises(ValueError, match="strictly increasing"):
        discrete_legend(y, DiscreteOptions(breaks=[10, 5]))
    with pytest.raises(ValueError, match="between 3 and 8"):
        discrete_legend(y, DiscreteOptions(breaks=[40]))  # one class only
    with pytest.raises(ValueError, match="finite"):
        discrete_legend(y, DiscreteOptions(breaks=[10, float("inf")]))


@pytest.mark.parametrize("k", [0, 2, 9, 3.5, True, "5"])
def test_k_outside_range_is_rejected(k):
    with pytest.raises(ValueError, match="between 3 and 8"):
        discrete_legend(pd.Series(range(20)), DiscreteOptions(k=k))


def test_unknown_scheme_lists_choices():
    with pytest.raises(ValueError, match="quantiles.*equal_interval"):
        discrete_legend(pd.Series(range(20)), DiscreteOptions(scheme="headtail"))
    assert discrete_legend(pd.Series(range(20)), DiscreteOptions(k=4, scheme="EqualInterval")).scheme == "equal_interval"


def test_nan_values_are_ignored_and_give_na_label():
    base = pd.Series([1.0, 5.0, 9.0, 13.0, 20.0, 40.0], index=list("ABCDEF"))
    with_nan = pd.concat([base, pd.Series([np.nan], index=["G"])])
    a, b = discrete_legend(base, DiscreteOptions(k=3)), discrete_legend(with_nan, DiscreteOptions(k=3))
    assert a.na_label is None
    assert b.na_label == "N/A"
    assert labels(a) == labels(b) and a.breaks == b.breaks
    assert b.class_of(with_nan["G"]) is None
    assert b.color_of(np.nan) == b.na_color
    assert b.label_of(np.nan) == "N/A"


def test_bad_values_raise_clear_errors():
    with pytest.raises(TypeError, match="numbers"):
        discrete_legend(pd.Series(["a", "b", "c", "d"]), DiscreteOptions(k=3))
    with pytest.raises(TypeError, match="booleans"):
        discrete_legend(pd.Series([True, False, True]), DiscreteOptions(k=3))
    with pytest.raises(ValueError, match="finite"):
        discrete_legend(pd.Series([1.0, 2.0, np.inf, 4.0]), DiscreteOptions(k=3))
    mixed = discrete_legend(pd.Series([1, None, 3, 7, 9], dtype=object), DiscreteOptions(k=3))  # numbers stored as objects
    assert mixed.na_label == "N/A" and mixed.k == 3
    with pytest.raises(ValueError, match="all values are missing"):
        discrete_legend(pd.Series([np.nan, np.nan]), DiscreteOptions(k=3))
    with pytest.raises(ValueError, match="at least 2 distinct"):
        discrete_legend(pd.Series([4.0, 4.0, 4.0]), DiscreteOptions(k=3))


def test_degenerate_data_reduces_k_with_warning():
    y = pd.Series([1, 1, 1, 1, 2, 2, 5])
    with pytest.warns(UserWarning, match="reducing k from 5 to 3"):
        leg = discrete_legend(y, DiscreteOptions(k=5))
    assert leg.k == 3
    assert [leg.class_of(v) for v in (1, 2, 5)] == [0, 1, 2]


def test_display_order():
    y = pd.Series(range(30))
    small = discrete_legend(y, DiscreteOptions(k=4, order="small_to_large"))
    large = discrete_legend(y, DiscreteOptions(k=4, order="large_to_small"))
    assert [c.index for c in small.display_classes()] == [0, 1, 2, 3]
    assert [c.index for c in large.display_classes()] == [3, 2, 1, 0]
    assert large.classes == small.classes  # indices do not depend on the display order
    with pytest.raises(ValueError, match="order"):
        discrete_legend(y, DiscreteOptions(k=4, order="up"))


# ---------------------------------------------------------------- colours


@pytest.mark.parametrize(
    "cmap", ["Blues", "Greens", "Reds", "Oranges", "Purples", "Greys", "YlOrRd", "YlGnBu", "YlGn", "BuGn"]
)
@pytest.mark.parametrize("k", [3, 8])
def test_class_colors_distinct_ordered_and_not_white(cmap, k):
    leg = discrete_legend(pd.Series(range(40)), DiscreteOptions(k=k, colormap=cmap))
    lum = [relative_luminance(c.color) for c in leg.classes]
    assert len({c.color for c in leg.classes}) == k
    assert all(a > b for a, b in zip(lum, lum[1:], strict=False))  # light -> dark with value
    assert max(lum) <= 0.8  # visibly distinct from a white background (contrast >= 1.24)
    assert leg.darkness_increases_with_value


def test_reverse_flips_darkness():
    y = pd.Series(range(40))
    fwd = discrete_legend(y, DiscreteOptions(k=5, colormap="Blues"))
    rev = discrete_legend(y, DiscreteOptions(k=5, colormap="Blues", reverse=True))
    suffix = discrete_legend(y, DiscreteOptions(k=5, colormap="blues_r"))
    assert not rev.darkness_increases_with_value and rev.reversed
    assert [c.color for c in rev.classes] == [c.color for c in fwd.classes][::-1]
    assert [c.color for c in suffix.classes] == [c.color for c in rev.classes]
    double = discrete_legend(y, DiscreteOptions(k=5, colormap="Blues_r", reverse=True))  # reversed twice
    assert [c.color for c in double.classes] == [c.color for c in fwd.classes]


def test_colormap_names_case_insensitive_and_plotly():
    y = pd.Series(range(40))
    a = discrete_legend(y, DiscreteOptions(k=4, colormap="Viridis"))
    b = discrete_legend(y, DiscreteOptions(k=4, colormap="viridis"))
    assert [c.color for c in a.classes] == [c.color for c in b.classes]
    assert a.colormap == "Viridis"  # kept as given
    redor = discrete_legend(y, DiscreteOptions(k=4, colormap="Redor"))
    assert redor.classes[0].color != redor.classes[-1].color
    assert get_colormap("Tealgrn")(0.0) != get_colormap("Tealgrn", reverse=True)(0.0)


def test_unknown_colormap_lists_suggestions():
    with pytest.raises(ValueError, match="Blues") as err:
        discrete_legend(pd.Series(range(40)), DiscreteOptions(k=4, colormap="Bluez"))
    assert "did you mean" in str(err.value)
    with pytest.raises(ValueError, match="YlOrRd"):
        continuous_legend(pd.Series(range(40)), colormap="YlOrRdd")


def test_hatched_legend():
    leg = discrete_legend(pd.Series(range(40)), DiscreteOptions(k=5, hatched=True, colormap="Reds"))
    assert [c.hatch for c in leg.classes] == list(HATCHES[:5])
    assert leg.hatched
    for c in leg.classes:
        r, g, b = (int(c.color[i : i + 2], 16) for i in (1, 3, 5))
        assert r == g == b and r >= 0x80  # light greys: black hatch lines stay visible
    assert leg.classes[0].color == "#ffffff"
    assert not discrete_legend(pd.Series(range(40)), DiscreteOptions(k=5)).hatched
    eight = discrete_legend(pd.Series(range(40)), DiscreteOptions(k=8, hatched=True))  # one pattern per class
    assert [c.hatch for c in eight.classes] == list(HATCHES) and len(set(HATCHES)) == 8


# ---------------------------------------------------------------- label formatting and parsing


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        ((14, 150), {}, "14-150"),
        ((592, 1133), {}, "592-1,133"),
        ((1000, 2000), {"style": "compact"}, "1k-2k"),
        ((1.2e6, 3.4e6), {}, "1.2M-3.4M"),
        ((10, 20), {"percent": True}, "10%-20%"),
        ((0.12, 0.55), {}, "0.12-0.55"),
        ((0.55, None), {}, ">0.55"),
        ((None, 10), {}, "<10"),
        ((13.09, 54.2), {"style": "spaced"}, "13 - 54"),
        ((53540.99, 760462.0), {"style": "spaced"}, "53,541 - 760,462"),
        ((-12.6, -4.4), {}, "-12.6 to -4.4"),
        ((0, 0), {"percent": True}, "0%"),
        ((2.5e9, 7.5e12), {"style": "compact"}, "2.5B-7.5T"),
    ],
)
def test_format_range(args, kwargs, expected):
    assert format_range(*args, **kwargs) == expected


def test_format_ranges_share_rounding_and_stay_distinct():
    assert format_ranges([(14, 150), (161, 390), (399, 573), (592, 1133)]) == [
        "14-150",
        "161-390",
        "399-573",
        "592-1,133",
    ]
    # 0.1001 and 0.1004 only differ at the 4th decimal: every label gets 4 decimals.
    out = format_ranges([(0.1, 0.1001), (0.1004, 0.2)], distinct_adjacent=True)
    assert out == ["0.1000-0.1001", "0.1004-0.2000"]
    with pytest.raises(ValueError, match="label style"):
        format_range(1, 2, style="fancy")


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("14-150", (14, 150)),
        ("592-1,133", (592, 1133)),
        ("1k-2k", (1000, 2000)),
        ("1.2M-3.4M", (1.2e6, 3.4e6)),
        ("10%-20%", (10, 20)),
        ("10-20%", (10, 20)),
        ("0.12-0.55", (0.12, 0.55)),
        (">0.55", (0.55, None)),
        ("> 0.55", (0.55, None)),
        ("<10", (None, 10)),
        ("53,540.99 - 760,462.0", (53540.99, 760462.0)),
        ("-1,179.01 - 97.0", (-1179.01, 97.0)),
        ("-57.31 - -23.0", (-57.31, -23.0)),
        ("-12.6 to -4.4", (-12.6, -4.4)),
        ("N/A", (None, None)),
        ("0%", (0, 0)),
        ("$1.2M - $3.4M", (1.2e6, 3.4e6)),
        ("$500-$1,000", (500, 1000)),
        ("1-2k", (1000, 2000)),  # a unit on the upper bound applies to the lower
        ("500-1k", (500, 1000)),  # ... unless that would put the lower above the upper
        ("2.5B-7.5T", (2.5e9, 7.5e12)),
        ("100 and above", (100, None)),
        ("10 to 20", (10, 20)),
        ("between 10 and 20", (10, 20)),
        ("below 5", (None, 5)),
        ("less than 5%", (None, 5)),
        ("1,000+", (1000, None)),
        ("10 – 20", (10, 20)),
    ],
)
def test_parse_label(label, expected):
    lo, hi = parse_label(label)
    exp_lo, exp_hi = expected
    assert (lo is None) == (exp_lo is None) and (hi is None) == (exp_hi is None)
    if lo is not None:
        assert lo == pytest.approx(exp_lo)
    if hi is not None:
        assert hi == pytest.approx(exp_hi)


@pytest.mark.parametrize("label", ["hello", "1-2-3", "low", "12 apples to 3 pears"])
def test_parse_label_rejects_garbage(label):
    with pytest.raises(ValueError, match="cannot read"):
        parse_label(label)


_TOKEN = re.compile(r"(\d[\d,]*)(?:\.(\d+))?([kMBT]?)")
_UNIT = {"": 1.0, "k": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


@pytest.mark.parametrize("style", ["plain", "compact", "spaced", "auto"])
@pytest.mark.parametrize("percent", [False, True])
def test_every_printed_label_parses_back(style, percent):
    rng = np.random.default_rng(11)
    for scale in (1e-2, 1, 1e3, 1e7, 1e10):
        y = pd.Series(rng.lognormal(0, 1, 40) * scale - scale)  # negatives too
        leg = discrete_legend(y, DiscreteOptions(k=5, percent=percent, labels=LabelOptions(style=style, open_ends=True)))
        edges = [e for c in leg.classes for e in (c.lower, c.upper)]
        for c in leg.classes:
            lo, hi = parse_label(c.label)
            shown = [x for x in (lo, hi) if x is not None]
            tokens = _TOKEN.findall(c.label)
            assert len(shown) == len(tokens) >= 1, c.label
            for x, (_, dec, unit) in zip(shown, tokens, strict=True):
                # each printed number is a class edge rounded to the printed decimals (plain) or to at
                # least two significant digits (compact, whose trailing zeros are stripped)
                tol = 0.5 * 10 ** -len(dec) * _UNIT[unit] * (1 + 1e-9)
                if leg.labelling.style == "compact" or unit:
                    tol = max(tol, 0.05 * abs(x))
                assert min(abs(x - e) for e in edges) <= tol, (c.label, x)


@pytest.mark.parametrize("style", ["plain", "compact", "spaced", "auto"])
def test_answer_reader_reads_printed_labels_like_the_label_reader(style):
    # one grammar: a model that copies a legend label gets the range the legend means ("670-8.7k" is 670-8,700)
    rng = np.random.default_rng(11)
    for percent in (False, True):
        for scale in (1e-2, 1, 1e3, 1e7, 1e10):
            y = pd.Series(rng.lognormal(0, 1, 40) * scale - scale)
            for open_ends in (False, True):
                opts = DiscreteOptions(k=5, percent=percent, labels=LabelOptions(style=style, open_ends=open_ends))
                for c in discrete_legend(y, opts).classes:
                    assert find_range(c.label) == parse_label(c.label), c.label
    assert find_range("670-8.7k") == parse_label("670-8.7k") == (670.0, 8700.0)


def test_reference_labels_parse(reference_metadata):
    seen = 0
    for name, meta in reference_metadata:
        for label in meta.get("class_descriptions", []):
            lo, hi = parse_label(label)
            if label == "N/A":
                assert (lo, hi) == (None, None), name
            else:
                assert lo is not None and hi is not None and lo <= hi, (name, label)
                seen += 1
    assert seen > 50


# ---------------------------------------------------------------- continuous


def test_continuous_legend_ticks_and_colors():
    y = pd.Series([8.7, 33.7, 145.3, np.nan])
    leg = continuous_legend(y, colormap="Purples")
    assert leg.kind == "continuous" and leg.classes == ()
    assert (leg.vmin, leg.vmax) == (8.7, 145.3)
    assert leg.ticks == (20, 40, 60, 80, 100, 120, 140)
    assert leg.tick_labels == ("20", "40", "60", "80", "100", "120", "140")
    assert len(leg.colors) == 256
    assert leg.color_of(8.7) == leg.colors[0] and leg.color_of(145.3) == leg.colors[-1]
    assert leg.color_of(-1000) == leg.colors[0]  # clipped
    assert leg.color_of(np.nan) == leg.na_color and leg.na_label == "N/A"
    assert leg.position_of(33.7) == pytest.approx(25 / 136.6)
    assert leg.darkness_increases_with_value
    assert not continuous_legend(y, colormap="Purples", reverse=True).darkness_increases_with_value
    mid = leg.color_of((8.7 + 145.3) / 2)
    assert relative_luminance(leg.colors[-1]) < relative_luminance(mid) < relative_luminance(leg.colors[0])
    with pytest.raises(ValueError, match="continuous"):
        leg.class_of(10)


def test_continuous_percent_and_range_options():
    leg = continuous_legend(pd.Series([0.0042, 0.4701]), percent=True, label_scale=100)
    assert leg.tick_labels == ("10%", "20%", "30%", "40%")
    leg = continuous_legend(pd.Series([5.0, 6.0]), vmin=0, vmax=100, n_ticks=3)
    assert leg.ticks == (0, 50, 100) and leg.tick_labels == ("0", "50", "100")
    with pytest.raises(ValueError, match="vmin < vmax"):
        continuous_legend(pd.Series([3.0, 3.0]))
    big = continuous_legend(pd.Series([65996.0, 15365517.0]))
    assert big.tick_labels == ("5M", "10M", "15M")


@pytest.mark.parametrize(
    ("lo", "hi"), [(0, 1), (8.7, 145.3), (-3.2, 7.9), (0.001, 0.0012), (65996, 15365517)]
)
def test_nice_ticks_are_round_and_inside(lo, hi):
    ticks = nice_ticks(lo, hi, 5)
    assert 2 <= len(ticks) <= 8
    assert all(lo <= t <= hi for t in ticks)
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0])
    mantissa = steps[0] / 10 ** math.floor(math.log10(steps[0]))
    assert min(abs(mantissa - m) for m in (1, 2, 5)) < 1e-9


# ---------------------------------------------------------------- serialisation


def test_to_dict_from_dict_round_trip():
    y = pd.Series([1.0, 5.0, np.nan, 13.0, 20.0, 40.0, 55.5, 60.0])
    for leg in (
        discrete_legend(y, DiscreteOptions(k=4, order="large_to_small", hatched=True)),
        discrete_legend(y, DiscreteOptions(k=3, percent=True, colormap="YlOrRd_r", labels=LabelOptions(open_ends=True))),
        continuous_legend(y, colormap="Viridis"),
    ):
        d = json.loads(json.dumps(leg.to_dict()))
        back = Legend.from_dict(d)
        assert back == leg
        assert (back.labelling, back.mapwise) == (leg.labelling, leg.mapwise)
        assert isinstance(back.classes, tuple) and all(isinstance(c, LegendClass) for c in back.classes)


def test_new_legend_to_mapwise_uses_kff_dialect():
    y = pd.Series([1.0, 5.0, np.nan, 13.0, 20.0, 40.0])
    leg = discrete_legend(y, DiscreteOptions(k=3, order="large_to_small"))
    out = legend_to_mapwise(leg)
    assert out["legend_type"] == "Discrete" and out["legend_order"] == "large_to_small"
    assert out["num_classes"] == 3 and out["num_symbols"] == 4
    assert out["class_descriptions"] == labels(leg) + ["N/A"]
    assert len(out["colorscales"]) == 4 and out["colorscales"][0].startswith("rgb(")
    assert mapwise_class(leg, np.nan) == (-1, "N/A")
    assert mapwise_class(leg, 40.0) == (2, leg.classes[2].label)
    back = legend_from_mapwise({**out, "data": [{"region": "A", "value": 40.0, "class": 2}]})
    assert labels(back) == labels(leg)
    assert [c.color for c in back.classes] == [c.color for c in leg.classes]
    assert back.na_color == leg.na_color


# ---------------------------------------------------------------- MAPWise reference metadata


def test_mapwise_china_largest_first_mapping(reference_metadata):
    meta = dict(reference_metadata)["metadata/china_map10_3D.json"]
    leg = legend_from_mapwise(meta)
    assert leg.mapwise.class_to_index == {0: 2, 1: 1, 2: 0, 3: None, -1: None}
    assert labels(leg) == ["13.09 - 54.2", "54.2 - 75.0", "75.0 - 208.2"]
    assert leg.order == "large_to_small"
    # colorscales run from the lowest-value class to the highest, then N/A
    assert [c.color for c in leg.classes] == ["#004529", "#78c679", "#ffffe5"]
    assert leg.na_color == "#808080" and leg.na_label == "N/A"
    assert leg.class_of(54.2) == 0 and leg.class_of(54.3) == 1


def test_mapwise_usa_percent_fractions(reference_metadata):
    meta = dict(reference_metadata)["sample/usa/metadata/map_10436.json"]
    leg = legend_from_mapwise(meta)
    assert leg.label_scale == 100 and leg.percent
    assert leg.classes[0].lower == pytest.approx(0.102) and leg.classes[-1].upper == pytest.approx(0.267)
    assert leg.mapwise.class_to_index == {0: 0, 1: 1, 2: 2, 3: 3}


def test_mapwise_import_reproduces_every_region_class(reference_metadata):
    n_regions = 0
    for name, meta in reference_metadata:
        leg = legend_from_mapwise(meta)
        if meta["legend_type"] == "Continuous":
            assert leg.kind == "continuous", name
            vals = [d["value"] for d in meta["data"] if d["value"] is not None and not math.isnan(d["value"])]
            assert (leg.vmin, leg.vmax) == (min(vals), max(vals)), name
            continue
        mapping = leg.mapwise.class_to_index
        descs = meta["class_descriptions"]
        assert {c.label for c in leg.classes} == {d for d in descs if d != "N/A"}, name
        assert all(a.upper <= b.lower + 1e-12 for a, b in zip(leg.classes, leg.classes[1:], strict=False)), (
            name
        )
        for d in meta["data"]:
            n_regions += 1
            assert leg.class_of(d["value"]) == mapping[d["class"]], (name, d)
            assert leg.label_of(d["value"]) == d["description"], (name, d)
            assert mapwise_class(leg, d["value"]) == (d["class"], d["description"]), (name, d)
    assert n_regions > 500


def test_mapwise_legend_fields_round_trip(reference_metadata):
    keys = ("legend_type", "legend_order", "num_classes", "num_symbols", "class_descriptions", "colorscales")
    for name, meta in reference_metadata:
        leg = legend_from_mapwise(meta)
        out = legend_to_mapwise(leg)
        for key in (*keys, "colormap_name"):
            if key in meta:
                assert out[key] == meta[key], (name, key)
            else:
                assert key not in out, (name, key)
        again = Legend.from_dict(json.loads(json.dumps(leg.to_dict())))
        assert again == leg and again.mapwise == leg.mapwise, name
        assert legend_to_mapwise(again) == out, name


def test_no_warnings_on_reference_import(reference_metadata):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _, meta in reference_metadata:
            legend_from_mapwise(meta)
