"""Human baselines as MAPWise measured them: a stratified sample for people (:mod:`mapgen.human.sample`), an
annotation kit with its page (:mod:`mapgen.human.kit`), and the scoring of several annotators — majority vote,
agreement, Fleiss' kappa (:mod:`mapgen.human.score`, :mod:`mapgen.human.agreement`)."""
