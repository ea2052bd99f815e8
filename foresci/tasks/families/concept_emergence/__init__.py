"""concept_emergence: which concept pairs, never used together before the cutoff, will be in the window.

A shipped family (the fifth in ``BUILTIN_FAMILIES``): its tasks follow the other four in a release, its
binary forecast questions follow theirs in ``forecast.jsonl`` and its bulk link-prediction set is written
beside them (:mod:`foresci.tasks.families.concept_emergence.release`).
"""
