"""A provider whose error bodies echo ``?api-key=...`` leaks it into no file foresci writes: answers,
transcripts, the run manifest's llm_capabilities, the response cache."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from foresci.agents.answers import read_answers
from foresci.agents.cli import write_run_manifest
from foresci.core.settings import Settings
from foresci.methods.runner import ANSWERS_FILE, run_release
from tests.agents.conftest import ToyWorld
from tests.agents.responders import answering_responder
from tests.agents.toy import toy_tasks
from tests.support.openai_server import Reply, ScriptedOpenAIServer

CANARY = "CANARYQ"
ECHO = f"unsupported for POST /v1/chat/completions?api-key={CANARY}&x=1"


def _leaks(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*")
                  if path.is_file() and CANARY.encode() in path.read_bytes())


def test_echoed_api_keys_are_masked_in_every_file_written(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    def refusing(request: dict[str, Any]) -> Any:
        if (request.get("response_format") or {}).get("type") == "json_schema":
            return Reply.invalid_request_500(detail=ECHO)
        return answering_responder(request)

    release = tmp_path / "release"
    release.mkdir()
    (release / "tasks.jsonl").write_text("".join(task.model_dump_json() + "\n" for task in toy_tasks()))
    scripted_llm.responder = refusing
    run_release(toy_tasks()[:2], tmp_path / "run", llm_settings, ["native"])
    write_run_manifest(tmp_path / "run", release, None, llm_settings, ["native"], [], "full")
    scripted_llm.responder = lambda request: Reply.error(401, message=f"denied: {ECHO}")
    run_release(toy_tasks()[:2], tmp_path / "denied", llm_settings.model_copy(
        update={"cache_dir": tmp_path / "cache2"}), ["native"])
    rows = read_answers(tmp_path / "denied" / ANSWERS_FILE)
    assert rows and all(row.status == "error" and "api-key=***" in (row.error or "") for row in rows)
    assert (tmp_path / "run" / "manifest.json").read_text().count("api-key=***") >= 1
    assert _leaks(tmp_path) == []
