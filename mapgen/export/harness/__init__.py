"""Source files that the harness exporters write out: real modules of this package, shipped in the wheel.

``lmms_eval_utils.py`` becomes an lmms-eval task folder's ``utils.py``; ``vlmevalkit_dataset.py`` becomes a
VLMEvalKit export's ``mapgen_dataset.py``. They import and run from here too, so ruff, mypy, the architecture
test and ``tests/test_harness_modules.py`` see them. A line ``# harness-section: <name>`` starts a part that
:func:`cut` keeps only when the export asks for that section (the marker line itself is never written).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from importlib import resources

SECTION = re.compile(r"^# harness-section: (\w+)\n", re.MULTILINE)
"""The marker line opening an optional part of a harness source file; the part runs to the next marker."""


def source(module: str) -> str:
    """The text of the harness module ``module`` (e.g. ``"lmms_eval_utils"``) as shipped in the package."""
    return resources.files(__name__).joinpath(f"{module}.py").read_text(encoding="utf-8")


def sections(text: str) -> list[str]:
    """The names of the optional sections of ``text``, in order."""
    return SECTION.findall(text)


def cut(text: str, keep: Collection[str]) -> str:
    """``text`` without its marker lines and without the sections not named in ``keep`` (nor the blank lines
    before them): what an export writes."""
    head, *rest = SECTION.split(text)
    kept = [body for name, body in zip(rest[::2], rest[1::2]) if name in keep]
    return "".join([head, *kept]).rstrip("\n") + "\n"
