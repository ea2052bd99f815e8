"""HTTP requests bounded by a total deadline and a reply size cap (LLM endpoints and HTTP agents).

httpx's timeout applies to each read: a server that sends one byte every two seconds never trips a 5 s
timeout, and one that streams forever fills memory. :func:`bounded_client` returns an ``httpx.Client``
whose connections check every socket read against the request's deadline (each read waits at most the
time left) and count the bytes received (headers and body) against the cap, so a request ends as
:class:`ReplyDeadline` (a timeout) or :class:`ReplyTooLarge` however the server behaves, holding at most
the cap in memory. :func:`retry_after_seconds` reads a ``Retry-After`` header as a finite, non-negative
wait or None.
"""

from __future__ import annotations

import email.utils
import math
import os
import ssl
import threading
import time
from typing import Any

import httpcore
import httpx


class ReplyDeadline(httpcore.ReadTimeout):
    """The request did not complete within its total deadline."""


class ReplyTooLarge(httpcore.ReadError):
    """The reply exceeded the size cap (it is not retried: the server would send it again)."""


class _Budget(threading.local):
    deadline: float | None = None
    max_bytes: int | None = None
    received: int = 0
    deadline_s: float = 0.0


_BUDGET = _Budget()


class _BoundedStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if _BUDGET.deadline is not None:
            left = _BUDGET.deadline - time.monotonic()
            if left <= 0:
                raise ReplyDeadline(f"no complete reply within the deadline of {_BUDGET.deadline_s:g} s")
            timeout = left if timeout is None else min(timeout, left)
        try:
            data = self._stream.read(max_bytes, timeout)
        except httpcore.ReadTimeout as error:
            if _BUDGET.deadline is not None and time.monotonic() >= _BUDGET.deadline:
                raise ReplyDeadline(f"no complete reply within the deadline of {_BUDGET.deadline_s:g} s") \
                    from error
            raise
        _BUDGET.received += len(data)
        if _BUDGET.max_bytes is not None and _BUDGET.received > _BUDGET.max_bytes:
            raise ReplyTooLarge(f"reply larger than the cap of {_BUDGET.max_bytes} bytes")
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, timeout)

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _BoundedStream(self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _BoundedBackend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        return _BoundedStream(self._backend.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore.NetworkStream:
        return _BoundedStream(self._backend.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class BoundedTransport(httpx.HTTPTransport):
    """An ``httpx.HTTPTransport`` whose every request has a total deadline and a reply size cap.

    The budget starts when the request is sent and covers connecting, the headers and the body read in
    the same thread afterwards (the client reads a non-streamed reply before returning).
    """

    def __init__(self, deadline_s: float, max_bytes: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.deadline_s = deadline_s
        self.max_bytes = max_bytes
        pool = self._pool
        pool._network_backend = _BoundedBackend(pool._network_backend)  # type: ignore[union-attr]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` with a fresh budget for this thread."""
        _BUDGET.deadline = time.monotonic() + self.deadline_s
        _BUDGET.deadline_s = self.deadline_s
        _BUDGET.max_bytes = self.max_bytes
        _BUDGET.received = 0
        return super().handle_request(request)


_SSL_LOCK = threading.Lock()
_SSL_CONTEXTS: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def shared_ssl_context() -> ssl.SSLContext:
    """httpx's default verifying context, made once per CA setting (``SSL_CERT_FILE``, ``SSL_CERT_DIR``)
    and shared: making one loads the whole CA bundle, which cost more than the request itself when an HTTP
    agent was asked once per question (a client per call)."""
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _SSL_LOCK:
        if key not in _SSL_CONTEXTS:
            _SSL_CONTEXTS[key] = httpx.create_ssl_context()
        return _SSL_CONTEXTS[key]


def bounded_client(deadline_s: float, max_bytes: int, timeout_s: float) -> httpx.Client:
    """An ``httpx.Client`` bounded by ``deadline_s`` per request, ``max_bytes`` per reply and
    ``timeout_s`` per read (TLS verified with :func:`shared_ssl_context`)."""
    transport = BoundedTransport(deadline_s, max_bytes, verify=shared_ssl_context())
    return httpx.Client(transport=transport, timeout=timeout_s)


def too_large(error: BaseException) -> bool:
    """True when ``error`` (or what caused it) is a reply over the size cap."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, ReplyTooLarge) or "larger than the cap of" in str(current):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def retry_after_seconds(headers: Any) -> float | None:
    """The wait a ``Retry-After`` (or ``retry-after-ms``) header asks for: finite and >= 0, else None.

    A negative, ``nan``, infinite or unreadable value is None (the caller backs off as usual).
    """
    if headers is None:
        return None
    seconds: float | None = None
    if (milliseconds := headers.get("retry-after-ms")) is not None:
        try:
            seconds = float(milliseconds) / 1000
        except ValueError:
            seconds = None
    if seconds is None and (value := headers.get("retry-after")) is not None:
        try:
            seconds = float(value)
        except ValueError:
            try:
                seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError, IndexError, OverflowError):
                return None
            seconds = max(0.0, seconds)
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds
