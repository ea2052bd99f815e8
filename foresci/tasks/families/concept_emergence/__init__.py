"""concept_emergence: which concept pairs, never used together before the cutoff, will be in the window.

Not among the built-in families yet (adding it changes every release): enable it with
``FORESCI_EXTENSIONS=foresci.tasks.families.concept_emergence.family``.
"""
