"""A plug-in is not trusted: it runs in its own bubblewrap process and reaches the KB only through the tool
channel. Each escape found when foresci was attacked (issue 27 §1) is tried by a real plug-in process run
with ``foresci run``; the tests assert that nothing hidden or post-cutoff reached it, and that what it
tried failed for the reason the sandbox gives (the file does not exist there, the request is refused)."""

from __future__ import annotations

import json
import re
import socket
import textwrap
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.kb.store import KnowledgeBase
from foresci.tasks.release import load_release
from tests.methods.conftest import Foresci
from tests.realllm.world import SmallWorld

ESCAPES = '''
import gc, json, os, socket, sqlite3, subprocess, sys
from pathlib import Path
from foresci.methods import MethodResult, method

HIDDEN = "{release}/hidden.jsonl"
AT_IMPORT = {{}}

def attempt(report, name, action):
    try:
        report[name] = f"allowed: {{action()!r}}"[:400]
    except BaseException as error:
        report[name] = f"{{type(error).__name__}}: {{error}}"[:400]

# module-level code runs before any task: it is inside the sandbox too
attempt(AT_IMPORT, "read hidden at import", lambda: open(HIDDEN).read(200))
def read_with_hidden_module():
    from foresci.tasks.hidden_io import load_hidden
    return load_hidden(HIDDEN)
attempt(AT_IMPORT, "hidden module at import", read_with_hidden_module)

def unwall_then_open():
    import foresci.methods.wall as wall
    wall._check = lambda *args, **kwargs: None
    return open(HIDDEN).read(200)

def kb_objects():
    names = {{"KBTools", "KBView", "LockedView", "KnowledgeBase", "HiddenTarget", "Release"}}
    return sorted({{type(item).__name__ for item in gc.get_objects() if type(item).__name__ in names}})

def frame_locals():
    frame, seen = sys._getframe(), set()
    while frame is not None:
        seen.update(type(value).__name__ for value in frame.f_locals.values())
        frame = frame.f_back
    return sorted(seen & {{"KBTools", "KBView", "LockedView", "KnowledgeBase"}})

def descriptors():
    found = {{}}
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{{name}}")
        except OSError:
            continue
        try:
            head = os.pread(int(name), 64, 0)
        except OSError as error:
            head = type(error).__name__
        found[name] = f"{{target}} {{head!r}}"
    return found

def link_then_open():
    os.link(HIDDEN, "/tmp/linked.jsonl")
    return open("/tmp/linked.jsonl").read(200)

def dir_fd_open():
    os.chdir("{release}")
    return os.read(os.open("hidden.jsonl", os.O_RDONLY, dir_fd=os.open(".", os.O_RDONLY)), 200)

def attach():
    connection = sqlite3.connect(":memory:")
    connection.execute("ATTACH DATABASE 'file:{papers}?mode=ro' AS kb")
    return connection.execute("SELECT COUNT(*) FROM kb.sqlite_master").fetchone()

def network():
    with socket.create_connection(("127.0.0.1", {port}), timeout=3) as connection:
        return connection.recv(100)

def exhaust(tools):
    used = 0
    while True:
        try:
            tools.search("anything")
        except Exception as error:
            return f"{{used}} calls, then {{type(error).__name__}}: {{error}}"
        used += 1
        if used > 500:
            return "no budget"

@method("escaper", needs_kb=True)
def escaper(inputs):
    report = dict(AT_IMPORT)
    tools = inputs.tools
    attempt(report, "unwall then open", unwall_then_open)
    attempt(report, "import hidden then read", read_with_hidden_module)
    attempt(report, "closure", lambda: tools.search.__closure__)
    attempt(report, "tool attributes", lambda: sorted(vars(type(tools))))
    attempt(report, "gc objects", kb_objects)
    attempt(report, "frames", frame_locals)
    attempt(report, "subprocess cat", lambda: subprocess.run(["cat", HIDDEN], capture_output=True,
                                                              text=True).stdout)
    attempt(report, "popen", lambda: os.popen("cat " + HIDDEN + " 2>/dev/null").read())
    attempt(report, "system", lambda: os.system("cat " + HIDDEN + " >/dev/null 2>&1"))
    attempt(report, "link", link_then_open)
    attempt(report, "dir fd", dir_fd_open)
    attempt(report, "sqlite uri", lambda: sqlite3.connect("file:{papers}?mode=ro", uri=True)
            .execute("SELECT COUNT(*) FROM sqlite_master").fetchone())
    attempt(report, "attach", attach)
    attempt(report, "descriptors", descriptors)
    attempt(report, "judged outputs", lambda: open("{run}/judge_transcripts.jsonl").read(200))
    attempt(report, "scores", lambda: open("{run}/scores.jsonl").read(200))
    attempt(report, "world truth", lambda: open("{world}/ground_truth.json").read(200))
    attempt(report, "visible folders", lambda: [path for path in ("{release}", "{kb}", "{run}", "{cache}",
                                                                  "{world}") if os.path.exists(path)])
    attempt(report, "processes", lambda: sorted(name for name in os.listdir("/proc") if name.isdigit()))
    attempt(report, "network", network)
    attempt(report, "forged request", lambda: tools._channel.call({{"op": "reset_budget"}}))
    attempt(report, "post-cutoff paper", lambda: tools.get_paper("{post_id}"))
    attempt(report, "post-cutoff related", lambda: tools.related_papers("{post_id}"))
    attempt(report, "search dates", lambda: max(str(p.announced) for p in tools.search("{post_title}", 20)))
    attempt(report, "budget", lambda: exhaust(tools))
    options = [candidate.option_id for candidate in inputs.task.candidates]
    if inputs.task.family == "direction_forecasting":
        answer = {{"direction": options[0], "trajectory": "steady", "rationale": "r"}}
    elif inputs.task.family == "bottleneck_opportunity":
        answer = {{"bottleneck": "b", "opportunity": "o", "mechanism": "m"}}
    else:
        answer = {{"ranking": [{{"option_id": option}} for option in options]}}
    return MethodResult(answer=answer, support={{"notes": [json.dumps(report)]}})

@method("exiter")
def exiter(inputs):
    sys.exit(3)

@method("crasher")
def crasher(inputs):
    os._exit(9)
'''


@pytest.fixture
def listener() -> Any:
    """A TCP server on the host's loopback that the sandboxed plug-in must not reach."""
    server = socket.create_server(("127.0.0.1", 0))
    yield server.getsockname()[1]
    server.close()


@pytest.mark.slow
def test_every_escape_found_in_the_attack_fails_in_the_sandbox(
    small_world: SmallWorld, foresci: Foresci, tmp_path: Path, listener: int
) -> None:
    tasks = load_release(small_world.release_dir).tasks
    cutoff = tasks[0].cutoff
    kb = KnowledgeBase.open(small_world.kb_dir, small_world.settings)
    late = [paper for paper in kb.all_papers() if paper.announced > cutoff]
    assert late, "the world has papers after the cutoff"
    run = tmp_path / "run"
    run.mkdir()
    canary = "CANARY-judged-bottleneck-text"
    for name in ("judge_transcripts.jsonl", "scores.jsonl"):  # as a judged eval into this folder leaves
        (run / name).write_text(json.dumps({"hidden": canary}) + "\n")
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "escapes.py").write_text(textwrap.dedent(ESCAPES.format(
        release=small_world.release_dir, kb=small_world.kb_dir, run=run, cache=small_world.root / "cache",
        world=small_world.root / "world", papers=small_world.kb_dir / "papers.sqlite", port=listener,
        post_id=late[0].paper_id, post_title=late[0].title,
    )))
    result = foresci("run", str(small_world.release_dir), "--kb", str(small_world.kb_dir), "--method",
                     "escapes:escaper", "--method", "escapes:exiter", "--method", "escapes:crasher",
                     "--out", str(run), "--no-progress", "--limit", "1", path=(folder,))
    assert result.returncode == 0, result.stderr[-3000:]
    rows = {row.method: row for row in read_answers(run / "answers.jsonl")}
    assert rows["escaper"].status == "ok", rows["escaper"].error
    report = json.loads(rows["escaper"].support.notes[0])
    missing = "FileNotFoundError: [Errno 2] No such file or directory"
    for name in ("read hidden at import", "unwall then open", "link", "dir fd", "judged outputs", "scores",
                 "world truth"):
        assert report[name].startswith(missing), (name, report[name])
    for name in ("hidden module at import", "import hidden then read"):
        assert report[name].startswith("UserError: ") or report[name].startswith(missing), report[name]
    assert report["subprocess cat"] == "allowed: ''" and report["popen"] == "allowed: ''"
    assert report["system"] != "allowed: 0"
    for name in ("sqlite uri", "attach"):
        assert report[name].startswith("OperationalError: unable to open database"), report[name]
    assert report["closure"] == "allowed: None"
    assert report["gc objects"] == "allowed: []" and report["frames"] == "allowed: []"
    assert report["visible folders"] == "allowed: []"
    pids = [int(pid) for pid in re.findall(r"'(\d+)'", report["processes"])]
    assert pids and max(pids) < 20, report["processes"]  # its own PID namespace: foresci is not in it
    assert report["network"].startswith(("ConnectionRefusedError", "OSError")), report["network"]
    assert report["forged request"] == "RuntimeError: RequestRefused: unknown request 'reset_budget'"
    descriptors = report["descriptors"]
    for path in (small_world.kb_dir, small_world.release_dir, run):
        assert str(path) not in descriptors, descriptors
    assert report["post-cutoff paper"] == "allowed: None"
    assert report["post-cutoff related"] == "allowed: []"
    assert report["search dates"].startswith("allowed: '") and report["search dates"][10:20] <= str(cutoff)
    budget = small_world.settings.agents.tool_budget
    spent = re.match(r"allowed: .(\d+) calls, then ToolBudgetExceeded: tool budget of (\d+) calls exhausted",
                     report["budget"])
    assert spent is not None, report["budget"]
    assert int(spent.group(1)) < budget and int(spent.group(2)) == budget
    hidden = (small_world.release_dir / "hidden.jsonl").read_text()
    everything = json.dumps(report)
    assert canary not in everything
    for target in map(json.loads, hidden.splitlines()):
        for value in target.values():
            if isinstance(value, str) and len(value) > 12:
                assert value not in everything, "a hidden target reached the plug-in"
    assert all(paper.paper_id not in everything and paper.title not in everything for paper in late)
    assert all(item.announced <= cutoff for item in rows["escaper"].support.retrieved)
    assert rows["exiter"].status == "error"
    assert rows["exiter"].error == (f"task {tasks[0].task_id}: SystemExit: the plug-in called sys.exit(3)")
    assert rows["crasher"].status == "error"
    assert "PluginCrashed: plug-in escapes:crasher: its process ended without a result (exit code 9" in (
        rows["crasher"].error or "")


def test_without_bubblewrap_a_plugin_is_refused_naming_trust_plugin(
    small_world: SmallWorld, foresci: Foresci, tmp_path: Path
) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "plain.py").write_text("from foresci.methods import method\n\n@method('plain')\n"
                                     "def plain(inputs):\n    return {}\n")
    result = foresci("run", str(small_world.release_dir), "--method", "plain:plain", "--out",
                     str(tmp_path / "run"), path=(folder,), env={"PATH": str(tmp_path / "no-bwrap-here")})
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "bubblewrap (bwrap) is not installed" in lines[0], result.stderr
    assert "--trust-plugin" in lines[0] and "Traceback" not in result.stderr


def test_trust_plugin_runs_in_process_but_never_beside_judged_outputs(
    small_world: SmallWorld, foresci: Foresci, tmp_path: Path
) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    ranked = sorted({task.family for task in load_release(small_world.release_dir).tasks}
                    & {"strategic_planning", "venue_positioning"})
    assert ranked, "the small world's release has no ranking family"
    (folder / "inproc.py").write_text(textwrap.dedent(f'''
        import os, sys
        from foresci.methods import method

        @method("inproc")
        def inproc(inputs):
            if inputs.task.family != "{ranked[0]}":
                sys.exit(3)
            answer = {{"ranking": [{{"option_id": c.option_id}} for c in inputs.task.candidates]}}
            if inputs.task.family == "strategic_planning":
                answer["milestones"] = [str(os.getpid())]
            return answer
    '''))
    run = tmp_path / "run"
    result = foresci("run", str(small_world.release_dir), "--method", "inproc:inproc", "--trust-plugin",
                     "--out", str(run), "--no-progress", path=(folder,))
    assert result.returncode == 0, result.stderr[-3000:]
    rows = read_answers(run / "answers.jsonl")
    tasks = load_release(small_world.release_dir).tasks
    assert len(rows) == len(tasks)
    for row in rows:
        if row.family == ranked[0]:
            assert row.status == "ok"
        else:
            assert row.status == "error"
            assert row.error == (f"task {row.task_id}: PluginExit: method inproc: the plug-in called "
                                 "sys.exit(3)")
    (run / "scores.jsonl").write_text("{}\n")
    refused = foresci("run", str(small_world.release_dir), "--method", "inproc:inproc", "--trust-plugin",
                      "--out", str(run), path=(folder,))
    assert refused.returncode != 0
    assert "holds evaluation outputs (scores.jsonl) that the in-process plug-in inproc could read" in (
        " ".join(refused.stderr.split()))


FORECASTER = '''
from foresci.methods import method

@method("sandboxed_forecaster")
def answer(inputs):
    return {"ranking": [{"option_id": option.option_id} for option in inputs.task.candidates]}

@answer.forecaster
def forecast(question, inputs):
    if question.kind != "binary":
        raise KeyError("family")
    return {"probability": 0.7, "notes": [f"read {question.question_id} at {question.cutoff}"]}
'''


def test_a_sandboxed_forecast_hook_answers_and_its_errors_are_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import date

    from foresci.agents.answers import read_forecasts
    from foresci.core.settings import Settings
    from foresci.methods.loading import resolve_method
    from foresci.methods.runner import FORECASTS_FILE, run_release
    from foresci.tasks.models import ForecastQuestion

    (tmp_path / "forecasting_agent.py").write_text(textwrap.dedent(FORECASTER))
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = resolve_method("forecasting_agent:answer")
    assert spec.isolated and spec.forecast is not None
    questions = [ForecastQuestion(question_id=f"q-{kind}", kind=kind, domain="d", cutoff=date(2025, 6, 30),
                                  window_start=date(2025, 7, 1), window_end=date(2025, 9, 30), text="t",
                                  resolution_rule="r", params={}, baseline=3.0)
                 for kind in ("binary", "numeric")]
    settings = Settings(cache_dir=tmp_path / "cache")
    run_release([], tmp_path / "run", settings, [spec.name], questions=questions)
    rows = {row.question_id: row for row in read_forecasts(tmp_path / "run" / FORECASTS_FILE)}
    assert rows["q-binary"].status == "ok" and rows["q-binary"].probability == 0.7
    assert "read q-binary at 2025-06-30" in rows["q-binary"].notes
    assert rows["q-numeric"].status == "error"
    assert rows["q-numeric"].error == "question q-numeric: KeyError: 'family'"


def test_extensions_named_in_foresci_extensions_load_in_the_sandbox_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task family an extension registers must be known in the plug-in's process to read its tasks."""
    from foresci.core.settings import Settings
    from foresci.methods.loading import resolve_method
    from foresci.methods.runner import run_release
    from tests.agents.toy import toy_tasks

    (tmp_path / "sandbox_extension.py").write_text("LOADED = True\n")
    (tmp_path / "extension_probe.py").write_text(textwrap.dedent('''
        import sys
        from foresci.methods import method

        @method("extension_probe")
        def probe(inputs):
            return {"ranking": [{"option_id": option.option_id} for option in inputs.task.candidates],
                    "milestones": [str("sandbox_extension" in sys.modules)]}
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FORESCI_EXTENSIONS", "sandbox_extension")
    spec = resolve_method("extension_probe:probe")
    planning = [task for task in toy_tasks() if task.family == "strategic_planning"][:1]
    run_release(planning, tmp_path / "run", Settings(cache_dir=tmp_path / "cache"), [spec.name])
    (row,) = read_answers(tmp_path / "run" / "answers.jsonl")
    assert row.status == "ok", row.error
    assert row.payload["milestones"] == ["True"]


def test_a_sandboxed_plugin_limited_to_some_families_is_asked_only_their_tasks(
    small_world: SmallWorld, foresci: Foresci, tmp_path: Path
) -> None:
    """``@method(..., families=[...])`` crosses the sandbox's description: a plug-in named by file is asked
    only its families' tasks (the others are left out, not error rows)."""
    tasks = load_release(small_world.release_dir).tasks
    family = tasks[0].family
    assert any(task.family != family for task in tasks), "the small world's release has one family"
    plugin = tmp_path / "only_one.py"
    plugin.write_text(textwrap.dedent(f'''
        from foresci.methods import method

        @method("only_one", families=["{family}"])
        def only_one(inputs):
            raise RuntimeError("asked " + inputs.task.family)
    '''))
    run = tmp_path / "run"
    foresci("run", str(small_world.release_dir), "--method", f"{plugin}:only_one", "--out", str(run),
            "--no-progress")
    rows = read_answers(run / "answers.jsonl")
    assert rows and {row.family for row in rows} == {family}
    assert len(rows) == sum(1 for task in tasks if task.family == family)
