"""The transcript recorder collects events only inside a recording, in order, per context."""

from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context

from foresci.core.transcripts import current, record, recording


def test_events_are_recorded_in_order_only_inside_a_recording() -> None:
    record("note", text="before")  # no recording open: dropped
    with recording() as transcript:
        record("tool_call", tool="search_papers", arguments={"query": "rag"})
        record("llm_call", prompt_tokens=12)
        assert current() is transcript
    record("note", text="after")
    assert [event["kind"] for event in transcript.events] == ["tool_call", "llm_call"]
    assert transcript.events[0]["arguments"] == {"query": "rag"}
    assert transcript.events[0]["t_s"] <= transcript.events[1]["t_s"]
    assert current() is None


def test_parallel_recordings_do_not_mix() -> None:
    def unit(name: str) -> list[str]:
        with recording() as transcript:
            for index in range(3):
                record("note", who=name, index=index)
        return [event["who"] for event in transcript.events]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda name: copy_context().run(unit, name), ["a", "b", "c", "d"]))
    assert results == [[name] * 3 for name in "abcd"]
