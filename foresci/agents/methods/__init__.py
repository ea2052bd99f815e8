"""The shipped LLM answering methods (LangGraph graphs); each module registers its method with
:mod:`foresci.methods` when imported (:data:`foresci.methods.registry.SHIPPED_MODULES`)."""
