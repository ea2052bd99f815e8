"""A plug-in's folder never runs in foresci's process, and only its own files reach its sandbox (issue 39
§1-2). The attacks are a hostile submitter's: a ``sitecustomize.py`` and a ``typer.py`` (a module named
like one of foresci's dependencies) beside the plug-in, run through the documented command; links beside a
single-file plug-in to the release's hidden targets, to the KB, and to nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from foresci.agents.answers import read_answers
from foresci.core.pythonpath import shadowing_files
from foresci.methods.loading import MethodLoadError, resolve_method
from tests.methods.conftest import REPO_ROOT
from tests.realllm.world import SmallWorld

AGENT = '''
from foresci.methods import method

@method("beside_the_release")
def answer(inputs):
    options = [candidate.option_id for candidate in inputs.task.candidates]
    if inputs.task.family == "direction_forecasting":
        return {"direction": options[0], "trajectory": "steady", "rationale": "first"}
    if inputs.task.family == "bottleneck_opportunity":
        return {"bottleneck": "b", "opportunity": "o", "mechanism": "m"}
    return {"ranking": [{"option_id": option} for option in options]}
'''

# What the attack left beside the plug-in: each file reads the hidden targets and the API key into a
# canary file when it runs; typer.py then hands over to the real typer, so a shadowed run still succeeds.
SITECUSTOMIZE = '''
import os
try:
    with open({canary!r}, "w") as sink:
        sink.write(open({hidden!r}).read()[:200] + os.environ.get("FORESCI_LLM__API_KEY", ""))
except OSError:
    pass
'''
SHADOW_TYPER = SITECUSTOMIZE + '''
import sys
here = os.path.dirname(os.path.abspath(__file__))
del sys.modules["typer"]
saved = sys.path[:]
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
import typer as _real
sys.path[:] = saved
sys.modules["typer"] = _real
'''


def _console_script(tmp_path: Path) -> Path:
    """The ``foresci`` console script as pip writes it (``sys.path[0]`` is its own folder, not the
    current one), for this checkout's code."""
    script = tmp_path / "bin" / "foresci"
    script.parent.mkdir(exist_ok=True)
    script.write_text("import sys\nfrom foresci.cli import main\nsys.exit(main())\n")
    return script


def _attacked_folder(small_world: SmallWorld, tmp_path: Path) -> tuple[Path, Path, Path]:
    folder = tmp_path / "submission"
    folder.mkdir()
    hidden = str(small_world.release_dir / "hidden.jsonl")
    site_canary, typer_canary = tmp_path / "sitecustomize-ran", tmp_path / "typer-ran"
    (folder / "my_agent.py").write_text(textwrap.dedent(AGENT))
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE.format(canary=str(site_canary), hidden=hidden))
    (folder / "typer.py").write_text(SHADOW_TYPER.format(canary=str(typer_canary), hidden=hidden))
    return folder, site_canary, typer_canary


def _run(small_world: SmallWorld, tmp_path: Path, folder: Path, method: str,
         python_path: list[str]) -> subprocess.CompletedProcess[str]:
    environment = {
        **{key: value for key, value in os.environ.items() if not key.startswith("FORESCI_")},
        "PYTHONPATH": os.pathsep.join(python_path),
        "FORESCI_CACHE_DIR": str(small_world.root / "cache"),
        "FORESCI_LLM__API_KEY": "sk-canary-key",
        "OMP_NUM_THREADS": "1",
    }
    command = [sys.executable, str(_console_script(tmp_path)), "run", str(small_world.release_dir), "--kb",
               str(small_world.kb_dir), "--method", method, "--out", str(tmp_path / "run"), "--no-progress",
               "--limit", "1"]
    return subprocess.run(command,
                          capture_output=True, text=True, env=environment, cwd=folder, timeout=300)


@pytest.mark.slow
def test_the_documented_command_never_runs_the_plugin_folder_in_foresci(
    small_world: SmallWorld, tmp_path: Path
) -> None:
    folder, site_canary, typer_canary = _attacked_folder(small_world, tmp_path)
    # the README's command, run from the plug-in's folder; this checkout on PYTHONPATH stands for the
    # installed foresci (a source checkout is not a plug-in folder)
    result = _run(small_world, tmp_path, folder, "my_agent.py:answer", [str(REPO_ROOT)])
    assert result.returncode == 0, result.stderr[-3000:]
    rows = read_answers(tmp_path / "run" / "answers.jsonl")
    assert rows and all(row.status == "ok" for row in rows), [row.error for row in rows]
    assert not site_canary.exists() and not typer_canary.exists()


@pytest.mark.slow
def test_a_pythonpath_that_shadows_foresci_s_modules_is_refused_naming_the_files(
    small_world: SmallWorld, tmp_path: Path
) -> None:
    folder, _, _ = _attacked_folder(small_world, tmp_path)
    # the old documented form: PYTHONPATH=. foresci run ... --method my_agent:answer
    result = _run(small_world, tmp_path, folder, "my_agent:answer", [str(folder), str(REPO_ROOT)])
    assert result.returncode != 0
    assert not (tmp_path / "run" / "answers.jsonl").exists()
    message = " ".join(result.stderr.split())
    assert message.startswith("error: PYTHONPATH shadows modules foresci uses: ")
    assert str(folder / "sitecustomize.py") in message and str(folder / "typer.py") in message
    assert str(folder / "my_agent.py") not in message and "Traceback" not in result.stderr


def test_a_source_checkout_on_pythonpath_is_not_a_shadow(tmp_path: Path) -> None:
    assert shadowing_files([REPO_ROOT]) == []  # this checkout holds foresci itself (and tests, docs...)
    (tmp_path / "json.py").write_text("")
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text("")
    (tmp_path / "my_helpers.py").write_text("")
    assert shadowing_files([REPO_ROOT, tmp_path]) == [tmp_path / "json.py", tmp_path / "numpy"]


LINK_READER = '''
from foresci.methods import method

@method("link_reader")
def answer(inputs):
    notes = []
    for name in ("notes", "kbdata"):
        try:
            module = __import__(name)
            notes.append(f"{name}: imported {module!r}")
        except BaseException as error:
            notes.append(f"{name}: {type(error).__name__}: {error}"[:300])
    return {"ranking": [{"option_id": c.option_id} for c in inputs.task.candidates], "milestones": notes}
'''


@pytest.mark.parametrize(("link", "target", "problem"), [
    ("notes.py", "../release/hidden.jsonl", "outside the plug-in's folder"),
    ("kbdata.py", "../kb", "outside the plug-in's folder"),
    ("guess.py", "../nope", "which does not exist"),
])
def test_links_beside_a_plugin_that_leave_its_folder_or_dangle_are_refused_naming_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str, target: str, problem: str
) -> None:
    (tmp_path / "release").mkdir()
    (tmp_path / "release" / "hidden.jsonl").write_text('{"target": "CANARY hidden bottleneck"}\n')
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "papers.py").write_text("LATE = 'CANARY 267 papers after the cutoff'\n")
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "link_agent.py").write_text(textwrap.dedent(LINK_READER))
    (folder / link).symlink_to(target)
    monkeypatch.syspath_prepend(str(folder))
    for reference in ("link_agent:answer", f"{folder / 'link_agent.py'}:answer"):
        with pytest.raises(MethodLoadError) as refused:
            resolve_method(reference)
        message = refused.value.message
        assert f"{folder / link} is a link to " in message and problem in message, message
        assert "Traceback" not in message and "ConnectionResetError" not in message


def test_a_plugin_named_by_file_sees_its_python_files_and_links_among_them_not_its_data(
    tmp_path: Path
) -> None:
    from foresci.core.settings import Settings
    from foresci.methods.runner import run_release
    from tests.agents.toy import toy_tasks

    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "inside_agent.py").write_text(textwrap.dedent('''
        import os
        from foresci.methods import method

        @method("inside_agent")
        def answer(inputs):
            import helpers_alias
            here = os.path.dirname(__file__)
            return {"ranking": [{"option_id": c.option_id} for c in inputs.task.candidates],
                    "milestones": [helpers_alias.WORD, ",".join(sorted(os.listdir(here)))]}
    '''))
    (folder / "helpers.py").write_text("WORD = 'helped'\n")
    (folder / "helpers_alias.py").symlink_to("helpers.py")
    (folder / "data.csv").write_text("secret,1\n")
    spec = resolve_method(f"{folder / 'inside_agent.py'}:answer")
    planning = [task for task in toy_tasks() if task.family == "strategic_planning"][:1]
    run_release(planning, tmp_path / "run", Settings(cache_dir=tmp_path / "cache"), [spec.name])
    (row,) = read_answers(tmp_path / "run" / "answers.jsonl")
    assert row.status == "ok", row.error
    assert row.payload["milestones"] == ["helped", "helpers.py,helpers_alias.py,inside_agent.py"]


def test_a_plugin_named_by_its_package_folder_runs_sandboxed_with_its_submodules(tmp_path: Path) -> None:
    from foresci.core.settings import Settings
    from foresci.methods.runner import run_release
    from tests.agents.toy import toy_tasks

    package = tmp_path / "submissions" / "team_agent"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from team_agent.core import answer\n")
    (package / "core.py").write_text(textwrap.dedent('''
        from foresci.methods import method

        @method("team_agent")
        def answer(inputs):
            return {"ranking": [{"option_id": c.option_id} for c in inputs.task.candidates],
                    "milestones": [__name__]}
    '''))
    assert "team_agent" not in sys.modules
    spec = resolve_method(f"{package}:answer")
    assert spec.isolated and spec.source == f"{package}:answer"
    assert "team_agent" not in sys.modules and str(package.parent) not in sys.path  # never imported here
    planning = [task for task in toy_tasks() if task.family == "strategic_planning"][:1]
    run_release(planning, tmp_path / "run", Settings(cache_dir=tmp_path / "cache"), [spec.name])
    (row,) = read_answers(tmp_path / "run" / "answers.jsonl")
    assert row.status == "ok", row.error
    assert row.payload["milestones"] == ["team_agent.core"]


def test_trust_plugin_with_a_file_imports_it_here(tmp_path: Path) -> None:
    (tmp_path / "trusted_file_agent.py").write_text(textwrap.dedent('''
        from foresci.methods import method

        @method("trusted_file_agent")
        def answer(inputs):
            return {"ranking": []}
    '''))
    spec = resolve_method(f"{tmp_path / 'trusted_file_agent.py'}:answer", trust_plugin=True)
    assert spec.name == "trusted_file_agent" and not spec.isolated
    assert "trusted_file_agent" in sys.modules  # imported in this process: the trusted path


def test_rounds_submit_refuses_a_pythonpath_that_shadows_foresci_s_modules(tmp_path: Path) -> None:
    """`rounds submit` runs plug-ins too: a sitecustomize.py or typer.py on PYTHONPATH stops it before it
    opens the ledger or the KB, naming both files."""
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text("")
    (folder / "rank_bm25.py").write_text("")  # an installed dependency's name
    (folder / "my_agent.py").write_text(textwrap.dedent(AGENT))
    environment = {
        **{key: value for key, value in os.environ.items() if not key.startswith("FORESCI_")},
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(folder)]),
    }
    command = [sys.executable, "-c", "import sys; from foresci.cli import main; sys.exit(main())", "rounds",
               "submit", str(tmp_path / "ledger"), "r-2025-06-30", "--kb", str(tmp_path / "kb"), "--method",
               str(folder / "my_agent.py") + ":answer"]
    result = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=tmp_path,
                            timeout=120)
    message = " ".join(result.stderr.split())
    assert result.returncode != 0 and "PYTHONPATH shadows modules foresci uses" in message
    assert str(folder / "sitecustomize.py") in message and str(folder / "rank_bm25.py") in message
    assert "Traceback" not in result.stderr and not (tmp_path / "ledger").exists()
