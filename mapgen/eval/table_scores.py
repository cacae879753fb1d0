"""Old home of the gold-table scores, kept for the harness exporters' generated code until they import
:mod:`mapgen.tasks.extraction.scores`."""

from mapgen.tasks.extraction.scores import extraction_summary, extraction_table, score_table

__all__ = ["extraction_summary", "extraction_table", "score_table"]
