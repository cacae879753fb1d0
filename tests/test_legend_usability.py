"""Legends a person can use: consistent labels (no empty class labelled by breaks beside data-range labels) and no
class whose only members are regions too small to read (issue 14, "legends no one can use")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from mapgen.data.curated import list_stats, load_curated
from mapgen.geo.atlas import load_atlas
from mapgen.legend.classify import merge_minor_classes
from mapgen.spec import HATCHED_SPECK_RADIUS, make_hatched, make_spec, measure_specks, speck_regions

COUNTRIES = ("usa", "india", "china")
SCHEMES = ("quantiles", "equal_interval", "natural_breaks")


@pytest.mark.parametrize("country", COUNTRIES)
def test_shipped_specks_match_the_geometry(country: str) -> None:
    """data/atlas/specks.yaml is what the rule measures on the geometry (and names the regions seen unreadable)."""
    atlas = load_atlas(country)
    assert speck_regions(atlas) == measure_specks(atlas)
    assert speck_regions(atlas, hatched=True) == measure_specks(atlas, HATCHED_SPECK_RADIUS)
    assert {"usa": {"DC"}, "india": {"PY", "CH", "LD"}, "china": {"MO", "HK"}}[country] <= set(speck_regions(atlas))
    seen_on_hatched = {"usa": {"RI", "CT", "DE"}, "india": {"DL", "SK", "GA"}, "china": {"BJ", "TJ", "SH"}}[country]
    assert set(speck_regions(atlas)) | seen_on_hatched <= set(speck_regions(atlas, hatched=True))


def test_merge_minor_classes_hand_checked() -> None:
    y = np.array([1.0, 2.0, 3.0, 4.0, 100.0])
    readable = np.array([True, True, True, True, False])
    # Classes {1,2} {3,4} {100}: the top class holds only the speck, so it joins its only neighbour.
    assert merge_minor_classes(y, readable, np.array([2.0, 4.0, 100.0])).tolist() == [2.0, 100.0]
    # A speck at the bottom joins the classes above up to the first one with readable values ({50, 60}).
    low = np.array([0.5, 50.0, 60.0, 90.0, 100.0])
    keep = np.array([False, True, True, True, True])
    assert merge_minor_classes(low, keep, np.array([1.0, 20.0, 60.0, 100.0])).tolist() == [60.0, 100.0]
    # An empty class that holds no speck is left alone.
    assert merge_minor_classes(low, np.ones(5, dtype=bool), np.array([1.0, 20.0, 60.0, 100.0])).tolist() == [
        1.0, 20.0, 60.0, 100.0]
    # The speck in the middle joins the neighbour whose readable values are nearer (10 is nearer 12 than 1).
    mid = np.array([1.0, 10.0, 12.0, 13.0])
    assert merge_minor_classes(mid, np.array([True, False, True, True]), np.array([1.0, 10.0, 13.0])).tolist() == [
        1.0, 13.0]
    assert merge_minor_classes(y, np.zeros(5, dtype=bool), np.array([2.0, 100.0])).tolist() == [2.0, 100.0]


def _members(legend, values: dict[str, float]) -> list[list[str]]:
    """Codes per class, from the legend's breaks (upper-inclusive), computed here rather than asked of the legend."""
    breaks = np.asarray(legend.breaks)
    out: list[list[str]] = [[] for _ in breaks]
    for code, v in values.items():
        if not np.isnan(v):
            out[min(int(np.searchsorted(breaks, v, side="left")), len(breaks) - 1)].append(code)
    return out


@pytest.mark.parametrize("country", COUNTRIES)
def test_every_class_has_a_readable_member_and_labels_are_consistent(country: str) -> None:
    specks = set(speck_regions(load_atlas(country)))
    hatched_specks = set(speck_regions(load_atlas(country), hatched=True))
    checked = switched = reclassified = 0
    for info in list_stats(country):
        stat = load_curated(country, info.id)
        for scheme in SCHEMES:
            for k in (3, 4, 5, 6):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    spec = make_spec(country, stat, scheme=scheme, classes=k)
                legend, members = spec.legend, _members(spec.legend, spec.values)
                checked += 1
                hatched = make_hatched(spec)
                for codes in _members(hatched.legend, hatched.values):
                    assert not codes or set(codes) - hatched_specks, (info.id, scheme, k, codes)
                reclassified += hatched.legend.breaks != legend.breaks
                for i, codes in enumerate(members):
                    assert not codes or set(codes) - specks, (info.id, scheme, k, i, codes)
                assert legend.k >= min(k, 3), (info.id, scheme, k, legend.k)
                empty = [i for i, codes in enumerate(members) if not codes]
                if empty:
                    switched += 1
                    assert legend.labelling.bounds == "breaks", (info.id, scheme, k, [c.label for c in legend.classes])
    assert checked >= 72 and switched > 0 and reclassified < checked / 4
