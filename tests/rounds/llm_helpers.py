"""Settings that point a round's LLM methods at the scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from foresci.core.settings import Settings
from tests.agents.responders import answering_responder, schema_name
from tests.rounds.helpers import toy_settings
from tests.support.openai_server import ScriptedOpenAIServer, example_from_schema, requested_schema

MODEL = "scripted-a"


def llm_settings(server: ScriptedOpenAIServer, cache: Path, engine: str = "local") -> Settings:
    """The toy settings with the scripted server as the LLM endpoint (no retries, no re-asks)."""
    base = toy_settings()
    return base.model_copy(
        update={
            "cache_dir": cache,
            "llm": base.llm.model_copy(
                update={
                    "base_url": server.base_url,
                    "model": MODEL,
                    "timeout_s": 30.0,
                    "max_retries": 0,
                    "reask": 0,
                }
            ),
            "agents": base.agents.model_copy(update={"concurrency": 2}),
            "runtime": base.runtime.model_copy(update={"engine": engine}),
        }
    )


def round_responder(request: dict[str, Any]) -> Any:
    """A model that answers every family task validly in one call (:func:`answering_responder`) and every
    forecast question with the schema's example values (one call)."""
    schema, _ = requested_schema(request)
    if schema is not None and schema_name(request) in ("NumericForecast", "BinaryForecast"):
        return example_from_schema(schema)
    return answering_responder(request)
