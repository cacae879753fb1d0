"""Re-answer a published MAPWise benchmark, and read and write its metadata schema.

Modules (imported one by one; this package imports none of them, so the low-floor :mod:`~mapgen.mapwise.schema`
can be used by scene and the CLI without pulling in the question engine):

- :mod:`~mapgen.mapwise.schema`: MAPWise/MapQA metadata ⇄ Legend and MapSpec, and ``load_map_spec``;
- :mod:`~mapgen.mapwise.importer`: ``read_sample``/``import_mapwise`` rebuild MapSpecs from MapQA metadata and
  read the questions CSV (any of MAPWise's three layouts);
- :mod:`~mapgen.mapwise.parse`: ``parse_question`` reads a question as a template with exact parameters (or
  says why not);
- :mod:`~mapgen.mapwise.recheck`: ``recheck`` recomputes every answer with the question engine and classifies
  it agree / disagree / ambiguous / unparsed; ``write_recheck`` writes verdicts, a summary, a report and a
  corrected CSV.
"""
