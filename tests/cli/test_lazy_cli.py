"""The cold CLI (issue 32): `foresci --help` drawn from the registry equals typer's help of the real app,
every command resolves from the registry, and neither `--help` nor `kb search` loads what they do not use.

Assertions are on output bytes and on imported modules, never on timings (benchmarks/cli_cold.py times).
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from foresci.app.commands import COMMAND_ENTRIES, ROOT_HELP, ROOT_OPTIONS, listed_entries
from foresci.cli import COMMANDS, run_cli
from tests.conftest import REPO_ROOT

WIDTHS = (40, 80, 123, 200)

# Renders the root help at each width twice: drawn from the registry (what `foresci --help` prints now) and
# by typer from the real app with every command imported; a bare `foresci` too. Prints JSON.
COMPARE = """
import contextlib, io, json, os, sys
import typer
from typer.exceptions import TyperException
from foresci.app.root_app import build_app
from foresci.app.root_help import show_root_help
from foresci.cli import _usage_line

def captured(call):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = call()
    return [code, out.getvalue(), err.getvalue()]

def real(args):
    command = typer.main.get_command(build_app())
    try:
        command.main(args, prog_name="foresci", standalone_mode=False)
    except typer.Exit as stop:
        return stop.exit_code
    except TyperException as error:
        print(_usage_line(error), file=sys.stderr)
        return error.exit_code
    return 0

found = {}
for width in WIDTHS:
    os.environ["COLUMNS"] = str(width)
    for args in (["--help"], []):
        key = f"{width} {' '.join(args)}"
        found[key] = {"fast": captured(lambda: show_root_help(args)), "real": captured(lambda: real(args))}
print(json.dumps(found))
"""


def _environment(**extra: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("FORESCI_") and name not in ("COLUMNS", "FORCE_COLOR", "NO_COLOR")}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return {**env, **extra}


def test_root_help_from_the_registry_equals_typers_help_of_the_real_app() -> None:
    """Plain and in terminal colours (typer reads FORCE_COLOR once, on import: one process each)."""
    script = f"WIDTHS = {WIDTHS!r}\n" + COMPARE
    processes = {
        mode: subprocess.Popen([sys.executable, "-c", script], env=_environment(**extra), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for mode, extra in (("plain", {}), ("terminal colours", {"FORCE_COLOR": "1"}))
    }
    for mode, process in processes.items():
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stderr
        renders = json.loads(stdout)
        assert len(renders) == 2 * len(WIDTHS)
        for key, pair in renders.items():
            assert pair["fast"] == pair["real"], f"{mode}, COLUMNS={key}: the registry's help is not typer's"
        plain_help = renders["80 --help"]["real"][1]
        assert all(entry.name in plain_help for entry in COMMAND_ENTRIES)
        assert ("\x1b[" in plain_help) == (mode == "terminal colours")
        assert renders["80 "]["real"][0] == 2 and renders["80 "]["real"][2] == "error: foresci:\n"


def _first_paragraph(text: str) -> str:
    return inspect.cleandoc(text).split("\n\n")[0].strip()


def test_every_registered_command_resolves_and_its_summary_is_its_own_help() -> None:
    import importlib

    import typer

    assert [name for name, *_ in COMMANDS] == [entry.name for entry in COMMAND_ENTRIES]
    assert len({entry.name for entry in COMMAND_ENTRIES}) == len(COMMAND_ENTRIES)
    assert [entry.name for entry in listed_entries()][:1] == ["run"]  # typer lists commands before groups
    for entry in COMMAND_ENTRIES:
        target = getattr(importlib.import_module(entry.module), entry.attribute)
        if entry.group:
            assert isinstance(target, typer.Typer), entry.name
            help_text = target.info.help
        else:
            assert callable(target) and not isinstance(target, typer.Typer), entry.name
            help_text = target.__doc__
        assert isinstance(help_text, str) and entry.summary == _first_paragraph(help_text), (
            f"{entry.name}: update its summary in foresci/app/commands.py to the first paragraph of its help")
        assert inspect.cleandoc(entry.summary) == entry.summary  # the root help draws it as it is
    assert "--config" in ROOT_HELP and [option.name for option in ROOT_OPTIONS][-1] == "--help"
    assert inspect.cleandoc(ROOT_HELP) == ROOT_HELP


def _command_lines() -> list[list[str]]:
    """Every command and sub-command of the registry, as the words that run it."""
    import typer.main

    from foresci.app.root_app import build_app

    lines: list[list[str]] = []
    for entry in COMMAND_ENTRIES:
        lines.append([entry.name])
        if entry.group:
            group = typer.main.get_command(build_app(entry.name)).commands[entry.name]  # type: ignore[attr-defined]
            lines += [[entry.name, name] for name in group.commands]
    return lines


def test_every_command_and_sub_command_teaches_its_help(capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    lines = _command_lines()
    assert len(lines) > len(COMMAND_ENTRIES) + 20 and ["kb", "search"] in lines
    for words in lines:
        capsys.readouterr()
        assert run_cli([*words, "--help"]) == 0, words
        shown = capsys.readouterr().out
        assert f"Usage: foresci {' '.join(words)} [OPTIONS]" in shown, shown[:300]
        assert "--help" in shown, words


def _modules_after(args: list[str], tmp_path: Path, **env: str) -> tuple[int, set[str]]:
    """Run ``foresci ARGS`` in a fresh process; its exit status and the modules it had imported."""
    listing = tmp_path / "modules.json"
    code = ("import json, sys\nfrom foresci.cli import run_cli\nstatus = run_cli(sys.argv[2:])\n"
            "json.dump(sorted(sys.modules), open(sys.argv[1], 'w'))\nsys.exit(status)")
    result = subprocess.run([sys.executable, "-c", code, str(listing), *args], env=_environment(**env),
                            capture_output=True, text=True, timeout=300)
    return result.returncode, set(json.loads(listing.read_text(encoding="utf-8")))


HEAVY = ("typer", "click", "pydantic", "pydantic_settings", "numpy", "torch", "sentence_transformers",
         "langchain", "langchain_core", "langchain_openai", "faiss", "onnxruntime", "yaml", "transformers")


def _top(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_root_help_imports_no_command_and_no_heavy_library(tmp_path: Path) -> None:
    for args in (["--help"], []):
        status, modules = _modules_after(args, tmp_path)
        assert status == (0 if args else 2)
        assert not _top(modules) & set(HEAVY), sorted(_top(modules) & set(HEAVY))
        foresci = {name for name in modules if name.startswith("foresci")}
        assert foresci <= {"foresci", "foresci.cli", "foresci.app", "foresci.app.commands",
                           "foresci.app.root_help", "foresci.core", "foresci.core.threads"}, sorted(foresci)


def test_kb_search_loads_no_settings_machinery_nor_model_libraries(tmp_path: Path) -> None:
    """`kb search` loads typer and its one command module (no other command), reads the settings (from
    the environment too) without pydantic-settings and loads no LLM or torch code; a missing KB fails after
    the settings and the retriever load."""
    missing = tmp_path / "no-kb"
    status, modules = _modules_after(
        ["kb", "search", str(missing), "agents", "--cutoff", "2025-06-30"], tmp_path,
        FORESCI_CACHE_DIR=str(tmp_path / "cache"), FORESCI_KB__RRF_K="30", FORESCI_RUNTIME__THREADS="1")
    assert status == 1
    assert {"foresci.kb.retrieve", "foresci.core.light_settings"} <= modules
    banned = {"pydantic_settings", "torch", "sentence_transformers", "langchain", "langchain_core",
              "langchain_openai", "transformers"}
    assert not _top(modules) & banned, sorted(_top(modules) & banned)
    other_packages = ("foresci.agents.", "foresci.evaluation.", "foresci.tasks.", "foresci.llm.",
                      "foresci.methods")
    others = {name for name in modules if name.startswith(other_packages)}
    assert others <= {"foresci.agents.config", "foresci.evaluation.config", "foresci.tasks.config",
                      "foresci.llm.config"}, sorted(others)


def test_typers_plain_help_switch_still_reaches_typer() -> None:
    result = subprocess.run([sys.executable, "-m", "foresci", "--help"], env=_environment(TYPER_USE_RICH="0"),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and "╭" not in result.stdout and "Usage: foresci [OPTIONS]" in result.stdout


@pytest.mark.parametrize(("words", "expected"), [("foresci k", "kb"), ("foresci kb se", "search")])
def test_shell_completion_still_reaches_typer(words: str, expected: str) -> None:
    """A completing shell runs `foresci` with no arguments (the words are in the environment): that is
    typer's completion, not the bare command's help."""
    env = _environment(_FORESCI_COMPLETE="complete_bash", COMP_WORDS=words,
                       COMP_CWORD=str(len(words.split()) - 1))
    result = subprocess.run([sys.executable, "-m", "foresci"], env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [expected]
