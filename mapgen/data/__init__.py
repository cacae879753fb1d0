"""Statistics (floor 1 of ARCHITECTURE.md §1): the values a map shows, with their metadata.

Modules: :mod:`~mapgen.data.statistic` (the Statistic), :mod:`~mapgen.data.curated` (curated tables shipped in
``data/stats/``), :mod:`~mapgen.data.user_tables` (a user's CSV, TSV or Parquet joined to an atlas),
:mod:`~mapgen.data.synthetic` (seeded synthetic values, titled after :mod:`~mapgen.data.indicators`) and
:mod:`~mapgen.data.map_words` (what the maps of a non-English build print).
"""
