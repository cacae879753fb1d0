"""Every config, statistic, region and atlas check runs before the first byte: a bad config exits 2 with one line
naming the problem and the fix, leaves no folder (so no build marker refuses the rerun), and the corrected config
then builds into the same folder without --force."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from helpers import write_grid

from mapgen.cli import main
from mapgen.config import ConfigError, load_config
from mapgen.yamlio import DuplicateKeyError, load_yaml

HEAD = """name: checks
tasks: [vqa]
questions: {per_template: 1, per_image: 1}
"""
VARIANTS = "variants: {unannotated: false, hatched: false}\n"  # one image per map, unless a case sets variants
GRID = "  - {name: grid.geojson, maps: 1, statistics: {synthetic: {count: 1}}%s}\n"
CASES = [  # (id, bad countries/extra YAML, corrected YAML, words the one line must hold)
    ("unknown statistic", "countries:\n  - {name: usa, maps: 1, statistics: {curated: [populaton_2020]}}\n",
     "countries:\n  - {name: usa, maps: 1, statistics: {curated: [population_2020]}}\n",
     ["unknown statistic 'populaton_2020'", "(did you mean 'population_2020'"]),
    ("unknown region in exclude", "countries:\n" + GRID % ", exclude: [Cell Z9]",
     "countries:\n" + GRID % ", exclude: [Cell A1]", ["exclude", "Unknown region 'Cell Z9'", "(did you mean 'Cell"]),
    ("no statistics", "countries:\n  - {name: usa, maps: 1, statistics: {curated: [], synthetic: {count: 0}}}\n",
     "countries:\n  - {name: usa, maps: 1, statistics: {curated: [], synthetic: {count: 1}}}\n",
     ["no statistics to draw from", "synthetic.count"]),
    ("excluding every region", "countries:\n" + GRID % ", exclude: [Cell A1, Cell A2, Cell B1, Cell B2]",
     "countries:\n" + GRID % ", exclude: [Cell A1]", ["leaves 0 of its 4 regions", "exclude fewer"]),
    ("leaving one region", "countries:\n" + GRID % ", exclude: [Cell A1, Cell A2, Cell B1]",
     "countries:\n" + GRID % ", exclude: [Cell A1]", ["leaves 1 of its 4 regions", "at least 2", "exclude fewer"]),
    ("a key twice", "countries:\n" + GRID % "" + "countries:\n" + GRID % "",
     "countries:\n" + GRID % "", ["the key 'countries' is given twice (lines 4 and 6)", "keep one"]),
    ("maps: true", "countries:\n  - {name: grid.geojson, maps: true, statistics: {synthetic: {count: 1}}}\n",
     "countries:\n" + GRID % "", ["countries.0.maps", "needs a whole number, got true"]),
    ("a number for a flag", "countries:\n" + GRID % "" + "split: {disjoint_colormaps: 1}\n",
     "countries:\n" + GRID % "" + "split: {disjoint_colormaps: false}\n",
     ["split.disjoint_colormaps", "needs true or false, got 1"]),
    ("a flag for a number", "countries:\n" + GRID % "" + "referring_per_map: false\n",
     "countries:\n" + GRID % "" + "referring_per_map: 0\n", ["referring_per_map", "needs a whole number, got false"]),
    ("a quoted number", "countries:\n" + GRID % "" + "seed: '7'\n", "countries:\n" + GRID % "" + "seed: 7\n",
     ["seed", 'needs a whole number, got "7"']),
    ("no colormap", "countries:\n" + GRID % "" + "variants: {colormaps: [], unannotated: false, hatched: false}\n",
     "countries:\n" + GRID % "",
     ["variants.colormaps", "needs at least one value"]),
    ("no image variant", "countries:\n" + GRID % "" + "variants: {annotated: false, unannotated: false}\n"
     "legend: {types: [continuous]}\n", "countries:\n" + GRID % "",
     ["no image would be drawn", "turn one on"]),
    ("YAML syntax", "countries:\n" + GRID % "" + "split: {ratios: {test: 1.0}\n", "countries:\n" + GRID % "",
     ["not valid YAML", "flow mapping that starts at line 6", "fix the YAML syntax"]),
]


def _write(config: Path, body: str) -> None:
    config.write_text(HEAD + body + ("" if "variants:" in body else VARIANTS), encoding="utf-8")


def _build(config: Path, out: Path):
    return CliRunner().invoke(main, ["build", str(config), "-o", str(out), "--quiet"])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a 2x2 grid atlas (``grid.geojson``, cells ``Cell A1`` … ``Cell B2``)."""
    folder = tmp_path_factory.mktemp("checks")
    write_grid(folder, n=2)
    return folder


@pytest.mark.parametrize(("case", "bad", "fixed", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_config_fails_before_the_first_byte_and_the_fix_builds_in_the_same_folder(
        folder: Path, case: str, bad: str, fixed: str, words: list[str]) -> None:
    config, out = folder / f"{case.replace(' ', '_')}.yaml", folder / f"out_{case.replace(' ', '_')}"
    _write(config, bad)
    result = _build(config, out)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output, result.output
    for word in words + [str(config)]:  # every config error names the config file
        assert word in lines[0], lines[0]
    assert not out.exists(), sorted(p.name for p in out.rglob("*"))
    _write(config, fixed)
    result = _build(config, out)
    assert result.exit_code == 0, result.output
    assert (out / "manifest.json").is_file()


def test_the_yaml_loader_refuses_duplicate_keys_at_any_depth_and_keeps_merges() -> None:
    with pytest.raises(DuplicateKeyError, match=r"the key 'maps' is given twice \(line 1\)"):
        load_yaml("countries: [{name: usa, maps: 1, maps: 2}]")
    with pytest.raises(DuplicateKeyError, match=r"'b' is given twice \(lines 2 and 3\)"):
        load_yaml("a:\n  b: 1\n  b: 2\n")
    text = "base: &b {maps: 1}\nusa:\n  <<: *b\n  maps: 2\n"
    assert load_yaml(text) == yaml.safe_load(text) == {"base": {"maps": 1}, "usa": {"maps": 2}}


def test_strict_types_keep_what_configs_always_wrote() -> None:
    config = load_config({"countries": [{"name": "usa", "maps": 2}], "seed": 3,
                          "questions": {"max_answer_share": 1}, "split": {"ratios": {"train": 0.5, "test": 0.5}},
                          "variants": {"hatched": False}, "legend": {"classes": [3, 5]}})
    assert config.questions.max_answer_share == 1.0 and config.countries[0].maps == 2 and not config.variants.hatched
    for bad in ({"countries": [{"name": "usa", "maps": 2.0}]}, {"countries": [{"name": "usa", "maps": 1}],
                                                                "legend": {"classes": [3, True]}}):
        with pytest.raises(ConfigError, match="needs a whole number"):
            load_config(bad)


def test_an_unknown_task_names_the_config_and_the_key(tmp_path: Path) -> None:
    config = tmp_path / "bad-task.yaml"
    config.write_text("name: t\nseed: 0\ncountries: [{name: usa, maps: 1}]\ntasks: [vqa, captoin]\n", encoding="utf-8")
    result = _build(config, tmp_path / "out")
    assert result.exit_code == 2 and not (tmp_path / "out").exists()
    line = result.output.strip()
    assert "\n" not in line and str(config) in line and "tasks: unknown task 'captoin'" in line
    assert "caption" in line  # the closest registered task


@pytest.mark.parametrize("value", ["some", 3, [1, 2], {"a": 1}])
def test_a_value_no_member_of_a_union_field_takes_is_one_line(tmp_path: Path, value: object) -> None:
    config = tmp_path / "union.yaml"
    config.write_text(yaml.safe_dump({"name": "t", "countries": [{"name": "usa", "maps": 1}],
                                      "questions": {"templates": value}}), encoding="utf-8")
    result = _build(config, tmp_path / "out")
    assert result.exit_code == 2 and not (tmp_path / "out").exists()
    line = result.output.strip()
    assert "\n" not in line and str(config) in line, line
    assert 'questions.templates: got' in line and 'it takes "all" or a list of texts' in line, line
    assert '`templates: "all"` (the default)' in line and "literal[" not in line, line


def test_every_union_field_of_the_config_reads_as_one_problem() -> None:
    with pytest.raises(ConfigError) as caught:
        load_config({"countries": [{"name": "usa", "maps": 1, "statistics": {"curated": 5}}],
                     "questions": {"templates": 3}})
    lines = str(caught.value).splitlines()
    assert lines[0].endswith("(2 problems):") and len(lines) == 3, lines
    assert lines[1].startswith("  - countries.0.statistics.curated: got 5; it takes"), lines
    assert lines[2].startswith("  - questions.templates: got 3; it takes"), lines


def test_a_table_of_one_distinct_value_is_refused_before_the_first_byte(tmp_path: Path) -> None:
    (tmp_path / "flat.csv").write_text("region,value\nTexas,3\nOhio,3\n", encoding="utf-8")
    config = tmp_path / "flat.yaml"
    config.write_text("name: t\ntasks: [vqa]\ncountries: [{name: usa, maps: 1, statistics: {curated: [], "
                      "files: [flat.csv]}}]\n", encoding="utf-8")
    result = _build(config, tmp_path / "out")
    lines = [line for line in result.output.splitlines() if line.strip() and not line.startswith("Warning:")]
    assert result.exit_code == 2 and not (tmp_path / "out").exists(), result.output
    assert len(lines) == 1 and str(config) in lines[0] and "(flat.csv): holds 1 distinct value" in lines[0], lines
