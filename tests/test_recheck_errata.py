"""``mapgen recheck … --errata DIR`` (#40 item 4): MAPWise's CSV in its own column order plus verdict, reason,
mapgen_answer and evidence, loadable with pandas, and one evidence image per disagreement."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "repo-sample" / "dataset"
pytestmark = pytest.mark.skipif(not REPO.is_dir(), reason="shared MAPWise repository sample not available")


def test_errata_loads_with_pandas_in_mapwise_column_order_with_one_image_per_disagreement(tmp_path: Path) -> None:
    import pandas as pd
    from PIL import Image

    from mapgen.mapwise.repository import question_table
    from mapgen.recheck.errata import ERRATA_COLUMNS, write_errata
    from mapgen.recheck.importer import read_csv_rows, read_sample
    from mapgen.recheck.verdicts import recheck

    data = read_sample(REPO / "china", read_ticks=False)  # one map with disagreements: few renders
    verdicts = recheck(replace(data, questions=[q for q in data.questions if q.map_ref == "10_3D"]))
    write_errata(data, verdicts, tmp_path / "errata", question_table(REPO / "china"))
    header, rows = read_csv_rows(question_table(REPO / "china"))
    table = pd.read_csv(tmp_path / "errata" / "errata.csv")
    assert len(table) == len(rows)
    assert list(table.columns[-len(ERRATA_COLUMNS):]) == list(ERRATA_COLUMNS)
    named = [c for c in header if c]
    assert [c for c in table.columns[:len(header)] if not c.startswith("Unnamed")] == named
    disagree = table[table.verdict == "disagree"]
    assert len(disagree) and disagree.evidence.notna().all()
    assert table[table.verdict != "disagree"].evidence.isna().all()
    assert len(list((tmp_path / "errata" / "evidence").iterdir())) == len(disagree)
    for rel in disagree.evidence:
        with Image.open(tmp_path / "errata" / rel) as image:
            assert image.width > 50 and image.height > 50
    judged = table[table.verdict.notna()]
    assert len(judged) == len(verdicts) and judged.verdict.isin(["agree", "disagree", "ambiguous", "unparsed"]).all()
    ambiguous = table[table.verdict == "ambiguous"]
    assert all(re.match(r"[a-z_]+: ", str(r)) for r in ambiguous.reason)  # the named bucket first
    assert "## Template" in (tmp_path / "errata" / "errata.md").read_text()


def test_the_recheck_command_takes_errata(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mapgen.cli.mapwise import recheck_command

    run = CliRunner().invoke(recheck_command, ["--help"])
    assert run.exit_code == 0 and "--errata" in run.output
