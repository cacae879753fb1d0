"""MAPWise's format: its metadata schema, repository layout, released question wordings and region aliases.

A low floor (beside :mod:`mapgen.spec`, ARCHITECTURE.md §1): it knows MapSpecs and legends, nothing of scenes,
questions or scoring, so scene, the exporter and the CLI read and write MAPWise files through it. Re-checking a
published MAPWise benchmark with the question engine is :mod:`mapgen.recheck`, which uses this format.

- :mod:`~mapgen.mapwise.schema`: MAPWise/MapQA metadata ⇄ Legend and MapSpec, and ``load_map_spec``;
- :mod:`~mapgen.mapwise.repository`: the names and headers of its question tables and folders;
- :mod:`~mapgen.mapwise.released_wording`: its released question wordings, filled from the template YAML;
- :mod:`~mapgen.mapwise.aliases`: the names its questions use for regions (``data/mapwise_aliases.yaml``).
"""
