"""The tool channel's wire format: one JSON object per frame, prefixed by its length (4 bytes, big-endian).

Both ends of a sandboxed plug-in's socket speak it: foresci (:mod:`foresci.methods.sandbox.host`) and the
plug-in's process (:mod:`foresci.methods.sandbox.worker`). A frame longer than :data:`MAX_FRAME_BYTES` or
one that is not a JSON object ends the conversation with :class:`ChannelError`, so a plug-in cannot make
foresci hold an unbounded message.
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

MAX_FRAME_BYTES = 64 * 1024 * 1024
_HEADER = struct.Struct(">I")


class ChannelError(ConnectionError):
    """The other end closed the channel or broke its format."""


class FrameTooLarge(ChannelError):
    """The other end announced a frame over the reader's cap (its ``size``); the frame is not read."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"frame of {size} bytes is over the limit of {limit}")
        self.size = size


def send_frame(channel: socket.socket, message: dict[str, Any]) -> None:
    """Send ``message`` (JSON-able) as one frame."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(body) > MAX_FRAME_BYTES:
        raise ChannelError(f"message of {len(body)} bytes is over the channel's limit of {MAX_FRAME_BYTES}")
    channel.sendall(_HEADER.pack(len(body)) + body)


def _read_exactly(channel: socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = channel.recv(min(left, 1 << 20))
        if not chunk:
            raise ChannelError("the other end closed the channel")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive_frame(channel: socket.socket, max_bytes: int = MAX_FRAME_BYTES) -> dict[str, Any]:
    """The next frame as a JSON object; :class:`ChannelError` on a closed channel or a bad frame,
    :class:`FrameTooLarge` (before reading it) on one longer than ``max_bytes``."""
    (size,) = _HEADER.unpack(_read_exactly(channel, _HEADER.size))
    if size > min(max_bytes, MAX_FRAME_BYTES):
        raise FrameTooLarge(size, min(max_bytes, MAX_FRAME_BYTES))
    try:
        message = json.loads(_read_exactly(channel, size).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ChannelError(f"frame is not JSON: {error}") from error
    if not isinstance(message, dict):
        raise ChannelError(f"frame is a JSON {type(message).__name__}, expected an object")
    return message
