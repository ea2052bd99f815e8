"""The ``foresci`` command line: a typer root; each component adds its own sub-app or commands.

``main`` is the one top-level error handler: a user error (:mod:`foresci.core.errors`, or a usage error)
prints as one line on stderr and exits non-zero; ``--debug`` adds the traceback. Any other exception
is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from typer.exceptions import TyperException

from foresci.core.threads import apply_environment_threads

apply_environment_threads()  # before torch, FAISS, ONNX Runtime or BLAS load (settings.runtime.threads)

from foresci import __version__

# name, module, attribute, whether it is a sub-app (else one command); in the order --help lists them.
# Modules load only for the command being run, so `foresci kb search` never imports the agents or demo.
COMMANDS: tuple[tuple[str, str, str, bool], ...] = (
    ("kb", "foresci.kb.cli", "app", True),
    ("llm", "foresci.llm.cli", "app", True),
    ("sim", "foresci.sim.cli", "app", True),
    ("taxonomy", "foresci.taxonomy.cli", "app", True),
    ("tasks", "foresci.tasks.cli", "app", True),
    ("forecast", "foresci.tasks.cli", "forecast_app", True),
    ("emergence", "foresci.emergence.cli", "app", True),
    ("rounds", "foresci.rounds.cli", "app", True),
    ("schema", "foresci.app.schemas", "app", True),
    ("inspect", "foresci.bridges.inspect_ai.cli", "app", True),
    ("run", "foresci.agents.cli", "run_command", False),
    ("eval", "foresci.evaluation.cli", "eval_command", False),
    ("report", "foresci.evaluation.cli", "report_command", False),
    ("transcript", "foresci.app.transcript_cli", "transcript_command", False),
    ("demo", "foresci.app.demo", "demo_command", False),
)
ROOT_OPTIONS_WITH_VALUE = ("--config",)
HELP = (
    "Research foresight benchmarks.\n\n"
    "Pipeline: kb build -> taxonomy build -> tasks build -> run -> eval -> report.\n"
    "Start with `foresci demo`, which runs every stage on a generated synthetic world.\n\n"
    "Settings: environment variables FORESCI_<SECTION>__<FIELD> (e.g. FORESCI_LLM__BASE_URL) or a YAML "
    "file given with --config / FORESCI_CONFIG."
)


def build_app(only: str | None = None) -> typer.Typer:
    """The CLI: every command, or (``only``) the root options and that one command."""
    built = typer.Typer(name="foresci", help=HELP, no_args_is_help=True, pretty_exceptions_show_locals=False)
    built.callback()(root)
    for name, module, attribute, group in COMMANDS:
        if only is not None and name != only:
            continue
        target = getattr(importlib.import_module(module), attribute)
        if group:
            built.add_typer(target, name=name)
        else:
            built.command(name)(target)
    return built


def command_name(args: Sequence[str]) -> str | None:
    """The command ``args`` run (the first word after the root options), if it is a known one."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ROOT_OPTIONS_WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            return arg if arg in {name for name, *_ in COMMANDS} else None
    return None


def __getattr__(name: str) -> Any:
    """``foresci.cli.app``: the whole CLI (typer app), built on first use."""
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"foresci {__version__}")
        raise typer.Exit()


def root(
    config: Path | None = typer.Option(
        None, "--config", help="YAML settings file (same keys as the env vars)."
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
    debug: bool = typer.Option(
        False, "--debug", help="Show the full traceback of an error (accepted anywhere on the line)."
    ),
) -> None:
    """foresci: can an AI system make research decisions that the following months prove right?"""
    if config is not None:
        os.environ["FORESCI_CONFIG"] = str(config)
    if any(name.startswith("FORESCI_") for name in os.environ):
        from foresci.core.settings import Settings

        Settings()  # a bad settings file or variable fails here, naming it, whatever the command
        from foresci.core.settings import unknown_env_names

        for note in unknown_env_names():
            print(f"warning: {note}", file=sys.stderr)


DEBUG_FLAG = "--debug"
USAGE_EXIT = 2
ERROR_EXIT = 1


def _one_line(text: str) -> str:
    from foresci.core.redact import mask_urls_in

    return mask_urls_in(" ".join(text.split()))


def _usage_line(error: TyperException) -> str:
    context = getattr(error, "ctx", None)
    where = f"{context.command_path}: " if context is not None else ""
    return _one_line(f"error: {where}{error.format_message()}")


_quick_exit = False


def quick_exit_on_success() -> None:
    """Called by a command that writes nothing left open (``kb search``): when it succeeds as the
    process's own command line, the process ends at once instead of tearing the interpreter down
    (freeing every module and object: about 250 ms after a search, a quarter of a fresh search)."""
    global _quick_exit
    _quick_exit = True


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: run the CLI and exit with its status (``SystemExit``).

    ``argv``: the arguments (default ``sys.argv[1:]``). ``--debug`` anywhere shows tracebacks. With
    ``argv`` unset (the process's own command line) a successful command that asked for it
    (:func:`quick_exit_on_success`) ends the process with ``os._exit`` once its output is flushed;
    code that runs the CLI and goes on calls :func:`run_cli`.
    """
    status = run_cli(argv)
    if status == 0 and _quick_exit and argv is None:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    raise SystemExit(status)


def run_cli(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` and return its exit status: the one top-level error handler."""
    global _quick_exit
    from foresci.core.errors import as_user_error

    _quick_exit = False

    args = list(sys.argv[1:] if argv is None else argv)
    debug = DEBUG_FLAG in args
    if debug:
        args = [DEBUG_FLAG] + [arg for arg in args if arg != DEBUG_FLAG]
    command = typer.main.get_command(build_app(command_name(args)))
    try:
        result = command.main(args, prog_name="foresci", standalone_mode=False)
    except typer.Exit as stop:
        return stop.exit_code
    except typer.Abort:
        print("error: aborted", file=sys.stderr)
        return 130
    except TyperException as error:
        if debug:
            traceback.print_exc()
        print(_usage_line(error), file=sys.stderr)
        return error.exit_code or USAGE_EXIT
    except Exception as error:
        user_error = as_user_error(error)
        if user_error is None:
            raise
        if debug:
            traceback.print_exc()
        print(_one_line(f"error: {user_error}"), file=sys.stderr)
        return ERROR_EXIT
    return result if isinstance(result, int) else 0
