"""The annotation kit: a self-contained folder people open in a browser, and the gold it is scored against.

``write_kit(bench, out, n, seed)`` writes::

    KIT/index.html        the annotation page (open it from the file system: no server, no network)
    KIT/assets/app.js     the page's script (no inline script: the page's Content-Security-Policy forbids it)
    KIT/assets/style.css
    KIT/kit.js            window.MAPGEN_KIT = {questions: [...]}: what the page reads (no gold answers)
    KIT/maps/*.png        the sampled maps' images, copied as regular files
    KIT/gold.jsonl        the sampled Question records with their answers (the page never loads it)
    KIT/kit.json          the benchmark's name, seed, size and the sample's shares per stratum

Each page question carries what its answer widget needs and nothing of the answer: the map's region names
(for the region picker's autocomplete) and the legend's range labels (for the range chooser).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from mapgen.benchmark import Benchmark, load_benchmark, map_json_name
from mapgen.files import (
    atomic_folder,
    read_json,
    read_jsonl,
    refuse_inside,
    write_jsonl_atomic,
    write_text_atomic,
)
from mapgen.human.sample import STRATA, shares, stratified_sample
from mapgen.questions.record import Question
from mapgen.resources import template_path

GOLD_FILE = "gold.jsonl"
KIT_FILE = "kit.json"
PAGE_DATA = "kit.js"
PAGE_VARIABLE = "window.MAPGEN_KIT"
PAGE_FILES = ("index.html", "assets/app.js", "assets/style.css")
"""The page's files, copied from ``templates/human/`` (the same names there)."""


class KitError(ValueError):
    """A folder that is not an annotation kit (the message names the fix)."""


def _map_facts(bench: Benchmark, map_id: str) -> dict[str, Any]:
    """Region names and legend range labels of one map (empty when its JSON is missing)."""
    from mapgen.scene import load_scene

    path = bench.root / "maps" / map_json_name(map_id)
    if not path.is_file():
        return {"names": [], "ranges": [], "language": "en"}
    scene = load_scene(path)
    names = sorted({scene.name_of(code) for code in scene.codes}, key=str.casefold)
    ranges = [c.label for c in scene.legend.display_classes()] if scene.legend.kind == "discrete" else []
    return {"names": names, "ranges": ranges, "language": str(scene.language or "en")}


def page_question(q: Question, image: str, facts: dict[str, Any]) -> dict[str, Any]:
    """What the page shows of ``q``: its text, answer type, image and widget choices — never its answer."""
    return {"question_id": q.question_id, "question": q.question, "answer_type": q.answer_type, "image": image,
            "map_id": q.map_id, "map_type": q.map_type, "country": q.country, **facts}


def _copy_images(bench: Benchmark, questions: list[Question], folder: Path) -> dict[str, str]:
    """Copy each sampled map's image into ``folder/maps`` (a regular file, never a link); kit-relative paths."""
    rels: dict[str, str] = {}
    for map_id in dict.fromkeys(q.map_id for q in questions):
        source = bench.image_path(map_id)
        if source is None or not source.is_file():
            raise KitError(f"{bench.root}: the image of map {map_id} is missing; rebuild the benchmark")
        rels[map_id] = f"maps/{source.name}"
        (folder / "maps").mkdir(exist_ok=True)
        shutil.copyfile(source, folder / rels[map_id])
    return rels


def _copy_page(folder: Path) -> None:
    for rel in PAGE_FILES:
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(template_path("human", *rel.split("/")).read_bytes())


def page_data_text(data: dict[str, Any]) -> str:
    """The page's data script: one assignment of plain JSON (ASCII, ``<`` escaped, so no text can end a tag)."""
    text = json.dumps(data, ensure_ascii=True, sort_keys=True, indent=None).replace("<", "\\u003c")
    return f"{PAGE_VARIABLE} = {text};\n"


def write_kit(bench: str | Path, out: str | Path, n: int = 150, seed: int = 0, force: bool = False,
              maps: int | None = None) -> dict[str, Any]:
    """Sample ``n`` questions per country of ``bench`` (on at most ``maps`` maps per country) and write the kit
    folder ``out`` atomically (refusing a non-empty ``out`` unless ``force``); returns the kit's description
    (what ``kit.json`` holds)."""
    b = load_benchmark(bench, verify="records").require_records()
    refuse_inside(out, b.root, "the benchmark folder")
    sample = stratified_sample(b.questions, n, seed, maps=maps)
    if not force and Path(out).exists() and (not Path(out).is_dir() or any(Path(out).iterdir())):
        raise KitError(f"{out} is not empty; choose a new folder or give --force to replace it")
    with atomic_folder(out, replace=force) as folder:
        images = _copy_images(b, sample, folder)
        facts = {m: _map_facts(b, m) for m in images}
        page = [page_question(q, images[q.map_id], facts[q.map_id]) for q in sample]
        info = kit_info(b, sample, n, seed) | {"maps_per_country": maps}
        write_text_atomic(folder / PAGE_DATA, page_data_text({"kit": info["name"], "questions": page}))
        write_jsonl_atomic(folder / GOLD_FILE, [q.to_dict() for q in sample], ensure_ascii=False)
        write_text_atomic(folder / KIT_FILE, json.dumps(info, indent=1, sort_keys=True) + "\n")
        _copy_page(folder)
    return info


def kit_info(bench: Benchmark, sample: list[Question], n: int, seed: int) -> dict[str, Any]:
    """The kit's description: benchmark, seed, size per country, and the sample's shares on every axis."""
    axes = ("answer_type", "country", "annotated", "hatched", *STRATA[1:4])
    return {"name": f"{bench.name}-human", "benchmark": bench.name, "seed": seed, "n_per_country": n,
            "questions": len(sample), "maps": len({q.map_id for q in sample}),
            "templates": len({q.template_id for q in sample}),
            "mapwise_templates": sorted({q.mapwise_template for q in sample if q.mapwise_template is not None}),
            "shares": {axis: shares(sample, axis) for axis in axes}}


def load_gold(kit: str | Path) -> list[Question]:
    """The gold Question records of a kit (:class:`KitError` when ``kit`` is not a kit folder)."""
    path = Path(kit) / GOLD_FILE
    if not path.is_file():
        raise KitError(f"{kit} has no {GOLD_FILE}: not an annotation kit; give the folder `mapgen human sample` "
                       "wrote")
    return [Question.from_dict(r) for r in read_jsonl(path)]


def read_page_data(kit: str | Path) -> dict[str, Any]:
    """What the page reads (``kit.js``) as a dict (:class:`KitError` when missing or not the kit's data)."""
    path = Path(kit) / PAGE_DATA
    prefix = f"{PAGE_VARIABLE} = "
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if not text.startswith(prefix):
        raise KitError(f"{path} is missing or not a kit's page data; sample the kit again (`mapgen human sample`)")
    data = json.loads(text[len(prefix):].rstrip().rstrip(";"))
    return data if isinstance(data, dict) else {}


def load_kit_info(kit: str | Path) -> dict[str, Any]:
    """The kit's ``kit.json`` (empty when absent)."""
    path = Path(kit) / KIT_FILE
    data = read_json(path) if path.is_file() else {}
    return data if isinstance(data, dict) else {}
