"""KB tools for HTTP agents: served on 127.0.0.1 for the run's duration, one secret URL per task.

While foresci waits for an HTTP agent's answer to a task it holds a grant (:meth:`ToolServer.grant`): a
URL with a random token, sent to the agent in the ``x-foresci-tools`` request header (the body stays the
public task). The agent POSTs ``{"tool": "search", "query": ..., "k": ...}`` (or ``get_paper`` with
``paper_id``, ``related_papers``, ``timeline``; ``{"tool": "calls_left"}``) to that URL and gets
``{"result": ...}``. Each call runs through the task's :class:`~foresci.agents.tools.KBTools`, bound to
its cutoff and tool budget, and is logged into its support artifact and transcript
(:mod:`foresci.methods.sandbox.desk` checks the arguments). The token stops working when the answer
arrives; an unknown token is refused with 403.

One grant at a time (issue 39.8): an agent answering several tasks at once held every one's URL, and
one task's answer could search through another's (its budget, its cutoff, logged in its support). A
token cannot tell which of an agent's requests made a call, so the server holds at most one live grant:
a request carrying KB tools waits for the one before it to be answered, and any URL but the live one is
refused with 403. HTTP agents with KB tools therefore answer one task at a time (``agents.concurrency``
still applies to everything else); with ``--engine ray`` each worker process holds its own.
"""

from __future__ import annotations

import contextvars
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from foresci.methods.sandbox.desk import MAX_K, serve
from foresci.methods.sandbox.json_http import JSONHandler

TOOLS_HEADER = "x-foresci-tools"
MAX_REQUEST_BYTES = 1024 * 1024


class ToolRequest(BaseModel):
    """One KB tool call an HTTP agent POSTs to its tools URL (``foresci schema export``:
    ``tool_request.schema.json``); the reply is ``{"result": ...}`` (papers as in the task's KB, a
    timeline's counts, or the calls left), or ``{"error": "..."}`` with status 400 (refused, over budget)
    or 403 (a URL that expired)."""

    model_config = ConfigDict(extra="forbid")

    tool: Literal["search", "get_paper", "related_papers", "timeline", "calls_left"]
    query: str | None = Field(default=None, description="search and timeline: the query")
    paper_id: str | None = Field(default=None, description="get_paper and related_papers: the paper")
    k: int | None = Field(default=None, ge=1, le=MAX_K, description="how many papers (search, "
                          "related_papers, timeline)")


@dataclass
class Grant:
    """One task's tools and the context (its transcript) its calls are recorded in."""

    tools: Any
    context: contextvars.Context
    lock: threading.Lock = field(default_factory=threading.Lock)


class ToolServer:
    """A local HTTP server answering tool calls of the tasks that hold a grant."""

    def __init__(self) -> None:
        self._grants: dict[str, Grant] = {}
        self._one_at_a_time = threading.Lock()
        grants = self._grants

        class Handler(JSONHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                token = self.path.rstrip("/").rsplit("/", 1)[-1]
                grant = grants.get(token)
                if grant is None or not self.path.startswith("/tools/"):
                    self._send(403, {"error": "unknown or expired tools URL"})
                    return
                size = int(self.headers.get("content-length") or 0)
                if size > MAX_REQUEST_BYTES:
                    self._send(413, {"error": "request too large"})
                    return
                try:
                    request = ToolRequest.model_validate_json(self.rfile.read(size) or b"{}")
                    arguments = request.model_dump(exclude={"tool"}, exclude_none=True)
                    message = ({"op": "calls_left"} if request.tool == "calls_left"
                               else {**arguments, "op": "tool", "name": request.tool})
                    with grant.lock:
                        result = grant.context.run(serve, message, grant.tools, None)
                except Exception as error:  # refused, over budget or malformed: the agent reads why
                    self._send(400, {"error": f"{type(error).__name__}: {' '.join(str(error).split())}"})
                    return
                self._send(200, {"result": result})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        """The port the server listens on (127.0.0.1)."""
        return int(self._server.server_address[1])

    @contextmanager
    def grant(self, tools: Any) -> Iterator[str]:
        """A tools URL valid for the body of the ``with`` (calls recorded in the caller's transcript); the
        only live one: a second grant waits until this one ends."""
        with self._one_at_a_time:
            token = secrets.token_urlsafe(32)
            self._grants[token] = Grant(tools, contextvars.copy_context())
            try:
                yield f"http://127.0.0.1:{self.port}/tools/{token}"
            finally:
                del self._grants[token]


_SERVER: ToolServer | None = None
_SERVER_LOCK = threading.Lock()


def tool_server() -> ToolServer:
    """The process's tool server (started on first use)."""
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None:
            _SERVER = ToolServer()
        return _SERVER
