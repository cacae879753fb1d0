"""The ``mapwise`` preset as MAPWise prints its maps (issue 36 item 4), read from renders mapgen makes.

- Colour maps: 9 px capitals (MAPWise's 12 px labels) inside every region that holds one, black or white by the
  fill with no halo, callouts only where a label does not fit (USA at 1000×600: at most 10), 12 px legend squares,
  MAPWise's page size per country.
- Hatched maps: black ink on white, no region labels (the build's, ``render --hatched`` and ``--all-variants``).
- A style's ``hatched:`` changes are checked when it loads and cannot move the page layout.
- Bytes stay deterministic when one figure draws colour and hatched maps in turn.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from mapgen.cli import main
from mapgen.render import hatched_variant, render
from mapgen.render.style import StyleError, load_style, parse_style
from mapgen.spec import make_spec

ROOT = Path(__file__).resolve().parents[1]
MAPWISE_PNGS = ROOT.parent / "shared" / "reference" / "mapwise" / "repo-sample" / "dataset"
STATS = {"usa": "population_2020", "india": "population_2011", "china": "population_2020"}


def _cli_render(tmp_path: Path, name: str, *args: str) -> tuple[np.ndarray, dict]:
    """``mapgen render`` in the mapwise style: the PNG's pixels and the render JSON."""
    out = tmp_path / f"{name}.png"
    result = CliRunner().invoke(main, ["render", *args, "--style", "mapwise", "-o", str(out)])
    assert result.exit_code == 0, result.output
    pixels = np.asarray(Image.open(out).convert("RGB"), dtype=int)
    return pixels, json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))


def _luminance(rgb: np.ndarray) -> np.ndarray:
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


@pytest.fixture(scope="module")
def usa(tmp_path_factory) -> tuple[np.ndarray, dict]:
    return _cli_render(tmp_path_factory.mktemp("usa"), "usa", "usa", "--stat", "population_2020", "--size",
                       "1000x600")


def test_usa_at_1000x600_sets_at_most_10_callouts_and_every_other_label_inside(usa) -> None:
    _, record = usa
    kinds = [label["kind"] for label in record["labels"].values()]
    assert kinds.count("callout") <= 10, kinds.count("callout")
    assert kinds.count("inside") >= 39  # every state MAPWise labels inside but the small north-eastern ones
    for code in ("AL", "LA", "MS", "GA", "IL", "KY", "IN", "FL"):  # callouts before (22 of 47 labels)
        assert record["labels"][code]["kind"] == "inside", code


def test_labels_are_9_px_capitals_as_mapwise_prints_them(usa) -> None:
    """MAPWise's labels are 12 px type, 9 px capitals on all three page sizes; a label box is the glyph box
    padded by one pixel."""
    _, record = usa
    heights = [label["box"][3] - label["box"][1] - 2 for label in record["labels"].values()]
    assert np.median(heights) == pytest.approx(9, abs=0.5)


def test_inside_labels_have_no_halo(usa) -> None:
    """White text on a dark fill has no pixel darker than the fill around it, black text on a light fill none
    lighter (a halo of the other colour would put one there)."""
    pixels, record = usa
    checked = 0
    for code, label in record["labels"].items():
        if label["kind"] != "inside":
            continue
        x, y = (int(v) for v in record["regions"][code]["sample"])
        fill = _luminance(pixels[y, x])
        x1, y1, x2, y2 = (int(round(v)) for v in label["box"])
        inside = _luminance(pixels[y1:y2, x1:x2])
        text_is_white = inside.max() > fill + 40
        if text_is_white:
            assert inside.min() >= fill - 12, code
        else:
            assert inside.max() <= fill + 12, code
        checked += 1
    assert checked >= 39


def test_the_legend_has_mapwise_s_12_px_squares(usa) -> None:
    _, record = usa
    for item in record["legend_items"]:
        x1, y1, x2, y2 = item["swatch"]
        assert x2 - x1 == pytest.approx(12, abs=1) and y2 - y1 == pytest.approx(12, abs=1), item


def _black_and_white(pixels: np.ndarray) -> None:
    spread = pixels.max(axis=2) - pixels.min(axis=2)
    assert spread.max() <= 2, f"{(spread > 2).sum()} coloured pixels"


def _faces_are_white(pixels: np.ndarray, record: dict) -> None:
    """Every hatched region with a value shows white between its hatch lines (black ink on a white face, not on
    a grey one): at least a fifth of the pixels of every legible region over 400 px are pure white."""
    mask = np.asarray(Image.open(record["_mask"]))
    for code, mask_id in record["render"]["mask_ids"].items():
        values = pixels[mask == mask_id][:, 0]
        readable = record["regions"][code]["legible"] and len(values) >= 400
        if not readable or record["spec"]["values"].get(code) is None:
            continue
        assert (values == 255).mean() >= 0.2, (code, (values == 255).mean())


def test_hatched_maps_are_black_and_white_and_unlabelled(tmp_path: Path) -> None:
    pixels, record = _cli_render(tmp_path, "h", "usa", "--stat", "population_2020", "--hatched")
    _black_and_white(pixels)
    assert record["labels"] == {} and record["spec"]["style"]["annotated"] is False
    _faces_are_white(pixels, record | {"_mask": tmp_path / "h.mask.png"})
    with_labels, forced = _cli_render(tmp_path, "forced", "usa", "--stat", "population_2020", "--hatched",
                                      "--annotated")
    assert forced["labels"] and not np.array_equal(with_labels, pixels)  # --annotated still draws them
    # without the labels of colour maps the small north-eastern states keep room for their pattern (on the
    # shoreline-clipped USA the labels no longer cost any state its legibility: no fewer, not strictly more)
    legible = {c for c, r in record["regions"].items() if r["legible"]}
    assert legible >= {c for c, r in forced["regions"].items() if r["legible"]}


def test_the_build_draws_mapwise_hatched_maps_black_and_white_without_labels(tmp_path: Path) -> None:
    from mapgen.build import build

    config = {"name": "mw", "seed": 3, "countries": [{"name": "china", "maps": 1}],
              "variants": {"styles": ["mapwise"], "unannotated": False}, "legend": {"types": ["discrete"]},
              "questions": {"per_template": 1, "per_image": 2}, "tasks": ["vqa"]}
    out = tmp_path / "bench"
    build(config, out, progress=False)
    maps = [json.loads(line) for line in (out / "maps.jsonl").read_text(encoding="utf-8").splitlines()]
    hatched = [m for m in maps if m["hatched"]]
    assert hatched and all(m["annotated"] is False for m in hatched)
    assert any(m["annotated"] for m in maps if not m["hatched"])
    for m in hatched:
        image = out / m["image"]
        record = json.loads(image.with_suffix(".json").read_text(encoding="utf-8"))
        pixels = np.asarray(Image.open(image).convert("RGB"), dtype=int)
        _black_and_white(pixels)
        _faces_are_white(pixels, record | {"_mask": image.with_suffix(".mask.png")})


@pytest.mark.skipif(not MAPWISE_PNGS.is_dir(), reason="MAPWise's repository slice (../shared/reference) not available")
@pytest.mark.parametrize("country", ["usa", "india", "china"])
def test_pages_are_mapwise_s_sizes(country: str, tmp_path: Path) -> None:
    sizes = {Image.open(p).size for p in (MAPWISE_PNGS / country / "with_annotations").glob("*.png")}
    assert len(sizes) == 1
    out = tmp_path / f"{country}.png"
    result = CliRunner().invoke(main, ["render", country, "--stat", STATS[country], "--style", "mapwise", "-o",
                                       str(out)])
    assert result.exit_code == 0, result.output
    assert Image.open(out).size == sizes.pop()


def test_one_figure_draws_colour_and_hatched_maps_in_turn_byte_for_byte(tmp_path: Path) -> None:
    """The second map a figure draws is composited, not drawn by Agg: the same bytes either way, and a colour
    map after a hatched one (its own look: page, panel, legend) is as before."""
    spec = make_spec("china", "population_2020", **load_style("mapwise").spec_defaults("china"))
    hatched = hatched_variant(spec)
    first, second, third, fourth = (render(s, tmp_path / f"{i}.png").image.read_bytes()
                                    for i, s in enumerate([spec, hatched, spec, hatched]))
    assert first == third and second == fourth and first != second


def test_a_style_s_hatched_changes_cannot_move_the_page(tmp_path: Path) -> None:
    with pytest.raises(StyleError, match=r"^s.yaml: hatched\.title\.band: a hatched map keeps its colour sibling's "
                                         r"page layout; set it for every map instead$"):
        parse_style("hatched: {title: {band: 0.1}}\n", "s.yaml")
    with pytest.raises(StyleError, match=r"^s.yaml: hatched: unknown key 'legend\.text_colr' \(did you mean "
                                         r"'legend\.text_color'\?\)"):
        parse_style("hatched: {legend: {text_colr: black}}\n", "s.yaml")
    with pytest.raises(StyleError, match=r"^s.yaml: fonts\.labels: unknown font family 'Arial'"):
        parse_style("fonts: {labels: Arial}\n", "s.yaml")
    look = parse_style("hatched: {title: {color: '#ff0000'}}\nhatch_fill: white\n", "s.yaml")
    assert look.for_hatched().title.color == "#ff0000" and look.title.color == "#000000"
    bad = tmp_path / "bad.yaml"
    bad.write_text("hatched: {sizes: {usa: [900, 600]}}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["render", "usa", "--stat", "population_2020", "--style", str(bad), "-o",
                                       str(tmp_path / "m.png")])
    assert result.exit_code == 2 and "hatched.sizes: a hatched map keeps" in result.output
    assert "Traceback" not in result.output


def test_the_plotly_figure_draws_the_hatched_look_without_labels() -> None:
    from mapgen.render.api import get_canvas
    from mapgen.render.plotly_renderer import build_figure

    spec = make_spec("usa", "population_2020", **load_style("mapwise").spec_defaults("usa"))
    colour, _, labels = build_figure(spec, get_canvas(spec.load_atlas(), spec.style))
    assert labels and not any("shadow" in t.get("textfont", {}) for t in colour["data"])  # no halo
    assert colour["layout"]["paper_bgcolor"] == "#d9d9d9"
    hatched = hatched_variant(spec)
    figure, _, labels = build_figure(hatched, get_canvas(hatched.load_atlas(), hatched.style))
    assert labels == {} and figure["layout"]["paper_bgcolor"] == "#ffffff"
    assert figure["layout"]["annotations"][0]["font"]["color"] == "#000000"
    faces = {t["fillcolor"] for t in figure["data"] if t.get("fill") == "toself" and t.get("fillpattern")}
    assert faces == {"#ffffff"}


def test_the_oracle_reads_every_legible_region_of_a_white_faced_hatched_map(tmp_path: Path) -> None:
    """With every face white, classes differ by pattern alone: the legend's patches must be tall enough to read
    (with MAPWise's 40×13 px patches the oracle took India's '-' class for '+')."""
    from mapgen.audit.oracle import rendered_oracle_map

    spec = make_spec("india", "area_km2", classes=5, **load_style("mapwise").spec_defaults("india"))
    oracle = rendered_oracle_map(render(hatched_variant(spec), tmp_path / "h.png"))
    legible = [c for c, f in oracle.truth.regions.items() if f.legible]
    assert len(legible) >= 25
    assert all(oracle.scene.regions[c].class_index == oracle.truth.regions[c].class_index for c in legible)
