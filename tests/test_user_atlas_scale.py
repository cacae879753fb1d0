"""User atlases at scale: 300+ regions get a correct border graph, render (16-bit mask) and fall back to
unannotated maps where labels cannot fit. Speed is measured in benchmarks/bench_user_atlas.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import shapely
from click.testing import CliRunner
from helpers import write_grid
from PIL import Image
from shapely.geometry import MultiPoint, box, mapping

from mapgen import load_atlas
from mapgen.cli import main


def voronoi(path: Path, n: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    frame = box(0, 30, 20, 44)
    points = MultiPoint(np.column_stack([rng.uniform(0, 20, n), rng.uniform(30, 44, n)]))
    cells = [c.intersection(frame) for c in shapely.voronoi_polygons(points, extend_to=frame).geoms]
    path.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": f"District {i + 1}"}, "geometry": mapping(c)}
        for i, c in enumerate(cells)]}))
    return path


def test_a_324_square_grid_has_the_grid_graph(tmp_path: Path) -> None:
    geo, _ = write_grid(tmp_path, n=18)
    atlas = load_atlas(geo)
    degrees = sorted(d for _, d in atlas.graph.degree())
    # 4 corners with 2 edge neighbours, 64 border cells with 3, 256 inner cells with 4; no corner contacts
    assert degrees == [2] * 4 + [3] * 64 + [4] * 256
    assert atlas.graph.number_of_edges() == 2 * 18 * 17


def test_many_regions_render_with_a_16_bit_mask_and_fall_back_to_unannotated(tmp_path: Path) -> None:
    geo = voronoi(tmp_path / "districts.geojson", 324)
    run = CliRunner().invoke
    assert run(main, ["stats", "synth", str(geo), "--seed", "1", "-o", str(tmp_path / "d.csv")]).exit_code == 0
    result = run(main, ["render", str(geo), "--data", str(tmp_path / "d.csv"), "-o", str(tmp_path / "d.png")])
    assert result.exit_code == 0, result.output
    assert "unannotated" in result.output
    record = json.loads((tmp_path / "d.json").read_text())
    assert record["spec"]["style"]["annotated"] is False
    mask = np.asarray(Image.open(tmp_path / "d.mask.png"))
    ids = set(np.unique(mask).tolist()) - {0}
    assert max(ids) > 255 and ids <= set(record["render"]["mask_ids"].values())
    # the pixel under each region's sample point carries that region's id
    for code, facts in list(record["regions"].items())[::25]:
        x, y = (int(round(v)) for v in facts["sample"])
        assert mask[y, x] == record["render"]["mask_ids"][code]
    forced = run(main, ["render", str(geo), "--data", str(tmp_path / "d.csv"), "--annotated",
                        "-o", str(tmp_path / "f.png")])
    assert forced.exit_code == 0 and json.loads((tmp_path / "f.json").read_text())["spec"]["style"]["annotated"]


def test_builds_draw_such_an_atlas_unannotated(tmp_path: Path) -> None:
    from mapgen.build import unit_variants
    from mapgen.build.plan import plan
    from mapgen.config import load_config

    voronoi(tmp_path / "districts.geojson", 324)
    (tmp_path / "c.yaml").write_text("countries:\n  - name: districts.geojson\n    maps: 1\n"
                                     "    statistics: {synthetic: {count: 1}}\nlegend: {types: [discrete]}\n")
    config = load_config(tmp_path / "c.yaml")
    variants = dict(unit_variants(plan(config)[0], config))
    assert "annotated" not in variants and not variants["unannotated"].style.annotated
    assert "hatched" in variants and not variants["hatched"].style.annotated
    # the small grid keeps its labels
    write_grid(tmp_path / "g", n=4)
    (tmp_path / "g" / "c.yaml").write_text("countries:\n  - name: grid.geojson\n    maps: 1\n"
                                           "    statistics: {synthetic: {count: 1}}\nlegend: {types: [discrete]}\n")
    config = load_config(tmp_path / "g" / "c.yaml")
    assert dict(unit_variants(plan(config)[0], config))["annotated"].style.annotated
