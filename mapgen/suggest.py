"""The one "did you mean" policy and message every unknown name, key or value is refused with.

Matching is case-insensitive (or through the ``key`` a caller gives, e.g. :func:`mapgen.geo.names.normalize_name`):
an exact match of keys is the answer (``"tx"`` → ``TX``); else the ``difflib`` ratio of the keys, at least
:data:`CUTOFF` (:data:`SHORT_CUTOFF` for a name of up to three characters, so ``"TZ"`` finds ``TX``) and within
:data:`MARGIN` of the best, best first (ties: the longer shared start), :data:`MATCHES` at most. The message is
``" (did you mean 'X', 'Y'?)"``, or ``" (valid: a, b, …)"`` when nothing is close (the first :data:`LISTED` valid
names), appended to the line that names the problem.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Sequence

CUTOFF = 0.6
"""The ``difflib`` ratio a valid name must reach to be suggested."""
SHORT_CUTOFF = 0.5
"""The ratio for a name of up to three characters (one letter of two right: ``TZ`` → ``TX``)."""
MARGIN = 0.1
"""A suggestion's ratio is within this of the best one's (``indai`` → ``india``, not also ``china``)."""
MATCHES = 3
"""Suggestions at most."""
LISTED = 12
"""Valid names listed at most when none is close (then ``… (N in all)``)."""


def close_matches(given: object, valid: Iterable[object], n: int = MATCHES,
                  key: Callable[[str], str] = str.casefold) -> list[str]:
    """The valid names closest to ``given`` under the policy of this module, best first."""
    pool: dict[str, str] = {}
    for name in map(str, valid):
        pool.setdefault(key(name), name)
    wanted = key(str(given))
    cutoff = SHORT_CUTOFF if len(wanted) <= 3 else CUTOFF
    scored = sorted(((_ratio(wanted, k), _shared_start(wanted, k), -i, k) for i, k in enumerate(pool)), reverse=True)
    best = scored[0][0] if scored else 0.0
    return [pool[k] for r, _, _, k in scored if r >= max(cutoff, best - MARGIN)][:n]


def _ratio(a: str, b: str) -> float:
    """1 for the same key, else ``difflib``'s ratio (an exact match always comes first)."""
    if a == b:
        return 2.0
    matcher = difflib.SequenceMatcher(None, a, b)
    return matcher.ratio() if matcher.real_quick_ratio() >= SHORT_CUTOFF else 0.0


def _shared_start(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share (breaks ties: ``tz`` → ``TX`` before ``UT``)."""
    return len(os.path.commonprefix([a, b]))


def suggestion(matches: Sequence[str], valid: Iterable[object] = ()) -> str:
    """``" (did you mean 'X', 'Y'?)"`` for ``matches``, else ``" (valid: …)"``; empty when both are empty."""
    if matches:
        return f" (did you mean {', '.join(repr(str(m)) for m in matches)}?)"
    names = [str(v) for v in valid]
    if not names:
        return ""
    listed = ", ".join(names[:LISTED]) + (f", … ({len(names)} in all)" if len(names) > LISTED else "")
    return f" (valid: {listed})"


def did_you_mean(given: object, valid: Iterable[object], n: int = MATCHES,
                 key: Callable[[str], str] = str.casefold) -> str:
    """The message for ``given`` among ``valid``: its close matches, else the valid names (:func:`suggestion`)."""
    names = [str(v) for v in valid]
    return suggestion(close_matches(given, names, n, key), names)
