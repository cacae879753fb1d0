"""Reading and scoring (floor 7 of ARCHITECTURE.md §1): read a Scene, an image or a built folder and score; never
build, never loop over the tasks (the evaluation run that does is :mod:`mapgen.evaluation`).

Modules: answer reading (:mod:`~mapgen.eval.answers`; :mod:`~mapgen.eval.wrappers` takes off reasoning blocks,
answer tags and boxes, :mod:`~mapgen.eval.negation` spots denied and contradictory replies,
:mod:`~mapgen.eval.native` reads replies in the map's language), :mod:`~mapgen.eval.normalize`,
:mod:`~mapgen.eval.metrics` (§6), :mod:`~mapgen.eval.score`, :mod:`~mapgen.eval.prompts` (prompt strategies)
and :mod:`~mapgen.eval.examples` (the few-shot example image), :mod:`~mapgen.eval.clients` (model clients),
:mod:`~mapgen.eval.baselines` and their analytic chance (:mod:`~mapgen.eval.chance`), the multiple-choice form
(:mod:`~mapgen.eval.mcq`), bootstrap intervals (:mod:`~mapgen.eval.bootstrap`) and report tables and plots
(:mod:`~mapgen.eval.report`, which asks a task only for what its ``TaskReport`` protocol names).
"""
