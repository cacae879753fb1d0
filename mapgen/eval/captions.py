"""Old home of caption scoring, kept for the harness exporters' generated code until they import
:mod:`mapgen.tasks.caption.scores` (caption metrics) and :mod:`mapgen.tasks.grounding.scores` (grounding)."""

from mapgen.tasks.caption.scores import caption_scores, caption_text

__all__ = ["caption_scores", "caption_text"]
