"""Every notebook in notebooks/ runs top to bottom in a fresh kernel (nbclient), in an empty folder, and is kept in
git without outputs. A notebook added to the folder is picked up by these tests without being listed here."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat", reason="the dev extra runs the notebooks: pip install -e '.[dev]'")
nbclient = pytest.importorskip("nbclient", reason="the dev extra runs the notebooks: pip install -e '.[dev]'")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: Notebooks that need an optional extra, and the module that tells it is installed.
NEEDS = {"export_to_harness": ("datasets", "export")}
#: Notebooks that show maps inline.
SHOW_MAPS = {"first_benchmark", "your_own_country", "counterfactual_sets"}


def _ids(path: Path) -> str:
    return path.stem


def _read(path: Path) -> Any:
    return nbformat.read(path, as_version=4)


def test_there_is_a_notebook_for_every_job() -> None:
    names = {p.stem for p in NOTEBOOKS}
    assert {"first_benchmark", "your_own_country", "counterfactual_sets", "custom_templates", "evaluate_a_model",
            "export_to_harness"} <= names
    assert len(NOTEBOOKS) >= 5


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_the_notebook_is_stored_without_outputs(path: Path) -> None:
    notebook = _read(path)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: strip its outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_the_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, extra = NEEDS.get(path.stem, (None, None))
    if module and importlib.util.find_spec(module) is None:
        pytest.skip(f"{path.name} needs the {extra} extra: pip install -e '.[{extra}]'")
    # the kernel imports this checkout's mapgen and finds the `mapgen` command beside this Python
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    # a user's kernel draws figures inline; CI exports MPLBACKEND=Agg, which the kernel would inherit (no figures)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    notebook = _read(path)
    # iopub_timeout: a figure's output may reach the client well after the cell's reply on a loaded machine
    # (nbclient's default waits 4 s, then drops it silently)
    client = nbclient.NotebookClient(notebook, timeout=600, iopub_timeout=120, raise_on_iopub_timeout=True,
                                     kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError naming the cell and the error
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    if path.stem in SHOW_MAPS:
        assert any("image/png" in out.get("data", {}) for out in outputs), f"{path.name} shows no map"
