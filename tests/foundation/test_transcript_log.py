"""Transcripts on disk: compact (each message once), exact on reading back, secrets masked, crash-safe."""

from __future__ import annotations

import json
import pickle
from datetime import date
from pathlib import Path

import pytest

from foresci.core.settings import Settings
from foresci.core.transcript_log import (
    TranscriptLog,
    event_parts,
    prune_transcripts,
    read_transcripts,
    secrets_of,
)
from foresci.core.transcripts import Transcript, record, recording

SYSTEM = {"role": "system", "content": "You forecast research."}
QUESTION = {"role": "user", "content": "Which direction grows? " + "evidence line\n" * 200}


def _conversation_with_a_reask() -> Transcript:
    with recording() as transcript:
        record("llm_call", messages=[SYSTEM, QUESTION], completion="{bad", attempt=0)
        turn = [{"role": "assistant", "content": "{bad"}, {"role": "user", "content": "rejected: again"}]
        record("llm_call", messages=[SYSTEM, QUESTION, *turn], completion='{"ok": 1}', attempt=1)
        record("tool_call", tool="search_papers", arguments={"query": "rag"},
               results=[{"id": "2501.00001", "announced": date(2025, 1, 2)}])
    return transcript


def test_messages_are_stored_once_and_read_back_exactly(tmp_path: Path) -> None:
    transcript = _conversation_with_a_reask()
    ident = TranscriptLog(tmp_path / "t.jsonl").write(transcript, "answer", "D1|aris|m|full", status="ok")
    line = (tmp_path / "t.jsonl").read_text(encoding="utf-8")
    assert line.count("\n") == 1 and line.count("evidence line") == 200  # the long prompt once, not twice
    stored = json.loads(line)
    assert len(stored["messages"]) == 4 and stored["events"][1]["messages"] == [0, 1, 2, 3]
    back = read_transcripts(tmp_path / "t.jsonl")[ident]
    sent = [event["messages"] for event in transcript.events[:2]]
    assert [event["messages"] for event in back["events"][:2]] == sent
    assert back["events"][2]["results"] == [{"id": "2501.00001", "announced": "2025-01-02"}]
    totals = back["totals"]
    assert (totals["calls"], totals["reasks"], totals["tool_calls"]) == (2, 1, 1)
    assert back["key"] == "D1|aris|m|full" and back["status"] == "ok" and back["unit"] == "answer"


def test_the_api_key_never_reaches_a_transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-secret-0042")
    settings = Settings(cache_dir=tmp_path, llm={"api_key": 'sk-conf"secret\\9'})
    assert secrets_of(settings) == ['sk-conf"secret\\9', "sk-env-secret-0042"]
    with recording() as transcript:
        record("llm_error", error='HTTP 401: bad key sk-conf"secret\\9 for http://u:pw@host/v1?api_key=x')
        record("note", text="env key sk-env-secret-0042")
    TranscriptLog(tmp_path / "t.jsonl", secrets_of(settings)).write(transcript, "judge", "k")
    text = (tmp_path / "t.jsonl").read_text(encoding="utf-8")
    assert "secret" not in text and "pw@" not in text and "api_key=x" not in text
    assert text.count("***") >= 4


def test_torn_tail_is_skipped_on_reading_and_cut_before_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    log = TranscriptLog(path)
    ids = []
    for index in range(3):
        with recording() as transcript:
            record("note", index=index)
        ids.append(log.write(transcript, "answer", f"k{index}"))
    with path.open("ab") as handle:
        handle.write(b'{"id": "t-torn", "events": [')  # a write cut short by kill -9
    before = path.read_bytes()
    assert sorted(read_transcripts(path)) == sorted(ids)
    assert path.read_bytes() == before, "reading (e.g. the report during a run) must not change the file"
    with recording() as transcript:
        record("note", index=3)
    ids.append(TranscriptLog(path).write(transcript, "answer", "k3"))
    assert sorted(read_transcripts(path)) == sorted(ids)
    assert prune_transcripts(path, ids[1:3]) == 2 and sorted(read_transcripts(path)) == sorted(ids[1:3])
    assert prune_transcripts(path, ids[1:3]) == 0


def test_tool_steps_display_and_count_like_other_calls() -> None:
    function = {"name": "search_papers", "arguments": '{"q": "rag"}'}
    call = {"id": "c1", "type": "function", "function": function}
    with recording() as transcript:
        record("llm_call", call="tools", cached=True, reply={"content": "", "tool_calls": [call]},
               messages=[{"role": "user", "content": "go"}, {"role": "assistant", "content": None,
                                                              "tool_calls": [call]}])
        record("tool_call", tool="search_papers", arguments={"q": "rag"}, result_ids=["2501.00001"])
    totals = transcript.totals()
    assert (totals["calls"], totals["cache_hits"], totals["tool_calls"]) == (0, 1, 1)
    parts = event_parts(transcript.events[0])
    assert parts["cached"] and json.loads(parts["reply"])["tool_calls"] == [call]
    assert parts["messages"][1]["content"] == "" and "search_papers" in parts["messages"][1]["extra"]
    assert parts["fields"] == {"call": "tools", "cached": True}
    tool = event_parts(transcript.events[1])
    assert tool["reply"] is None and tool["fields"]["result_ids"] == ["2501.00001"]


def test_a_transcript_crosses_process_boundaries() -> None:
    with recording() as transcript:
        record("llm_call", prompt_tokens=3, completion="x")
    copy = pickle.loads(pickle.dumps(transcript))  # e.g. returned by a worker process with its row
    copy.add("note", {"text": "after"})
    assert [event["kind"] for event in copy.events] == ["llm_call", "note"]
    assert copy.totals()["prompt_tokens"] == 3
