"""Fixtures of the inspect_ai bridge tests: inspect itself (a missing extra fails under CI=true), a guard
that refuses any connection beyond 127.0.0.1, and the small generated world of the method tests."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.methods.conftest import foresci, small_world  # noqa: F401  (world: KB + release, CLI runner)


@pytest.fixture(autouse=True)
def inspect_installed() -> None:
    """inspect_ai is importable (the optional extra ``foresci[inspect]``)."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("inspect_ai is not installed; `make test` installs the foresci[inspect] extra")
        pytest.skip("inspect_ai is not installed (pip install 'foresci[inspect]')")


def _loopback(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        try:
            return ipaddress.ip_address(address[0]).is_loopback
        except ValueError:
            return address[0] == "localhost"
    return True  # a unix socket


@pytest.fixture(autouse=True)
def only_loopback(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every outgoing connection of this process must go to 127.0.0.1 (refused and recorded otherwise)."""
    refused: list[Any] = []
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        if not _loopback(address):
            refused.append(address)
            raise OSError(f"test guard: no connection beyond 127.0.0.1 ({address})")
        return connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield refused
    assert not refused, f"the test tried to leave 127.0.0.1: {refused}"
