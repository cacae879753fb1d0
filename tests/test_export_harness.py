"""The real lmms-eval (PyPI ``lmms-eval`` 0.7.x) runs mapgen's exported task folder, copied elsewhere, on all three
tasks against a local OpenAI-compatible stub server that answers from the build's own records.

The stub is an oracle keyed on what lmms-eval sends: it decodes the PNG in the request, recognises the map by its
pixels and answers that map's question, referring expression or caption from ``questions.jsonl`` /
``grounding.jsonl`` / ``captions.jsonl`` — except count questions, which it declines. So the harness must report
exactly the share of non-count questions, a perfect grounding score and perfect captions; any misalignment of
docs, images, prompts or results inside lmms-eval's loop would show. Skips (saying why) without lmms-eval: it
installs torch (see "Running the harness exports" in docs/exports.md for the install lines)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from helpers import ChatStub, build_tiny
from PIL import Image

from mapgen.export import export
from mapgen.files import read_jsonl

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("lmms_eval") is None,
    reason="lmms-eval is not installed (optional: pip install torch==2.13.0 'mapgen[harness]', see docs/exports.md)",
)

HARNESS = {
    "name": "harness tiny",
    "seed": 11,
    "countries": [{"name": "usa", "maps": 2}],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["imaginary"]},
    "questions": {"per_image": 6},
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
}
DECLINED = "count"
"""Answer type the stub declines to answer (scores 0), so the expected VQA score is not trivially 1."""


def pixel_key(image: Image.Image) -> str:
    """A map's identity as lmms-eval sends it: the hash of its RGB pixels (PNG re-encoding keeps them)."""
    rgb = image.convert("RGB")
    return hashlib.sha256(rgb.tobytes() + repr(rgb.size).encode()).hexdigest()


class Oracle:
    """Replies for each map (by pixels): its questions' gold answers, its expressions' boxes, its caption."""

    def __init__(self, bench: Path, split: str) -> None:
        def of_split(name: str) -> list[dict[str, Any]]:
            return [r for r in read_jsonl(bench / name) if r["split"] == split]

        self.maps = {pixel_key(Image.open(bench / "maps" / f"{m['map_id']}.png")): m["map_id"]
                     for m in read_jsonl(bench / "maps.jsonl") if m["split"] == split}
        self.questions, self.grounding = of_split("questions.jsonl"), of_split("grounding.jsonl")
        self.captions = {r["map_id"]: r["ground_truth"] for r in of_split("captions.jsonl")}

    def reply(self, text: str, image: Image.Image) -> str:
        map_id = self.maps[pixel_key(image)]
        if "bounding box" in text:
            ref = self._match(self.grounding, map_id, text)
            return json.dumps([100 * v for v in ref["box_norm"]]) if ref else "[0, 0, 1, 1]"
        if "Describe" in text:
            return self.captions[map_id]
        question = self._match(self.questions, map_id, text)
        if question is None or question["answer_type"] == DECLINED:
            return "I cannot tell."
        return json.dumps({"answer": question["answer"]})

    @staticmethod
    def _match(records: Iterable[dict[str, Any]], map_id: str, text: str) -> dict[str, Any] | None:
        """The record of ``map_id`` whose text the prompt contains (the longest, so no prefix wins)."""
        found = [r for r in records if r["map_id"] == map_id and r["question"] in text]
        return max(found, key=lambda r: len(r["question"]), default=None)


def _request_parts(body: dict[str, Any]) -> tuple[str, Image.Image]:
    """The prompt text and the image of an OpenAI chat request."""
    content = body["messages"][-1]["content"]
    text = " ".join(c["text"] for c in content if c.get("type") == "text")
    url = next(c["image_url"]["url"] for c in content if c.get("type") == "image_url")
    return text, Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def run_lmms_eval(tasks_dir: Path, tasks: list[str], url: str, out: Path) -> dict[str, Any]:
    """``python -m lmms_eval`` on the task folder; the ``results`` of its results JSON."""
    env = os.environ | {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "stub",
                        "HF_DATASETS_CACHE": str(out / "hf-cache")}
    command = [sys.executable, "-m", "lmms_eval", "--include_path", str(tasks_dir), "--tasks", ",".join(tasks),
               "--model", "openai", "--model_args", f"model=stub,base_url={url},api_key=stub,max_retries=1",
               "--batch_size", "1", "--output_path", str(out / "results")]
    done = subprocess.run(command, cwd=out, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    files = sorted((out / "results").rglob("*_results.json"))
    assert files, f"lmms-eval wrote no results JSON:\n{done.stderr[-3000:]}"
    return json.loads(files[-1].read_text())["results"]


def test_real_lmms_eval_runs_all_three_tasks_from_a_copied_folder(tmp_path_factory, tmp_path: Path) -> None:
    bench = build_tiny(tmp_path_factory, HARNESS, "harness")
    original = export(bench, "lmms-eval", tmp_path / "export")
    moved = tmp_path / "elsewhere" / "mapgen_tasks"
    shutil.copytree(original, moved)
    shutil.rmtree(original)  # nothing may point back at the export folder
    tasks = [f"harness_tiny_{kind}" for kind in ("vqa", "caption", "grounding")]
    oracle = Oracle(bench, "test")
    server = ChatStub(lambda body: oracle.reply(*_request_parts(body)))
    try:
        results = run_lmms_eval(moved, tasks, server.url, tmp_path)
    finally:
        server.close()
    vqa, caption, grounding = (results[t] for t in tasks)
    asked = oracle.questions
    declined = sum(q["answer_type"] == DECLINED for q in asked)
    assert len(asked) > declined > 0
    assert server.requests == len(asked) + len(oracle.captions) + len(oracle.grounding)
    assert vqa["mapgen_score,none"] == pytest.approx(1 - declined / len(asked))
    assert vqa["mapgen_parse_ok,none"] == pytest.approx(1 - declined / len(asked))
    assert grounding["grounding_acc50,none"] == 1.0 and grounding["grounding_iou,none"] > 0.99
    assert caption["caption_bleu4,none"] == pytest.approx(1.0, abs=1e-6)
    assert caption["caption_rouge_l,none"] == pytest.approx(1.0, abs=1e-6)
