"""The trust tour's machinery (benchmarks/trust_tour.py, issue 37) on a few of its cases, so the tour itself cannot
rot: a hostile field in the report site, a record naming a file outside the folder, answers wrapped the way models
write them, a killed eval. Each must come out clear or handled, and the guards must fire on a planted harm."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CASES = ("H08", "P01", "R05", "S01", "K09")


@pytest.fixture(scope="module")
def tour():
    spec = importlib.util.spec_from_file_location("trust_tour", ROOT / "benchmarks" / "trust_tour.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["trust_tour"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def artefacts(tour, tmp_path_factory: pytest.TempPathFactory):
    art = tour.prepare(tmp_path_factory.mktemp("trust"))
    tour.derive_expectations()
    return art


@pytest.mark.skipif(not any(Path(p, "chromium").exists() for p in ("/usr/bin", "/usr/local/bin")),
                    reason="the site cases load pages in Chromium (Debian package chromium)")
def test_a_few_cases_are_clear_or_handled(tour, artefacts) -> None:
    picked = [t for t in tour.all_tours() if t.case.id in CASES]
    assert len(picked) == len(CASES)
    rows = [tour.run_tour_case(t, artefacts, 120.0) for t in picked]
    assert {r.case.id: r.verdict for r in rows} == {r.case.id: r.verdict for r in rows
                                                   if r.verdict in ("clear", "handled")}, \
        [(r.case.id, r.verdict, r.message) for r in rows]


def test_the_guards_fire_on_a_planted_harm(tour, artefacts, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text(tour.SECRET)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "image.png").write_bytes(b"\x89PNG" + tour.SECRET.encode())
    assert tour.no_secret()(tmp_path, "", "").startswith("unsafe:")
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><head><title>x</title></head><body></body></html>")
    assert tour.no_script()(tmp_path, "", "").startswith("unsafe:")  # no policy forbidding inline scripts
    summary = tmp_path / "out" / "summary.json"
    summary.write_text('{"score": 0.25, "unparsed": 0, "missing": 0}')
    assert tour.score_is(lambda: 1.0, lambda: 0)(tmp_path, "", "").startswith("silent:")
