"""Property-based fuzzing (hypothesis) of the CLI's input contract: tables, user atlases (GeoJSON), build
configs, template packs and prediction files.

The contract (issue 28 item 8): a bad input ends with exit 1 or 2, one line naming the input, no Python
traceback and nothing left behind in the output folder; an input that is accepted gives exit 0 and a result,
and a build from accepted inputs is a benchmark ``mapgen audit`` passes. Every property drives the real CLI
(``mapgen.cli.main``) through click's ``CliRunner``; examples are derandomized (the same every run, so CI never
flakes) and counted so that the whole file stays near 35 s of CPU.
"""

from __future__ import annotations

import copy
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from helpers import build_tiny
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mapgen.cli import main

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,  # same examples every run: CI never flakes
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

TINY: dict[str, Any] = {
    "name": "fuzz-tiny",
    "seed": 5,
    "countries": [{"name": "usa", "maps": 1}],
    "counterfactual": {"country": "usa", "maps": 0},
    "questions": {"per_image": 4},
}


def fresh(tmp_path: Path) -> Path:
    """A new folder for one hypothesis example (``tmp_path`` is shared by all examples of a test)."""
    return Path(tempfile.mkdtemp(dir=tmp_path))


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def error_lines(result) -> list[str]:
    """The non-blank, non-warning lines of a run's output (stdout and stderr)."""
    return [line for line in result.output.splitlines() if line.strip() and not line.startswith("Warning:")]


def assert_refused(result, name: str) -> None:
    """Exit 1 or 2, exactly one error line naming ``name``, no traceback."""
    assert result.exit_code in (1, 2), (result.exit_code, result.output)
    assert "Traceback" not in result.output, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    lines = error_lines(result)
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert name in lines[0], lines[0]


def no_crash(result) -> None:
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)


# --------------------------------------------------------------------------------------------------- tables

REGIONS = ["Texas", "TX", "ohio", " New York ", "Calif.", "Texs", "Narnia", "", "Washington, D.C.", "Hawai'i"]
GOOD_REGIONS = ["Texas", "Ohio", "Maine", "Utah", "Iowa", "Idaho", "Nevada", "Oregon"]
NUMBERS = ["3", "-4.5", "1,234", "1.234,5", "1e3", "1E-400", "1e400", "inf", "nan", "N/A", "", "12%", "$5",
           "0x1F", "٣", "  7 ", "+2", "1_000", "--1", "×"]
HEADERS = [("region", "value"), ("state", "pop"), ("", ""), ("value", "region"), ("region", "region"),
           ("région", "valeur"), ("a,b", "c")]


@st.composite
def table_bytes(draw) -> bytes:
    """CSV-ish bytes: a random header, delimiter, rows of region spellings and odd numbers, an encoding."""
    delimiter = draw(st.sampled_from([",", ",", ";", "\t", "|", " "]))
    header = draw(st.one_of(st.just(HEADERS[0]), st.sampled_from(HEADERS),
                            st.tuples(st.text(max_size=6), st.text(max_size=6))))
    if draw(st.booleans()):  # a well-formed body: distinct known regions, integer values
        regions = draw(st.lists(st.sampled_from(GOOD_REGIONS), min_size=2, max_size=6, unique=True))
        rows = [(r, draw(st.integers(-1000, 1000).map(str))) for r in regions]
    else:
        rows = draw(st.lists(st.tuples(st.sampled_from(REGIONS), st.sampled_from(NUMBERS)), max_size=6))
    extra = draw(st.sampled_from(["", "\n", "\n\n", "\r\n"]))
    lines = [delimiter.join(header)] + [delimiter.join(row) for row in rows]
    text = "\n".join(lines) + extra
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252"]))
    return text.encode(encoding, errors="replace")


@SETTINGS
@given(data=table_bytes())
def test_fuzz_table_render_refuses_in_one_line_or_draws(tmp_path: Path, data: bytes) -> None:
    tmp_path = fresh(tmp_path)
    table = tmp_path / "fuzz_table.csv"
    table.write_bytes(data)
    out = tmp_path / "out" / "map.png"
    result = run("render", "usa", "--data", str(table), "-o", str(out))
    if result.exit_code == 0:
        no_crash(result)
        assert out.exists(), result.output
    else:
        assert_refused(result, "fuzz_table.csv")
        assert not out.exists()
        assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


# -------------------------------------------------------------------------------------------------- configs

# (path into the config, values that break it); each example sets one field of TINY to one bad value
BAD_FIELDS: list[tuple[tuple[Any, ...], list[Any]]] = [
    (("seed",), ["five", 1.5, -1, [], {}, None, True]),
    (("name",), [5, [], {"a": 1}]),
    (("countries",), [[], "usa", {"name": "usa"}, None, [{"name": "narnia", "maps": 1}]]),
    (("countries", 0, "maps"), [0, -2, "two", 1.5, None, []]),
    (("countries", 0, "name"), [3, None, "", "Atlantis"]),
    (("countries", 0, "labels"), ["both", 1]),
    (("countries", 0, "colour"), ["red"]),
    (("questions", "per_image"), [-1, "many", 2.5, 10**9]),
    (("questions", "max_answer_share"), [0, 1.5, "half"]),
    (("questions", "templates"), ["some", 3, [1, 2]]),
    (("legend", "classes"), [[2], [9], [], "five", [3.5]]),
    (("legend", "schemes"), [["jenks"], "quantiles", []]),
    (("variants", "png_compress_level"), [10, -1, "max"]),
    (("variants", "renderers"), [["bokeh"], []]),
    (("split", "ratios"), [{"train": "half"}, "train", [], {"test": -1}]),
    (("counterfactual", "kinds"), [["imaginary", "bogus"], [], "shuffled"]),
    (("audit",), ["sometimes", 1, True]),
    (("tasks",), ["qa", [3], ["no-such-task"]]),
    (("unknown_key",), [1]),
    (("questions", "unknown_key"), [1]),
]


@st.composite
def bad_config(draw) -> tuple[dict[str, Any], str]:
    """TINY with one field set to one bad value, and a description of the change."""
    path, values = draw(st.sampled_from(BAD_FIELDS))
    value = draw(st.sampled_from(values))
    config = copy.deepcopy(TINY)
    node: Any = config
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
    node[path[-1]] = value
    return config, f"{'.'.join(map(str, path))} = {value!r}"


@SETTINGS
@given(case=bad_config())
def test_fuzz_bad_config_is_refused_before_building(tmp_path: Path, case) -> None:
    tmp_path = fresh(tmp_path)
    config, change = case
    path = tmp_path / "fuzz_config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    out = tmp_path / "bench"
    result = run("build", str(path), "-o", str(out), "--quiet")
    assert result.exit_code == 2, (change, result.exit_code, result.output)
    assert_refused(result, "fuzz_config.yaml")
    assert not out.exists() or not any(out.iterdir()), (change, sorted(p.name for p in out.iterdir()))


# ------------------------------------------------------------------------------------------------ templates

LINT_SECONDS = 10.0
KEYS = ["id", "answer_type", "params", "text", "program", "uses", "map_types", "vqa_type", "tags", "bogus"]
VALUES = st.one_of(
    st.sampled_from(["binary", "single", "count", "X", "Region", "{{ X }}", "{% for r in x %}{{ r }}{% endfor %}",
                     "{{ X | attr('__class__') }}", "{{ ''.__class__.__mro__ }}", "compare(X, 'higher', Y)",
                     "no_such_fn(X)", "extreme_region(X, 3)", "{{ X", "range(10**9)", "class_by_shade(3)",
                     "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
                     "{% for i in range(10**6) %}{% for j in range(10**6) %}{% endfor %}{% endfor %}"]),
    st.integers(-3, 3), st.none(), st.booleans(), st.text(max_size=8),
    st.lists(st.sampled_from(["answer: compare(X, 'higher', Y)", "{{ X }}", "x"]), max_size=3),
    st.dictionaries(st.sampled_from(["X", "Y", "R"]), st.sampled_from(["Region", "RegionGroup", "Nope", "3"]),
                    max_size=2),
)


def template_record() -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=7)


PACKS = st.one_of(
    st.fixed_dictionaries({"templates": st.lists(template_record(), max_size=3)},
                          optional={"definitions": st.dictionaries(st.text(max_size=5), VALUES, max_size=2),
                                    "extra": VALUES}),
    st.lists(template_record(), max_size=2),
    VALUES,
)


@SETTINGS
@given(pack=PACKS)
def test_fuzz_template_pack_lint_reports_each_problem_in_one_line(tmp_path: Path, pack) -> None:
    tmp_path = fresh(tmp_path)
    path = tmp_path / "fuzz_pack.yaml"
    path.write_text(yaml.safe_dump(pack), encoding="utf-8")
    started = time.monotonic()
    result = run("templates", "lint", str(path))
    assert time.monotonic() - started < LINT_SECONDS, result.output  # hostile texts stop inside the sandbox
    no_crash(result)
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines, result.output
    if result.exit_code != 0:
        assert all("fuzz_pack.yaml" in line for line in lines), result.output


# -------------------------------------------------------------------------------------------------- atlases

#: Region names: unicode, blanks, duplicates (drawn twice), spellings of the computed groups, numbers, commas.
ATLAS_NAMES = ["Cell A1", "Ward 7", "Zürich", "東京", "Ñandú-Süd", "O'Brien", "North", "the south",
               "bordering Cell A1", "Western Part", "", "  ", "1", "a,b", "🗺 Land", "Ward 7 ", "WARD 7", "x" * 40]
#: Declared coordinate systems (None: no ``crs`` member): lon/lat spellings, a projected one, unknown ones.
CRS_DECLARATIONS = [None, None, "urn:ogc:def:crs:OGC:1.3:CRS84", "EPSG:4326", "EPSG:3857", "EPSG:32633",
                    "EPSG:99999", "not a crs"]
#: What happens to one feature's geometry.
DAMAGE = ["none", "none", "none", "drop a point", "nan", "null", "empty", "bowtie", "hole", "point", "huge"]


def _square(x: float, y: float, size: float) -> list[list[float]]:
    return [[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]]


def _damaged(ring: list[list[float]], damage: str, size: float) -> dict[str, Any] | None:
    """The GeoJSON geometry of one grid cell after ``damage``."""
    (x, y), geometry = ring[0], {"type": "Polygon", "coordinates": [ring]}
    if damage == "drop a point":
        geometry["coordinates"] = [ring[:2] + ring[3:4]]  # three points: not a closed ring
    elif damage == "nan":
        geometry["coordinates"] = [[[x, y], [float("nan"), y], *ring[2:]]]
    elif damage == "null":
        return None
    elif damage == "empty":
        geometry["coordinates"] = []
    elif damage == "bowtie":  # a self-intersecting ring
        geometry["coordinates"] = [[[x, y], [x + size, y + size], [x + size, y], [x, y + size], [x, y]]]
    elif damage == "hole":
        geometry["coordinates"] = [ring, _square(x + size / 4, y + size / 4, size / 2)[::-1]]
    elif damage == "point":
        geometry = {"type": "Point", "coordinates": [x, y]}
    elif damage == "huge":
        geometry["coordinates"] = [[[x * 1000, y * 1000] for x, y in ring]]
    return geometry


#: Names a clean example draws from (distinct, unicode, punctuation).
CLEAN_NAMES = ["Cell A1", "Zürich", "東京", "Ñandú-Süd", "O'Brien", "Ward 7", "a,b", "🗺 Land", "Nørrebro",
               "Saint-Étienne", "Ōsaka", "Kraków", "Ward 12"]
CLEAN_CRS = [None, "urn:ogc:def:crs:OGC:1.3:CRS84", "EPSG:4326", "EPSG:3857"]


@st.composite
def atlas_file(draw, damage: tuple[str, ...] = tuple(DAMAGE)) -> tuple[str, list[str]]:
    """GeoJSON text of a small grid of square regions with random names, name column, CRS and damage, and the
    region names as written (the table of the property joins values to them). Half the examples are clean:
    distinct names, a CRS that fits the coordinates, no damage (so the success path is fuzzed too)."""
    clean = draw(st.booleans())
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1 + clean, 3))
    size = draw(st.sampled_from([0.04, 0.5, 1.0] if clean else [0.04, 0.5, 1.0, 7.0]))
    x0, y0 = draw(st.sampled_from([(0.0, 0.0), (10.0, 45.0), (-75.0, 60.0)] + ([] if clean else [(179.0, -20.0)])))
    crs = draw(st.sampled_from(CLEAN_CRS if clean else CRS_DECLARATIONS))
    metres = crs in ("EPSG:3857", "EPSG:32633") and (clean or draw(st.booleans()))
    scale = 111_000.0 if metres else 1.0  # metre-sized coordinates, as the projected CRS declares
    key = draw(st.sampled_from(["name", "name", "NAME_1", "label", "Bezeichnung"]))
    spellings = draw(st.permutations(CLEAN_NAMES)) if clean else None
    features, names = [], []
    for r in range(rows):
        for c in range(cols):
            if spellings is not None:
                name = spellings[r * cols + c]
            else:
                name = draw(st.one_of(st.sampled_from(ATLAS_NAMES), st.text(max_size=6)))
            harm = "none" if clean else draw(st.sampled_from(damage))
            ring = [[(x0 + x) * scale, (y0 + y) * scale] for x, y in _square(c * size, r * size, size)]
            features.append({"type": "Feature", "properties": {key: name, "pop": r * cols + c},
                             "geometry": _damaged(ring, harm, size * scale)})
            names.append(name)
    collection: dict[str, Any] = {"type": "FeatureCollection", "features": features}
    if crs is not None:
        collection["crs"] = {"type": "name", "properties": {"name": crs}}
    return json.dumps(collection, ensure_ascii=draw(st.booleans())), names


def _atlas_table(path: Path, names: list[str]) -> Path:
    """A CSV of distinct values for the regions (a name that needs quoting is quoted)."""
    lines = ["region,value"] + [f'"{n}",{3 * i + 1}' for i, n in enumerate(names)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _left_nothing(folder: Path) -> bool:
    return not folder.exists() or not any(folder.iterdir())


@SETTINGS
@given(atlas=atlas_file())
def test_fuzz_user_atlas_render_refuses_in_one_line_or_draws(tmp_path: Path, atlas) -> None:
    tmp_path = fresh(tmp_path)
    text, names = atlas
    geo = tmp_path / "fuzz_atlas.geojson"
    geo.write_text(text, encoding="utf-8")
    table = _atlas_table(tmp_path / "values.csv", names)
    out = tmp_path / "out" / "map.png"
    result = run("render", str(geo), "--data", str(table), "-o", str(out))
    event("drawn" if result.exit_code == 0 else "refused")
    if result.exit_code == 0:
        no_crash(result)
        assert out.exists(), result.output
        scene = run("scene", str(out.with_suffix(".json")), "--json")  # the map's facts reload from the file
        no_crash(scene)
        assert scene.exit_code == 0, scene.output
        assert len(json.loads(scene.stdout)["regions"]) == len(names), scene.output[:500]
    else:
        assert_refused(result, "fuzz_atlas.geojson" if "values.csv" not in result.output else "values.csv")
        assert _left_nothing(tmp_path / "out"), sorted(p.name for p in (tmp_path / "out").iterdir())


# ------------------------------------------------------------------- accepted inputs build what the audit passes

#: A build as small as a build gets: one map of one image, a few questions, one task.
BUILD_BASE: dict[str, Any] = {
    "name": "fuzz-build", "seed": 3, "tasks": ["vqa"], "referring_per_map": 0,
    "variants": {"unannotated": False, "hatched": False}, "legend": {"types": ["discrete"]},
    "questions": {"per_template": 1, "per_image": 4},
}
#: (path into the config, values a valid config may hold there); an example applies up to two of them.
GOOD_FIELDS: list[tuple[tuple[Any, ...], list[Any]]] = [
    (("seed",), [0, 11, 2**32 - 1]),
    (("legend", "types"), [["continuous"], ["discrete", "continuous"]]),
    (("legend", "schemes"), [["equal_interval"], ["natural_breaks"]]),
    (("legend", "classes"), [[3], [4, 5]]),
    (("legend", "orders"), [["large_to_small"]]),
    (("variants", "hatched"), [True]),
    (("variants", "colormaps"), [["viridis"], ["Reds", "YlGnBu"]]),
    (("variants", "backgrounds"), [["lightgray"], ["lightsteelblue"]]),
    (("variants", "legend_positions"), [["bottom"], ["left"]]),
    (("questions", "per_image"), [1, 8]),
    (("countries", 0, "labels"), ["names"]),
    (("split", "ratios"), [{"train": 0.5, "test": 0.5}]),
    (("tasks",), [["vqa", "caption"], ["vqa", "grounding"], ["vqa", "extraction"]]),
    (("audit",), ["flag", "drop"]),
]


def _set(config: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    node: Any = config
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
    node[path[-1]] = copy.deepcopy(value)


@st.composite
def build_case(draw) -> tuple[dict[str, Any], str | None, bytes | None]:
    """A valid small config (up to two good variations) over a fuzzed atlas with synthetic values or its own
    table, or over the USA with a fuzzed table; the atlas GeoJSON text and the table bytes it needs."""
    config = copy.deepcopy(BUILD_BASE)
    if draw(st.integers(0, 2)) == 0:  # a fuzzed table for a built-in country
        country = {"name": "usa", "maps": 1, "statistics": {"curated": [], "files": ["fuzz_table.csv"]}}
        atlas, table = None, draw(table_bytes())
    else:
        atlas, names = draw(atlas_file())
        own = draw(st.booleans())
        country = {"name": "fuzz_atlas.geojson", "maps": 1,
                   "statistics": {"curated": [], "files": ["fuzz_table.csv"] if own else [],
                                  "synthetic": {"count": 0 if own else 1}}}
        lines = ["region,value"] + [f'"{n}",{3 * i + 1}' for i, n in enumerate(names)]
        table = ("\n".join(lines) + "\n").encode() if own else None
    config["countries"] = [country]
    for path, values in draw(st.lists(st.sampled_from(GOOD_FIELDS), max_size=2, unique_by=lambda f: f[0])):
        _set(config, path, draw(st.sampled_from(values)))
    return config, atlas, table


def audit_passes(bench: Path, out: Path) -> dict[str, Any]:
    """Run ``mapgen audit`` on a finished build: it verifies every checksum and answers every question from the
    pixels; the audit passes when it exits 0 and every accuracy target of the maps it saw is met."""
    result = run("audit", str(bench), "-o", str(out), "--quiet")
    no_crash(result)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    missed = {kind: t for kind, t in summary["targets"].items() if t["met"] is False}
    assert not missed, (missed, result.output)
    return summary


@settings(SETTINGS, max_examples=20)
@given(case=build_case())
def test_fuzz_accepted_inputs_build_a_benchmark_the_audit_passes(tmp_path: Path, case) -> None:
    tmp_path = fresh(tmp_path)
    config, atlas, table = case
    if atlas is not None:
        (tmp_path / "fuzz_atlas.geojson").write_text(atlas, encoding="utf-8")
    if table is not None:
        (tmp_path / "fuzz_table.csv").write_bytes(table)
    path = tmp_path / "fuzz_build.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    bench = tmp_path / "bench"
    result = run("build", str(path), "-o", str(bench), "--quiet", "--workers", "1")
    event("built" if result.exit_code == 0 else "refused")  # --hypothesis-show-statistics counts them
    if result.exit_code != 0:
        named = [n for n in ("fuzz_build.yaml", "fuzz_atlas.geojson", "fuzz_table.csv") if n in result.output]
        assert_refused(result, named[0] if named else "fuzz_build.yaml")
        assert _left_nothing(bench), sorted(p.name for p in bench.iterdir())
        return
    no_crash(result)
    assert (bench / "manifest.json").is_file() and (bench / "questions.jsonl").is_file(), result.output
    audit_passes(bench, tmp_path / "audit")


#: A region too small to draw (0.04 degrees beside a 40-degree one) builds, and its audit passes: the one-class
#: legend's undefined closest-pair ΔE was written as Infinity, failing the audit after half its files (fixed:
#: written as null, and the audit's files are written all or none).
TOO_SMALL_TO_DRAW = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {"name": name}, "geometry": {"type": "Polygon", "coordinates": [ring]}}
    for name, ring in (("Cell A1", _square(0.0, 0.0, 0.04)), ("Ward 7", _square(40.0, 0.0, 40.0)))]}


def test_finding_a_region_too_small_to_draw_builds_a_benchmark_the_audit_passes(tmp_path: Path) -> None:
    (tmp_path / "fuzz_atlas.geojson").write_text(json.dumps(TOO_SMALL_TO_DRAW), encoding="utf-8")
    config = copy.deepcopy(BUILD_BASE) | {"countries": [
        {"name": "fuzz_atlas.geojson", "maps": 1, "statistics": {"curated": [], "synthetic": {"count": 1}}}]}
    (tmp_path / "fuzz_build.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = run("build", str(tmp_path / "fuzz_build.yaml"), "-o", str(tmp_path / "bench"), "--quiet")
    assert result.exit_code == 0, result.output
    audit_passes(tmp_path / "bench", tmp_path / "audit")


# ---------------------------------------------------------------------------------------------- predictions

@pytest.fixture(scope="module")
def fuzz_bench(tmp_path_factory) -> Path:
    return build_tiny(tmp_path_factory, TINY, "fuzz-bench")


def question_ids(bench: Path) -> list[str]:
    return [json.loads(line)["question_id"] for line in (bench / "questions.jsonl").read_text().splitlines()]


def prediction_line(ids: list[str]) -> st.SearchStrategy[str]:
    qid = st.one_of(st.sampled_from(ids), st.sampled_from(["nope", "", "Q1"]), st.integers(0, 5), st.none())
    answer = st.one_of(st.text(max_size=6), st.integers(-2, 100), st.floats(allow_nan=True), st.none(),
                       st.booleans(), st.lists(st.text(max_size=3), max_size=2), st.just({"a": 1}),
                       st.sampled_from(["Yes", "No", "Texas", "3"]))
    record = st.fixed_dictionaries({}, optional={"question_id": qid, "prediction": answer, "extra": answer})
    good = st.builds(lambda q, a: json.dumps({"question_id": q, "prediction": a}), st.sampled_from(ids),
                     st.sampled_from(["Yes", "No", "Texas", "3"]))
    broken = st.sampled_from(["{", "", "   ", "null", "[]", "42", '"text"', '{"question_id": }', "\x00", "{}"])
    return st.one_of(good, record.map(json.dumps), broken)


@SETTINGS
@given(data=st.data())
def test_fuzz_predictions_eval_refuses_in_one_line_or_scores(tmp_path: Path, fuzz_bench: Path, data) -> None:
    tmp_path = fresh(tmp_path)
    lines = data.draw(st.lists(prediction_line(question_ids(fuzz_bench)), max_size=8))
    path = tmp_path / "fuzz_preds.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "report"
    plots = [] if data.draw(st.booleans()) else ["--no-plots"]  # plots cost ~1 s: drawn for half the examples
    result = run("eval", str(fuzz_bench), "--predictions", str(path), "-o", str(out), *plots)
    if result.exit_code == 0:
        no_crash(result)
        summary = json.loads((out / "summary.json").read_text())
        total = len(question_ids(fuzz_bench))
        assert summary["n"] == total and 0 <= summary["missing"] <= total, summary
        assert summary["score"] is None or 0.0 <= summary["score"] <= 1.0, summary
    else:
        assert_refused(result, "fuzz_preds.jsonl")
        assert not out.exists(), sorted(p.name for p in out.iterdir())
