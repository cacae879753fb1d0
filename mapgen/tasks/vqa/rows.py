"""Flat export rows of the VQA task: answers that are lists, rankings or numbers are kept twice, as display text
(``answer``) and as JSON (``answer_json``), so a consumer can score with :func:`mapgen.eval.score.score` after
:func:`question_from_row`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mapgen.tasks.rows import COMMON_COLUMNS, common_fields, dumps

if TYPE_CHECKING:
    from mapgen.benchmark import Benchmark

COLUMNS: tuple[str, ...] = (
    *COMMON_COLUMNS, "template_id",
    "mapwise_template", "question", "answer", "answer_json", "answer_type", "accepted_answers", "bounds",
    "map_type", "relative_region", "hatched", "annotated", "prompt",
)


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


def question_record(record: dict[str, Any]) -> dict[str, Any]:
    """The Question-shaped part of a record (for :func:`mapgen.eval.score.score` and prompts)."""
    from mapgen.questions.record import Question

    return {k: record[k] for k in Question.__dataclass_fields__ if k in record}


def vqa_prompt(record: dict[str, Any], bench: Benchmark | None = None) -> str:
    """The evaluation prompt of a question: mapgen's ``direct`` strategy (with the name dictionary of a
    counterfactual map)."""
    from mapgen.eval.prompts import prompt_names, render_prompt

    names = None
    if record.get("counterfactual") and bench is not None:
        from mapgen.questions.record import Question

        spec = bench.map_json(record["map_id"]).get("spec")
        names = prompt_names(Question.from_dict(question_record(record)), spec)
    return render_prompt(question_record(record), "direct", names=names).text


def question_row(record: dict[str, Any], bench: Benchmark) -> dict[str, Any]:
    """A flat row for one question (see :data:`COLUMNS`)."""
    row = common_fields(record, bench)
    template = record.get("mapwise_template")
    row.update(
        template_id=str(record.get("template_id") or ""),
        mapwise_template=int(template) if template is not None else -1,
        question=record["question"],
        answer=answer_text(record["answer"], record["answer_type"]),
        answer_json=dumps(record["answer"]),
        answer_type=record["answer_type"],
        accepted_answers=dumps(record.get("accepted_answers") or {}),
        bounds=dumps(record.get("bounds")),
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
