"""Settings of the LLM layer (the ``llm`` section): endpoint, roles, structured output, limits.

Plain pydantic fields only (no runtime imports), so ``foresci.core.settings`` can hold this section.
Fields left ``None`` take a default that depends on the endpoint: a local server (127.0.0.1,
localhost, ::1) is a single-slot CPU model, so it gets one request at a time and a long timeout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

from pydantic import Field, SecretStr

from foresci.core.sections import SettingsSection

StructuredMethod = Literal["json_schema", "function_calling", "json_mode", "grammar"]
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})
DEFAULT_MAX_TOKENS = {"agent": 1024, "judge": 768, "builder": 256}


# the API key of a local endpoint that needs none (OPENAI_API_KEY, when set, is used instead)
PLACEHOLDER_KEY = "not-needed"


class LLMSettings(SettingsSection):
    """An OpenAI-compatible chat endpoint, shared by the roles agent, judge and builder."""

    base_url: str | None = Field(
        default=None, description="endpoint, e.g. http://127.0.0.1:8000/v1; unset = no LLM"
    )
    model: str = Field(default="gpt-4o-mini", description="model name sent to the endpoint")
    endpoint_id: str | None = Field(
        default=None,
        description="what names the endpoint in response-cache and capability keys; unset: its URL without "
        "credentials (port included, so a dead or other server never answers from another's cache). "
        "foresci's own local server sets 'local:<model>', so a restart on a new port reuses its cache",
    )
    api_key: SecretStr = Field(
        default=SecretStr(PLACEHOLDER_KEY), description="API key (never written to outputs)"
    )
    temperature: float = Field(default=0.0, description="sampling temperature")
    timeout_s: float | None = Field(
        default=None, description="per-request timeout in seconds; default 60, or 900 for a local endpoint"
    )
    deadline_s: float | None = Field(
        default=None, gt=0,
        description="total seconds one request may take, connecting, headers and body together (the "
        "timeout applies to each read, so a server trickling bytes never trips it); default: twice the "
        "request timeout. Applies to LLM calls and HTTP agents",
    )
    max_reply_bytes: int = Field(
        default=16 * 1024 * 1024, ge=1024,
        description="largest reply in bytes from an LLM endpoint or HTTP agent; the body is read as it "
        "arrives and a longer reply ends the request as an error (not retried)",
    )
    max_retries: int = Field(default=4, description="retries on connection errors, 429, 502-504 and 5xx")
    timeout_retries: int = Field(
        default=1, description="retries of a timed-out request (the server may still be computing it)"
    )
    reask: int = Field(default=1, description="times a malformed or schema-violating answer is re-asked")
    structured_output_method: Literal["auto", "json_schema", "function_calling", "json_mode", "grammar"] = (
        Field(
            default="auto",
            description="how structured output is requested: 'auto' uses the first method the endpoint "
            "accepts (json_schema, function_calling, json_mode = json_object with the schema, grammar), "
            "detected once per endpoint and recorded in the run manifest; a named method is tried first",
        )
    )
    concurrency: int | None = Field(
        default=None, description="concurrent requests at most; default 4, or 1 for a local endpoint"
    )
    max_tokens: dict[str, int] = Field(
        default_factory=lambda: dict(DEFAULT_MAX_TOKENS),
        description="generated tokens at most per role (agent, judge, builder); a reply cut at the limit "
        "is reported as truncated",
    )
    max_field_chars: int | None = Field(
        default=None, ge=1,
        description="longest free-text field of a structured reply: sent as maxLength on each such string of "
        "the schema, so a server that compiles the schema into a grammar closes a looping field instead of "
        "running into the token limit; the token limit of such a request rises to the longest reply the "
        "capped schema allows. None: no cap",
    )
    max_list_items: int | None = Field(
        default=None, ge=1,
        description="most items of a list without a size of its own in a structured reply (sent as maxItems; "
        "rankings keep their one-entry-per-option size). None: no cap",
    )
    token_limit_param: Literal["auto", "max_tokens", "max_completion_tokens"] = Field(
        default="auto",
        description="request field carrying the token limit: 'auto' = max_tokens for a local endpoint "
        "(llama.cpp, vLLM), max_completion_tokens otherwise",
    )
    context_tokens: int | None = Field(
        default=None,
        description="the served context window (n_ctx); default: the model registry's context_length. "
        "Prompts that would overflow it drop their lowest-ranked evidence first",
    )
    registry: Path | None = Field(
        default=None, description="model registry YAML (knowledge cutoffs); default: agents/models.yaml"
    )
    roles: dict[str, str] = Field(
        default_factory=dict, description="per-role model override, e.g. {'judge': 'gpt-4o'}"
    )

    @property
    def configured(self) -> bool:
        """True when an endpoint is set."""
        return bool(self.base_url)

    @property
    def local(self) -> bool:
        """True when the endpoint runs on this machine."""
        return bool(self.base_url) and (urlparse(self.base_url or "").hostname or "") in LOCAL_HOSTS

    @property
    def endpoint_identity(self) -> str | None:
        """What identifies the endpoint in cache keys and capability records: ``endpoint_id`` when set
        (foresci's own local server: ``local:<model>``, whose port changes from start to start), else the
        URL without credentials (userinfo and secret query values masked, so keys never carry a secret)."""
        from foresci.core.redact import mask_url

        if self.endpoint_id:
            return self.endpoint_id
        return mask_url(self.base_url) if self.base_url else None

    @property
    def effective_timeout_s(self) -> float:
        """The request timeout in force."""
        if self.timeout_s is not None:
            return self.timeout_s
        return 900.0 if self.local else 60.0

    @property
    def effective_deadline_s(self) -> float:
        """The total time one request may take (default: twice the per-read timeout)."""
        return self.deadline_s if self.deadline_s is not None else 2 * self.effective_timeout_s

    @property
    def effective_concurrency(self) -> int:
        """Concurrent requests allowed to this endpoint."""
        if self.concurrency is not None:
            return max(1, self.concurrency)
        return 1 if self.local else 4

    @property
    def effective_token_limit_param(self) -> str:
        """The request field that carries the token limit."""
        if self.token_limit_param != "auto":
            return self.token_limit_param
        return "max_tokens" if self.local else "max_completion_tokens"

    def role_max_tokens(self, role: str) -> int | None:
        """Generated tokens at most for ``role`` (None: unbounded)."""
        return self.max_tokens.get(role, DEFAULT_MAX_TOKENS.get(role))
