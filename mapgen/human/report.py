"""The human-baseline report folder (``mapgen human score … -o REPORT/``): MAPWise's Tables 9 and 10, each
annotator's scores, kappa, the majority answers as a predictions file and the questions where people disagree
with the gold.

::

    REPORT/summary.json            annotators, questions, majority accuracy and agreement, kappa (95 % CI), the rule
    REPORT/report.md               the tables below as Markdown
    REPORT/table9_map_type.csv     human (majority) accuracy in % per map type × answer type (MAPWise Table 9)
    REPORT/table9_country.csv      the same per country
    REPORT/table10_agreement.csv   majority agreement in % and Fleiss' kappa per answer type (MAPWise Table 10)
    REPORT/annotators.csv          each annotator's accuracy in % per answer type
    REPORT/majority.jsonl          per question: every annotator's canonical answer, the majority, its score
    REPORT/predictions.jsonl       the majority answers as a predictions file (``mapgen eval --predictions``)
    REPORT/disagreements.md/.jsonl questions whose majority answer differs from the gold, with their map
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from mapgen.eval.report import markdown_table
from mapgen.files import atomic_folder, write_json_atomic, write_jsonl_atomic, write_text_atomic
from mapgen.human.kit import load_kit_info, read_page_data
from mapgen.human.score import MAJORITY_ID, HumanResult
from mapgen.questions.record import ANSWER_TYPES

TIE_RULE = ("majority = the canonical answer more than half of the annotators gave; a tie or no strict majority "
            "has no majority answer (no agreement, scored 0)")


def _percent(frame: pd.DataFrame) -> pd.DataFrame:
    return (frame * 100).round(2)


def _type_columns(table: pd.DataFrame) -> pd.DataFrame:
    order = [t for t in ANSWER_TYPES if t in table.columns]
    return table[order + [c for c in table.columns if c not in order]]


def table9(result: HumanResult, by: str) -> pd.DataFrame:
    """Human (majority) accuracy in % per ``by`` (rows) × answer type (columns), with an ``all`` column and row."""
    items = result.items
    table = _type_columns(items.pivot_table(index=by, columns="answer_type", values="main", aggfunc="mean"))
    table["all"] = items.groupby(by)["main"].mean()
    table.loc["all"] = [*items.groupby("answer_type")["main"].mean().reindex(table.columns[:-1]),
                        items["main"].mean()]
    return _percent(table)


def table10(result: HumanResult) -> pd.DataFrame:
    """Majority agreement in % and Fleiss' kappa (95 % CI) per answer type, and over all questions."""
    rows = []
    for name, group in [*result.items.groupby("answer_type", sort=False), ("all", result.items)]:
        k = result.kappa[str(name)]
        rows.append({"answer_type": name, "n": len(group), "majority_agreement": round(group["agreement"].mean() * 100, 2),
                     "kappa": round(k["kappa"], 4), "kappa_lo": round(k["ci95"][0], 4),
                     "kappa_hi": round(k["ci95"][1], 4)})
    order = {t: i for i, t in enumerate((*ANSWER_TYPES, "all"))}
    return pd.DataFrame(rows).sort_values("answer_type", key=lambda s: s.map(order)).reset_index(drop=True)


def annotator_table(result: HumanResult) -> pd.DataFrame:
    """Each annotator's accuracy in % per answer type and overall."""
    per = result.per_annotator
    table = _type_columns(per.pivot_table(index="annotator", columns="answer_type", values="main", aggfunc="mean"))
    table["all"] = per.groupby("annotator")["main"].mean()
    return _percent(table)


def summary(result: HumanResult, kit: str | Path) -> dict[str, Any]:
    """What ``summary.json`` holds."""
    items = result.items
    return {"kit": load_kit_info(kit).get("name", Path(kit).name), "annotators": result.annotators,
            "questions": len(items), "majority_accuracy": float(items["main"].mean() * 100),
            "majority_agreement": float(items["agreement"].mean() * 100),
            "annotator_accuracy": {a: float(g["main"].mean() * 100)
                                   for a, g in result.per_annotator.groupby("annotator")},
            "kappa": result.kappa, "rule": TIE_RULE}


def disagreements(result: HumanResult, kit: str | Path, out: Path) -> list[dict[str, Any]]:
    """Questions whose majority answer scores below 1 against the gold (a second look at the gold)."""
    images = {q["map_id"]: q["image"] for q in _page_questions(kit)}
    rows = result.items[result.items["agreement"] & (result.items["main"] < 1)]
    return [{"question_id": r.question_id, "question": r.question, "gold": r.answer, "majority": r.majority, "text": r.prediction,
             "score": r.main, "votes": r.votes, "map": os.path.relpath(Path(kit).absolute() / images[r.map_id],
                                                                      out.absolute())}
            for r in rows.itertuples()]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as plain dicts (a missing value as ``None``, never NaN)."""
    return [{k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
            for row in frame.astype(object).to_dict("records")]


def _page_questions(kit: str | Path) -> list[dict[str, Any]]:
    return list(read_page_data(kit)["questions"])


def _markdown(result: HumanResult, info: dict[str, Any], wrong: list[dict[str, Any]]) -> str:
    lines = [f"# Human baseline: {info['kit']}", "",
             f"{len(result.annotators)} annotators ({', '.join(result.annotators)}), {info['questions']} questions; "
             f"majority accuracy {info['majority_accuracy']:.2f} %, majority agreement "
             f"{info['majority_agreement']:.2f} %, Fleiss' kappa {result.kappa['all']['kappa']:.3f}.", "",
             f"Rule: {TIE_RULE}.", "", "## Human accuracy per map type (MAPWise Table 9)", "",
             markdown_table(table9(result, "map_type").reset_index()), "", "## Human accuracy per country", "",
             markdown_table(table9(result, "country").reset_index()), "", "## Majority agreement (MAPWise Table 10)", "",
             markdown_table(table10(result)), "", "## Annotators", "", markdown_table(annotator_table(result).reset_index()),
             "", f"## Majority answer differs from the gold ({len(wrong)})", ""]
    lines += [f"- `{w['question_id']}`: {w['question']} — gold `{w['gold']}`, people `{w['majority']}` "
              f"([map]({w['map']}))" for w in wrong]
    return "\n".join(lines) + "\n"


def write_human_report(result: HumanResult, kit: str | Path, out_dir: str | Path, force: bool = True) -> Path:
    """Write the report folder (see the module doc) atomically; returns it."""
    info = summary(result, kit)
    with atomic_folder(out_dir, replace=force) as folder:
        wrong = disagreements(result, kit, Path(out_dir))
        write_json_atomic(folder / "summary.json", info, newline=True)
        write_text_atomic(folder / "table9_map_type.csv", table9(result, "map_type").to_csv())
        write_text_atomic(folder / "table9_country.csv", table9(result, "country").to_csv())
        write_text_atomic(folder / "table10_agreement.csv", table10(result).to_csv(index=False))
        write_text_atomic(folder / "annotators.csv", annotator_table(result).to_csv())
        keep = ["question_id", "answer_type", "map_type", "country", "votes", "majority", "agreement", "main"]
        write_jsonl_atomic(folder / "majority.jsonl", _records(result.items[keep]), ensure_ascii=False)
        given = result.items[result.items["agreement"]]
        write_jsonl_atomic(folder / "predictions.jsonl", [
            {"question_id": r.question_id, "prediction": r.prediction, "annotator": MAJORITY_ID}
            for r in given.itertuples()], sort_keys=False, ensure_ascii=False)
        write_jsonl_atomic(folder / "disagreements.jsonl", wrong, ensure_ascii=False)
        write_text_atomic(folder / "report.md", _markdown(result, info, wrong))
    return Path(out_dir)
