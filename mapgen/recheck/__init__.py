"""Re-check a published MAPWise benchmark: import its maps and questions, parse each question as a template,
recompute the answer with the question engine and score MAPWise's against it.

Modules (imported one by one; this package imports none of them):

- :mod:`~mapgen.recheck.importer`: ``read_sample``/``import_mapwise`` rebuild MapSpecs from MapQA metadata
  (:mod:`mapgen.mapwise.schema`) and read the questions CSV (any of MAPWise's three layouts);
- :mod:`~mapgen.recheck.cfimport`: which name is printed on which shape of a counterfactual map, read from the
  questions and (OCR, :mod:`~mapgen.recheck.printed_labels`) off the image; :mod:`~mapgen.recheck.ticks` reads
  a colour bar's tick labels by OCR;
- :mod:`~mapgen.recheck.parse`: ``parse_question`` reads a question as a template with exact parameters (or
  says why not), by MAPWise's wordings; :mod:`~mapgen.recheck.slots` (``read_by_slots``, on
  :mod:`~mapgen.recheck.mentions`) reads the rest by filling their template's slots;
  :mod:`~mapgen.recheck.groups` adds MAPWise's curated groups and the questions' derived groups to a map;
- :mod:`~mapgen.recheck.verdicts`: ``recheck`` recomputes every answer with the question engine's public API
  and classifies it agree / disagree / ambiguous / unparsed; ``write_recheck`` writes verdicts, a summary, a
  report and a corrected CSV.
"""
