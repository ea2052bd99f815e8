"""Chat models for every role (agent, judge, builder) over any OpenAI-compatible endpoint.

- :mod:`foresci.llm.client`: :class:`LLMClient` (structured output, retries by error kind, token limits,
  context budget, response cache, accounting) and the ``ChatOpenAI`` factory;
- :mod:`foresci.llm.registry`: backbones with knowledge cutoffs and context windows;
- :mod:`foresci.llm.capabilities`: the structured-output method each endpoint accepts;
- :mod:`foresci.llm.serve`: a packaged local model behind a llama.cpp server (``foresci llm serve``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from foresci.llm.cache import ResponseCache, Usage, response_cache
    from foresci.llm.client import LLMClient, Role, current_step, get_chat_model, role_model
    from foresci.llm.config import LLMSettings
    from foresci.llm.errors import LLMError, LLMOutputError, LLMRequestError
    from foresci.llm.messages import MessageLike, normalise_messages
    from foresci.llm.registry import (
        ModelInfo,
        contamination_risk,
        context_length,
        knowledge_cutoff,
        load_model_registry,
    )

__all__ = [
    "LLMClient", "LLMError", "LLMOutputError", "LLMRequestError", "LLMSettings", "MessageLike", "ModelInfo",
    "ResponseCache", "Role", "Usage", "contamination_risk", "context_length", "current_step",
    "get_chat_model", "knowledge_cutoff", "load_model_registry", "normalise_messages", "response_cache",
    "role_model",
]

_HOMES = {
    "ResponseCache": "cache", "Usage": "cache", "response_cache": "cache",
    "LLMClient": "client", "Role": "client", "current_step": "client", "get_chat_model": "client",
    "role_model": "client", "MessageLike": "messages", "normalise_messages": "messages",
    "LLMSettings": "config",
    "LLMError": "errors", "LLMOutputError": "errors", "LLMRequestError": "errors",
    "ModelInfo": "registry", "contamination_risk": "registry", "context_length": "registry",
    "knowledge_cutoff": "registry", "load_model_registry": "registry",
}


def __getattr__(name: str) -> Any:
    """Load a public name's module on first use (importing ``foresci.llm.config`` for the settings
    must not import the client and langchain)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'foresci.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"foresci.llm.{home}"), name)
