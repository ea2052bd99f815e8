"""The forecast contract of HTTP agents: bare and ``{"answer": ...}`` replies are read into a forecast row,
a reply outside ``forecast_reply.schema.json`` names its field, and an agent that fails (HTTP 500, or a
crash that drops the connection) is reported as the agent's error with its body, not as unreachable."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from foresci.core.settings import Settings
from foresci.llm.errors import LLMError
from foresci.methods.calling import call_forecast
from foresci.methods.http import http_method
from foresci.methods.registry import ForecastInput
from foresci.tasks.models import ForecastQuestion

QUESTION = ForecastQuestion(question_id="q1", kind="numeric", domain="d", cutoff=date(2024, 1, 31),
                            window_start=date(2024, 2, 1), window_end=date(2024, 7, 31), text="How many?",
                            resolution_rule="count", baseline=4.0)


class _Agent(BaseHTTPRequestHandler):
    posts: list[str]

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._send(200, {"version": "2.1"} if self.path == "/wrapped/info" else {})

    def do_POST(self) -> None:  # noqa: N802
        self.posts.append(self.path)
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if self.path == "/crash":
            raise KeyError("family")  # http.server drops the connection, as the README agent did
        if self.path == "/fail":
            self._send(500, {"detail": "KeyError: 'family'"})
        elif self.path == "/wrapped":
            self._send(200, {"answer": {"p10": 1.0, "p50": body["baseline"], "p90": 9.0}})
        elif self.path == "/bare":
            self._send(200, {"p10": 1.0, "p50": 2.0, "p90": 3.0, "notes": ["bare"]})
        else:
            self._send(200, {"answer": {"p50": 2.0, "confidence": 0.9}})

    def _send(self, status: int, data: Any) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        return None

    def log_error(self, *args: Any) -> None:
        return None


@pytest.fixture
def agent() -> Iterator[tuple[str, list[str]]]:
    posts: list[str] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Agent", (_Agent,), {"posts": posts}))
    server.handle_error = lambda *args: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", posts
    finally:
        server.shutdown()
        server.server_close()


def _forecast(url: str) -> Any:
    spec = http_method(url)
    return call_forecast(spec, QUESTION, ForecastInput(settings=Settings()))


def test_wrapped_and_bare_forecast_replies_become_rows(agent: tuple[str, list[str]]) -> None:
    base, _ = agent
    wrapped = _forecast(f"{base}/wrapped")
    assert (wrapped.question_id, wrapped.p10, wrapped.p50, wrapped.p90) == ("q1", 1.0, 4.0, 9.0)
    bare = _forecast(f"{base}/bare")
    assert (bare.p50, bare.notes) == (2.0, ["bare"])
    assert http_method(f"{base}/wrapped").version == "2.1", "the agent's /info version"
    with pytest.raises(LLMError, match="forecast reply field confidence"):
        _forecast(f"{base}/extra")


def test_a_failing_agent_is_its_own_error_with_its_body_not_unreachable(agent: tuple[str, list[str]]) -> None:
    base, posts = agent
    with pytest.raises(LLMError) as failed:
        _forecast(f"{base}/fail")
    assert "HTTP 500" in str(failed.value) and "KeyError: 'family'" in str(failed.value)
    assert posts.count("/fail") == 1, "an agent's own failure is not retried"
    started = time.monotonic()
    with pytest.raises(LLMError) as crashed:
        _forecast(f"{base}/crash")
    assert "without a reply" in str(crashed.value) and "unreachable" not in str(crashed.value)
    assert posts.count("/crash") <= 2 and time.monotonic() - started < 5
