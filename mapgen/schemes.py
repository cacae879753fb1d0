"""The classification-scheme registry: the one place that names the schemes a discrete legend classifies by.

A scheme turns the values and a number of classes ``k`` into the upper class edges (mapclassify's ``bins``). It
is registered with :func:`register_scheme` as a function ``(y, k) -> bins``, or as a mapclassify classifier
class (``register_scheme("max_breaks", mapclassify.MaximumBreaks)``: called ``cls(y, k)``, its ``.bins`` read).
Names are matched ignoring case, spaces, ``_`` and ``-`` (``Equal Interval``), aliases included. Config files
(``legend.schemes``), ``--scheme`` and :class:`~mapgen.legend.classify.DiscreteOptions` check names here.

Built-ins, registered the same way: ``quantiles`` and ``equal_interval`` (mapclassify's arithmetic, computed here
to spare a render the 1-3 s of importing mapclassify), ``fisher_jenks`` through mapclassify's own dispatch
(``mapclassify.classify``) and ``natural_breaks`` (alias ``jenks``), which classifies with ``fisher_jenks``, the
exact and deterministic optimum of the Jenks criterion: mapclassify's ``natural_breaks`` is a randomised k-means
search whose breaks change from run to run. ``user_defined`` is not a scheme here: it takes the user's breaks,
not ``k`` (``breaks=``, ``--breaks``). This module imports nothing heavy (numpy when a scheme runs): the CLI reads its names for ``--help``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

#: A scheme: values and a number of classes → upper class edges (or an object with ``.bins``, as mapclassify's).
Classifier = Callable[["np.ndarray", int], Any]
#: The legend's scheme name for classes from the user's own breaks.
USER_DEFINED = "user_defined"

_SCHEMES: dict[str, Classifier] = {}
_SPELLINGS: dict[str, str] = {}  # spelling without case, spaces, _ and - → scheme name


def _spelling(name: str) -> str:
    return re.sub(r"[\s_\-]", "", str(name)).lower()


def register_scheme(name: str, classifier: Classifier, *, aliases: Iterable[str] = (), replace: bool = False) -> None:
    """Register ``classifier`` under ``name`` (and ``aliases``); ``replace`` overrides a scheme of that name."""
    spellings = [_spelling(n) for n in (name, *aliases)]
    taken = name in _SCHEMES or any(_SPELLINGS.get(s, name) != name for s in spellings)
    if not name or _spelling(USER_DEFINED) in spellings or (taken and not replace):
        raise ValueError(f"a classification scheme named {name!r} (or one of its aliases) is already registered "
                         "(pass replace=True to override it)")
    if not callable(classifier):
        raise TypeError(f"scheme {name!r}: a classifier is a function (y, k) -> bins or a mapclassify classifier "
                        f"class, got {classifier!r}")
    _SCHEMES[name] = classifier
    _SPELLINGS.update(dict.fromkeys(spellings, name))


def unregister_scheme(name: str) -> None:
    """Forget a registered scheme and its aliases (tests and notebooks that registered a toy one)."""
    _SCHEMES.pop(name, None)
    for spelling in [s for s, n in _SPELLINGS.items() if n == name]:
        del _SPELLINGS[spelling]


def scheme_names() -> tuple[str, ...]:
    """Names of every registered scheme, in registration order (built-ins first)."""
    return tuple(_SCHEMES)


def scheme_name(scheme: str) -> str:
    """The registered name of ``scheme`` in any spelling, or ``user_defined`` (ValueError listing the choices)."""
    key = _spelling(scheme)
    if key == _spelling(USER_DEFINED):
        return USER_DEFINED
    if key not in _SPELLINGS:
        raise ValueError(f"unknown classification scheme {scheme!r}; choose one of {', '.join(_SCHEMES)}, pass "
                         "breaks (--breaks) for user-defined classes, or register one (mapgen.schemes.register_scheme)")
    return _SPELLINGS[key]


def class_edges(y: np.ndarray, k: int, scheme: str) -> np.ndarray:
    """Upper edges of ``k`` classes of ``y`` by the registered ``scheme``, ascending and deduplicated."""
    import numpy as np

    found = _SCHEMES[scheme_name(scheme)](np.asarray(y, dtype=float).flatten(), k)
    return np.unique(np.asarray(getattr(found, "bins", found), dtype=float))


def quantile_bins(y: np.ndarray, k: int) -> np.ndarray:
    """mapclassify's ``Quantiles`` bins: ``scipy.stats.scoreatpercentile`` (linear interpolation between the two
    nearest order statistics) at 100/k, 200/k, … 100, deduplicated."""
    import numpy as np

    w = 100.0 / k
    p = np.arange(w, 100 + w, w)
    if p[-1] > 100.0:
        p[-1] = 100.0
    ordered = np.sort(y)
    return np.unique(np.array([_score_at(ordered, float(pct)) for pct in p]))


def _score_at(ordered: np.ndarray, per: float) -> float:
    """``scipy.stats.scoreatpercentile(y, per)`` of sorted ``ordered`` (its ``fraction`` method, same floats)."""
    import numpy as np

    idx = per / 100.0 * (ordered.shape[0] - 1)
    i = int(idx)
    if i == idx:
        return np.add.reduce(ordered[i:i + 1] * np.array(1), axis=0) / 1.0
    weights = np.array([(i + 1 - idx), (idx - i)], float)
    return np.add.reduce(ordered[i:i + 2] * weights, axis=0) / weights.sum()


def equal_interval_bins(y: np.ndarray, k: int) -> np.ndarray:
    """mapclassify's ``EqualInterval`` bins: k equal steps from the minimum, the last edge the maximum."""
    import numpy as np

    max_y, min_y = max(y), min(y)
    if min_y == max_y:
        raise ValueError(f"Not enough unique values in array to form {k} classes. All values in `y` are equal.")
    width = (max_y - min_y) * 1.0 / k
    cuts = np.arange(min_y + width, max_y + width, width)
    if len(cuts) > k:
        cuts = cuts[0:k]
    cuts[-1] = max_y
    return cuts.copy()


def mapclassify_scheme(name: str) -> Classifier:
    """A classifier that runs mapclassify's own dispatch, ``mapclassify.classify(y, name, k=k)`` (its warnings
    silenced), importing mapclassify on first use."""
    def classify(y: np.ndarray, k: int) -> Any:
        import mapclassify as mc

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return mc.classify(y, name, k=k)

    return classify


register_scheme("quantiles", quantile_bins, aliases=("quantile",))
register_scheme("equal_interval", equal_interval_bins)
register_scheme("natural_breaks", mapclassify_scheme("fisher_jenks"), aliases=("jenks",))
register_scheme("fisher_jenks", mapclassify_scheme("fisher_jenks"))
