"""The re-check's contract (#40 item 1): every question of any input ends as agree / disagree / ambiguous /
unparsed with a reason — on MAPWise's own questions mutated as a careless or hostile author would (swapped and
invented names, open ranges, typos, words dropped), and never by an error inside mapgen."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mapwise" / "repo-sample"
pytestmark = pytest.mark.skipif(not REPO.is_dir(), reason="shared MAPWise repository sample not available")
INVENTED = ["Zolaria", "Moxie", "Nexus", "Quillon", "New Yrok", "Texass"]
OPEN_RANGES = ["<10000", ">250", "above 8M", "higher than 50k", "0.34–0.36", "between 2 and"]


@cache
def imported(kind: str):
    from mapgen.recheck.importer import read_sample

    return read_sample(REPO / "dataset" / kind, read_ticks=False)


def mutate(text: str, rng: random.Random, names: list[str]) -> str:
    """One random edit of a question's text."""
    words = text.split()
    choice = rng.randrange(6)
    if choice == 0 and len(names) > 1:
        a, b = rng.sample(names, 2)
        return text.replace(a, "\0").replace(b, a).replace("\0", b)
    if choice == 1 and names:
        return text.replace(rng.choice(names), rng.choice(INVENTED))
    if choice == 2:
        return re.sub(r"\d[\d.,]*[kKMB%]?(\s*[-–]\s*\d[\d.,]*[kKMB%]?)?", rng.choice(OPEN_RANGES), text, count=1)
    if choice == 3 and words:
        i = rng.randrange(len(words))
        word = words[i]
        words[i] = word[:len(word) // 2] + word[len(word) // 2 + 1:] if len(word) > 3 else word + word
        return " ".join(words)
    if choice == 4 and len(words) > 3:
        del words[rng.randrange(len(words))]
        return " ".join(words)
    return text.replace("most", "least") if "most" in text else text + " amongst all the states"


@pytest.mark.parametrize("kind", ["usa", "india", "china", "counter_factuals/img", "counter_factuals/shuff"])
def test_every_mutated_question_ends_with_a_verdict(kind: str) -> None:
    from mapgen.recheck.verdicts import INTERNAL, VERDICTS, recheck, summary_json

    data = imported(kind)
    names = sorted({name for spec in data.specs.values() for name in spec.load_atlas().names.values()})
    rng = random.Random(kind)
    questions = [replace(q, question=mutate(q.question, rng, [n for n in names if n in q.question] or names))
                 for q in data.questions for _ in range(2)]
    verdicts = recheck(replace(data, questions=questions))
    assert len(verdicts) == len(questions)
    assert all(v.verdict in VERDICTS and (v.verdict != "unparsed" or v.reason) for v in verdicts)
    broken = [(v.question, v.reason) for v in verdicts if v.reason.startswith(INTERNAL)]
    assert not broken, broken[:5]
    assert summary_json(verdicts)["internal_errors"] == 0


def test_an_error_inside_mapgen_is_counted_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    from mapgen.recheck import verdicts as module

    data = imported("usa")
    real = module.recheck_question

    def flaky(raw, *args, **kwargs):
        if raw.row == data.questions[0].row:
            raise KeyError("the whole map")
        return real(raw, *args, **kwargs)

    monkeypatch.setattr(module, "recheck_question", flaky)
    found = module.recheck(replace(data, questions=data.questions[:3]))
    assert [v.verdict for v in found][0] == "unparsed" and found[0].reason.startswith(module.INTERNAL)
    assert "KeyError" in found[0].reason and len(found) == 3
    assert module.summary_json(found)["internal_errors"] == 1
