"""Synthetic research worlds: generated literatures with planted dynamics and invented vocabulary.

Modules, in the order a world is made:
``knobs`` (WorldConfig and its calendar) → ``vocab`` (pseudo-words) → ``dynamics`` (rates per
trajectory label, difficulty, counterfactual shifts) → ``plan`` (domains, directions, counts, chains,
relations, venues) → ``text`` (titles and abstracts) → ``corpus`` (roles, noise, arXiv ids, day files)
→ ``world`` (generate_world, ground truth, domain YAML, manifest). ``truth`` holds the ground-truth
models; ``stats`` the plain statistics tests and the CLI use. The public API lives in ``world``.
"""
