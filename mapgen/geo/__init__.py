"""Geography (floor 1 of ARCHITECTURE.md §1): atlases of regions, their names, borders and named groups.

Knows nothing of legends, maps, rendering or questions. Modules: :mod:`~mapgen.geo.atlas_model` (the Atlas and
Position), :mod:`~mapgen.geo.gazetteer` (names, aliases, neighbours and groups without geometry),
:mod:`~mapgen.geo.names` (name matching), :mod:`~mapgen.geo.languages` (region names in other languages),
:mod:`~mapgen.geo.atlas` (loading the built-in atlases and user files), :mod:`~mapgen.geo.edition` (another
publisher's units of a built-in atlas), :mod:`~mapgen.geo.adjacency` (the map-scaled border rule),
:mod:`~mapgen.geo.published_borders` (the published border lists and the contested pairs),
:mod:`~mapgen.geo.border_audit` (the border graph against those lists), :mod:`~mapgen.geo.vector_file` (user
vector files), :mod:`~mapgen.geo.coordinates` (a user file's CRS, refused when it cannot be right) and
:mod:`~mapgen.geo.source` (how artefacts record a user file: path, digest, fields).

Atlas geometry and the border graph load on first use, so names, neighbours and groups never import geopandas or
networkx (a built-in atlas's neighbours, contested pairs and projected bounds come from its shipped files).
"""
