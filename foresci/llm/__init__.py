"""Chat models for every role (agent, judge, builder) over any OpenAI-compatible endpoint.

- :mod:`foresci.llm.client`: :class:`LLMClient` (structured output, retries by error kind, token limits,
  context budget, response cache, accounting) and the ``ChatOpenAI`` factory;
- :mod:`foresci.llm.registry`: backbones with knowledge cutoffs and context windows;
- :mod:`foresci.llm.capabilities`: the structured-output method each endpoint accepts;
- :mod:`foresci.llm.serve`: a packaged local model behind a llama.cpp server (``foresci llm serve``).
"""

from foresci.llm.cache import ResponseCache, Usage, response_cache
from foresci.llm.client import (
    LLMClient,
    MessageLike,
    Role,
    current_step,
    get_chat_model,
    normalise_messages,
    role_model,
)
from foresci.llm.config import LLMSettings
from foresci.llm.errors import LLMError, LLMOutputError, LLMRequestError
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
