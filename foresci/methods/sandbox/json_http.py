"""The JSON request handler both loopback servers of the sandbox share (the HTTP agents' KB tools URL and
the plug-in's chat relay): a JSON reply with its length, and no access log on stderr."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any


class JSONHandler(BaseHTTPRequestHandler):
    """A request handler that answers with JSON bodies and logs nothing."""

    def _send(self, status: int, body: Any) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        return None
