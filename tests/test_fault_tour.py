"""Findings of the fault tour (benchmarks/fault_tour.py, issue 28 "Done when"): each bad input gets one line
naming the input and the fix, exit 2, and nothing is written — into a benchmark, over an input, or at all.

The inputs are real artefacts the code made: a tiny `mapgen build`, a `mapgen render` and a `mapgen spec`."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import build_tiny, write_grid

from mapgen.cli import main

TINY = {"name": "tour-test", "seed": 3, "countries": [{"name": "usa", "maps": 1}],
        "counterfactual": {"country": "usa", "maps": 0}, "questions": {"per_image": 4},
        "variants": {"unannotated": False, "hatched": False}}
ROOT = Path(__file__).resolve().parents[1]


def run(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def error_line(*args: object, code: int = 2) -> str:
    """The one error line of a refused command (warnings and click's usage preamble aside)."""
    exit_code, output = run(*args)
    lines = [line for line in output.splitlines()
             if line.strip() and not line.startswith(("Warning:", "Usage:", "Try '"))]
    assert exit_code == code and len(lines) == 1 and lines[0].startswith("Error: "), output
    return lines[0]


def listing(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    return build_tiny(tmp_path_factory, TINY, "tour")


@pytest.fixture(scope="module")
def render_json(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("render") / "map.png"
    code, output = run("render", "usa", "--stat", "population_2020", "-o", out)
    assert code == 0, output
    return out.with_suffix(".json")


@pytest.fixture(scope="module")
def spec_json(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("spec") / "spec.json"
    code, output = run("spec", "usa", "--stat", "population_2020", "-o", out)
    assert code == 0, output
    return out


# ------------------------------------------------------------------------------ nothing written into a benchmark


@pytest.mark.parametrize("command", [
    lambda b, m: ["export", b, "--format", "jsonl", "-o", b / "exported"],
    lambda b, m: ["counterfactual", m, "--kind", "imaginary", "-o", b / "cf"],
    lambda b, m: ["describe", m, "--records", b],
], ids=["export", "counterfactual", "describe-records"])
def test_no_command_writes_into_a_benchmark(bench: Path, render_json: Path, tmp_path: Path, command) -> None:
    copy = tmp_path / "bench"
    shutil.copytree(bench, copy)
    before = listing(copy)
    line = error_line(*command(copy, render_json))
    assert "benchmark folder" in line and "outside it" in line, line
    assert listing(copy) == before  # describe --records wrote captions.jsonl over the benchmark's own


@pytest.mark.parametrize("command", ["questions", "describe"])
def test_output_over_the_input_map_is_refused(render_json: Path, tmp_path: Path, command: str) -> None:
    source = tmp_path / "m.json"
    shutil.copy(render_json, source)
    line = error_line(command, source, "-o", source)
    assert str(source) in line and "overwrite the input" in line, line
    assert source.read_bytes() == render_json.read_bytes()


# ------------------------------------------------------------------------------ options named with their fix


@pytest.mark.parametrize(("options", "named", "fix"), [
    (["--classes", "2"], "--classes", "--classes 5"),
    (["--breaks", "3e7,2e7,1e7"], "--breaks", "1,2,3"),
    (["--breaks", "1e400"], "--breaks", "1,2,3"),
    (["--legend", "continuous", "--scale", "clip", "--clip", "98,2"], "--clip", "--clip 2,98"),
    (["--legend", "continuous", "--midpoint", "nan"], "--midpoint", "--midpoint 0"),
    (["--legend", "continuous", "--midpoint", "1e308"], "--midpoint", "range"),
    (["--size", "0x0"], "--size", "--size 800x600"),
    (["--size", "100000x100000"], "--size", "--size 800x600"),
])
def test_render_options_are_named_with_their_fix(tmp_path: Path, options: list[str], named: str, fix: str) -> None:
    line = error_line("render", "usa", "--stat", "population_2020", *options, "-o", tmp_path / "out.png")
    assert named in line and fix in line, line
    assert not any(tmp_path.iterdir())


def test_spec_refuses_a_negative_seed(tmp_path: Path) -> None:
    line = error_line("spec", "usa", "--stat", "population_2020", "--seed", "-1", "-o", tmp_path / "s.json")
    assert "--seed" in line, line
    assert not any(tmp_path.iterdir())


def test_counterfactual_needs_a_kind(render_json: Path, tmp_path: Path) -> None:
    line = error_line("counterfactual", render_json, "--kind", "", "-o", tmp_path / "cf")
    assert "--kind" in line and "imaginary" in line, line
    assert not (tmp_path / "cf").exists()  # wrote a set of the original maps only


@pytest.mark.parametrize(("options", "named"), [(["--low", "10", "--high", "1"], "--low"),
                                                (["--missing", "1000"], "--missing")])
def test_stats_synth_names_its_options(tmp_path: Path, options: list[str], named: str) -> None:
    line = error_line("stats", "synth", "usa", *options, "-o", tmp_path / "t.csv")
    assert named in line and ("give" in line or "swap" in line), line
    assert not any(tmp_path.iterdir())


# ------------------------------------------------------------------------------ files read name themselves


def _no_spec_values(spec_json: Path, path: Path) -> Path:
    data = json.loads(spec_json.read_text(encoding="utf-8"))
    del data["values"]
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("make", [
    lambda d, s, b: (d / "x.png").write_bytes(b"\x89PNG\r\n\x1a\n") and d / "x.png",
    lambda d, s, b: (d / "x.json").write_text("[1, 2]") and d / "x.json",
    lambda d, s, b: _no_spec_values(s, d / "x.json"),
    lambda d, s, b: b / "questions.jsonl",
], ids=["png", "json-list", "spec-without-values", "questions-jsonl"])
def test_a_file_that_is_no_map_json_is_named(tmp_path: Path, spec_json: Path, bench: Path, make) -> None:
    path = make(tmp_path, spec_json, bench)
    for command in (["scene", path], ["questions", path]):
        line = error_line(*command)
        assert str(path) in line and "`mapgen spec` or `mapgen render`" in line, line


def test_broken_metadata_json_is_named(tmp_path: Path) -> None:
    meta = tmp_path / "meta.json"
    meta.write_text("{broken", encoding="utf-8")
    line = error_line("spec", "--from-metadata", meta)
    assert str(meta) in line and "not valid JSON" in line, line


def test_a_damaged_manifest_names_the_file_and_the_fix(bench: Path, tmp_path: Path) -> None:
    copy = tmp_path / "bench"
    shutil.copytree(bench, copy)
    (copy / "manifest.json").write_text("{garbage", encoding="utf-8")
    line = error_line("report", copy, "-o", tmp_path / "site")
    assert "manifest.json" in line and "--force" in line, line
    assert not (tmp_path / "site").exists()


def test_a_folder_that_is_no_benchmark_names_the_fix(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    line = error_line("audit", tmp_path / "empty", "-o", tmp_path / "out", "--quiet")
    assert "mapgen build" in line, line


def test_a_yaml_tab_is_named(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("seed: 1\nquestions:\n\tper_image: 2\n", encoding="utf-8")
    line = error_line("build", config, "-o", tmp_path / "out")
    assert str(config) in line and "spaces, not tabs" in line, line
    assert not (tmp_path / "out").exists()


def test_many_unknown_regions_are_listed_briefly_and_fast(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("region,value\n" + "".join(f"Nowhere {i},{i}\n" for i in range(3000)), encoding="utf-8")
    start = time.perf_counter()
    line = error_line("render", "usa", "--data", table, "-o", tmp_path / "out.png")
    assert time.perf_counter() - start < 30  # a 'did you mean' search per row: 200,000 rows took minutes
    assert "3000 unknown" in line and "(2992 more)" in line and len(line) < 2000, line[:300]


# ------------------------------------------------------------------------------ eval and report inputs


def _ids(bench: Path) -> list[str]:
    lines = (bench / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question_id"] for line in lines if line.strip()]


def test_eval_refuses_a_prompt_no_model_is_sent(bench: Path, tmp_path: Path) -> None:
    line = error_line("eval", bench, "--baseline", "random", "--prompt", "cot", "-o", tmp_path / "out")
    assert "--prompt cot applies to --model only" in line, line
    assert not (tmp_path / "out").exists()


def test_eval_refuses_a_model_no_request_reached(bench: Path, tmp_path: Path) -> None:
    line = error_line("eval", bench, "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1", "--retries", "0",
                      "--timeout", "3", "--api-key-env", "HOME", "--no-plots", "-o", tmp_path / "out")
    assert "127.0.0.1:9" in line and "--base-url" in line, line  # exit 0 with a report of score 0 before
    assert not (tmp_path / "out").exists()


def test_eval_asks_for_an_api_key_before_waiting_on_openai(bench: Path, tmp_path: Path, monkeypatch) -> None:
    for name in ("OPENAI_API_KEY", "MAPGEN_API_KEY", "OPENAI_BASE_URL", "MAPGEN_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    start = time.perf_counter()
    line = error_line("eval", bench, "--model", "gpt4", "-o", tmp_path / "out")
    assert "no API key" in line and "--base-url" in line, line
    assert time.perf_counter() - start < 30  # it waited out 4 × 120 s timeouts without a network


def test_predictions_without_any_text_are_refused(bench: Path, tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"question_id": i}) + "\n" for i in _ids(bench)), encoding="utf-8")
    line = error_line("eval", bench, "--predictions", path, "-o", tmp_path / "out")
    assert str(path) in line and "no prediction text" in line and '"prediction"' in line, line
    assert not (tmp_path / "out").exists()


def test_a_prediction_line_that_is_not_utf8_is_located(bench: Path, tmp_path: Path) -> None:
    ids = _ids(bench)
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"question_id": "\xff", "prediction": "x"}\n'
                     + "".join(json.dumps({"question_id": i, "prediction": "Yes"}) + "\n" for i in ids).encode())
    code, output = run("eval", bench, "--predictions", path, "--no-plots", "-o", tmp_path / "out")
    assert code == 0 and f"{path}:1: not valid JSON (not UTF-8 text" in output, output  # was: 'utf-8' codec …


@pytest.mark.parametrize("option", ["--eval", "--audit"])
def test_report_refuses_a_folder_no_report_wrote(bench: Path, tmp_path: Path, option: str) -> None:
    (tmp_path / "other").mkdir()
    line = error_line("report", bench, "-o", tmp_path / "site", option, tmp_path / "other")
    assert f"{option} {tmp_path / 'other'}" in line and "-o` wrote" in line, line
    assert not (tmp_path / "site").exists()


def test_a_repeated_column_name_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("region,value,value\nTexas,1,2\nOhio,3,4\n", encoding="utf-8")
    line = error_line("render", "usa", "--data", path, "-o", tmp_path / "out.png")
    assert f"{path} has two columns named 'value'; rename one or give --value-col" in line, line
    assert not (tmp_path / "out.png").exists()


def test_an_unknown_template_id_is_one_line_naming_the_config(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({**TINY, "questions": {"per_image": 4, "templates": ["legend_class_cout"]}}),
                      encoding="utf-8")
    line = error_line("build", config, "-o", tmp_path / "out", "--quiet")
    assert (f"{config}: questions.templates: no template 'legend_class_cout' (did you mean 'legend_class_count'"
            in line and "`mapgen templates list` lists them" in line), line
    assert not (tmp_path / "out").exists()


def test_a_config_that_is_not_utf8_is_named_with_the_fix(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_bytes(b"seed: 1\x00\x00\xff\xfe\n")
    line = error_line("build", config, "-o", tmp_path / "out", "--quiet")
    assert f"{config}: not UTF-8 text (byte 0xff at offset 9); save it as UTF-8" in line, line
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")
def test_a_folder_that_cannot_be_created_is_named_with_the_fix() -> None:
    line = error_line("spec", "usa", "--stat", "population_2020", "-o", "/proc/tour/spec.json", code=1)
    assert "cannot create the folder /proc/tour: " in line and "choose a folder you can write to (-o)" in line, line


def test_a_file_given_as_the_benchmark_is_named_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("hello\n", encoding="utf-8")
    line = error_line("eval", path, "--baseline", "random", "-o", tmp_path / "out")
    assert f"{path} is not a benchmark folder; give the folder `mapgen build` wrote" in line, line
    assert not (tmp_path / "out").exists()


def test_a_vector_file_without_its_suffix_is_named_with_the_fix(tmp_path: Path) -> None:
    geojson = json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": f"Cell {i}"},
         "geometry": {"type": "Polygon", "coordinates": [[[i, 0], [i + 1, 0], [i + 1, 1], [i, 1], [i, 0]]]}}
        for i in range(3)]})
    (tmp_path / "a.txt").write_text(geojson, encoding="utf-8")
    (tmp_path / "v.csv").write_text("region,value\nCell 0,1\nCell 1,2\nCell 2,3\n", encoding="utf-8")
    line = error_line("render", tmp_path / "a.txt", "--data", tmp_path / "v.csv", "-o", tmp_path / "out.png")
    assert f"{tmp_path / 'a.txt'}: a vector file needs a .geojson/.gpkg/.shp suffix; rename it" in line, line


def test_an_unknown_name_without_a_close_match_names_the_listing_command(tmp_path: Path) -> None:
    grid, _ = write_grid(tmp_path, n=2)
    line = error_line("atlas", "neighbors", grid, "Narnia")
    assert "Unknown region 'Narnia'" in line and f"; `mapgen atlas show {grid}` lists them" in line, line
    line = error_line("atlas", "group", "usa", "no_such_group")
    assert "Unknown region group 'no_such_group'" in line and "; `mapgen atlas group usa` lists them" in line, line
    assert "lists them" not in error_line("atlas", "group", "usa", "West Coats")  # a close match is enough


def test_ctrl_c_during_a_build_names_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mapgen.cli.build as cli_build

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # what Ctrl-C raises in the parent while the units are built

    monkeypatch.setattr(cli_build, "build", interrupted)
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps(TINY), encoding="utf-8")
    line = error_line("build", config, "-o", tmp_path / "b", "--quiet", code=1)
    assert f"interrupted; finish it with `mapgen build {config} -o {tmp_path / 'b'} --resume`" in line, line


def test_a_csv_saved_as_parquet_is_named_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    path.write_text("region,value\nTexas,1\nOhio,2\n", encoding="utf-8")
    line = error_line("render", "usa", "--data", path, "-o", tmp_path / "out.png")
    assert f"{path} is not a Parquet file; save it again as Parquet or give a CSV" in line, line


def test_an_audit_folder_holding_garbage_names_the_fix(bench: Path, tmp_path: Path) -> None:
    (tmp_path / "aud").mkdir()
    (tmp_path / "aud" / "audit.jsonl").write_text("garbage\n", encoding="utf-8")
    line = error_line("report", bench, "-o", tmp_path / "site", "--audit", tmp_path / "aud")
    # #37: a folder `mapgen audit` did not finish (no completion record) is refused before its files are read
    assert f"--audit {tmp_path / 'aud'} is not a finished folder of `mapgen audit`" in line, line
    assert "give the folder `mapgen audit -o` wrote" in line, line
    assert not (tmp_path / "site").exists()


# ------------------------------------------------------------------------------ the tour itself


def test_the_tour_runs_and_classifies(tmp_path: Path) -> None:
    """Three quick cases of benchmarks/fault_tour.py, so the script does not rot (the full tour takes minutes)."""
    spec = importlib.util.spec_from_file_location("fault_tour", ROOT / "benchmarks" / "fault_tour.py")
    assert spec is not None and spec.loader is not None
    tour = importlib.util.module_from_spec(spec)
    sys.modules["fault_tour"] = tour
    spec.loader.exec_module(tour)
    cases = {c.id: c for c in tour.all_cases()}
    assert len(cases) >= 150
    art = tour.Artefacts(tmp_path, tmp_path / "bench", tmp_path / "map.json", tmp_path / "spec.json",
                         tmp_path / "eval", tour.grid_geojson(tmp_path / "grid.geojson"), tmp_path / "grid.csv")
    rows = [tour.run_case(cases[i], art, 60.0) for i in ("C05", "R03", "A22")]
    assert [r.verdict for r in rows] == ["clear", "clear", "handled"], [(r.case.id, r.message) for r in rows]
    assert "| C05 | configs |" in tour.table(rows)
    pack = tour.run_case(cases["P06"], art, 60.0)  # `text: []`: each missing map type names the fix
    assert pack.verdict == "clear" and "; add a text: variant for it" in pack.message, pack.message
