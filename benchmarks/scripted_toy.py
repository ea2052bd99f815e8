"""The toy world of the agents tests as a real KB behind the scripted OpenAI server, for the LLM benchmarks.

``benchmarks/agents.py`` and ``benchmarks/transcripts.py`` both answer the toy tasks with every LLM method
against this server; the scripted server and the toy world live in ``tests/``, so this module puts the
repository root on ``sys.path`` before importing them.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the scripted server lives in tests/support
from tests.agents.responders import answering_responder  # noqa: E402
from tests.agents.toy import build_toy_kb, toy_tasks  # noqa: E402
from tests.support.openai_server import ScriptedOpenAIServer  # noqa: E402

__all__ = ["ScriptedToy", "scripted_toy", "toy_tasks"]


@dataclass
class ScriptedToy:
    """A scratch folder, the toy KB's settings and view factory, and the server answering them."""

    root: Path
    settings: Any
    view_factory: Callable[..., Any]
    server: ScriptedOpenAIServer


@contextmanager
def scripted_toy() -> Iterator[ScriptedToy]:
    """Start the scripted server, build the toy KB under a scratch folder, and clean both up after."""
    with (
        tempfile.TemporaryDirectory() as scratch,
        ScriptedOpenAIServer(responder=answering_responder) as server,
    ):
        root = Path(scratch)
        settings, factory = build_toy_kb(root, server.base_url)
        yield ScriptedToy(root=root, settings=settings, view_factory=factory, server=server)
