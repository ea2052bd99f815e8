"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests (stdlib only, no network).

It answers ``POST /v1/chat/completions`` (non-streaming) over real HTTP, so a real ``ChatOpenAI``
client can be tested end to end, including every fault path. What it answers comes from, in order:

1. a queue of :class:`Reply` objects (``server.enqueue(...)``), consumed one per request;
2. a responder callable ``(request_json) -> Reply | str | dict`` (``server.responder = ...``);
3. a default: valid JSON generated from the requested schema (``response_format`` json_schema or the
   first tool), or the text ``"scripted reply"``.

A ``dict`` reply is returned as a tool call when the request carries tools, else as JSON content.
Every request is recorded in ``server.requests`` (parsed body + headers), and every answer carries a
``usage`` block (tokens counted as characters / 4, rounded up).

Example::

    with ScriptedOpenAIServer() as server:
        server.enqueue(Reply.error(429, retry_after=1), Reply.json({"answer": "A"}))
        model = ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted")
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], Any]


@dataclass
class Reply:
    """One scripted answer: content text, a JSON object, an HTTP error, a delay or a malformed body."""

    text: str | None = None
    data: dict[str, Any] | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    delay_s: float = 0.0
    finish_reason: str = "stop"
    cut_at: int | None = None
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None

    @classmethod
    def content(cls, text: str) -> Reply:
        """Answer with this assistant message text."""
        return cls(text=text)

    @classmethod
    def json(cls, data: dict[str, Any]) -> Reply:
        """Answer with a JSON object (a tool call when the request has tools, else message content)."""
        return cls(data=data)

    @classmethod
    def calls(cls, *calls: tuple[str, dict[str, Any]], text: str | None = None) -> Reply:
        """Answer with these tool calls ``(tool name, arguments)`` (a model choosing its tools); the
        call ids are derived from the calls, so the same calls always get the same ids."""
        return cls(text=text, tool_calls=list(calls), finish_reason="tool_calls")

    @classmethod
    def error(cls, status: int, retry_after: float | None = None, message: str = "scripted error") -> Reply:
        """Answer with an HTTP error in OpenAI's error format (optionally with a Retry-After header)."""
        headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
        body = json.dumps({"error": {"message": message, "type": "scripted", "code": status}})
        return cls(status=status, headers=headers, body=body)

    @classmethod
    def cut(cls, data: dict[str, Any], keep_chars: int, finish_reason: str = "length") -> Reply:
        """A JSON answer cut after ``keep_chars`` characters, as a server does at ``max_tokens``: the
        usage reports the request's whole token limit. llama.cpp servers say ``finish_reason=tool_calls``
        for a cut-off tool call; pass that to reproduce it."""
        return cls(data=data, cut_at=keep_chars, finish_reason=finish_reason)

    @classmethod
    def invalid_request_500(cls, detail: str = "response_format.type") -> Reply:
        """HTTP 500 whose body says the request itself is invalid (llama-cpp-python's validation error)."""
        message = (f"1 validation error for CreateChatCompletionRequest\n{detail}\n  Input should be 'text' "
                   "or 'json_object' [type=literal_error]")
        return cls.error(500, message=message)

    @classmethod
    def delayed(cls, seconds: float, then: Reply | None = None) -> Reply:
        """Wait ``seconds`` before answering (to force client timeouts), then answer like ``then``."""
        base = then or cls(text="late reply")
        return cls(
            text=base.text,
            data=base.data,
            status=base.status,
            headers=dict(base.headers),
            body=base.body,
            delay_s=seconds,
            finish_reason=base.finish_reason,
            cut_at=base.cut_at,
        )

    @classmethod
    def malformed_content(cls, text: str = '{"answer": "unterminated') -> Reply:
        """Answer 200 with assistant content that is not valid JSON."""
        return cls(text=text)

    @classmethod
    def malformed_body(cls, body: str = "{this is not json") -> Reply:
        """Answer 200 with an HTTP body that is not valid JSON at all."""
        return cls(body=body)


def estimate_tokens(text: str) -> int:
    """Token estimate used in ``usage``: characters / 4, rounded up."""
    return math.ceil(len(text) / 4)


def request_text(request: dict[str, Any]) -> str:
    """All message contents of a recorded request, joined (for leakage and token checks)."""
    parts: list[str] = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(item.get("text", "")) for item in content if isinstance(item, dict))
        for call in message.get("tool_calls") or []:
            parts.append(str(call.get("function", {}).get("arguments", "")))
    return "\n".join(parts)


def requested_schema(request: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """The JSON schema a request asks for and, when it asks through tools, the tool name."""
    response_format = request.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return response_format.get("json_schema", {}).get("schema"), None
    if response_format.get("type") == "json_object" and "schema" in response_format:
        return response_format["schema"], None
    tools = request.get("tools") or []
    if tools:
        function = tools[0].get("function", {})
        return function.get("parameters"), function.get("name")
    return None, None


def example_from_schema(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """A small value that validates against a JSON schema (enums take their first value)."""
    root = root or schema
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return example_from_schema(root.get("$defs", root.get("definitions", {}))[name], root)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [option for option in schema[key] if option.get("type") != "null"] or schema[key]
            return example_from_schema(options[0], root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((item for item in kind if item != "null"), "null")
    if kind == "object" or "properties" in schema:
        return {name: example_from_schema(sub, root) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [example_from_schema(schema.get("items", {"type": "string"}), root)]
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        low, high = float(schema.get("minimum", 0.0)), float(schema.get("maximum", 1.0))
        return (low + high) / 2
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "scripted text"


class ScriptedOpenAIServer:
    """A threaded OpenAI-compatible server on a random free port of 127.0.0.1; use as a context manager."""

    def __init__(self, responder: Responder | None = None) -> None:
        self.responder: Responder | None = responder
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.request_times: list[float] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle ------------------------------------------------------------------------------

    def start(self) -> ScriptedOpenAIServer:
        """Bind to 127.0.0.1 on a free port and serve in a daemon thread."""
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """The OpenAI base URL of this server, e.g. ``http://127.0.0.1:54321/v1``."""
        if self._httpd is None:
            raise RuntimeError("ScriptedOpenAIServer is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    # ---- scripting ------------------------------------------------------------------------------

    def enqueue(self, *replies: Reply | str | dict[str, Any]) -> None:
        """Queue replies; each request consumes the next one before the responder is asked."""
        with self._lock:
            self._queue.extend(_as_reply(reply) for reply in replies)

    def reset(self) -> None:
        """Forget recorded requests and queued replies (the responder stays)."""
        with self._lock:
            self.requests.clear()
            self.headers.clear()
            self.request_times.clear()
            self._queue.clear()

    @property
    def pending(self) -> int:
        """Queued replies not yet consumed."""
        with self._lock:
            return len(self._queue)

    def all_text(self) -> str:
        """Every message content of every recorded request, joined."""
        with self._lock:
            return "\n".join(request_text(request) for request in self.requests)

    # ---- answering ------------------------------------------------------------------------------

    def _next_reply(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            self.request_times.append(time.monotonic())
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return _as_reply(self.responder(request))
        schema, _ = requested_schema(request)
        if schema is not None:
            return Reply(data=example_from_schema(schema))
        if (request.get("response_format") or {}).get("type") == "json_object":
            return Reply(data={})
        return Reply(text="scripted reply")


def _as_reply(value: Reply | str | dict[str, Any]) -> Reply:
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply(text=value)
    if isinstance(value, dict):
        return Reply(data=value)
    raise TypeError(f"a scripted reply must be Reply, str or dict, not {type(value).__name__}")


def token_limit(request: dict[str, Any]) -> int | None:
    """The request's token limit (``max_tokens`` or ``max_completion_tokens``), if any."""
    for name in ("max_tokens", "max_completion_tokens"):
        if isinstance(request.get(name), int):
            return int(request[name])
    return None


def completion_body(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """The chat.completion JSON for a successful reply, with usage counted from the request."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    finish_reason = reply.finish_reason
    completion_text = reply.text or ""
    if reply.tool_calls is not None:
        calls = [{"id": "call_" + hashlib.sha256(json.dumps([index, name, arguments], sort_keys=True)
                                                .encode("utf-8")).hexdigest()[:16],
                  "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
                 for index, (name, arguments) in enumerate(reply.tool_calls)]
        message["tool_calls"] = calls
        completion_text += "".join(call["function"]["arguments"] for call in calls)
    elif reply.data is not None:
        _, tool_name = requested_schema(request)
        arguments = json.dumps(reply.data)
        if reply.cut_at is not None:
            arguments = arguments[: reply.cut_at]
        completion_text = arguments
        if tool_name is not None:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{len(arguments)}",
                        "type": "function",
                        "function": {"name": tool_name, "arguments": arguments},
                    }
                ],
            }
            finish_reason = "tool_calls" if reply.cut_at is None else reply.finish_reason
        else:
            message["content"] = arguments
    prompt_tokens = estimate_tokens(request_text(request))
    completion_tokens = estimate_tokens(completion_text)
    if reply.cut_at is not None:
        completion_tokens = token_limit(request) or completion_tokens
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _make_handler(server: ScriptedOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            return

        def do_POST(self) -> None:  # noqa: N802 - stdlib naming
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, json.dumps({"error": {"message": f"unknown path {self.path}"}}), {})
                return
            try:
                request = json.loads(raw)
            except json.JSONDecodeError:
                self._send(400, json.dumps({"error": {"message": "request body is not JSON"}}), {})
                return
            with server._lock:
                server.headers.append({key.lower(): value for key, value in self.headers.items()})
            reply = server._next_reply(request)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            if reply.body is not None:
                self._send(reply.status, reply.body, reply.headers)
            elif reply.status != 200:
                self._send(reply.status, json.dumps({"error": {"message": "scripted error"}}), reply.headers)
            else:
                self._send(200, json.dumps(completion_body(request, reply)), reply.headers)

        def _send(self, status: int, body: str, headers: dict[str, str]) -> None:
            encoded = body.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(encoded)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(encoded)
            except (BrokenPipeError, ConnectionResetError):
                return

    return Handler


def forwarding_responder(base_url: str, timeout_s: float = 900.0) -> Responder:
    """A responder that passes each request to a real OpenAI-compatible server and returns its answer
    unchanged (status and body), so a test can read every prompt a real model was sent."""
    import urllib.error
    import urllib.request

    def forward(request: dict[str, Any]) -> Reply:
        outgoing = urllib.request.Request(
            f"{base_url.rstrip('/')}/chat/completions", data=json.dumps(request).encode("utf-8"),
            headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(outgoing, timeout=timeout_s) as response:  # noqa: S310 - 127.0.0.1
                return Reply(status=response.status, body=response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            return Reply(status=error.code, body=error.read().decode("utf-8", errors="replace"))

    return forward
