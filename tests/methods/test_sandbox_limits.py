"""A sandboxed plug-in's process holds none of foresci's environment and runs under per-task limits: each
misbehaviour found in the issue 39 attack (sleeping or spinning forever, a huge allocation, a fork bomb,
filling /tmp, printing without end, a huge answer, closing its channel and hanging) is a real plug-in
process here, and each becomes that task's error row naming the task and the limit, quickly (small
limits). The run goes on: the next task is answered."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from foresci.agents.answers import read_answers
from foresci.core.settings import Settings
from foresci.methods.loading import MethodLoadError, resolve_method
from foresci.methods.runner import run_release
from tests.agents.toy import toy_tasks

MISBEHAVING = '''
import os, sys, time
from foresci.methods import method

def plan(inputs, notes=()):
    return {"ranking": [{"option_id": option.option_id} for option in inputs.task.candidates],
            "milestones": list(notes)}

@method("misbehaving_environ_reader")
def environ_reader(inputs):
    seen = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                seen.append(open(f"/proc/{name}/environ", "rb").read().decode("utf-8", "replace"))
            except OSError as error:
                seen.append(type(error).__name__)
    return plan(inputs, [*seen, repr(dict(os.environ))])

@method("misbehaving_sleeper")
def sleeper(inputs):
    time.sleep(3600)

@method("misbehaving_spinner")
def spinner(inputs):
    while True:
        pass

@method("misbehaving_hog")
def hog(inputs):
    return plan(inputs, [str(len(bytearray(3 << 30)))])

@method("misbehaving_forker")
def forker(inputs):
    children = 0
    for _ in range(120):  # bounded: at most 120 sleeping children, even with no limit at all
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
    for _ in range(children):  # held together until they end: a tree of 121 processes for 30 s
        os.wait()
    return plan(inputs, [str(children)])

@method("misbehaving_filler")
def filler(inputs):
    with open("/tmp/fill", "wb") as sink:
        for _ in range(64):
            sink.write(b"x" * (1 << 20))
    return plan(inputs, ["filled"])

@method("misbehaving_talker")
def talker(inputs):
    line = "y" * 65535 + "\\n"
    for _ in range(2048):  # 128 MiB
        sys.stdout.write(line)
    return plan(inputs)

@method("misbehaving_big_answer")
def big_answer(inputs):
    return plan(inputs, ["z" * (4 << 20)])

@method("misbehaving_channel_closer")
def channel_closer(inputs):
    import socket
    for fd in range(3, 64):
        try:
            socket.socket(fileno=fd).shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    time.sleep(3600)
'''

LIMITS = {"deadline_s": 6.0, "cpu_s": 1.0, "memory_mb": 1024, "processes": 24, "tmp_mb": 8,
          "max_output_bytes": 1 << 20, "max_answer_bytes": 1 << 20}


@pytest.fixture
def plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Default settings, and the misbehaving plug-ins' folder importable."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "misbehaving.py").write_text(textwrap.dedent(MISBEHAVING))
    monkeypatch.syspath_prepend(str(folder))
    return Settings(cache_dir=tmp_path / "cache")


@pytest.fixture
def limited(plain: Settings) -> Settings:
    """Settings with small sandbox limits."""
    return plain.model_copy(update={"sandbox": plain.sandbox.model_copy(update=LIMITS)})


def _row(name: str, settings: Settings, tmp_path: Path) -> tuple[str, str | None, dict]:
    spec = resolve_method(f"misbehaving:{name}")
    planning = [task for task in toy_tasks() if task.family == "strategic_planning"][:1]
    run_release(planning, tmp_path / f"run-{name}", settings, [spec.name])
    (row,) = read_answers(tmp_path / f"run-{name}" / "answers.jsonl")
    return row.status, row.error, row.payload or {}


def _limit_error(task_id: str, name: str, reason: str) -> str:
    return f"task {task_id}: SandboxLimitExceeded: plug-in misbehaving:{name}: {reason}"


def test_the_sandbox_holds_none_of_foresci_s_environment(
    plain: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    canaries = {"FORESCI_LLM__API_KEY": "sk-canary-foresci-key", "OPENAI_API_KEY": "sk-canary-openai",
                "AWS_SECRET_ACCESS_KEY": "canary-cloud-secret", "SOME_TOKEN": "canary-arbitrary"}
    for name, value in canaries.items():
        monkeypatch.setenv(name, value)
    status, error, payload = _row("environ_reader", plain, tmp_path)
    assert status == "ok", error
    seen = " ".join(payload["milestones"])
    assert "PATH=" in seen  # /proc/1/environ (bubblewrap's own process) was read: it holds only PATH, LANG
    for name, value in canaries.items():
        assert value not in seen and name not in seen, name


@pytest.mark.slow
@pytest.mark.parametrize(("name", "reason"), [
    ("sleeper", "ran past its wall deadline of 6 s (sandbox.deadline_s)"),
    ("spinner", "used its CPU time limit of 1 s (sandbox.cpu_s)"),
    ("hog", "reached its memory limit of 1024 MiB (sandbox.memory_mb)"),
    ("forker", "reached its limit of 24 processes and threads (sandbox.processes)"),
    ("filler", "filled its writable space of 8 MiB (sandbox.tmp_mb)"),
    ("talker", "printed more than its output cap of 1048576 bytes (sandbox.max_output_bytes)"),
    ("big_answer", None),
    ("channel_closer", None),
])
def test_a_plugin_over_a_limit_is_an_error_row_naming_the_task_and_the_limit(
    limited: Settings, tmp_path: Path, name: str, reason: str | None
) -> None:
    if name in ("spinner", "channel_closer"):  # on a loaded machine 1 s of CPU, or start-up and the 5 s
        # grace after the channel closed, may take longer than the 6 s deadline
        patient = limited.sandbox.model_copy(update={"deadline_s": 300})
        limited = limited.model_copy(update={"sandbox": patient})
    status, error, _ = _row(name, limited, tmp_path)
    task_id = "toy-strategic_planning"
    assert status == "error"
    if name == "channel_closer":
        assert error == (f"task {task_id}: PluginCrashed: plug-in misbehaving:{name}: closed its channel "
                         "without a result and was still running 5 s later: killed")
    elif reason is None:  # the message's size is the plug-in's JSON: only its start and the cap are fixed
        assert error is not None and error.startswith(_limit_error(task_id, name, "sent a message of "))
        assert error.endswith("bytes, over its cap of 1048576 bytes (sandbox.max_answer_bytes)"), error
    else:
        assert error == _limit_error(task_id, name, reason)
    assert "bwrap" not in (error or "") and "--ro-bind" not in (error or "")


def test_a_plugin_whose_import_never_ends_is_refused_naming_the_deadline(
    limited: Settings, tmp_path: Path
) -> None:
    (tmp_path / "plugins" / "hanging.py").write_text("import time\ntime.sleep(3600)\n")
    quick = limited.model_copy(update={"sandbox": limited.sandbox.model_copy(update={"deadline_s": 3})})
    with pytest.raises(MethodLoadError) as refused:
        resolve_method(f"{tmp_path / 'plugins' / 'hanging.py'}:answer", settings=quick)
    named = f"{tmp_path / 'plugins' / 'hanging.py'}:answer"
    assert refused.value.message == (f"cannot load {named}: plug-in {named}: ran past its wall deadline of "
                                     "3 s (sandbox.deadline_s)")
