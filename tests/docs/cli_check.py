"""Check a ``foresci ...`` command line from the docs against the real CLI without running it."""

from __future__ import annotations

from typing import Any

ROOT_OPTIONS_WITH_VALUE = ("--config",)


def cli_root() -> Any:
    """The ``foresci`` command tree (typer's click command)."""
    import typer.main

    from foresci.cli import build_app

    return typer.main.get_command(build_app())


def check_command(root: Any, words: list[str]) -> tuple[str, str | None]:
    """The command path ``words`` names and the problem with it (``None`` when it parses).

    The words after the root options must name a command (not a group), and its arguments and options
    must parse: unknown options, missing required ones and bad values are problems.
    """
    rest = list(words)
    while rest and rest[0].startswith("-"):
        rest = rest[2:] if rest[0] in ROOT_OPTIONS_WITH_VALUE else rest[1:]
    command, path = root, ["foresci"]
    while getattr(command, "commands", None) is not None and rest and rest[0] in command.commands:
        command = command.commands[rest[0]]
        path.append(rest.pop(0))
    name = " ".join(path)
    if getattr(command, "commands", None) is not None:
        following = f" ({rest[0]!r} is none of them)" if rest else ""
        return name, f"names the group {name!r}, not one of its commands{following}"
    try:
        command.make_context(name, rest)
    except Exception as error:  # click's usage errors (unknown option, missing value, bad type)
        message = error.format_message() if hasattr(error, "format_message") else str(error)
        return name, f"{type(error).__name__}: {message}"
    return name, None
