"""The ``foresci`` command line: a typer root; each component adds its own sub-app or commands.

The commands are a registry (:mod:`foresci.app.commands`): a command line loads typer and the one
module of the command it runs (:mod:`foresci.app.root_app`); ``foresci --help`` loads neither
(:mod:`foresci.app.root_help` draws the same help from the registry).

``main`` is the one top-level error handler: a user error (:mod:`foresci.core.errors`, or a usage error)
prints as one line on stderr and exits non-zero; ``--debug`` adds the traceback. Any other exception
is a bug and keeps its traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from foresci.core.threads import apply_environment_threads

apply_environment_threads()  # before torch, FAISS, ONNX Runtime or BLAS load (settings.runtime.threads)

from foresci.app.commands import COMMAND_ENTRIES, ROOT_HELP, ROOT_OPTIONS_WITH_VALUE

if TYPE_CHECKING:
    import typer
    from typer.exceptions import TyperException

# name, module, attribute, whether it is a sub-app (else one command), in registration order; the
# registry with each command's summary line is foresci.app.commands. Modules load only for the command
# being run, so `foresci kb search` never imports the agents or demo, and `foresci --help` none at all.
COMMANDS: tuple[tuple[str, str, str, bool], ...] = tuple(
    (entry.name, entry.module, entry.attribute, entry.group) for entry in COMMAND_ENTRIES
)
HELP = ROOT_HELP


def build_app(only: str | None = None) -> typer.Typer:
    """The CLI: every command, or (``only``) the root options and that one command."""
    from foresci.app.root_app import build_app as build

    return build(only)


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


DEBUG_FLAG = "--debug"
COMPLETE_VARIABLE = "_FORESCI_COMPLETE"  # typer's shell-completion switch for the program name "foresci"
PLAIN_HELP_VARIABLE = "TYPER_USE_RICH"  # set (to false), typer's help is click's plain text
USAGE_EXIT = 2
ERROR_EXIT = 1


def _one_line(text: str) -> str:
    from foresci.core.redact import mask_urls_in

    return mask_urls_in(" ".join(text.split()))


def _usage_line(error: TyperException) -> str:
    context = getattr(error, "ctx", None)
    where = f"{context.command_path}: " if context is not None else ""
    return _one_line(f"error: {where}{error.format_message()}")


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: run the CLI and exit with its status (``SystemExit``).

    ``argv``: the arguments (default ``sys.argv[1:]``). ``--debug`` anywhere shows tracebacks. With
    ``argv`` unset (the process's own command line) a successful command that asked for it
    (:func:`foresci.app.quick_exit.quick_exit_on_success`) ends the process with ``os._exit`` once its
    output is flushed;
    code that runs the CLI and goes on calls :func:`run_cli`.
    """
    from foresci.app import quick_exit

    quick_exit.reset()
    status = run_cli(argv)
    if status == 0 and quick_exit.requested() and argv is None:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    raise SystemExit(status)


def _load_extensions() -> None:
    """Import the extensions (``FORESCI_EXTENSIONS``, entry points) once, at the command's entry: one
    that fails is reported as itself (naming it and its failing line), not as the first row or
    setting that happens to read a registry."""
    from foresci.core.extensions import load_extensions

    load_extensions()


def run_cli(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` and return its exit status: the one top-level error handler."""
    args = list(sys.argv[1:] if argv is None else argv)
    completing = COMPLETE_VARIABLE in os.environ  # a shell asks typer for completions (the words in env)
    typer_help = completing or PLAIN_HELP_VARIABLE in os.environ  # typer draws help without rich then
    if args in ([], ["--help"]) and not typer_help:  # `foresci --help`, bare `foresci`: no typer, no command
        from foresci.app.root_help import show_root_help

        return show_root_help(args)
    import typer
    from typer.exceptions import TyperException

    from foresci.core.errors import as_user_error

    debug = DEBUG_FLAG in args
    if debug:
        args = [DEBUG_FLAG] + [arg for arg in args if arg != DEBUG_FLAG]
    command = typer.main.get_command(build_app(command_name(args)))
    try:
        if not completing:
            _load_extensions()
        result = command.main(args, prog_name="foresci", standalone_mode=False)
    except typer.Exit as stop:
        return stop.exit_code
    except typer.Abort:
        print("error: aborted", file=sys.stderr)
        return 130
    except TyperException as error:
        if debug:
            import traceback

            traceback.print_exc()
        print(_usage_line(error), file=sys.stderr)
        return error.exit_code or USAGE_EXIT
    except Exception as error:
        user_error = as_user_error(error)
        if user_error is None:
            raise
        if debug:
            import traceback

            traceback.print_exc()
        print(_one_line(f"error: {user_error}"), file=sys.stderr)
        return ERROR_EXIT
    return result if isinstance(result, int) else 0
