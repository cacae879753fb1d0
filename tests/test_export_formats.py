"""Exporters: each format written from a tiny build and read back by its consumer library."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import os
import re
import shutil
import string
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd
import pytest
import yaml
from helpers import build_tiny
from PIL import Image

from mapgen.eval.score import score
from mapgen.export import ExportError, export
from mapgen.export.common import question_from_row
from mapgen.files import read_jsonl

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

TINY = {
    "name": "export tiny",
    "seed": 5,
    "countries": [{"name": "usa", "maps": 2}],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["imaginary"]},
    "questions": {"per_image": 4},
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
}


def _lines(path: Path) -> list[dict[str, Any]]:
    return read_jsonl(path)


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    return build_tiny(tmp_path_factory, TINY, "export")


@pytest.fixture(scope="module")
def questions(bench: Path) -> list[dict[str, Any]]:
    return _lines(bench / "questions.jsonl")


def _import(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _perfect(row: dict[str, Any]) -> str:
    return json.dumps({"answer": json.loads(row["answer_json"])})


# --- jsonl, llava, mapwise ----------------------------------------------------------------------------------


def test_jsonl_paths_are_relative_to_dest(bench: Path, questions, tmp_path: Path) -> None:
    dest = export(bench, "jsonl", tmp_path / "jsonl")
    for name in ("questions.jsonl", "captions.jsonl", "grounding.jsonl", "maps.jsonl"):
        records = _lines(dest / name)
        assert records and all((dest / r["image"]).is_file() and r["image"].startswith("images/") for r in records)
    assert len(_lines(dest / "questions.jsonl")) == len(questions)
    assert all(0 <= v <= 100 for r in _lines(dest / "grounding.jsonl") for v in r["box_percent"])


def test_llava_conversations(bench: Path, questions, tmp_path: Path) -> None:
    dest = export(bench, "llava", tmp_path / "llava")
    records = [r for split in ("train", "test") for r in json.loads((dest / f"llava_{split}.json").read_text())]
    assert {r["id"] for r in records} >= {q["question_id"] for q in questions}
    for r in records:
        human, gpt = r["conversations"]
        assert human["from"] == "human" and human["value"].startswith("<image>\n") and gpt["from"] == "gpt"
        assert (dest / r["image"]).is_file()
    boxes = [r["conversations"][1]["value"] for r in records if "[refer]" in r["conversations"][0]["value"]]
    assert boxes
    for text in boxes:
        values = [int(v) for v in re.fullmatch(r"\{<(\d+)><(\d+)><(\d+)><(\d+)>\}", text).groups()]
        assert all(0 <= v <= 100 for v in values) and values[0] < values[2] and values[1] < values[3]


def test_mapwise_layout_and_conventions(bench: Path, questions, tmp_path: Path) -> None:
    from mapgen.mapwise.schema import load_map_spec

    dest = export(bench, "mapwise", tmp_path / "mapwise") / "dataset" / "usa"
    frame = pd.read_csv(dest / "final_us_cleaned8.csv")
    assert list(frame.columns[:7]) == ["map_no", "template_no", "question", "ground_truth", "verified answer",
                                       "c_or_d", "relative_region (y/n)"]
    assert set(frame["c_or_d"]) <= {"c", "d"} and set(frame["relative_region (y/n)"]) <= {"Y", "N"}
    for map_no in frame["map_no"].unique():
        meta = json.loads((dest / "metadata" / f"map_{map_no}.json").read_text())
        assert {"map_id", "legend_type", "data", "title"} <= set(meta)
        assert (dest / "with_annotations" / f"map_{map_no}.png").is_file()
        spec = load_map_spec(dest / "metadata" / f"map_{map_no}.json")  # MAPWise metadata reads back as a spec
        assert spec.legend.kind == ("continuous" if meta["legend_type"] == "Continuous" else "discrete")


# --- Hugging Face datasets and lmms-eval --------------------------------------------------------------------


def test_hf_parquet_loads_with_images(bench: Path, questions, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    dest = export(bench, "hf", tmp_path / "hf")
    vqa = datasets.load_dataset(str(dest), "vqa")
    assert set(vqa) == {"train", "test"}
    assert sum(len(vqa[s]) for s in vqa) == len(questions)
    row = vqa["test"][0]
    assert isinstance(row["image"], Image.Image) and row["image"].size == (800, 600)
    assert score(question_from_row(row), _perfect(row)).main == 1.0
    files = sorted(str(p) for p in (dest / "grounding").glob("*.parquet"))
    grounding = datasets.load_dataset("parquet", data_files=files, split="train")
    assert len(grounding[0]["box_percent"]) == 4 and grounding[0]["image"].size == (800, 600)


def test_hf_shards_stream_lazily_and_store_each_image_once(bench: Path, questions, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    dest = export(bench, "hf", tmp_path / "hf", maps_per_shard=1)
    for split in ("train", "test"):
        rows = [q for q in questions if q["split"] == split]
        maps = list(dict.fromkeys(q["map_id"] for q in rows))
        files = sorted((dest / "vqa").glob(f"{split}-*.parquet"))
        assert [f.name for f in files] == [f"{split}-{i:05d}-of-{len(maps):05d}.parquet" for i in range(len(maps))]
        stream = datasets.load_dataset("parquet", data_files={split: [str(f) for f in files]}, split=split,
                                       streaming=True)
        assert isinstance(stream, datasets.IterableDataset)  # lazy: rows are read shard by shard
        seen = [(r["question_id"], r["map_id"], r["image"].size) for r in stream]
        assert [s[0] for s in seen] == [q["question_id"] for q in rows] and {s[2] for s in seen} == {(800, 600)}
    one = export(bench, "hf", tmp_path / "one")  # default shard size: the tiny build fits one shard per split
    assert sorted(p.name for p in (one / "vqa").glob("*.parquet")) == [
        "test-00000-of-00001.parquet", "train-00000-of-00001.parquet"]
    png = sum((bench / "maps" / f"{m}.png").stat().st_size for m in {q["map_id"] for q in questions})
    per_row = sum((bench / "maps" / f"{q['map_id']}.png").stat().st_size for q in questions)
    size = sum(p.stat().st_size for p in (one / "vqa").glob("*.parquet"))
    assert per_row > 2 * png and size < 1.2 * png  # each map's PNG stored once, not once per question


class TaskLoader(yaml.SafeLoader):
    """A YAML loader resolving lmms-eval's ``!function module.name`` tags against the task folder."""

    folder: Path = Path(".")


def _function(loader: TaskLoader, node: yaml.Node):
    module_name, name = loader.construct_scalar(node).rsplit(".", 1)
    return getattr(_import(loader.folder / f"{module_name}.py", f"lmms_{module_name}"), name)


TaskLoader.add_constructor("!function", _function)


def _load_task(path: Path) -> dict[str, Any]:
    loader = type("Loader", (TaskLoader,), {"folder": path.parent})
    return yaml.load(path.read_text(), Loader=loader)  # noqa: S506 - a SafeLoader subclass


def _docs(task: dict[str, Any]):
    import datasets

    return datasets.load_dataset(task["dataset_path"], **task["dataset_kwargs"])[task["test_split"]]


def test_lmms_eval_tasks_run_from_a_copied_folder(bench: Path, tmp_path: Path, monkeypatch) -> None:
    """All three tasks load and score after the folder is copied elsewhere and the original deleted (nothing in
    it holds an absolute path); YAML loaded as lmms-eval does (``!function`` resolved in the YAML's folder)."""
    pytest.importorskip("datasets")
    monkeypatch.setattr("mapgen.tasks.caption.scores.java_available", lambda: False)  # METEOR needs a JVM: skip it
    original = export(bench, "lmms-eval", tmp_path / "lmms")
    assert str(tmp_path) not in "".join(p.read_text() for p in original.glob("*.yaml")) + (original / "utils.py").read_text()
    dest = tmp_path / "elsewhere" / "tasks"
    shutil.copytree(original, dest)
    shutil.rmtree(original)
    assert sorted(p.name for p in dest.glob("*.yaml")) == [f"export_tiny_{t}.yaml" for t in ("caption", "grounding", "vqa")]
    task = _load_task(dest / "export_tiny_vqa.yaml")
    assert task["task"] == "export_tiny_vqa" and task["test_split"] == "test"
    docs = _docs(task)
    assert len(docs) == len([q for q in _lines(bench / "questions.jsonl") if q["split"] == "test"])
    doc = docs[0]
    assert isinstance(task["doc_to_visual"](doc)[0], Image.Image)
    assert doc["question"] in task["doc_to_text"](doc, task["lmms_eval_specific_kwargs"]["default"])
    right = task["process_results"](doc, [_perfect(doc)])
    wrong = task["process_results"](doc, ["I cannot tell."])
    metric = task["metric_list"][0]
    assert metric["metric"] == "mapgen_score" and metric["higher_is_better"] is True
    assert metric["aggregation"]([right["mapgen_score"], wrong["mapgen_score"]]) == 0.5
    grounding = _load_task(dest / "export_tiny_grounding.yaml")
    gdoc = _docs(grounding)[0]
    hit = grounding["process_results"](gdoc, [json.dumps({"answer": gdoc["box_percent"]})])
    assert hit["grounding_acc50"] == 1.0
    caption = _load_task(dest / "export_tiny_caption.yaml")
    cdocs = _docs(caption)
    assert caption["doc_to_target"] == "caption" and "Describe" in caption["doc_to_text"](cdocs[0], {})
    perfect = [caption["process_results"](d, [d["caption"]]) for d in cdocs]
    blank = [caption["process_results"](d, ["A map."]) for d in cdocs]
    by_name = {m["metric"]: m["aggregation"] for m in caption["metric_list"]}
    assert set(by_name) == {"caption_bleu4", "caption_meteor", "caption_rouge_l", "caption_cider"}
    assert by_name["caption_bleu4"]([r["caption_bleu4"] for r in perfect]) == pytest.approx(1.0, abs=1e-6)
    assert by_name["caption_cider"]([r["caption_cider"] for r in blank]) < 0.5


# --- VLMEvalKit and Croissant -------------------------------------------------------------------------------


def test_vlmevalkit_tsv_and_dataset_class(bench: Path, questions, tmp_path: Path, monkeypatch) -> None:
    dest = export(bench, "vlmevalkit", tmp_path / "vlm", split="test")
    tsv = dest / "MAPGEN_EXPORT_TINY_TEST.tsv"
    frame = pd.read_csv(tsv, sep="\t")
    assert list(frame.columns[:5]) == ["index", "image", "question", "answer", "category"]
    assert len(frame) == sum(q["split"] == "test" for q in questions)
    image = Image.open(io.BytesIO(base64.b64decode(frame["image"][0])))
    assert image.size == (800, 600)
    module = _import(dest / "mapgen_dataset.py", "mapgen_vlmeval_dataset")
    monkeypatch.setenv("MAPGEN_TSV_DIR", str(dest))
    dataset = module.MapgenDataset(module.DATASET_NAME)
    msgs = dataset.build_prompt(len(frame) - 1)  # the last row usually references an earlier row's image
    assert msgs[0]["type"] == "image" and Image.open(msgs[0]["value"]).size == (800, 600)
    assert msgs[1]["type"] == "text"
    predictions = dataset.data.drop(columns=["image"]).assign(prediction=[_perfect(r) for _, r in frame.iterrows()])
    predictions.to_csv(tmp_path / "pred.tsv", sep="\t", index=False)
    result = dataset.evaluate(str(tmp_path / "pred.tsv"))
    assert result["Overall"][0] == 1.0


def test_vlmevalkit_caption_and_grounding_datasets(bench: Path, tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("pycocoevalcap", reason="caption metrics need mapgen's [eval] extra")
    monkeypatch.setattr("mapgen.tasks.caption.scores.java_available", lambda: False)  # METEOR needs a JVM: skip it
    dest = export(bench, "vlmevalkit", tmp_path / "vlm", split="test")
    module = _import(dest / "mapgen_dataset.py", "mapgen_vlmeval_tasks")
    records = {t: [r for r in _lines(bench / f"{t}.jsonl") if r["split"] == "test"] for t in ("captions", "grounding")}
    caption = module.MapgenCaptionDataset(module.CAPTION_NAME)
    assert len(caption) == len(records["captions"]) > 0
    msgs = caption.build_prompt(len(caption) - 1)
    assert Image.open(msgs[0]["value"]).size == (800, 600) and "Describe" in msgs[1]["value"]
    truth = {r["question_id"]: r["ground_truth"] for r in records["captions"]}
    assert dict(zip(caption.data["question_id"], caption.data["answer"])) == truth
    caption.data.drop(columns=["image"]).assign(prediction=caption.data["answer"]).to_csv(
        tmp_path / "cap.tsv", sep="\t", index=False)
    assert caption.evaluate(str(tmp_path / "cap.tsv"))["BLEU-4"][0] == pytest.approx(1.0, abs=1e-6)
    grounding = module.MapgenGroundingDataset(module.GROUNDING_NAME)
    assert len(grounding) == len(records["grounding"]) > 0
    assert grounding.build_prompt(0)[1]["value"]
    answers = [a if i % 2 else "[0, 0, 1, 1]" for i, a in enumerate(grounding.data["answer"])]
    grounding.data.drop(columns=["image"]).assign(prediction=answers).to_csv(tmp_path / "g.tsv", sep="\t", index=False)
    result = grounding.evaluate(str(tmp_path / "g.tsv")).set_index("group")
    assert result.loc["Overall", "Acc@0.5"] == pytest.approx(len(answers) // 2 / len(answers))
    assert set(result.index) >= {"Overall", "unique"}


def vlmevalkit_load(tsv: Path) -> pd.DataFrame:
    """A dataset TSV read the way VLMEvalKit reads one, reimplemented from its loader (open-compass/VLMEvalKit,
    ``vlmeval/smp/file.py``: ``load`` reads ``.tsv`` with ``pd.read_csv(sep="\\t")``;
    ``vlmeval/dataset/image_base.py``: ``ImageBaseDataset.__init__`` turns ``index`` and ``image`` into strings,
    and an image cell of at most 64 characters must be the index of a row whose cell holds the base64 image;
    ``dump_image`` decodes it to a file). Fails where that loader would; returns rows with decoded images."""
    data = pd.read_csv(tsv, sep="\t")
    assert {"index", "image", "question"} <= set(data.columns)  # build_prompt reads line["question"]
    data["index"] = [str(x) for x in data["index"]]
    assert data["index"].is_unique
    images = dict(zip(data["index"], (str(x) for x in data["image"])))
    for key, value in list(images.items()):
        if len(value) <= 64:
            assert value in images and len(images[value]) > 64, f"{tsv.name} row {key}: no image at index {value!r}"
            images[key] = images[value]
    decoded = {v: Image.open(io.BytesIO(base64.b64decode(v))) for v in set(images.values())}
    return data.assign(image=[decoded[images[k]] for k in data["index"]])


def vlmevalkit_options(row: pd.Series) -> dict[str, str]:
    """The options VLMEvalKit's ``ImageMCQDataset.build_prompt`` (``vlmeval/dataset/image_mcq.py``) shows: every
    column named by a capital letter whose cell is not NA."""
    return {c: row[c] for c in string.ascii_uppercase if c in row and not pd.isna(row[c])}


def test_vlmevalkit_tsvs_load_as_vlmevalkit_loads_them(bench: Path, questions, tmp_path: Path) -> None:
    """The real VLMEvalKit is not on PyPI (GitHub only, unreachable here): its loader's conventions are checked
    instead on all four TSVs (VQA, captions, grounding, multiple choice)."""
    dest = export(bench, "vlmevalkit", tmp_path / "vlm", split="test", mcq=True)
    module = _import(dest / "mapgen_dataset.py", "mapgen_vlmeval_conventions")
    names = [module.DATASET_NAME, module.CAPTION_NAME, module.GROUNDING_NAME, module.MCQ_NAME]
    assert sorted(p.stem for p in dest.glob("*.tsv")) == sorted(names)  # $LMUData/<dataset>.tsv
    test_maps = {q["map_id"] for q in questions if q["split"] == "test"}
    for name in names:
        data = vlmevalkit_load(dest / f"{name}.tsv")
        assert len(data) and all(im.size == (800, 600) for im in data["image"])
        assert set(data["map_id"]) <= test_maps and data["answer"].notna().all()
        for map_id, rows in data.groupby("map_id"):  # one decoded image per map, shared by its rows
            assert len({im.tobytes() for im in rows["image"]}) == 1, map_id
    mcq = vlmevalkit_load(dest / f"{module.MCQ_NAME}.tsv")
    gold = {q["question_id"]: q for q in questions}
    for _, row in mcq.iterrows():
        options = vlmevalkit_options(row)
        assert list(options) == list("ABCD"[: len(options)]) and len(options) >= 2
        assert options[row["answer"]] == str(gold[row["question_id"]]["answer"])
        assert row["question"] == gold[row["question_id"]]["question"]  # VLMEvalKit appends the options itself
        assert not any(f"{letter}. " in row["question"] for letter in options)


def test_croissant_validates_and_reads_back(bench: Path, questions, tmp_path: Path) -> None:
    mlc = pytest.importorskip("mlcroissant")
    dest = export(bench, "croissant", tmp_path / "croissant")
    dataset = mlc.Dataset(jsonld=str(dest / "croissant.json"))
    records = list(dataset.records("questions"))
    assert len(records) == len(questions)
    first = records[0]
    assert first["questions/question_id"].decode() == questions[0]["question_id"]
    assert json.loads(first["questions/answer_json"].decode()) == questions[0]["answer"]
    image = next(iter(dataset.records("images")))["images/image"]
    assert image.size == (800, 600)
    manifest = json.loads((bench / "manifest.json").read_text())
    objects = {d["contentUrl"]: d for d in json.loads((dest / "croissant.json").read_text())["distribution"]
               if d["@type"] == "cr:FileObject"}
    map_id = questions[0]["map_id"]
    assert objects[f"images/{map_id}.png"]["sha256"] == manifest["files"][f"maps/{map_id}.png"]


# --- destination folder safety ------------------------------------------------------------------------------


def test_non_empty_destination_is_refused_unless_forced(bench: Path, tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep.txt").write_text("keep")
    with pytest.raises(ExportError, match="not empty"):
        export(bench, "jsonl", dest)
    assert (dest / "keep.txt").exists()
    export(bench, "jsonl", dest, force=True)
    assert not (dest / "keep.txt").exists() and (dest / "questions.jsonl").exists()


def test_failed_export_leaves_nothing(bench: Path, tmp_path: Path, monkeypatch) -> None:
    import mapgen.export.jsonl as jsonl

    def broken(bench, dest, **_):
        (dest / "questions.jsonl").write_text("half")
        raise OSError("disk full")

    monkeypatch.setattr(jsonl, "write", broken)
    with pytest.raises(OSError, match="disk full"):
        export(bench, "jsonl", tmp_path / "dest")
    assert list(tmp_path.iterdir()) == []


def test_unknown_format_and_unfinished_build(bench: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="Unknown export format"):
        export(bench, "xml", tmp_path / "x")
    with pytest.raises(ExportError, match="manifest.json"):
        export(tmp_path, "jsonl", tmp_path / "y")


def test_cli_export(bench: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mapgen.cli import main

    result = CliRunner().invoke(main, ["export", str(bench), "--format", "mapwise", "-o", str(tmp_path / "mw")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "mw" / "dataset" / "usa" / "final_us_cleaned8.csv").exists()
    again = CliRunner().invoke(main, ["export", str(bench), "--format", "mapwise", "-o", str(tmp_path / "mw")])
    assert again.exit_code == 2 and "not empty" in again.output


# --- multiple-choice form -----------------------------------------------------------------------------------


def test_mcq_exports_jsonl_hf_and_vlmevalkit(bench: Path, questions, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    mcq_types = {"single", "range", "count", "binary"}
    wanted = [q for q in questions if q["answer_type"] in mcq_types]
    jsonl = export(bench, "jsonl", tmp_path / "jsonl", mcq=True)
    twins = _lines(jsonl / "questions_mcq.jsonl")
    assert [t["question_id"] for t in twins] == [q["question_id"] for q in wanted]
    gold = {q["question_id"]: q for q in wanted}
    for t in twins:  # the gold letter names the gold answer; the options are in the question text
        assert t["options"]["ABCD".index(t["answer"])] == str(gold[t["question_id"]]["answer"])
        assert all(f"{letter}. {o}" in t["question"] for letter, o in zip("ABCD", t["options"]))
        assert (jsonl / t["image"]).is_file()
    hf = export(bench, "hf", tmp_path / "hf", mcq=True)
    rows = datasets.load_dataset(str(hf), "vqa_mcq")["test"]
    row = rows[0]
    assert row["answer"] in "ABCD" and row[row["answer"]] == str(gold[row["question_id"]]["answer"])
    assert 'letter of one of the options' in row["prompt"]
    assert score(question_from_row(row), json.dumps({"answer": row["answer"]})).main == 1.0
    vlm = export(bench, "vlmevalkit", tmp_path / "vlm", split="test", mcq=True)
    frame = pd.read_csv(vlm / "MAPGEN_EXPORT_TINY_TEST_MCQ.tsv", sep="\t", keep_default_na=False)
    assert {"A", "B", "C", "D", "answer", "category"} <= set(frame.columns)
    assert set(frame["category"]) <= mcq_types and set(frame["answer"]) <= set("ABCD")
    module = _import(vlm / "mapgen_dataset.py", "mapgen_vlmeval_mcq")
    dataset = module.MapgenMCQDataset(module.MCQ_NAME)
    by_text = [r[r["answer"]] for _, r in frame.iterrows()]  # the option text instead of the letter
    dataset.data.drop(columns=["image"]).assign(prediction=by_text).to_csv(tmp_path / "p.tsv", sep="\t", index=False)
    assert dataset.evaluate(str(tmp_path / "p.tsv"))["Overall"][0] == 1.0
    wrong = ["A" if a != "A" else "B" for a in frame["answer"]]
    dataset.data.drop(columns=["image"]).assign(prediction=wrong).to_csv(tmp_path / "w.tsv", sep="\t", index=False)
    assert dataset.evaluate(str(tmp_path / "w.tsv"))["Overall"][0] == 0.0
