"""The function library question programs call (CLEVR-style handlers over a Scene), one module per domain.

Every function takes a :class:`~mapgen.questions.reading.Reading` (the Scene's facts in fast form, built by :func:`reading`)
plus typed arguments and returns a value or :data:`INVALID` when the question it serves would be ambiguous,
degenerate or unreadable; the engine then drops that instantiation. Functions are registered by name in
:data:`FUNCTIONS` with their argument types (:func:`register`, public as ``mapgen.questions.register``) so
template files can be linted without running them. Modules: :mod:`.sets` (groups, filters, counts, logic),
:mod:`.values` (comparing values), :mod:`.arithmetic` (generic steps on values and counts), :mod:`.ranks`,
:mod:`.neighbours` (the border graph), :mod:`.geography` (directions, closest pairs), :mod:`.legend`,
:mod:`.domains` (``from:`` helpers); :mod:`.scene_facts` builds a Scene's Reading.

Definitions applied everywhere (also stated in ``templates/questions/mapwise.yaml``):

- *level* of a region: its legend class index on discrete maps, its value on continuous maps.
- *tolerance* τ = :data:`PERCEPTUAL_TOLERANCE` (defined in :mod:`mapgen.scene`, shared with the table-extraction
  task) × colour-bar span (continuous maps only): a value read off a
  colour bar may be off by up to τ. Discrete maps are read exactly, as classes (same class = equal).
- **One ambiguity rule.** A question is asked only when its answer is the same for every reading of the values
  it reads: on continuous maps each value anywhere within τ of the truth (plus a safety margin
  m = :data:`READING_MARGIN` × span at generation), on discrete maps each value anywhere in its class. The
  decisions of the reading API (:mod:`mapgen.questions.reading`) apply it and raise
  :class:`~mapgen.questions.reading.Invalid` when the intervals straddle a boundary; :func:`register` turns
  that into INVALID — a near tie is rejected, never answered "No" or "=".
- *higher/lower*: the order of the values (discrete: of the classes; same class = equal, so "X higher than Y"
  is "No"); on continuous maps asked only when the values are more than 2(τ + m) apart. *Similar*: same class
  (discrete) / within :data:`SIMILAR_TOLERANCES` τ (continuous; Yes asked only when within that minus
  2(τ + m), No only when beyond it plus 2(τ + m)). Rankings on continuous maps never hold "=".
- A value is compared with a mark (a tick or a number N) on a continuous map only when more than τ + m away;
  on a discrete map only when the class's printed range lies on one side of it.
- *Missing* (N/A) regions have no level: they belong to no range and never count as extreme; aggregates
  (mean, median, majority, "all", outlier, ranking) over a set containing an N/A region are INVALID.
- *Forced answers* are degenerate and INVALID: comparing with the map's highest (lowest) region, asking which
  members lie in a range or beyond a number no region of the map reaches.

A Reading has a *reading* tolerance r in value units (:attr:`Reading.tolerance`; τ is :attr:`Reading.tau`):
τ + m when generating, 0 when answering as a reader (:meth:`Reading.as_reader`: the exact answer on the values
given, what the pixel oracle and the tolerance property test use).
"""

from mapgen.questions.functions import (  # noqa: F401  (importing registers every built-in function)
    arithmetic,
    domains,
    geography,
    legend,
    neighbours,
    ranks,
    sets,
    values,
)
from mapgen.questions.functions.common import ORDINALS, position
from mapgen.questions.functions.domains import round_inside
from mapgen.questions.functions.geography import CLOSEST_PAIR_MARGIN
from mapgen.questions.functions.legend import GREY_SATURATION, SINGLE_HUE_MAX_SPREAD, hue_spread
from mapgen.questions.functions.registry import FUNCTIONS, Function, call, register
from mapgen.questions.functions.scene_facts import READING_MARGIN, label_bounds, reading
from mapgen.questions.functions.values import (
    MEAN_CLASS_DIFF,
    MEAN_CLASS_SIMILAR,
    OUTLIER_CLASSES,
    OUTLIER_TOL_FACTOR,
)
from mapgen.questions.reading import (
    INVALID,
    SIMILAR_TOLERANCES,
    Estimate,
    Invalid,
    Reading,
    number_style,
    number_text,
)
from mapgen.scene import PERCEPTUAL_TOLERANCE

#: The maybe-decisions as plain functions of a Reading (their names before the reading API).
order, order_levels, similar_levels, relation = (
    Reading.order, Reading.order_levels, Reading.similar_levels, Reading.relation,
)

__all__ = [
    "CLOSEST_PAIR_MARGIN", "FUNCTIONS", "GREY_SATURATION", "INVALID", "MEAN_CLASS_DIFF", "MEAN_CLASS_SIMILAR",
    "ORDINALS", "OUTLIER_CLASSES", "OUTLIER_TOL_FACTOR", "PERCEPTUAL_TOLERANCE", "READING_MARGIN",
    "SIMILAR_TOLERANCES", "SINGLE_HUE_MAX_SPREAD", "Estimate", "Function", "Invalid", "Reading", "call",
    "hue_spread", "label_bounds", "number_style", "number_text", "order", "order_levels", "position", "reading",
    "register", "relation", "round_inside", "similar_levels",
]
