"""The harness modules of ``mapgen/export/harness`` as code: imported from the package and run on rows exported
from a tiny build (lmms-eval hooks per task, VLMEvalKit datasets without vlmeval installed), and written out
by the exporters exactly as they ship (plus the lmms-eval data-file lines, checked by importing the copy)."""

from __future__ import annotations

import importlib.util
import io
import json
import math
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd
import pytest
import tomllib
import yaml
from helpers import build_tiny
from PIL import Image

from mapgen.export import export, harness
from mapgen.export import lmms_eval as lmms_exporter
from mapgen.export import vlmevalkit as vlm_exporter
from mapgen.export.harness import lmms_eval_utils as hooks
from mapgen.export.harness import vlmevalkit_dataset as vlm

ROOT = Path(__file__).resolve().parents[1]
CONFIG = {
    "name": "harness modules",
    "seed": 5,
    "countries": [{"name": "usa", "maps": 2}],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["imaginary"]},
    "questions": {"per_image": 4},
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
    "tasks": ["vqa", "caption", "grounding", "extraction"],
}
NAME = "MAPGEN_HARNESS_MODULES_TEST"


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    return build_tiny(tmp_path_factory, CONFIG, "harness-modules")


@pytest.fixture(scope="module")
def lmms(bench: Path, tmp_path_factory) -> Path:
    pytest.importorskip("datasets", reason="the lmms-eval export writes its data as HF parquet: the [export] extra")
    return export(bench, "lmms-eval", tmp_path_factory.mktemp("lmms") / "tasks")


@pytest.fixture(scope="module")
def tsvs(bench: Path, tmp_path_factory) -> Path:
    return export(bench, "vlmevalkit", tmp_path_factory.mktemp("vlm") / "tsv", split="test", mcq=True)


def _import(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _docs(folder: Path, kind: str) -> list[dict[str, Any]]:
    """The exported parquet rows of ``kind`` as lmms-eval hands them to the hooks (the image decoded)."""
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [r for f in sorted((folder / "data" / kind).glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    assert rows
    return [r | {"image": Image.open(io.BytesIO(r["image"]["bytes"]))} for r in rows]


def _reply(answer: Any) -> str:
    return json.dumps({"answer": answer})


# --- lmms-eval hooks, per task ------------------------------------------------------------------------------


def test_vqa_hooks_score_a_right_and_a_wrong_reply(lmms: Path) -> None:
    doc = _docs(lmms, "vqa")[0]
    (image,) = hooks.mapgen_doc_to_visual(doc)
    assert image.mode == "RGB" and image.size == (800, 600)
    text = hooks.mapgen_doc_to_text(doc, {"pre_prompt": "<<", "post_prompt": ">>"})
    assert text == f"<<{doc['prompt']}>>" and doc["question"] in text
    assert hooks.mapgen_doc_to_text(doc) == doc["prompt"]
    right = hooks.mapgen_process_results(doc, [_reply(json.loads(doc["answer_json"]))])
    wrong = hooks.mapgen_process_results(doc, ["I cannot tell."])
    assert right["mapgen_score"] == {"question_id": doc["question_id"], "answer_type": doc["answer_type"],
                                     "score": 1.0}
    assert right["mapgen_parse_ok"] == 1.0 and wrong["mapgen_score"]["score"] == 0.0
    silent = hooks.mapgen_process_results(doc, [])  # no reply at all: nothing to parse
    assert (silent["mapgen_score"]["score"], silent["mapgen_parse_ok"]) == (0.0, 0.0)
    assert hooks.mapgen_aggregate([right["mapgen_score"], wrong["mapgen_score"]]) == 0.5
    assert hooks.mapgen_aggregate([1.0, 0.0, 0.0, 1.0]) == 0.5 and hooks.mapgen_aggregate([]) == 0.0
    assert hooks.mean([right["mapgen_parse_ok"], silent["mapgen_parse_ok"]]) == 0.5 and hooks.mean([]) == 0.0


def test_grounding_hooks_score_a_hit_and_a_miss(lmms: Path) -> None:
    doc = _docs(lmms, "grounding")[0]
    assert doc["expression"] in hooks.mapgen_grounding_doc_to_text(doc, {})
    hit = hooks.mapgen_grounding_process_results(doc, [_reply(doc["box_percent"])])
    miss = hooks.mapgen_grounding_process_results(doc, ["[0, 0, 1, 1]"])
    assert hit["grounding_acc50"] == hit["grounding_acc70"] == 1.0 and hit["grounding_iou"] > 0.9
    assert miss == {"grounding_iou": 0.0, "grounding_acc50": 0.0, "grounding_acc70": 0.0}
    assert hooks.mapgen_grounding_process_results(doc, ["no box"])["grounding_iou"] == 0.0


def test_caption_hooks_score_the_gold_caption_and_a_blank(lmms: Path, monkeypatch) -> None:
    docs = _docs(lmms, "caption")
    items = hooks.mapgen_caption_process_results(docs[0], [docs[0]["caption"]])
    assert set(items) == {"caption_bleu4", "caption_meteor", "caption_rouge_l", "caption_cider"}
    assert items["caption_bleu4"] == {"id": docs[0]["question_id"], "refs": [docs[0]["caption"]],
                                      "pred": docs[0]["caption"]}
    pytest.importorskip("pycocoevalcap", reason="caption metrics need mapgen's [eval] extra")
    monkeypatch.setattr("mapgen.tasks.caption.scores.java_available", lambda: False)  # METEOR needs a JVM: skip it
    perfect = [hooks.mapgen_caption_process_results(d, [d["caption"]])["caption_bleu4"] for d in docs]
    blank = [hooks.mapgen_caption_process_results(d, ["A map."])["caption_cider"] for d in docs]
    assert hooks.caption_bleu4(perfect) == pytest.approx(1.0, abs=1e-6)
    assert hooks.caption_rouge_l(perfect) == pytest.approx(1.0, abs=1e-6)
    assert hooks.caption_cider(blank) < 0.5


def test_extraction_hooks_score_the_gold_table_and_a_refusal(lmms: Path) -> None:
    doc = _docs(lmms, "extraction")[0]
    right = hooks.mapgen_extraction_process_results(doc, [doc["answer"]])
    wrong = hooks.mapgen_extraction_process_results(doc, ["I cannot read it."])
    keys = {"extraction_score"} | {f"extraction_{m}" for m in hooks.EXTRACTION_METRICS}
    assert keys <= set(right) and set(right) == set(wrong)  # every listed metric present, None where not apt
    assert right["extraction_score"] == 1.0 and wrong["extraction_score"] == 0.0
    assert any(v is None for v in right.values())
    assert hooks.mean_present([None, 1.0, 0.0]) == 0.5
    assert math.isnan(hooks.mean_present([None]))  # no document had the metric


# --- lmms-eval: the written folder --------------------------------------------------------------------------


class _TagLoader(yaml.SafeLoader):
    """Reads ``!function utils.name`` tags as the bare name."""


_TagLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node).removeprefix("utils."))


def _hook_names(config: dict[str, Any]) -> list[str]:
    names = [config[k] for k in ("doc_to_visual", "doc_to_text", "process_results")]
    return names + [m["aggregation"] for m in config["metric_list"]] + [config["dataset_kwargs"]["data_files"]]


def test_written_utils_is_the_module_plus_data_file_lines(lmms: Path) -> None:
    written = (lmms / "utils.py").read_text(encoding="utf-8")
    shipped = harness.source("lmms_eval_utils")
    assert shipped == Path(hooks.__file__).read_text(encoding="utf-8") and written.startswith(shipped)
    kinds = [k for k in lmms_exporter.harness_tasks() if (lmms / f"harness_modules_{k}.yaml").is_file()]
    assert kinds == ["vqa", "caption", "grounding", "extraction"]
    extra = written[len(shipped):].splitlines()
    assert [line.split(" = ")[0] for line in extra] == [f"{k}_data_files" for k in kinds]
    utils = _import(lmms / "utils.py", "harness_modules_utils")
    for kind in kinds:
        files = getattr(utils, f"{kind}_data_files")
        assert list(files) == ["test"] and files["test"]
        assert all(Path(f).is_file() and Path(f).is_relative_to(lmms) for f in files["test"])
        config = yaml.load((lmms / f"harness_modules_{kind}.yaml").read_text(), Loader=_TagLoader)  # noqa: S506
        assert all(hasattr(utils, name) for name in _hook_names(config)), kind


def test_task_table_names_hooks_of_the_module() -> None:
    for kind, task in lmms_exporter.harness_tasks().items():
        config = lmms_exporter.task_config(f"t_{kind}", "test", kind)
        names = [str(v).removeprefix("utils.") for v in _hook_names(config)[:-1]]
        assert all(getattr(hooks, n) is not None for n in names), kind
        assert config["doc_to_target"] == ("caption" if kind == "caption" else "answer")
        assert [m["higher_is_better"] for m in config["metric_list"]] == [
            not m.name.endswith("mae_share") for m in task.metrics]


# --- VLMEvalKit dataset classes, run from the package -------------------------------------------------------


def _evaluate(dataset: Any, predictions: list[str], path: Path) -> pd.DataFrame:
    dataset.data.drop(columns=["image"]).assign(prediction=predictions).to_csv(path, sep="\t", index=False)
    return dataset.evaluate(str(path))


def test_vlmevalkit_module_imports_without_vlmeval() -> None:
    if importlib.util.find_spec("vlmeval") is None:
        assert vlm.ImageBaseDataset is None and issubclass(vlm.MapgenDataset, vlm._StandIn)
    assert vlm.DATASET_NAME == vlm_exporter.NAME_PLACEHOLDER
    assert f"{vlm.DATASET_NAME}_CAPTION" == vlm.CAPTION_NAME
    assert f"{vlm.DATASET_NAME}_EXTRACTION" == vlm.EXTRACTION_NAME


def test_vlmevalkit_vqa_dataset_prompts_and_scores(tsvs: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MAPGEN_TSV_DIR", str(tsvs))
    dataset = vlm.MapgenDataset(NAME)
    assert vlm.tsv_path(NAME) == str(tsvs / f"{NAME}.tsv") and len(dataset) > 1
    monkeypatch.setattr(dataset, "img_root", str(tmp_path / "images"))
    image, text = dataset.build_prompt(len(dataset) - 1)  # the last row shares an earlier row's image
    assert image["type"] == "image" and Image.open(image["value"]).size == (800, 600)
    assert text == {"type": "text", "value": dataset.data["prompt"].iloc[-1]}
    right = [_reply(json.loads(a)) for a in dataset.data["answer_json"]]
    assert _evaluate(dataset, right, tmp_path / "right.tsv")["Overall"][0] == 1.0
    result = _evaluate(dataset, ["I cannot tell."] * len(dataset), tmp_path / "wrong.tsv")
    assert result["Overall"][0] == 0.0 and set(result.columns) == {"Overall", *dataset.data["category"]}
    assert list(pd.read_csv(tmp_path / "wrong_mapgen_scores.csv")["mapgen_score"]) == [0.0] * len(dataset)
    _evaluate(dataset, [""] * len(dataset), tmp_path / "silent.tsv")  # blank cells: no reply to parse
    assert list(pd.read_csv(tmp_path / "silent_mapgen_scores.csv")["parse_ok"]) == [False] * len(dataset)


def test_vlmevalkit_mcq_grounding_and_extraction_datasets(tsvs: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MAPGEN_TSV_DIR", str(tsvs))
    mcq = vlm.MapgenMCQDataset(f"{NAME}_MCQ")
    assert _evaluate(mcq, list(mcq.data["answer"]), tmp_path / "mcq.tsv")["Overall"][0] == 1.0
    frame = pd.read_csv(tsvs / f"{NAME}_MCQ.tsv", sep="\t", keep_default_na=False)
    by_text = [row[row["answer"]] for _, row in frame.iterrows()]  # the option's text instead of its letter
    assert _evaluate(mcq, by_text, tmp_path / "text.tsv")["Overall"][0] == 1.0
    grounding = vlm.MapgenGroundingDataset(f"{NAME}_GROUNDING")
    boxes = [a if i % 2 else "[0, 0, 1, 1]" for i, a in enumerate(grounding.data["answer"])]
    result = _evaluate(grounding, boxes, tmp_path / "g.tsv").set_index("group")
    assert result.loc["Overall", "Acc@0.5"] == pytest.approx(len(boxes) // 2 / len(boxes))
    extraction = vlm.MapgenExtractionDataset(f"{NAME}_EXTRACTION")
    table = _evaluate(extraction, list(extraction.data["answer"]), tmp_path / "x.tsv").set_index("group")
    assert table.loc["discrete", "Class acc"] == 100.0


# --- the written dataset module -----------------------------------------------------------------------------


def test_cut_keeps_asked_sections_and_drops_markers() -> None:
    text = "head\n\n\n# harness-section: a\nA = 1\n\n\n# harness-section: b\nB = 2\n"
    assert harness.sections(text) == ["a", "b"]
    assert harness.cut(text, {"a", "b"}) == "head\n\n\nA = 1\n\n\nB = 2\n"
    assert harness.cut(text, {"b"}) == "head\n\n\nB = 2\n"
    assert harness.cut(text, {"a"}) == harness.cut(text, {"a", "c"}) == "head\n\n\nA = 1\n"
    assert harness.cut(text, ()) == "head\n"


def test_written_dataset_module_is_the_shipped_one_named_for_the_export(tsvs: Path) -> None:
    shipped = harness.source("vlmevalkit_dataset")
    assert shipped == Path(vlm.__file__).read_text(encoding="utf-8")
    assert harness.sections(shipped) == [t.section for _, t in vlm_exporter.tables().values() if t.section]
    placeholder = vlm_exporter.NAME_PLACEHOLDER
    named = [line for line in shipped.splitlines() if placeholder in line]
    assert len(named) == 7 and all(re.match(r'\w+_NAME = "', line) for line in named[2:])
    written = (tsvs / "mapgen_dataset.py").read_text(encoding="utf-8")
    assert written == shipped.replace("# harness-section: extraction\n", "").replace(placeholder, NAME)
    without = vlm_exporter.dataset_module(NAME, ["vqa", "caption", "grounding"])
    assert "Extraction" not in without and written.startswith(without.rstrip("\n"))
    module = _import(tsvs / "mapgen_dataset.py", "harness_modules_dataset")
    assert sorted(p.stem for p in tsvs.glob("*.tsv")) == sorted(
        [module.DATASET_NAME, module.CAPTION_NAME, module.GROUNDING_NAME, module.EXTRACTION_NAME, module.MCQ_NAME])


def test_harness_package_ships_in_the_wheel() -> None:
    """Every package folder under mapgen/ (the harness one included) is listed: the wheel lists them by name."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "mapgen").rglob("__init__.py")}
    assert "mapgen.export.harness" in folders and folders <= listed
