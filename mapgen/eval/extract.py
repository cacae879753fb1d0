"""Old name of :mod:`mapgen.eval.answers`, kept for the importers not yet moved to it (the MAPWise re-check and
the harness exporters' generated code)."""

from mapgen.eval.answers import extract_answer, find_json_answer, parse_binary, parse_box, split_items

__all__ = ["extract_answer", "find_json_answer", "parse_binary", "parse_box", "split_items"]
