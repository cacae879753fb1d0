"""Question engine: MAPWise's 43 templates as data, a typed function library, instantiation on a Scene.

``generate_questions(scene, templates=None, per_template=2, seed=0)`` returns :class:`Question` records whose
answers are computed from the Scene (see ``templates/questions/mapwise.yaml`` for the templates and the written
definitions of every vague word).
"""

from mapgen.questions.engine import Unaskable, ask, balance, generate_questions, instantiate
from mapgen.questions.functions import FUNCTIONS, INVALID, PERCEPTUAL_TOLERANCE, context, register
from mapgen.questions.record import ANSWER_TYPES, Question
from mapgen.questions.templates import (
    VQA_TYPES,
    Template,
    TemplateError,
    TemplateSet,
    lint_file,
    load_templates,
)

__all__ = [
    "ANSWER_TYPES",
    "FUNCTIONS",
    "INVALID",
    "PERCEPTUAL_TOLERANCE",
    "Question",
    "Template",
    "TemplateError",
    "TemplateSet",
    "Unaskable",
    "VQA_TYPES",
    "ask",
    "balance",
    "context",
    "generate_questions",
    "instantiate",
    "lint_file",
    "load_templates",
    "register",
]
