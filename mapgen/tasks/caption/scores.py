"""Caption scoring (VRSBench): BLEU-1..4, METEOR, ROUGE-L and CIDEr of detailed captions.

Captions use the reference implementations of pycocoevalcap (the COCO caption evaluation code VRSBench
uses; ``pip install 'mapgen[eval]'``, Java needed for the tokenizer and METEOR):

- Tokenisation: Stanford PTBTokenizer (lower-cased, punctuation dropped) when Java is there; without Java,
  or with ``tokenizer="simple"``, a regex stand-in (lower-case words, punctuation dropped) and METEOR is NaN.
- ``BLEU-1..4``: corpus-level BLEU (Papineni et al.), modified n-gram precision up to n with the brevity
  penalty computed over the whole corpus ("closest" reference length), as ``Bleu(4)`` computes it.
- ``METEOR``: METEOR 1.5 (``-l en -norm``) over all items (exact, stem, synonym and paraphrase matches,
  fragmentation penalty), the corpus score returned by the jar.
- ``ROUGE-L``: LCS-based F-measure with ``beta = 1.2``, max over references, averaged over items.
- ``CIDEr``: CIDEr-D (TF-IDF weighted n-gram cosine, n = 1..4, Gaussian length penalty sigma = 6, clipping,
  ×10) with document frequencies from the references of the evaluated set — so it needs several images to
  be meaningful (an n-gram found in every reference weighs 0).
- ``avg_length``: mean number of whitespace-separated words per candidate caption (VRSBench's Avg_L);
  ``ref_avg_length`` the same for references. SPICE is not computed (it downloads Stanford CoreNLP).

All scores are in [0, 1] except CIDEr (0..10). A missing or empty candidate is scored as a one-token caption
that matches nothing (and counted in ``missing``), so it pulls the corpus scores down instead of vanishing.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mapgen.eval.answers import find_json_answer
from mapgen.eval.wrappers import final_reply

CAPTION_METRICS: tuple[str, ...] = ("BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "METEOR", "ROUGE-L", "CIDEr")
EMPTY_CAPTION = "emptycaptionplaceholder"
# PTBTokenizer's dropped tokens (it turns brackets into -LRB- etc.), plus raw brackets for the regex stand-in
_PUNCT = frozenset(
    ["''", "'", "``", "`", "-lrb-", "-rrb-", "-lcb-", "-rcb-", ".", "?", "!", ",", ":", "-", "--", "...", ";"]
    + list("()[]{}")
)


def java_available() -> bool:
    """True when a ``java`` executable is on PATH."""
    return shutil.which("java") is not None


def pycocoevalcap_available() -> bool:
    """True when pycocoevalcap is importable."""
    try:
        import pycocoevalcap.bleu.bleu  # noqa: F401
    except ImportError:
        return False
    return True


def simple_tokenize(text: str) -> str:
    """Lower-case words, punctuation dropped (the stand-in for PTBTokenizer without Java)."""
    tokens = re.findall(r"[\w]+(?:[-'][\w]+)*|[^\w\s]", text.lower())
    return " ".join(t for t in tokens if t not in _PUNCT)


def _as_list(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]


def caption_text(prediction: str | None) -> str:
    """The caption in a model response: the ``answer``/``caption`` of a JSON object, else the whole text."""
    if prediction is None:
        return ""
    reply = final_reply(str(prediction))  # reasoning blocks dropped, an <answer> tag opened
    value = find_json_answer(reply)
    if isinstance(value, str):
        return value.strip()
    return reply.strip()


@dataclass
class CaptionScores:
    """Corpus caption metrics plus per-item BLEU/ROUGE-L/CIDEr/METEOR."""

    scores: dict[str, float]
    per_item: list[dict[str, Any]] = field(default_factory=list)
    tokenizer: str = "ptb"


def _tokenize(gts: dict[str, list[str]], res: dict[str, list[str]], how: str) -> tuple[dict, dict]:
    if how == "simple":
        tok = {k: [simple_tokenize(c) for c in v] for k, v in gts.items()}
        return tok, {k: [simple_tokenize(c) for c in v] for k, v in res.items()}
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    tokenizer = PTBTokenizer()
    as_coco = lambda d: {k: [{"caption": c} for c in v] for k, v in d.items()}  # noqa: E731
    with _quiet_stderr():
        return tokenizer.tokenize(as_coco(gts)), tokenizer.tokenize(as_coco(res))


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence the Java tools' progress lines (they write to file descriptor 2)."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _fill_empty(res: dict[str, list[str]]) -> dict[str, list[str]]:
    return {k: [c if c.strip() else EMPTY_CAPTION for c in v] for k, v in res.items()}


def _meteor(gts: dict[str, list[str]], res: dict[str, list[str]]) -> tuple[float, list[float]]:
    from pycocoevalcap.meteor.meteor import Meteor

    with _quiet_stderr():
        scorer = Meteor()
        score, scores = scorer.compute_score(gts, res)
    del scorer  # its __del__ ends the JVM
    return float(score), [float(s) for s in scores]


def caption_scores(
    references: Mapping[str, str | Sequence[str]],
    candidates: Mapping[str, str | None],
    *,
    tokenizer: str = "auto",
    meteor: bool = True,
) -> CaptionScores:
    """Caption metrics of ``candidates[id]`` against ``references[id]`` over every id of ``references``.

    ``tokenizer``: ``"ptb"`` (needs Java), ``"simple"``, or ``"auto"`` (PTB when Java is there).
    ``meteor=False`` (or no Java) gives METEOR = NaN.
    """
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    ids = sorted(references)
    if not ids:
        return CaptionScores({m: math.nan for m in CAPTION_METRICS} | {"n": 0.0, "missing": 0.0})
    how = ("ptb" if java_available() else "simple") if tokenizer == "auto" else tokenizer
    raw_res = {i: [caption_text(candidates.get(i))] for i in ids}
    gts, res = _tokenize({i: _as_list(references[i]) for i in ids}, _fill_empty(raw_res), how)
    res = _fill_empty(res)
    with contextlib.redirect_stdout(io.StringIO()):
        bleu, bleu_items = Bleu(4).compute_score(gts, res, verbose=0)
        rouge, rouge_items = Rouge().compute_score(gts, res)
        cider, cider_items = Cider().compute_score(gts, res)
    use_meteor = meteor and java_available()
    met, met_items = _meteor(gts, res) if use_meteor else (math.nan, [math.nan] * len(ids))
    scores = {f"BLEU-{n + 1}": float(bleu[n]) for n in range(4)}
    scores |= {"METEOR": met, "ROUGE-L": float(rouge), "CIDEr": float(cider)}
    lengths = [len(raw_res[i][0].split()) for i in ids]
    ref_lengths = [len(r.split()) for i in ids for r in _as_list(references[i])]
    scores |= {
        "avg_length": sum(lengths) / len(lengths),
        "ref_avg_length": sum(ref_lengths) / max(len(ref_lengths), 1),
        "n": float(len(ids)),
        "missing": float(sum(not raw_res[i][0] for i in ids)),
    }
    per_item = [
        {
            "question_id": i,
            **{f"BLEU-{n + 1}": float(bleu_items[n][k]) for n in range(4)},
            "METEOR": met_items[k],
            "ROUGE-L": float(rouge_items[k]),
            "CIDEr": float(cider_items[k]),
            "length": lengths[k],
        }
        for k, i in enumerate(ids)
    ]
    return CaptionScores(scores, per_item, how)
