"""No yes/no or choice template answers one way in more than 60 % of its questions, and "evenly spaced" has one
definition (:mod:`mapgen.legend.spacing`), read off the labels to the digit they print.

The tiny build mixes evenly classed tables (whole numbers 1-16, classed by equal intervals or quantiles: ``1-6``,
``7-11``, ``12-16``) with skewed ones (``1-3``, ``5-13``, ``21-89``, ...). Before, "evenly spaced" compared widths
to 5 % and counted the step between ``6`` and ``7`` as a gap, so no such legend was evenly spaced and
``legend_spacing`` answered "Significant gaps" every time it was asked (92 % of the default build's answers).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd
import pytest
from helpers import write_grid

from mapgen.build import build
from mapgen.legend import (
    EVENLY_SPACED,
    SIGNIFICANT_GAPS,
    DiscreteOptions,
    discrete_legend,
    legend_spacing,
    printed_numbers,
)
from mapgen.legend.spacing import spacing
from mapgen.scene import build_scene
from mapgen.spec import make_spec

MAX_SHARE = 0.60
#: Tables of the 4×4 grid (16 values each): two classed evenly, two skewed.
TABLES = {
    "even": list(range(1, 17)),
    "tens": [10 * i for i in range(1, 17)],
    "fib": [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597],
    "squares": [i * i for i in range(1, 17)],
}


@pytest.fixture(scope="module")
def questions(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The questions of a real build of the grid's four tables (discrete maps in 3-4 classes by two schemes, and
    colour bars)."""
    folder = tmp_path_factory.mktemp("balance")
    geo, template = write_grid(folder / "in", n=4, stem="balance")
    names = [line.split(",")[0] for line in template.read_text().splitlines()[1:]]
    files = []
    for stem, values in TABLES.items():
        path = folder / "in" / f"{stem}.csv"
        path.write_text("region,value\n" + "".join(f"{n},{v}\n" for n, v in zip(names, values, strict=True)))
        files.append(str(path))
    config = {"name": "balance", "seed": 5, "questions": {"per_image": 12},
              "countries": [{"name": str(geo), "maps": 20, "statistics": {"curated": [], "files": files}}],
              "legend": {"types": ["discrete", "continuous"], "classes": [3, 4],
                         "schemes": ["equal_interval", "quantiles"]}}
    build(config, folder / "bench", progress=False)
    return [json.loads(line) for line in (folder / "bench" / "questions.jsonl").read_text().splitlines()]


def test_legend_spacing_is_balanced(questions: list[dict]) -> None:
    answers = Counter(q["answer"] for q in questions if q["template_id"] == "legend_spacing")
    assert sum(answers.values()) >= 5, answers
    assert max(answers.values()) <= MAX_SHARE * sum(answers.values()), answers  # before: all "Significant gaps"


def test_no_yes_no_or_choice_template_answers_one_way_in_more_than_60_percent(questions: list[dict]) -> None:
    by_template: dict[str, Counter] = defaultdict(Counter)
    for q in questions:
        if q["answer_type"] == "binary" or q["template_id"] in ("legend_kind", "legend_spacing"):
            by_template[q["template_id"]][str(q["answer"])] += 1
    big = {t: c for t, c in by_template.items() if sum(c.values()) >= 10}
    assert "legend_spacing" in big or sum(by_template["legend_spacing"].values()) >= 5
    assert len(big) >= 5
    over = {t: dict(c) for t, c in big.items() if max(c.values()) > MAX_SHARE * sum(c.values())}
    assert not over


def _verdict(*labels: str) -> str | None:
    return spacing([printed_numbers(label) for label in labels])


@pytest.mark.parametrize(("labels", "verdict"), [
    (("1-6", "7-11", "12-16"), EVENLY_SPACED),  # 5, 4, 4 wide to the printed digit; 6 to 7 leaves nothing out
    (("6-11", "11-17", "17-23", "23-28"), EVENLY_SPACED),  # break labels rounded to whole numbers
    (("580k-7.1M", "7.1M-14M", "14M-20M", "20M-27M"), EVENLY_SPACED),  # compact labels: the coarsest digit is 1M
    (("2.4-3.0", "3.0-3.5", "3.5-4.0"), EVENLY_SPACED),  # 3.0 - 2.4 is 0.6000000000000001 in floats
    (("1-3", "5-13", "21-89", "144-987"), SIGNIFICANT_GAPS),
    (("0-10", "30-40", "40-50"), SIGNIFICANT_GAPS),  # equal widths, a gap of 40 % of the span
    (("-3.2 to 3.8", "4.2-10.7", "11.9-18.4"), None),  # a 1.1 gap: 5 % of the span, not 10 %
    (("<5", "5-10", ">10"), None),  # open ends print no width
])
def test_the_one_definition_reads_the_labels_as_printed(labels: tuple[str, ...], verdict: str | None) -> None:
    assert _verdict(*labels) == verdict


def test_the_scene_and_the_question_share_the_definition() -> None:
    """The Scene's legend facts and ``legend_spacing`` both read :func:`legend_spacing`; whole numbers 1-9 in three
    equal intervals print ``1-3``, ``4-6``, ``7-9``: evenly spaced (before: the Scene said so, the question's own
    rule counted two 1-wide gaps, 12.5 % of the span, and answered "Significant gaps")."""
    from mapgen.data.statistic import StatInfo, Statistic
    from mapgen.geo.atlas import load_atlas
    from mapgen.questions import ask, load_templates

    legend = discrete_legend(pd.Series(range(1, 10), dtype=float), DiscreteOptions(k=3, scheme="equal_interval"))
    assert [c.label for c in legend.classes] == ["1-3", "4-6", "7-9"] and legend_spacing(legend) == EVENLY_SPACED
    codes = load_atlas("usa").codes
    values = pd.Series({c: float(1 + i % 9) for i, c in enumerate(codes)})
    stat = Statistic(values=values, info=StatInfo(id="nine", country="usa", title="Nine", unit="", kind="absolute"))
    scene = build_scene(make_spec("usa", stat, classes=3, scheme="equal_interval"))
    assert [c.label for c in scene.legend.classes] == ["1-3", "4-6", "7-9"]
    assert scene.legend_facts.spacing == EVENLY_SPACED and scene.legend_facts.evenly_spaced
    assert ask(load_templates().get("legend_spacing"), scene, {}).answer == "Evenly spaced"


def test_the_definition_is_stated_once() -> None:
    """No module besides :mod:`mapgen.legend.spacing` holds a spacing tolerance of its own."""
    root = Path(__file__).resolve().parents[1] / "mapgen"
    owners = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                    if any(f"{name} =" in p.read_text(encoding="utf-8")
                           for name in ("EVEN_WIDTH_TOL", "EVEN_GAP_TOL", "EVEN_TOLERANCE", "UNEVEN_GAP")))
    assert owners == ["legend/spacing.py"]
