"""Re-answer a published MAPWise benchmark: import its maps and questions, parse, recompute, compare.

``read_sample``/``import_mapwise`` rebuild MapSpecs from MapQA metadata and read the questions CSV (any of
MAPWise's three layouts); ``parse_question`` reads a question as a template with exact parameters (or says why
not); ``recheck`` recomputes every answer with the question engine and classifies it agree / disagree /
ambiguous / unparsed; ``write_recheck`` writes verdicts, a summary, a report and a corrected CSV.
"""

from mapgen.mapwise.importer import ImportedSet, RawQuestion, import_mapwise, load_imported, read_sample
from mapgen.mapwise.parse import Parsed, Unparsed, parse_question
from mapgen.mapwise.recheck import Verdict, recheck, recheck_question, summary_rows, write_recheck

__all__ = [
    "ImportedSet",
    "Parsed",
    "RawQuestion",
    "Unparsed",
    "Verdict",
    "import_mapwise",
    "load_imported",
    "parse_question",
    "read_sample",
    "recheck",
    "recheck_question",
    "summary_rows",
    "write_recheck",
]
