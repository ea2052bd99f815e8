"""Inside the sandbox: an OpenAI-compatible endpoint on the sandbox's own loopback that passes each request
over the tool channel to foresci (:mod:`foresci.methods.sandbox.relay`), so ``inputs.llm.chat`` (a LangChain
``ChatOpenAI``) works without network or API key in the plug-in's process."""

from __future__ import annotations

import json
import threading
from http.server import ThreadingHTTPServer
from typing import Any

from foresci.methods.sandbox.json_http import JSONHandler

MAX_REQUEST_BYTES = 32 * 1024 * 1024


def start_shim(channel: Any) -> str:
    """Start the relay endpoint on 127.0.0.1 (a daemon thread) and return its base URL (``.../v1``)."""

    class Relay(JSONHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            size = int(self.headers.get("content-length") or 0)
            if size > MAX_REQUEST_BYTES:
                self._send(413, {"error": {"message": "request too large"}})
                return
            try:
                request = json.loads(self.rfile.read(size) or b"{}")
                path = self.path.split("?", 1)[0].removeprefix("/v1")
                reply = channel.call({"op": "http", "path": path, "body": request})
            except Exception as error:  # refused or failed: an error reply the client raises
                self._send(400, {"error": {"message": f"{type(error).__name__}: {error}"}})
                return
            self._send(int(reply.get("status", 502)), reply.get("body"))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Relay)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1"
