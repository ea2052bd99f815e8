"""The methods that come with foresci: the LLM methods (LangGraph graphs: native, hybrid_rag, coi,
research_agent, aris, react) and the two non-LLM baselines (trend, persistence).

Each module registers its method(s) with ``@method`` when imported;
:func:`foresci.methods.registry.registered` imports the modules named in
:data:`foresci.methods.registry.SHIPPED_METHODS`, in that (the listing) order. A new shipped LLM method
is one module here, named there, with its prompt variables and forecaster, and its prompt file
``agents/<name>.yaml``.
"""
