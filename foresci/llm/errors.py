"""LLM errors and the classification of provider errors (what is retried, what is not).

Every exception a provider client raises ends as one of these, so a caller catches ``LLMError`` only:

- ``request_invalid``: the server refused the request itself (HTTP 400/404/422, or a 500 whose body says
  the request is invalid, e.g. an unsupported ``response_format``). Deterministic: never retried.
- ``auth``: HTTP 401/403. Never retried.
- ``overload``: 429, 502-504, connection errors, other 5xx, a malformed HTTP body. Retried with backoff
  (``Retry-After`` honoured).
- ``timeout``: the client gave up waiting; retried at most ``timeout_retries`` times.
- ``output``: the server answered but the answer is unusable (cut at the token limit, content filter, a
  reply over ``llm.max_reply_bytes``).
"""

from __future__ import annotations

import json
import re
from typing import Literal

ErrorKind = Literal["request_invalid", "auth", "overload", "timeout", "output"]

_INVALID_BODY = re.compile(
    r"validation error|invalid|not supported|unsupported|extra inputs|input should be|unknown (field|param)"
    r"|unrecognized|does not support|must be one of|literal_error|not found in tools",
    re.IGNORECASE,
)


class LLMError(RuntimeError):
    """A model call that failed for good; ``kind`` says why and ``step`` which step asked."""

    def __init__(self, message: str, kind: ErrorKind | None = None, step: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.step = step


class LLMRequestError(LLMError):
    """The endpoint refused the request as invalid (not retried; a refused output method falls back)."""


class LLMOutputError(LLMError):
    """The model's output stayed malformed, truncated or schema-violating after every re-ask."""

    def __init__(self, message: str, raw_outputs: list[str], truncated: bool = False,
                 step: str | None = None) -> None:
        super().__init__(message, kind="output", step=step)
        self.raw_outputs = raw_outputs
        self.truncated = truncated


def classify(error: BaseException) -> ErrorKind | None:
    """The kind of a provider exception (None: not a provider error, let it propagate)."""
    import httpx
    import openai

    from foresci.llm.bounded_http import too_large

    if too_large(error):
        return "output"  # the reply exceeded llm.max_reply_bytes: asking again gets it again
    if isinstance(error, openai.APITimeoutError | httpx.TimeoutException):
        return "timeout"
    if isinstance(error, openai.APIConnectionError | openai.APIResponseValidationError | json.JSONDecodeError
                  | httpx.TransportError):
        return "overload"
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if status in (401, 403):
            return "auth"
        if status == 429 or status in (502, 503, 504):
            return "overload"
        if status >= 500:
            return "request_invalid" if _INVALID_BODY.search(_body_text(error)) else "overload"
        return "request_invalid"
    if isinstance(error, openai.OpenAIError):
        return "output"  # LengthFinishReasonError, ContentFilterFinishReasonError, ...
    return None


def _body_text(error: BaseException) -> str:
    body = getattr(error, "body", None)
    text = json.dumps(body) if isinstance(body, dict | list) else str(body or "")
    return f"{text} {getattr(error, 'message', '')}"


def short(error: BaseException | str, limit: int = 400) -> str:
    """An error message on one line, at most ``limit`` characters."""
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[:limit] + "..."
