"""HTTP agents and LLM endpoints that cost too much: a total deadline, a reply size cap, odd Retry-After.

Each server runs in the test on 127.0.0.1: a slowloris agent (headers, then one byte every 2 s), an
endless stream, a 50 MB reply, and an overloaded agent whose ``Retry-After`` is ``-5`` or ``nan``.
"""

from __future__ import annotations

import json
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.core.settings import Settings
from foresci.core.transcript_log import TRANSCRIPTS_FILE, read_transcripts
from foresci.llm.client import LLMClient
from foresci.llm.errors import LLMError
from foresci.methods.runner import ANSWERS_FILE, run_release
from tests.agents.toy import toy_tasks

DEADLINE_S = 2.0
MARGIN_S = 1.5  # on the row's own elapsed_s; the wall clock of the whole run gets WALL_MARGIN_S
WALL_MARGIN_S = 10.0  # run start-up on a loaded machine; without a deadline the slowloris row takes 30 s
CAP = 1024 * 1024
ANSWER = {"answer": {"direction": "B", "trajectory": "steady", "rationale": "r"}}
Behaviour = Callable[[BaseHTTPRequestHandler], None]


def _slowloris(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("content-length", "100000")
    handler.end_headers()
    for _ in range(15):  # 30 s at most, so a client without a deadline still ends (as a failure)
        handler.wfile.write(b" ")
        handler.wfile.flush()
        time.sleep(2.0)


def _endless(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.end_headers()  # no length: the body lasts until the connection closes
    chunk = b"[" * 65536
    for _ in range(4000):  # 256 MB at most
        handler.wfile.write(chunk)


def _fifty_megabytes(handler: BaseHTTPRequestHandler) -> None:
    size = 50 * 1024 * 1024
    handler.send_response(200)
    handler.send_header("content-length", str(size))
    handler.end_headers()
    chunk = b" " * 65536
    for _ in range(size // len(chunk)):
        handler.wfile.write(chunk)


@pytest.fixture
def serve() -> Iterator[Callable[[Behaviour], str]]:
    servers: list[ThreadingHTTPServer] = []

    def start(behaviour: Behaviour) -> str:
        class Agent(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                self.rfile.read(int(self.headers.get("content-length", 0)))
                try:
                    behaviour(self)
                except (BrokenPipeError, ConnectionResetError):
                    return

            def log_message(self, *args: Any) -> None:
                return None

        server = ThreadingHTTPServer(("127.0.0.1", 0), Agent)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/agent"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _settings(tmp_path: Path, **llm: Any) -> Settings:
    return Settings(cache_dir=tmp_path / "cache", llm={"timeout_s": 3, "deadline_s": DEADLINE_S,
                                                         "timeout_retries": 0, "max_retries": 1,
                                                         "max_reply_bytes": CAP, **llm})


def _one_row(url: str, tmp_path: Path, settings: Settings) -> Any:
    run_release(toy_tasks()[:1], tmp_path / "run", settings, [url])
    (row,) = read_answers(tmp_path / "run" / ANSWERS_FILE)
    return row


@pytest.mark.parametrize("behaviour", [_slowloris, _endless, _fifty_megabytes],
                         ids=["slowloris", "endless", "50MB"])
def test_a_costly_agent_ends_as_an_error_row_in_time_and_bounded_memory(
        serve: Callable[[Behaviour], str], tmp_path: Path, behaviour: Behaviour) -> None:
    url = serve(behaviour)
    # one answered row first, so that what a run imports on first use (langchain, langsmith, psutil...)
    # is not counted as the agent's reply
    assert _one_row(serve(_answering), tmp_path / "warm", _settings(tmp_path)).status == "ok"
    tracemalloc.start()
    started = time.monotonic()
    try:
        row = _one_row(url, tmp_path, _settings(tmp_path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.monotonic() - started
    assert row.status == "error"
    assert row.elapsed_s < DEADLINE_S + MARGIN_S, f"the method ran {row.elapsed_s:.1f} s"
    assert elapsed < DEADLINE_S + WALL_MARGIN_S, f"row after {elapsed:.1f} s"
    assert peak < 8 * CAP, f"peak {peak / 1e6:.1f} MB of Python allocations"
    assert "deadline" in row.error or "cap" in row.error


def test_an_llm_endpoint_trickling_bytes_is_cut_at_the_deadline(
        serve: Callable[[Behaviour], str], tmp_path: Path) -> None:
    url = serve(_slowloris)
    settings = _settings(tmp_path, base_url=url.rsplit("/", 1)[0] + "/v1", model="m")
    client = LLMClient(settings, "agent", use_cache=False, backoff_s=0.0)
    assert client.chat is not None  # build the chat model (imports) before the clock starts
    started = time.monotonic()
    with pytest.raises(LLMError, match="timed out|deadline"):
        client.invoke_text([("user", "hello")])
    assert time.monotonic() - started < DEADLINE_S + MARGIN_S


@pytest.mark.parametrize("retry_after", ["-5", "nan", "inf", "soon"])
def test_an_odd_retry_after_is_a_bounded_retry_not_an_error_row(
        serve: Callable[[Behaviour], str], tmp_path: Path, retry_after: str) -> None:
    calls: list[float] = []

    def overloaded_once(handler: BaseHTTPRequestHandler) -> None:
        calls.append(time.monotonic())
        if len(calls) == 1:
            handler.send_response(503)
            handler.send_header("retry-after", retry_after)
            handler.send_header("content-length", "0")
            handler.end_headers()
            return
        payload = json.dumps(ANSWER).encode()
        handler.send_response(200)
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    row = _one_row(serve(overloaded_once), tmp_path, _settings(tmp_path))
    assert row.status == "ok", row.error
    assert len(calls) == 2 and calls[1] - calls[0] < 5.0
    stored = read_transcripts(tmp_path / "run" / TRANSCRIPTS_FILE, {row.transcript})[row.transcript]
    assert stored["totals"]["retries"] == 1  # the transcript header counts the agent's second attempt
    (retry,) = [event for event in stored["events"] if event["kind"] == "retry"]
    assert retry["error_kind"] == "overload" and retry["attempt"] == 1


def _answering(handler: BaseHTTPRequestHandler) -> None:
    payload = json.dumps(ANSWER).encode()
    handler.send_response(200)
    handler.send_header("content-length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def test_an_agent_url_with_credentials_resumes_and_tokens_stay_apart(
        serve: Callable[[Behaviour], str], tmp_path: Path) -> None:
    base = serve(_answering).replace("http://", "http://user:pw@")
    first, second = f"{base}?token=CANARY1", f"{base}?token=CANARY2"
    settings = _settings(tmp_path)
    run = tmp_path / "run"
    tasks = toy_tasks()[:1]
    run_release(tasks, run, settings, [first, second])
    run_release(tasks, run, settings, [first, second])  # a rerun answers nothing again
    rows = read_answers(run / ANSWERS_FILE)
    assert len(rows) == 2 and len({row.method for row in rows}) == 2
    assert all(row.status == "ok" for row in rows)
    written = run.joinpath(ANSWERS_FILE).read_text()
    assert "CANARY" not in written and "user:pw" not in written


CHILD = """
import json, resource, sys
from foresci.llm.errors import LLMError
from foresci.methods.http import post_json
from foresci.core.settings import Settings

settings = Settings(llm={"timeout_s": 5, "deadline_s": 10, "timeout_retries": 0, "max_retries": 0,
                         "max_reply_bytes": 1048576})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    post_json(sys.argv[1], {"task": "x"}, settings)
    outcome = "answered"
except LLMError as error:
    outcome = str(error)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grew_kib": after - before, "outcome": outcome}))
"""


def test_a_fifty_megabyte_agent_leaves_the_process_rss_bounded(
        serve: Callable[[Behaviour], str], tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    url = serve(_fifty_megabytes)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "FORESCI_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", CHILD, url], capture_output=True, text=True, env=env,
                          timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert "cap" in report["outcome"]
    assert report["grew_kib"] < 20 * 1024, f"RSS grew by {report['grew_kib'] / 1024:.0f} MiB"


def test_clients_share_one_tls_context_per_ca_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every bounded client verifies TLS with one context made once (an HTTP agent asked once per question
    made a client, and a CA bundle load, per call); another SSL_CERT_DIR gets a context of its own."""
    import ssl

    from foresci.llm.bounded_http import bounded_client, shared_ssl_context

    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    first = shared_ssl_context()
    assert isinstance(first, ssl.SSLContext) and first.verify_mode == ssl.CERT_REQUIRED
    with bounded_client(5.0, CAP, 5.0) as one, bounded_client(5.0, CAP, 5.0) as two:
        contexts = [client._transport._pool._ssl_context for client in (one, two)]  # type: ignore[attr-defined]
    assert contexts[0] is contexts[1] is first
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    assert shared_ssl_context() is not first and shared_ssl_context() is shared_ssl_context()
