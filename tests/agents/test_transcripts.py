"""Transcripts end to end (issue #14 "Transcripts", #15 "the transcript says so"): what the scripted server
received is what the stored transcript and the HTML report's drill-down show, for an answer and for its
judge calls; a rerun served by the response cache shows cache hits and no call; the context-window trim,
retries, re-asks and structured-output fallbacks are events; no transcript holds the API key."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from foresci.agents.answers import read_answers
from foresci.cli import run_cli
from foresci.core.io import read_models, write_json
from foresci.core.settings import Settings
from foresci.core.transcript_log import JUDGE_TRANSCRIPTS_FILE, TRANSCRIPTS_FILE, read_transcripts
from foresci.core.transcripts import recording
from foresci.evaluation.models import Score
from foresci.evaluation.report import write_report
from foresci.evaluation.runner import SCORES_NAME, evaluate_run
from foresci.llm import LLMClient
from foresci.methods.runner import ANSWERS_FILE, run_release
from tests.agents.conftest import ToyWorld
from tests.agents.responders import answering_responder
from tests.agents.toy import toy_tasks
from tests.evaluation.conftest import WordEncoder
from tests.evaluation.fixtures import release_rows, write_release
from tests.evaluation.test_judges import judge_reply
from tests.support.openai_server import Reply, ScriptedOpenAIServer

SECRET = "sk-transcript-secret-7f3a9c"
INJECTED = "<script>alert('transcript')</script>"
Messages = list[tuple[str, str]]


class TranscriptParser(HTMLParser):
    """Reads the report's transcripts: per ``details.transcript`` (by unit), the messages of each event."""

    def __init__(self) -> None:
        super().__init__()
        self.transcripts: list[tuple[str, list[tuple[str, Messages]]]] = []
        self._depth = 0
        self._transcript_depth: int | None = None
        self._role: str | None = None
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if tag == "details":
            self._depth += 1
            if "transcript" in classes:
                self._transcript_depth = self._depth
                self.transcripts.append((values.get("data-unit") or "", []))
        elif self._transcript_depth is not None and tag == "div" and "event" in classes:
            self.transcripts[-1][1].append((values.get("data-kind") or "", []))
        elif self._transcript_depth is not None and tag == "div" and "message" in classes:
            self._role = values.get("data-role")
        elif self._role is not None and tag == "pre" and "content" in classes:
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self._text is not None and self._role is not None:
            self.transcripts[-1][1][-1][1].append((self._role, "".join(self._text)))
            self._text, self._role = None, None
        if tag == "details":
            if self._depth == self._transcript_depth:
                self._transcript_depth = None
            self._depth -= 1


def _sent(server: ScriptedOpenAIServer) -> list[Messages]:
    return [[(message["role"], message["content"]) for message in request["messages"]]
            for request in server.requests]


def _report_transcripts(html: str) -> dict[str, list[tuple[str, Messages]]]:
    parser = TranscriptParser()
    parser.feed(html)
    assert len({unit for unit, _ in parser.transcripts}) == len(parser.transcripts), "one row expected"
    return dict(parser.transcripts)


def _settings(tmp_path: Path, server: ScriptedOpenAIServer) -> Settings:
    return Settings(
        cache_dir=tmp_path / "cache",
        llm={"base_url": server.base_url, "model": "scripted-model", "api_key": SECRET, "max_retries": 0,
             "reask": 1, "concurrency": 1},
        evaluation={"bootstrap_samples": 50, "judge_runs": 2, "judge_concurrency": 1},
    )


def _answer_and_judge(tmp_path: Path, run_dir: Path, agent: ScriptedOpenAIServer,
                      judge: ScriptedOpenAIServer) -> Path:
    release = tmp_path / "release"
    if not release.is_dir():
        write_release(release)
    tasks = [task.model_copy(update={"question": f"{task.question} {INJECTED}"})
             for task in release_rows()[0] if task.task_id == "D1"]
    run_release(tasks, run_dir, _settings(tmp_path, agent), ["native"])
    write_json(run_dir / "manifest.json", {"inputs": {"release": str(release)}})
    evaluate_run(run_dir, None, _settings(tmp_path, judge), offline=False, encoder=WordEncoder())
    return write_report([run_dir], run_dir / "report", _settings(tmp_path, judge))


def test_report_drilldown_shows_the_messages_the_server_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedOpenAIServer(answering_responder) as agent, ScriptedOpenAIServer(judge_reply) as judge:
        run_dir = tmp_path / "run"
        index = _answer_and_judge(tmp_path, run_dir, agent, judge)
        (answer,) = read_answers(run_dir / ANSWERS_FILE)
        (score,) = read_models(run_dir / SCORES_NAME, Score)
        assert answer.status == "ok" and answer.transcript and score.transcript
        shown = _report_transcripts(index.read_text(encoding="utf-8"))
        calls = [messages for kind, messages in shown["answer"] if kind == "llm_call"]
        assert calls == _sent(agent) and len(calls) == answer.llm_calls == 1
        sent_text = [content for messages in calls for _, content in messages]
        assert any(INJECTED in content for content in sent_text)
        assert INJECTED not in index.read_text(encoding="utf-8")  # escaped in the HTML
        judged = [messages for kind, messages in shown["judge"] if kind == "llm_call"]
        assert judged == _sent(judge) and len(judged) >= 4  # claims, verdicts, pers x2 (native: no trace)
        stored = read_transcripts(run_dir / TRANSCRIPTS_FILE)[answer.transcript]
        call = next(event for event in stored["events"] if event["kind"] == "llm_call")
        assert call["prompt_tokens"] == answer.prompt_tokens and call["completion_tokens"] > 0
        assert call["completion"] and call["method"] and call["seconds"] >= 0
        assert stored["key"] == "D1|native|scripted-model|full" and stored["status"] == "ok"
        judge_stored = read_transcripts(run_dir / JUDGE_TRANSCRIPTS_FILE)[score.transcript]
        assert judge_stored["totals"]["calls"] == len(judge.requests) and judge_stored["unit"] == "judge"
        written = [path for path in run_dir.rglob("*") if path.is_file()]
        assert {TRANSCRIPTS_FILE, JUDGE_TRANSCRIPTS_FILE, "index.html"} <= {path.name for path in written}
        assert agent.headers[0]["authorization"].endswith(SECRET), "the key must reach the server"
        assert not [path for path in written if SECRET.encode() in path.read_bytes()]
        capsys.readouterr()
        assert run_cli(["transcript", str(run_dir), "--task", "D1", "--method", "native", "--json"]) == 0
        (printed,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert printed["id"] == answer.transcript and [e["messages"] for e in printed["events"]] == [
            request["messages"] for request in agent.requests]
        assert run_cli(["transcript", str(run_dir), "--judge", "--full"]) == 0
        assert judge.requests[-1]["messages"][-1]["content"] in capsys.readouterr().out
        assert run_cli(["transcript", str(run_dir), "--task", "B1", "--json"]) != 0  # no such row: an error
        captured = capsys.readouterr()
        assert captured.out == "" and "no transcript of task 'B1'" in captured.err
        assert run_cli(["transcript", str(tmp_path)]) != 0
        assert "transcripts.jsonl: no transcripts here" in capsys.readouterr().err
        assert run_cli(["transcript", str(run_dir), "--task", "D1"]) == 0
        lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
        assert f"question: {tasks_question(run_dir)}"[:200] in " ".join(lines)
        assert any(line.startswith("answer: ") and answer.text[:60] in line for line in lines), lines
        (scored,) = [line for line in lines if line.startswith("score: ")]
        assert "fta=" in scored and "gold" in scored, scored


def tasks_question(run_dir: Path) -> str:
    """The question of D1 in the release the run's manifest names (what the CLI must print)."""
    from foresci.evaluation.loading import load_release, release_of_run

    release = release_of_run(run_dir)
    assert release is not None
    return " ".join(load_release(release).tasks["D1"].question.split())


def test_transcript_shows_an_error_rows_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from foresci.core.transcript_log import TranscriptLog
    from foresci.core.transcripts import recording

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    with recording() as transcript:
        pass
    error = "task D1: LLMError: agent http://127.0.0.1:1/: the agent failed: HTTP 500: KeyError 'family'"
    stored = TranscriptLog(run_dir / TRANSCRIPTS_FILE, []).write(transcript, "answer", "D1|agent|-|full",
                                                                  status="error", error=error)
    row = {"task_id": "D1", "family": "direction_forecasting", "method": "agent", "status": "error",
           "error": error, "transcript": stored}
    (run_dir / ANSWERS_FILE).write_text(json.dumps(row) + "\n")
    assert run_cli(["transcript", str(run_dir)]) == 0
    assert f"error: {error}" in capsys.readouterr().out


def test_rerun_from_the_cache_shows_cache_hits_and_no_call(tmp_path: Path) -> None:
    with ScriptedOpenAIServer(answering_responder) as agent, ScriptedOpenAIServer(judge_reply) as judge:
        _answer_and_judge(tmp_path, tmp_path / "first", agent, judge)
        first_sent, judge_sent = _sent(agent), _sent(judge)
        index = _answer_and_judge(tmp_path, tmp_path / "again", agent, judge)  # same cache, new run folder
        assert _sent(agent) == first_sent and _sent(judge) == judge_sent, "the rerun made model calls"
        (answer,) = read_answers(tmp_path / "again" / ANSWERS_FILE)
        stored = read_transcripts(tmp_path / "again" / TRANSCRIPTS_FILE)[answer.transcript or ""]
        assert stored["totals"]["calls"] == 0 and stored["totals"]["cache_hits"] == answer.cache_hits == 1
        assert [event["kind"] for event in stored["events"]] == ["cache_hit"]
        shown = _report_transcripts(index.read_text(encoding="utf-8"))
        assert [messages for kind, messages in shown["answer"]] == first_sent  # what the cache answers for
        hits = [messages for kind, messages in shown["judge"] if kind == "cache_hit"]
        assert hits and all(messages in judge_sent for messages in hits)
        assert not [kind for kind, _ in shown["judge"] if kind == "llm_call"]


class Verdict(BaseModel):
    label: str
    reason: str


def _client(tmp_path: Path, server: ScriptedOpenAIServer, **llm: Any) -> LLMClient:
    settings = _settings(tmp_path, server)
    settings = settings.model_copy(update={"llm": settings.llm.model_copy(update=llm)})
    return LLMClient(settings, "agent", backoff_s=0.01)


def test_context_budget_trim_is_an_event(tmp_path: Path) -> None:
    evidence = "\n".join(f"[2501.{index:05d}] (2025-01-0{1 + index % 9}) paper {index} — " + "words " * 40
                         for index in range(20))
    with ScriptedOpenAIServer() as server, recording() as transcript:
        client = _client(tmp_path, server, context_tokens=2000, max_tokens={"agent": 200})
        client.invoke_text([("system", "be brief"), ("user", f"Papers:\n{evidence}\nAnswer now.")])
    (trim,) = [event for event in transcript.events if event["kind"] == "context_trim"]
    (call,) = [event for event in transcript.events if event["kind"] == "llm_call"]
    assert 0 < trim["evidence_dropped"] == client.usage.evidence_dropped < 20
    assert trim["window"] == 2000 and trim["estimated_tokens_after"] < trim["estimated_tokens_before"]
    assert call["messages"] == server.requests[0]["messages"]  # the trimmed prompt, as sent
    assert f"({trim['evidence_dropped']} lower-ranked paper(s) left out" in call["messages"][-1]["content"]
    assert transcript.totals()["evidence_dropped"] == trim["evidence_dropped"]


def test_retries_reasks_and_fallbacks_are_events(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as server, recording() as transcript:
        server.enqueue(Reply.invalid_request_500(), Reply.error(503), Reply.malformed_content(),
                       Reply.json({"label": "steady", "reason": "flat"}))
        client = _client(tmp_path, server, structured_output_method="json_schema", max_retries=2)
        assert client.invoke_structured([("user", "label it")], Verdict).label == "steady"
    kinds = [event["kind"] for event in transcript.events]
    assert kinds == ["llm_error", "fallback", "llm_error", "retry", "llm_call", "llm_call"]
    fallback = transcript.events[1]
    assert fallback["method"] == "json_schema" and fallback["refused_by"] == "endpoint"
    first, second = transcript.events[4], transcript.events[5]
    assert first["method"] == second["method"] != "json_schema"
    assert first["problem"] and first["attempt"] == 0 and second["attempt"] == 1 and "problem" not in second
    assert first["completion"] == '{"answer": "unterminated'
    assert second["messages"] == server.requests[-1]["messages"]  # the re-ask conversation, as sent
    totals = transcript.totals()
    assert (totals["calls"], totals["retries"], totals["reasks"], totals["fallbacks"]) == (2, 1, 1, 1)


def test_every_call_of_a_graph_method_lands_in_its_answer_transcript(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_llm.responder = answering_responder
    agents = llm_settings.agents.model_copy(update={"iterations": 1, "reviewers": 2, "concurrency": 2})
    llm = llm_settings.llm.model_copy(update={"context_tokens": 1400, "max_tokens": {"agent": 200}})
    settings = llm_settings.model_copy(update={"agents": agents, "llm": llm})
    view = toy_world.view()
    run_release(toy_tasks(), tmp_path / "run", settings, ["research_agent", "hybrid_rag", "trend"],
                view_factory=lambda cutoff: view)  # type: ignore[arg-type,return-value]
    rows = read_answers(tmp_path / "run" / ANSWERS_FILE)
    stored = read_transcripts(tmp_path / "run" / TRANSCRIPTS_FILE)
    assert len(rows) == 12 and len(stored) == 12 and {row.transcript for row in rows} == set(stored)
    sent = [request["messages"] for request in scripted_llm.requests]
    recorded = []
    for row in rows:
        events = stored[row.transcript or ""]["events"]
        calls = [event for event in events if event["kind"] == "llm_call"]
        assert row.status == "ok" and len(calls) == row.llm_calls, row.method
        recorded += [call["messages"] for call in calls]
        if row.method == "research_agent":
            assert {call["step"] for call in calls} == {"draft", "review", "refine"}
    assert sorted(map(str, recorded)) == sorted(map(str, sent))
    trims = [event for transcript in stored.values() for event in transcript["events"]
             if event["kind"] == "context_trim"]
    assert trims and all(event["evidence_dropped"] > 0 for event in trims)


def test_concurrent_judges_keep_each_rows_calls_in_its_own_transcript(tmp_path: Path) -> None:
    from foresci.evaluation.metrics import answer_text
    from tests.evaluation.fixtures import write_run

    with ScriptedOpenAIServer(judge_reply) as judge:
        run_dir = write_run(tmp_path / "run", write_release(tmp_path / "release"))
        settings = _settings(tmp_path, judge)
        settings = settings.model_copy(update={"evaluation": settings.evaluation.model_copy(
            update={"judge_concurrency": 4})})
        evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder())
        scores = read_models(run_dir / SCORES_NAME, Score)
        stored = read_transcripts(run_dir / JUDGE_TRANSCRIPTS_FILE)
        answers = {f"{a.task_id}|{a.method}|{a.model or '-'}|{a.mode}": a for a in read_answers(
            run_dir / ANSWERS_FILE)}
        judged = [score for score in scores if score.transcript]
        assert len(judged) == 9 and {score.transcript for score in judged} == set(stored)
        sent = []
        for score in judged:
            transcript = stored[score.transcript or ""]
            assert transcript["key"] == score.key
            calls = [event for event in transcript["events"] if event["kind"] in ("llm_call", "cache_hit")]
            extraction = calls[0]["messages"][-1]["content"]
            assert answer_text(answers[score.key or ""]) in extraction  # this row's answer, no other's
            sent += [str(event["messages"]) for event in calls if event["kind"] == "llm_call"]
        assert sorted(sent) == sorted(str(request["messages"]) for request in judge.requests)
        assert all(score.transcript is None for score in scores if score not in judged)


def test_an_llm_forecast_references_its_transcript(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from foresci.agents.answers import read_forecasts
    from foresci.tasks.models import ForecastQuestion
    from tests.agents.toy import CUTOFF, DOMAIN

    question = ForecastQuestion(question_id="q1", kind="binary", domain=DOMAIN, cutoff=CUTOFF,
                                window_start=CUTOFF.replace(month=7, day=1),
                                window_end=CUTOFF.replace(month=9, day=30), text="Will graph memory grow?",
                                resolution_rule="r", params={"family": "direction_forecasting"}, baseline=0.3)
    run_release(toy_tasks()[:1], tmp_path / "run", llm_settings, ["native"], questions=[question])
    (forecast,) = read_forecasts(tmp_path / "run" / "forecasts.jsonl")
    stored = read_transcripts(tmp_path / "run" / TRANSCRIPTS_FILE)
    assert forecast.status == "ok", forecast.error
    assert forecast.transcript in stored and stored[forecast.transcript or ""]["unit"] == "forecast"
    calls = [event["messages"] for event in stored[forecast.transcript or ""]["events"]
             if event["kind"] == "llm_call"]
    assert calls and len(calls) == forecast.llm_calls
    assert all(messages in [request["messages"] for request in scripted_llm.requests] for messages in calls)
    assert "Will graph memory grow?" in str(calls)
