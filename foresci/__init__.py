"""foresci: research foresight benchmarks with cutoff-aligned knowledge bases.

The packages form one-way layers; a module imports its own layer and lower ones only (checked by
``tests/foundation/test_layering.py``, every import counted, function-level ones included)::

    app          foresci.cli (entry point), foresci.app (demo, signal, local-model demo, transcript and
                 schema commands), every package's cli.py, the benchmarks' drivers
    rounds       the living benchmark: ledger, open, submit, tick, boards, site
    engines | bridges        where work runs: the engine choice and run's Ray job engine (injected by the
                             CLI) | other harnesses: a release as an inspect_ai Task, its logs imported
    methods      the method API and registry, the shipped methods (foresci.methods.shipped), plug-in
                 loading and wall, the runner that answers a release
    evaluation | agents      scoring (hidden targets) | the toolkit methods are built from (KB tools,
                             briefs, prompts, render, baselines); independent of each other
    tasks        families, builders, releases, hidden targets; foresci.contracts (answer contracts)
    emergence    concept vocabulary, co-occurrence network and link-prediction baselines at a cutoff
    taxonomy | sim
    kb
    llm | embedders          chat-model client; sentence encoders and the embedding cache
    foundation   foresci.core (io, errors, locks, settings, yamlio, redact, fencing, threads, artifacts,
                 resources, sections, transcripts, extensions, the Ray map) and every package's config.py (a
                 settings section: plain fields, so the one Settings holds them all)

``agents`` and ``methods`` never import hidden targets or ``evaluation`` (the cutoff discipline).
"""

__version__ = "0.1.0"
