"""Build a benchmark folder from a config, stage by stage, each stage a module:

- :mod:`~mapgen.build.plan`: config → units (:func:`mapgen.build.plan.plan`; not re-exported here, so
  ``mapgen.build.plan`` stays the module) (what each map is drawn with, deterministic in the seed);
- :mod:`~mapgen.build.unit`: run one unit (its specs, renders and every task's gold records);
- :mod:`~mapgen.build.select`: each task's selection across the units;
- :mod:`~mapgen.build.write`: the folder's marker, records, manifest and build log;
- :mod:`~mapgen.build.executors`: this process, a local process pool or Dask, and the folder lock;
- :mod:`~mapgen.build.inputs`: the folder's copies of the config's files and the config a Dask worker reads
  from the folder;
- (the templates a build asks and the template packs copied into the folder: :mod:`mapgen.packs`, on the
  benchmark folder's floor, since tasks read it too);
- :mod:`~mapgen.build.run`: :func:`build`, which runs them in that order (and resumes).

The folder's layout, checksums and readers live in :mod:`mapgen.benchmark`.
"""

from __future__ import annotations

from mapgen.build.plan import Unit, UnitChoice
from mapgen.build.run import BuildReport, build, check_inputs
from mapgen.build.unit import base_spec, country_atlas, run_unit, unit_variants
from mapgen.errors import BuildError

__all__ = ["BuildError", "BuildReport", "Unit", "UnitChoice", "base_spec", "build", "check_inputs",
           "country_atlas", "run_unit", "unit_variants"]
