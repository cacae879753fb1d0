"""Per-region attributes on a real rendered map, checked against independently stated facts."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from mapgen.describe import describe, region_attributes, scene_from_render_json
from mapgen.describe.attributes import box_from_100, box_to_100, colour_name, grid_cell, normalise_box
from mapgen.render import render
from mapgen.scene import build_scene
from mapgen.spec import make_spec


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render(make_spec("usa", "population_2020"), tmp_path_factory.mktemp("attrs") / "m.png")


@pytest.fixture(scope="module")
def attrs(rendered):
    return {a["code"]: a for a in region_attributes(rendered.scene)}


def test_grid_positions_of_known_states(attrs):
    # 800x600 image: the contiguous states fill the upper map area, Alaska and Hawaii are insets along the
    # bottom and the legend takes the right-hand strip. Alaska's inset sits in the bottom-left corner.
    assert attrs["AK"]["position"] == "bottom-left"
    # Texas: its box spans the middle column and reaches into the bottom third (y2 > 400); its box centre
    # (~406 px) is just below the 400 px line (Hawaii's inset, its main islands only on the Census lines, sits
    # beside Alaska's and no longer pushes the map up): by the "bbox centre's cell" rule Texas is bottom-centre.
    tx = attrs["TX"]
    assert tx["bbox"][3] > 400 and tx["centre"][1] > 400
    assert 800 / 3 <= tx["centre"][0] < 1600 / 3
    assert tx["position"] == "bottom-centre"
    assert attrs["ME"]["position"] in ("top-right", "top-centre")  # Maine: north-east corner of the map


def test_california_is_left_of_nevada(attrs):
    ca, nv = attrs["CA"], attrs["NV"]
    assert ca["bbox"][0] < nv["bbox"][0]
    assert ca["centre"][0] < nv["centre"][0]


def test_largest_region_by_pixels_is_texas_not_alaska(rendered, attrs):
    # Alaska is the largest state by area (km²) but is drawn as a shrunken inset, so on the image Texas
    # covers the most pixels.
    scene = rendered.scene
    assert max(scene.regions.values(), key=lambda r: r.area_km2).code == "AK"
    assert max(attrs.values(), key=lambda a: a["area_px"])["code"] == "TX"
    assert attrs["TX"]["size"] == "large" and attrs["RI"]["size"] == "small"


def test_boxes_match_the_mask(rendered, attrs):
    record = json.loads(rendered.json.read_text())
    mask = np.asarray(Image.open(rendered.mask))
    for code in ("TX", "CA", "RI", "AK", "FL"):
        ys, xs = np.nonzero(mask == record["render"]["mask_ids"][code])
        assert attrs[code]["bbox"] == [xs.min(), ys.min(), xs.max(), ys.max()]
        assert attrs[code]["area_px"] == len(xs)


def test_normalised_and_oriented_boxes(attrs):
    for a in attrs.values():
        x1, y1, x2, y2 = a["bbox_norm"]
        assert 0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1
        assert len(a["obb"]) == 4 and len(a["obb_norm"]) == 4
    assert attrs["TX"]["bbox_norm"] == normalise_box(attrs["TX"]["bbox"], 800, 600)


def test_class_relative_attributes(rendered, attrs):
    top = rendered.scene.legend.k - 1
    top_members = [a for a in attrs.values() if a["category"] == top]
    assert {"CA", "TX", "FL", "NY"} <= {a["code"] for a in top_members}
    assert "left-most" in attrs["CA"]["rel_position"]  # California is the western-most big state
    assert attrs["TX"]["rel_size"] == "largest"
    assert not any(a["is_unique"] for a in attrs.values())  # quantile classes: 10 or 11 states each
    assert "dark" in attrs["CA"]["color"]["name"] and "blue" in attrs["CA"]["color"]["name"]
    assert attrs["CA"]["class"]["darkness_rank"] == 0
    assert attrs["NV"]["neighbors"] == ["AZ", "CA", "ID", "OR", "UT"]
    assert attrs["CA"]["coastal"] and not attrs["NV"]["coastal"]
    assert not attrs["DC"]["legible"] and attrs["TX"]["legible"]


def test_unique_member_of_a_class(tmp_path):
    result = render(make_spec("usa", "population_2020", scheme="fisher_jenks"), tmp_path / "fj.png")
    attrs = {a["code"]: a for a in region_attributes(result.scene)}
    top = result.scene.legend.k - 1
    members = [c for c, a in attrs.items() if a["category"] == top]
    assert members == ["CA"] and attrs["CA"]["is_unique"] and attrs["CA"]["rel_size"] == "only"


def test_render_json_round_trip(rendered):
    scene = scene_from_render_json(rendered.json)
    assert region_attributes(scene) == region_attributes(rendered.scene)


def test_needs_pixels():
    with pytest.raises(ValueError, match="pixel facts"):
        describe(build_scene(make_spec("usa", "population_2020")))


def test_small_rules():
    assert grid_cell(0, 0, 800, 600) == "top-left"
    assert grid_cell(400, 300, 800, 600) == "centre"
    assert grid_cell(799, 599, 800, 600) == "bottom-right"
    assert colour_name("#083c7d") == "dark blue" and colour_name("#d9e8f5") == "light blue"
    assert colour_name("#ffffff") == "white"


def test_box_0_100_conversion():
    assert box_to_100([0, 0, 799, 599], 800, 600) == [0, 0, 100, 100]
    assert box_to_100([400, 300, 599, 449], 800, 600) == [50, 50, 75, 75]
    assert box_to_100([7, 172, 102, 334], 800, 600) == [1, 29, 13, 56]
    assert all(isinstance(v, int) for v in box_to_100([7.2, 172, 102, 334], 800, 600))
    assert box_from_100([50, 50, 75, 75], 800, 600) == [400, 300, 600, 450]
