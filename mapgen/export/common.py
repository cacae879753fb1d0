"""What every exporter shares: flat rows per task, answer text, prompts, images (the build folder is read with
:func:`mapgen.benchmark.load_benchmark`).

Rows are flat records with one type per column (what parquet, TSV and Croissant need): answers that are lists,
rankings or numbers are kept twice, as display text (``answer``) and as JSON (``answer_json``), so a consumer
can score with :func:`mapgen.eval.score.score` after :func:`question_from_row`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mapgen.benchmark import Benchmark
from mapgen.files import link_or_copy

QUESTION_COLUMNS: tuple[str, ...] = (
    "question_id", "map_id", "image", "split", "country", "variant", "counterfactual", "counterfactual_set",
    "template_id",
    "mapwise_template", "question", "answer", "answer_json", "answer_type", "accepted_answers", "bounds",
    "map_type", "relative_region", "hatched", "annotated", "prompt",
)
CAPTION_COLUMNS: tuple[str, ...] = (
    "question_id", "map_id", "image", "split", "country", "variant", "counterfactual", "counterfactual_set",
    "caption", "prompt",
)
GROUNDING_COLUMNS: tuple[str, ...] = (
    "question_id", "map_id", "image", "split", "country", "variant", "counterfactual", "counterfactual_set",
    "expression", "box",
    "box_norm", "box_percent", "answer", "unique", "type", "target_code", "prompt",
)
EXTRACTION_COLUMNS: tuple[str, ...] = (
    "question_id", "map_id", "image", "split", "country", "variant", "counterfactual", "counterfactual_set",
    "question", "answer", "gold_json", "map_type", "hatched", "annotated", "prompt",
)
"""Table-extraction rows: ``answer`` the gold table as Markdown, ``gold_json`` what scoring needs (rows with
accepted spellings, omitted regions, classes or bar ends and tolerance; :func:`table_from_row`)."""
GOLD_TABLE_KEYS: tuple[str, ...] = ("question_id", "map_type", "hatched", "classes", "vmin", "vmax", "percent",
                                    "tolerance", "tolerance_share", "rows", "omitted")
MCQ_LETTERS: tuple[str, ...] = ("A", "B", "C", "D")
MCQ_COLUMNS: tuple[str, ...] = (*QUESTION_COLUMNS, "original_answer_type", "options", *MCQ_LETTERS)
"""The multiple-choice rows: a question row whose answer is the gold letter, the options as a JSON list and one
column per letter (empty when a question has fewer options, e.g. Yes/No)."""
COLUMNS: dict[str, tuple[str, ...]] = {"vqa": QUESTION_COLUMNS, "caption": CAPTION_COLUMNS,
                                       "grounding": GROUNDING_COLUMNS, "vqa_mcq": MCQ_COLUMNS,
                                       "extraction": EXTRACTION_COLUMNS}

CAPTION_PROMPT = "Describe this map in detail."
GROUNDING_PROMPT = ("Give the bounding box of the region described below as [x1, y1, x2, y2], integers from 0 to 100 "
                    "as percentages of the image width and height.\nDescription: {expression}")


class ExportError(ValueError):
    """An export that cannot proceed (not a build folder, occupied destination, unknown format)."""


# --- answers and prompts ------------------------------------------------------------------------------------


def answer_text(answer: Any, answer_type: str, empty: str = "None") -> str:
    """An answer as plain text: lists comma-separated, rankings ``A > B = C`` (best first)."""
    if answer is None:
        return empty
    if answer_type == "ranking" and isinstance(answer, (list, tuple)):
        groups = [g if isinstance(g, (list, tuple)) else [g] for g in answer]
        return " > ".join(" = ".join(str(i) for i in g) for g in groups) or empty
    if isinstance(answer, (list, tuple)):
        return ", ".join(str(a) for a in answer) or empty
    if isinstance(answer, bool):
        return "Yes" if answer else "No"
    return str(answer)


def vqa_prompt(record: dict[str, Any], bench: Benchmark | None = None) -> str:
    """The evaluation prompt of a question: mapgen's ``direct`` strategy when the prompt module is present,
    else the question with an answer-format hint."""
    try:
        from mapgen.eval.prompts import name_dictionary, render_prompt
    except ImportError:
        return f"{record['question']}\n{_FALLBACK_HINTS.get(record['answer_type'], '')}".strip()
    names = None
    if record.get("counterfactual") and bench is not None:
        from mapgen.questions.record import Question

        spec = bench.map_json(record["map_id"]).get("spec")
        names = name_dictionary(Question.from_dict(question_record(record)), spec)
    return render_prompt(question_record(record), "direct", names=names).text


_FALLBACK_HINTS = {
    "binary": 'Answer Yes or No as {"answer": "Yes"}.',
    "count": 'Answer with a whole number as {"answer": 3}.',
    "single": 'Answer with one name as written on the map as {"answer": "Name"}.',
    "list": 'Answer with a JSON array of names as {"answer": ["Name 1", "Name 2"]}.',
    "ranking": 'Answer best first as {"answer": "Name 1 > Name 2 = Name 3"}.',
    "range": 'Answer with a legend range as {"answer": "1k-2k"}.',
}


def question_record(record: dict[str, Any]) -> dict[str, Any]:
    """The Question-shaped part of a record (for :func:`mapgen.eval.score.score` and prompts)."""
    from mapgen.questions.record import Question

    return {k: record[k] for k in Question.__dataclass_fields__ if k in record}


# --- flat rows ----------------------------------------------------------------------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _common(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    cf = record.get("counterfactual")
    return {
        "question_id": str(record.get("question_id") or ""),
        "map_id": record["map_id"],
        "image": record.get("image") or bench.image_rel(record["map_id"]),
        "split": str(record.get("split") or ""),
        "country": str(record.get("country") or ""),
        "variant": str(record.get("variant") or ""),
        "counterfactual": "" if cf in (None, "original") else str(cf),
        "counterfactual_set": str(record.get("counterfactual_set") or cf or ""),
    }


def question_row(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    """A flat row for one question (see :data:`QUESTION_COLUMNS`)."""
    row = _common(record, bench)
    template = record.get("mapwise_template")
    row.update(
        template_id=str(record.get("template_id") or ""),
        mapwise_template=int(template) if template is not None else -1,
        question=record["question"],
        answer=answer_text(record["answer"], record["answer_type"]),
        answer_json=_dumps(record["answer"]),
        answer_type=record["answer_type"],
        accepted_answers=_dumps(record.get("accepted_answers") or {}),
        bounds=_dumps(record.get("bounds")),
        map_type=str(record.get("map_type") or ""),
        relative_region=bool(record.get("relative_region")),
        hatched=bool(record.get("hatched")),
        annotated=bool(record.get("annotated", True)),
        prompt=vqa_prompt(record, bench),
    )
    return row


def question_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`question_row`: a dict :func:`mapgen.eval.score.score` accepts."""
    out: dict[str, Any] = {k: row[k] for k in ("question_id", "map_id", "template_id", "question", "answer_type", "map_type",
                               "country", "relative_region", "hatched", "annotated", "split") if k in row}
    out["answer"] = json.loads(row["answer_json"])
    out["accepted_answers"] = json.loads(row.get("accepted_answers") or "{}")
    out["bounds"] = json.loads(row.get("bounds") or "null")
    template = int(row.get("mapwise_template", -1))
    out["mapwise_template"] = template if template >= 0 else None
    out["counterfactual"] = row.get("counterfactual") or None
    return out


def task_prompt(record: dict[str, Any], task: str, text: str) -> str:
    """The prompt of a caption/grounding record: mapgen's ``caption``/``grounding`` strategy when the prompt
    module is present, else a built-in one."""
    try:
        from mapgen.eval.prompts import render_prompt, task_question
    except ImportError:
        return CAPTION_PROMPT if task == "caption" else GROUNDING_PROMPT.format(expression=text)
    return render_prompt(task_question(record | {"question": text}, task), task).text


def caption_text(record: dict[str, Any]) -> str:
    """The caption of a caption record (VRSBench eval records keep it in ``ground_truth``)."""
    return str(record.get("caption") or record.get("ground_truth") or "")


def expression_text(record: dict[str, Any]) -> str:
    """The referring expression of a grounding record (VRSBench eval records keep it in ``question``)."""
    return str(record.get("expression") or record.get("question") or "")


def caption_row(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    """A flat row for one caption record."""
    return _common(record, bench) | {"caption": caption_text(record), "prompt": task_prompt(record, "caption", "")}


def box_percent(record: dict[str, Any], bench: Benchmark) -> list[int]:
    """The box as integers on a 0–100 scale of the image width and height (VRSBench convention)."""
    gold = record.get("ground_truth")
    if isinstance(gold, list) and len(gold) == 4:
        return [int(v) for v in gold]
    norm = record.get("box_norm")
    if not norm:
        from PIL import Image

        with Image.open(image_file(bench, record["map_id"])) as img:
            w, h = img.size
        x1, y1, x2, y2 = record["box"]
        norm = [x1 / w, y1 / h, (x2 + 1) / w, (y2 + 1) / h]
    return [min(100, max(0, round(float(v) * 100))) for v in norm]


def box_text(box: list[int]) -> str:
    """VRSBench's answer form ``{<x1><y1><x2><y2>}``."""
    return "{" + "".join(f"<{v}>" for v in box) + "}"


def grounding_row(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    """A flat row for one referring expression with its box."""
    pct = box_percent(record, bench)
    expression = expression_text(record)
    return _common(record, bench) | {
        "expression": expression,
        "box": [float(v) for v in record["box"]],
        "box_norm": [float(v) for v in record.get("box_norm") or [v / 100 for v in pct]],
        "box_percent": pct,
        "answer": str(pct),
        "unique": bool(record.get("unique", True)),
        "type": str(record.get("expression_type") or record.get("type") or ""),
        "target_code": str(record.get("target_code") or ""),
        "prompt": task_prompt(record, "grounding", expression),
    }


def extraction_prompt(record: dict[str, Any]) -> str:
    """The prompt of a gold-table record: mapgen's ``extraction`` strategy when the prompt module is present,
    else the record's bare instruction with the reply format."""
    try:
        from mapgen.eval.prompts import render_prompt, task_question
    except ImportError:
        return f"{record['question']}\nReply with a Markdown table | Region | Class or Value | and nothing else."
    return render_prompt(task_question(record, "extraction"), "extraction").text


def extraction_row(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    """A flat row for one gold table (see :data:`EXTRACTION_COLUMNS`)."""
    return _common(record, bench) | {
        "question": str(record.get("question") or ""),
        "answer": str(record.get("ground_truth") or ""),
        "gold_json": _dumps({k: record[k] for k in GOLD_TABLE_KEYS if k in record}),
        "map_type": str(record.get("map_type") or ""),
        "hatched": bool(record.get("hatched")),
        "annotated": bool(record.get("annotated", True)),
        "prompt": extraction_prompt(record),
    }


def table_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`extraction_row`: the gold-table record :func:`mapgen.eval.table_scores.score_table`
    scores against."""
    return json.loads(row["gold_json"])


ROW_FUNCTIONS = {"vqa": question_row, "caption": caption_row, "grounding": grounding_row,
                 "extraction": extraction_row}


def mcq_records(bench: Benchmark, seed: int = 0) -> list[dict[str, Any]]:
    """The multiple-choice twins (:mod:`mapgen.eval.mcq`) of the single, range, count and binary questions, as
    question records plus ``options`` and ``original_answer_type``."""
    from mapgen.eval.baselines import facts_lookup
    from mapgen.eval.mcq import MCQ_TYPES, make_choice, mcq_question
    from mapgen.questions.record import Question

    facts, out = facts_lookup(bench.spec), []
    for record in bench.question_records:
        if record["answer_type"] not in MCQ_TYPES:
            continue
        q = Question.from_dict(question_record(record))
        choice = make_choice(q, facts(q.map_id), k=len(MCQ_LETTERS), seed=seed)
        twin = mcq_question(q, choice).to_dict()
        out.append(record | {k: twin[k] for k in ("question", "answer", "answer_type", "accepted_answers",
                                                     "bounds", "tags")}
                   | {"options": list(choice.options), "original_answer_type": record["answer_type"]})
    return out


def mcq_row(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    """A flat row for one multiple-choice record (see :data:`MCQ_COLUMNS`)."""
    options = list(record["options"])
    letters = {letter: options[i] if i < len(options) else "" for i, letter in enumerate(MCQ_LETTERS)}
    row = question_row(record, bench) | {"original_answer_type": record["original_answer_type"],
                                         "options": _dumps(options)}
    return row | letters


def task_rows(bench: Benchmark, task: str) -> list[dict[str, Any]]:
    """Flat rows of one task, in build order (``vqa_mcq``: the multiple-choice twins)."""
    if task == "vqa_mcq":
        return [mcq_row(r, bench) for r in mcq_records(bench)]
    return [ROW_FUNCTIONS[task](r, bench) for r in bench.tasks.get(task, [])]

# --- images -------------------------------------------------------------------------------------------------


def copy_images(bench: Benchmark, dest: Path, map_ids: list[str], folder: str = "images") -> dict[str, str]:
    """Place each map's PNG at ``dest/folder/<map_id>.png``; returns map_id → path relative to ``dest``."""
    out = {}
    for map_id in map_ids:
        rel = f"{folder}/{map_id}.png"
        link_or_copy(image_file(bench, map_id), dest / rel)
        out[map_id] = rel
    return out


def image_file(bench: Benchmark, map_id: str) -> Path:
    """The image of a map an export lists (an :class:`ExportError` when the benchmark has none)."""
    path = bench.image_path(map_id)
    if path is None:
        raise ExportError(f"map {map_id} has no image in {bench.root}")
    return path
