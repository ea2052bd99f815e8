"""The methods that come with foresci: the LLM methods (LangGraph graphs: native, hybrid_rag, coi,
research_agent, aris, react) and the two non-LLM baselines (trend, persistence).

Each module registers its method(s) with ``@method`` when imported;
:func:`foresci.methods.registry.registered` imports every module of this package (a scan, no list). A
new shipped LLM method is one module here, with its prompt variables and forecaster, and its prompt
file ``agents/<name>.yaml``.
"""
