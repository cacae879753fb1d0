r"""How models wrap their answers, and taking the wrappers off.

Current models put their answer inside things the prompt never asked for:

- **reasoning blocks** (``<think>…</think>``, ``<thinking>``, ``<reasoning>``, Kimi's ``◁think▷…◁/think▷``,
  ``<|begin_of_thought|>…<|end_of_thought|>``, or only a closing ``</think>`` when the chat template opened the
  block): :func:`drop_reasoning` removes them;
- **answer tags** (``<answer>…</answer>``, ``<final_answer>``, ``<|begin_of_solution|>…``): :func:`tagged_answer`
  is the content of the last one;
- **boxes** (``\boxed{…}``, ``\fbox{…}``, GLM's ``<|begin_of_box|>…<|end_of_box|>``), usually inside ``$…$`` or
  ``\[…\]``: :func:`boxed_answer` is the content of the last one, as plain text (:func:`latex_to_text`).

:func:`final_reply` (reasoning dropped, answer tags opened) is the part of a reply that holds the answer; every
task's reply parser reads that, and :mod:`mapgen.eval.answers` goes on to boxes, JSON and answer lines.
"""

from __future__ import annotations

import re

_REASONING = re.compile(
    r"<(think|thinking|thought|reasoning|reflection)>.*?</\1>|◁think▷.*?◁/think▷"
    r"|<\|begin_of_thought\|>.*?<\|end_of_thought\|>",
    re.DOTALL | re.IGNORECASE,
)
_CLOSING = re.compile(r"</(?:think|thinking|thought|reasoning)>|◁/think▷|<\|end_of_thought\|>", re.IGNORECASE)
_OPENING = re.compile(r"<(?:think|thinking|thought|reasoning)>|◁think▷|<\|begin_of_thought\|>", re.IGNORECASE)
_TAG = re.compile(
    r"<(answer|final_answer|final-answer)>(?P<a>.*?)(?:</\1>|$)|<\|begin_of_solution\|>(?P<b>.*?)(?:<\|end_of_solution\|>|$)",
    re.DOTALL | re.IGNORECASE,
)
_BOX_TOKENS = re.compile(r"<\|begin_of_box\|>(.*?)<\|end_of_box\|>", re.DOTALL)
_BOX_COMMAND = re.compile(r"\\(?:boxed|fbox|framebox)\s*\{")


def drop_reasoning(text: str) -> str:
    """``text`` without its reasoning blocks; the reasoning itself when nothing else is left (a model that
    concluded inside the block), and the text after an opening tag that was never closed."""
    if "<" not in text and "◁" not in text:  # the common case, checked first: no tag at all
        return text
    kept = _REASONING.sub("\n", text)
    closing = list(_CLOSING.finditer(kept))
    if closing:  # the chat template opened the block: everything up to the last closing tag is reasoning
        kept = kept[closing[-1].end() :]
    if kept.strip():
        return _OPENING.sub("", kept) if _OPENING.search(kept) else kept
    inner = _REASONING.findall(text)
    return _OPENING.sub("", _CLOSING.sub("", text)) if inner or closing else text


def tagged_answer(text: str) -> str | None:
    """Content of the last ``<answer>…</answer>`` (or ``<final_answer>``, ``<|begin_of_solution|>``; an unclosed
    last tag runs to the end), ``None`` when there is no such tag."""
    if "<" not in text:
        return None
    matches = list(_TAG.finditer(text))
    if not matches:
        return None
    m = matches[-1]
    return m.group("a") if m.group("a") is not None else m.group("b")


def final_reply(text: str) -> str:
    """The part of a reply that holds the answer: reasoning dropped, the last answer tag opened (an empty tag
    gives an empty reply)."""
    reply = drop_reasoning(text)
    inner = tagged_answer(reply)
    return inner if inner is not None else reply


def _braced(text: str, start: int) -> tuple[str, int] | None:
    """Content and end of the brace group opening at ``text[start - 1] == "{"``."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{" and text[i - 1] != "\\":
            depth += 1
        elif text[i] == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[start:i], i + 1
    return None


def _boxes(text: str) -> list[tuple[int, int, str]]:
    """``(line number, offset, content)`` of every box in ``text``, in text order."""
    found = [(m.start(), m.group(1)) for m in _BOX_TOKENS.finditer(text)]
    for m in _BOX_COMMAND.finditer(text):
        group = _braced(text, m.end())
        if group is not None:
            found.append((m.start(), group[0]))
    return [(text.count("\n", 0, pos), pos, content) for pos, content in sorted(found)]


def boxed_span(text: str, join: bool = False) -> tuple[str, int] | None:
    r"""Plain text of the last ``\boxed{…}`` (or ``\fbox``, ``<|begin_of_box|>``) in ``text`` and where its box
    starts; ``None`` without one. ``join``: the boxes on that line are one answer (``\boxed{Texas},
    \boxed{Ohio}``), joined by ``, ``."""
    if "\\" not in text and "<|" not in text:
        return None
    boxes = _boxes(text)
    if not boxes:
        return None
    line = boxes[-1][0]
    chosen = [(pos, content) for n, pos, content in boxes if n == line] if join else [boxes[-1][1:]]
    return ", ".join(latex_to_text(c) for _, c in chosen), chosen[0][0]


def boxed_answer(text: str, join: bool = False) -> str | None:
    """The text of :func:`boxed_span` alone."""
    span = boxed_span(text, join)
    return span[0] if span else None


_TEXT_COMMANDS = re.compile(
    r"\\(?:text|textbf|textit|textrm|texttt|textsf|mathrm|mathbf|mathit|mathsf|mathtt|operatorname|mbox|emph"
    r"|underline|boxed|fbox)\s*\{([^{}]*)\}"
)
_SYMBOLS = (
    ("\\left", ""), ("\\right", ""), ("{,}", ","), ("\\%", "%"), ("\\$", "$"), ("\\&", "&"), ("\\_", "_"),
    ("\\geq", "≥"), ("\\ge", "≥"), ("\\leq", "≤"), ("\\le", "≤"), ("\\gt", ">"), ("\\lt", "<"),
    ("\\textendash", "–"), ("\\textemdash", "—"), ("\\times", "×"), ("\\infty", "∞"), ("\\to", " to "),
    ("\\approx", "≈"), ("\\sim", "~"), ("\\cdot", "·"), ("---", "—"), ("--", "–"),
    ("\\qquad", " "), ("\\quad", " "), ("\\,", " "), ("\\;", " "), ("\\:", " "), ("\\!", ""), ("\\ ", " "),
)  # fmt: skip
_MATH_DELIMITERS = re.compile(r"\\\[|\\\]|\\\(|\\\)|\$\$")
_INLINE_MATH = re.compile(r"\$(?=\S)([^$\n]+?)(?<=\S)\$(?!\d)")  # pandoc's rule: "$5 - $7" is not math


def latex_to_text(text: str) -> str:
    r"""LaTeX an answer is written in, as plain text: ``$\text{Texas}$`` → ``Texas``, ``10\%–20\%`` → ``10%–20%``,
    ``\geq 5`` → ``≥ 5``, ``1{,}500`` → ``1,500``; other text is returned unchanged."""
    if "\\" not in text and "$" not in text and "{,}" not in text:
        return text
    s = _MATH_DELIMITERS.sub(" ", text)
    s = _INLINE_MATH.sub(lambda m: m.group(1), s)
    for _ in range(4):  # nested \text{\textbf{...}}
        s, n = _TEXT_COMMANDS.subn(lambda m: m.group(1), s)
        if not n:
            break
    s = s.replace("~", " ") if "\\" in text else s  # a non-breaking space in LaTeX
    for latex, plain in _SYMBOLS:
        s = s.replace(latex, plain)
    if "\\" in text:
        s = re.sub(r"(?<!\\)[{}]", "", s).replace("\\{", "{").replace("\\}", "}")
    return re.sub(r"[ \t]+", " ", s).strip()
