"""``mapgen render`` has no traps (issue 30, item 5): options given with a map JSON apply or are refused, no
output overwrites an input, tables report every unknown and every left-out region, titles are readable, several
maps render in one call; and the pieces that make one call fast (issue 30, item 7) change no output."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mapgen.cli import main
from mapgen.data.user_tables import OmittedRegionWarning, load_table
from mapgen.spec import load_spec


def invoke(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def spec_json(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("spec") / "X.json"
    code, out = invoke("spec", "usa", "--stat", "population_2020", "-o", path)
    assert code == 0, out
    return path


def _rendered(folder: Path):
    (json_file,) = [p for p in folder.glob("*.json")]
    return load_spec(json_file)


def test_colour_options_on_a_spec_json_are_applied(spec_json: Path, tmp_path: Path) -> None:
    code, out = invoke("render", spec_json, "--colormap", "Reds", "--title", "Hello", "-o", tmp_path)
    assert code == 0, out
    spec, before = _rendered(tmp_path), load_spec(spec_json)
    assert spec.legend.colormap == "Reds" and spec.title == "Hello"  # were silently ignored
    assert [c.upper for c in spec.legend.classes] == [c.upper for c in before.legend.classes]  # classes kept
    assert [c.color for c in spec.legend.classes] != [c.color for c in before.legend.classes]


def test_classification_options_on_a_spec_json_classify_again(spec_json: Path, tmp_path: Path) -> None:
    code, out = invoke("render", spec_json, "--classes", "3", "-o", tmp_path / "a")
    assert code == 0, out
    assert _rendered(tmp_path / "a").legend.k == 3
    code, out = invoke("render", spec_json, "--legend", "continuous", "-o", tmp_path / "b")
    assert code == 0, out
    assert _rendered(tmp_path / "b").legend.kind == "continuous"
    code, out = invoke("render", spec_json, "--breaks", "1e6,5e6,1e7", "-o", tmp_path / "c")
    assert code == 0, out
    assert _rendered(tmp_path / "c").legend.breaks[:3] == (1e6, 5e6, 1e7)


def test_the_legibility_check_tests_the_new_colours(spec_json: Path, tmp_path: Path) -> None:
    code, out = invoke("render", spec_json, "--colormap", "Pastel1", "-o", tmp_path)  # two classes share #decbe4 (RdBu now draws: diverging classes are outlined)
    assert code == 2 and "illegible colours" in out
    assert not list(tmp_path.iterdir())


def test_options_that_cannot_apply_to_a_spec_json_are_refused_by_name(spec_json: Path, tmp_path: Path) -> None:
    code, out = invoke("render", spec_json, "--region-col", "state", "-o", tmp_path)
    assert code == 2 and "--region-col" in out
    code, out = invoke("spec", "usa", "--stat", "population_2020", "--hatched", "-o", tmp_path / "h.json")
    assert code == 0, out
    code, out = invoke("render", tmp_path / "h.json", "--colormap", "Reds", "-o", tmp_path / "out")
    assert code == 2 and "--colormap" in out and "hatched" in out


def test_a_render_never_overwrites_its_source(spec_json: Path) -> None:
    before = spec_json.read_bytes()
    code, out = invoke("render", spec_json, "-o", spec_json.with_suffix(".png"))
    assert code == 2 and "overwrite" in out
    assert spec_json.read_bytes() == before and not spec_json.with_suffix(".png").exists()


def test_a_render_never_overwrites_its_table(tmp_path: Path) -> None:
    table = tmp_path / "t.json"
    table.write_text("not a table")
    csv = tmp_path / "t.csv"
    csv.write_text("state,value\nCalifornia,1\nTexas,2\nOhio,3\nUtah,4\n")
    code, out = invoke("render", "usa", "--data", csv, "--style", "default", "-o", tmp_path / "t.png")
    assert code == 0, out  # t.json is not an input: replaced
    code, out = invoke("render", "usa", "--data", csv, "-o", tmp_path / "t.csv-metadata.png")
    assert code == 0, out
    sidecar = tmp_path / "t.csv-metadata.json"
    sidecar.write_text(json.dumps({"mapgen_stat": {"title": "Seats"}}))
    code, out = invoke("render", "usa", "--data", csv, "-o", tmp_path / "t.csv-metadata.png")
    assert code == 2 and "overwrite" in out and json.loads(sidecar.read_text()) == {"mapgen_stat": {"title": "Seats"}}


def test_every_unknown_region_name_is_listed_at_once(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("state,value\nCalifornia,1\nKalifornia,2\nTexas,3\nTexsa,4\n")
    code, out = invoke("render", "usa", "--data", table, "-o", tmp_path / "m.png")
    assert code == 2
    assert "2 unknown" in out and "line 3 'Kalifornia' (did you mean 'California'" in out
    assert "line 5 'Texsa' (did you mean 'Texas'" in out


def test_the_regions_a_table_leaves_out_are_named_in_one_warning(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("state,value\nCalifornia,1\nTexas,3\nOhio,2\n")
    with pytest.warns(OmittedRegionWarning) as caught:
        load_table(table, "usa")
    (warning,) = [w for w in caught if w.category is OmittedRegionWarning]
    assert "leaves out 48 of 51" in str(warning.message) and "WY (Wyoming)" in str(warning.message)
    result = CliRunner().invoke(main, ["render", "usa", "--data", str(table), "-o", str(tmp_path / "m.png")])
    lines = [line for line in result.output.splitlines() if "leaves out" in line]
    assert result.exit_code == 0 and len(lines) == 1 and lines[0].startswith("Warning:")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_table(table, "usa", on_missing="ignore")


def test_the_default_title_is_readable_never_a_raw_column_name(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("state,pop_2020\nCalifornia,39\nTexas,29\nOhio,11\nUtah,3\n")
    stat = load_table(table, "usa", on_missing="ignore")
    assert stat.info.display_title == "Population, 2020" and stat.id == "pop_2020"
    table.write_text("state,population_2020\nCalifornia,39\nTexas,29\nOhio,11\nUtah,3\n")
    assert load_table(table, "usa", on_missing="ignore").info.display_title == \
        "Resident population, 2020 Census (people)"  # the catalogue's title
    named = tmp_path / "literacy_rate.csv"
    named.write_text("state,value\nCalifornia,39\nTexas,29\nOhio,11\nUtah,3\n")
    assert load_table(named, "usa", on_missing="ignore").title == "Literacy rate"


def test_several_sources_and_a_csv_of_specs_render_in_one_call(spec_json: Path, tmp_path: Path) -> None:
    code, out = invoke("render", spec_json, "usa", "-o", tmp_path / "one.png")
    assert code == 2 and "folder" in out
    specs = tmp_path / "specs.csv"
    specs.write_text("source,stat,colormap,classes,output\n"
                     f"usa,land_area_sq_mi,Greens,4,land.png\n{spec_json},,Purples,,x.png\nindia,literacy_2011,,3,\n")
    code, out = invoke("render", specs, "-o", tmp_path / "batch")
    assert code == 0, out
    land, x = load_spec(tmp_path / "batch" / "land.json"), load_spec(tmp_path / "batch" / "x.json")
    assert (land.stat.id, land.legend.colormap, land.legend.k) == ("land_area_sq_mi", "Greens", 4)
    assert x.legend.colormap == "Purples" and x.stat.id == "population_2020"
    assert len(list((tmp_path / "batch").glob("india-literacy_2011-*.json"))) == 1
    specs.write_text("source,colour\nusa\n")
    code, out = invoke("render", specs, "-o", tmp_path / "bad")
    assert code == 2 and "unknown column(s) colour" in out


def test_quantiles_and_equal_intervals_are_mapclassifys_own_floats() -> None:
    import mapclassify as mc

    from mapgen.legend.classify import classify

    rng = np.random.default_rng(1)
    for n in range(2, 60):
        for y in (rng.lognormal(3, 2, n), rng.integers(0, 6, n).astype(float), np.round(rng.normal(0, 1, n), 2)):
            if len(np.unique(y)) < 2:
                continue
            for k in (3, 5, 8):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for scheme in ("quantiles", "equal_interval"):
                        expected = np.unique(np.asarray(mc.classify(y, scheme, k=k).bins, dtype=float))
                        assert np.array_equal(classify(y, k, scheme), expected)


def test_a_canvas_read_from_the_disk_cache_draws_the_same_bytes(tmp_path: Path, monkeypatch, fresh_caches) -> None:
    from mapgen.caches import clear_all
    from mapgen.render import api
    from mapgen.render.canvas_cache import cache_dir
    from mapgen.spec import make_spec

    monkeypatch.setenv("MAPGEN_CANVAS_CACHE", str(tmp_path / "cache"))
    spec = make_spec("usa", "population_2020", width=640, height=480)
    fresh = api.render(spec, tmp_path / "a.png")
    assert len(list((tmp_path / "cache").glob("usa-*.pickle"))) == 1 and cache_dir() == tmp_path / "cache"
    clear_all()
    monkeypatch.setattr(api, "build_canvas", lambda *a: pytest.fail("the canvas was computed again"))
    cached = api.render(spec, tmp_path / "b.png")
    assert cached.png == fresh.png and (tmp_path / "a.mask.png").read_bytes() == (tmp_path / "b.mask.png").read_bytes()
    assert cached.record == fresh.record
    monkeypatch.setenv("MAPGEN_CANVAS_CACHE", "off")
    assert cache_dir() is None
