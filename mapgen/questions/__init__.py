"""Question engine: MAPWise's 43 templates as data, a typed function library, instantiation on a Scene.

``generate_questions(scene, templates=None, per_template=2, seed=0)`` returns :class:`Question` records whose
answers are computed from the Scene (see ``templates/questions/mapwise.yaml`` for the templates and the written
definitions of every vague word). The names here are the engine's public API, :mod:`mapgen.questions.api`
(ask, re-ask, program trace, answer key, hinge checks, the engine's reading of a map); code outside this package
uses only them and :mod:`mapgen.questions.record`.
"""

from mapgen.questions.api import *  # noqa: F403  (exactly the API's __all__)
from mapgen.questions.api import __all__  # noqa: F401
