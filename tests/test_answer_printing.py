"""Range and number answers are printed as the legend prints them, and the scorer still takes numeric equivalents.

The legend of the tiny build below prints ``-3.20 to 1.21``, ``1.24-7.14``, ``9.00-18.37`` (two decimals, so
that 1.21 and 1.24 stay apart): its overall range is ``-3.20 to 18.37`` — before, ``-3.2 - 18.37``, numbers the
legend does not print, joined unlike its labels.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from helpers import write_grid

from mapgen.build import build
from mapgen.data.statistic import StatInfo, Statistic
from mapgen.eval.score import score
from mapgen.legend import printed_numbers
from mapgen.questions import Unaskable, ask, load_templates
from mapgen.questions.functions import reading
from mapgen.scene import build_scene
from mapgen.spec import make_spec

#: Values of the 4×4 grid's cells, row by row: quantiles in 3 classes need two decimals to keep 1.21 and 1.24 apart.
GRID_VALUES = [-3.2, -2.5, -1.7, -0.4, 0.6, 1.21, 1.24, 2.6, 3.9, 5.5, 7.14, 9.0, 11.3, 13.8, 15.2, 18.37]


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real build of discrete maps of the grid (3 quantile classes)."""
    folder = tmp_path_factory.mktemp("printing")
    geo, table = write_grid(folder / "in", n=4, stem="printing")
    names = [line.split(",")[0] for line in table.read_text().splitlines()[1:]]
    table.write_text("region,value\n" + "".join(f"{n},{v}\n" for n, v in zip(names, GRID_VALUES, strict=True)))
    config = {"name": "printing", "seed": 2, "questions": {"per_image": 60},
              "countries": [{"name": str(geo), "maps": 2, "statistics": {"curated": [], "files": [str(table)]}}],
              "legend": {"types": ["discrete"], "classes": [3], "schemes": ["quantiles"]}}
    build(config, folder / "bench", progress=False)
    return folder / "bench"


def _questions(bench: Path) -> list[dict]:
    return [json.loads(line) for line in (bench / "questions.jsonl").read_text().splitlines()]


def _printed(bench: Path, map_id: str) -> set[str]:
    legend = json.loads((bench / "maps" / f"{map_id}.json").read_text())["spec"]["legend"]
    return {n.text for c in legend["classes"] for n in printed_numbers(c["label"]) if n is not None}


def test_the_overall_range_is_printed_as_the_legend_prints_it(bench: Path) -> None:
    overall = [q for q in _questions(bench) if q["template_id"] == "legend_overall_range"]
    assert overall and {q["answer"] for q in overall} == {"-3.20 to 18.37"}  # before: "-3.2 - 18.37"
    assert all(q["bounds"] == [-3.2, 18.37] for q in overall)


def test_every_range_answer_holds_only_numbers_the_legend_prints(bench: Path) -> None:
    ranges = [q for q in _questions(bench) if q["answer_type"] == "range"]
    assert len({q["template_id"] for q in ranges}) >= 3
    for q in ranges:
        numbers = {n.text for n in printed_numbers(q["answer"]) if n is not None}
        assert numbers <= _printed(bench, q["map_id"]), (q["template_id"], q["answer"])


@pytest.mark.parametrize(("prediction", "credit"), [
    ("-3.20 to 18.37", 1.0), ("-3.2 - 18.37", 1.0), ("from -3.2 to 18.37", 1.0), ("-3.2 to 18.4", 0.0),
])
def test_the_scorer_takes_numeric_equivalents_of_a_printed_range(bench: Path, prediction: str, credit: float) -> None:
    q = next(q for q in _questions(bench) if q["template_id"] == "legend_overall_range")
    assert score(q, json.dumps({"answer": prediction})).main == credit


def _usa_scene(values: list[float], classes: int):
    """A discrete USA map of ``values`` spread over the states (quantile classes)."""
    from mapgen.geo.atlas import load_atlas

    codes = load_atlas("usa").codes
    series = pd.Series({c: values[i % len(values)] for i, c in enumerate(codes)}, dtype=float)
    stat = Statistic(values=series, info=StatInfo(id="printing", country="usa", title="Printing", unit="",
                                                  kind="absolute"))
    return build_scene(make_spec("usa", stat, classes=classes))


def test_a_trailing_zero_the_legend_prints_is_kept_and_the_scorer_takes_the_number_without_it() -> None:
    scene = _usa_scene([2.4, 2.9, 3.3, 3.4, 3.8, 4.2, 4.4, 4.7, 5.0], 3)
    labels = [c.label for c in scene.legend.classes]
    assert labels[-1].endswith("5.0"), labels
    q = ask(load_templates().get("legend_overall_range"), scene, {})
    assert q.answer == "2.4-5.0"  # before: "2.4 - 5"
    for prediction in ("2.4-5.0", "2.4 - 5", "2.4 to 5"):
        assert score(q, json.dumps({"answer": prediction})).main == 1.0


def test_numbers_read_against_are_written_as_the_legend_prints_them() -> None:
    """A printed class boundary used as the number N of "above N" is the label's own text (``9.0``, not ``9``):
    the lowest value of the top class is 9.04, which its label prints as 9.0."""
    scene = _usa_scene([2.4, 2.9, 3.3, 3.4, 3.8, 4.2, 9.04, 9.5, 12.0], 3)
    assert [c.label for c in scene.legend.classes][-1] == "9.0-12.0"
    assert (9.0, "9.0") in reading(scene).thresholds  # before: "9"
    template = load_templates().get("region_vs_number")
    asked = []
    for code in scene.regions:
        try:
            asked.append(ask(template, scene, {"X": code, "S": "above", "N": 9.0}))
        except Unaskable:
            continue
    assert asked and all(q.question.endswith("above 9.0?") for q in asked)


@pytest.mark.parametrize(("label", "texts", "quanta"), [
    ("-3.20 to 1.21", ("-3.20", "1.21"), (0.01, 0.01)),
    ("580k-7.1M", ("580k", "7.1M"), (1e3, 1e5)),
    ("100-150k", ("100k", "150k"), (1e3, 1e3)),  # the upper bound's unit, as parse_label applies it
    ("10%-20%", ("10%", "20%"), (1.0, 1.0)),
    (">0.55", ("0.55", None), (0.01, None)),
    ("24,422", ("24,422", "24,422"), (1.0, 1.0)),
    ("-4 से 4", ("-4", "4"), (1.0, 1.0)),
])
def test_printed_numbers_keep_the_label_s_own_text(label: str, texts: tuple, quanta: tuple) -> None:
    numbers = printed_numbers(label)
    assert tuple(n.text if n else None for n in numbers) == texts
    assert tuple(n.quantum if n else None for n in numbers) == pytest.approx(quanta)
