"""Command lines run without typer: a plain, valid ``foresci kb search`` (the one a user runs cold, often).

Loading typer and building its command costs a search about as much as the search itself once the KB is
open. :func:`parse_kb_search` reads only the plain form: ``kb search KB_DIR QUERY --cutoff DATE`` with
``--domain NAME`` and ``-k N`` (``--cutoff=DATE`` too), in any order, nothing before ``kb``. Anything else
(``--help``, ``--config``, ``--debug``, an unknown or repeated option, a value that would not parse, a word
starting with ``-`` where a value belongs) returns ``None`` and typer runs the line, so its help and its
errors stay exactly what they were. ``tests/cli/test_direct.py`` compares the values read here with the
ones typer parses from the same words, and the output of both paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

KB_SEARCH_OPTIONS = ("--cutoff", "--domain", "-k")
DEFAULT_K = 10


@dataclass(frozen=True)
class KBSearchLine:
    """The arguments of ``foresci kb search``, as the command receives them."""

    kb_dir: Path
    query: str
    cutoff: str
    domain: str | None = None
    k: int = DEFAULT_K


def parse_kb_search(args: list[str]) -> KBSearchLine | None:
    """The arguments of a plain, valid ``kb search`` line; ``None`` for any other line (typer runs it)."""
    if args[:2] != ["kb", "search"]:
        return None
    options: dict[str, str] = {}
    positional: list[str] = []
    rest = iter(args[2:])
    for word in rest:
        if not word.startswith("-"):
            positional.append(word)
            continue
        name, equals, inline = word.partition("=")
        if name not in KB_SEARCH_OPTIONS or name in options or (equals and not name.startswith("--")):
            return None
        value = inline if equals else next(rest, None)
        if value is None or (not equals and value.startswith("-")):
            return None
        options[name] = value
    if len(positional) != 2 or "--cutoff" not in options:
        return None
    k_text = options.get("-k", str(DEFAULT_K))
    if not (k_text.isascii() and k_text.isdigit()) or int(k_text) < 1:
        return None
    try:
        date.fromisoformat(options["--cutoff"])
    except ValueError:
        return None
    return KBSearchLine(Path(positional[0]), positional[1], options["--cutoff"], options.get("--domain"),
                        int(k_text))


def run_direct(args: list[str]) -> bool:
    """Run ``args`` here when it is a line this module reads (then ``True``); else ``False``."""
    line = parse_kb_search(args)
    if line is None:
        return False
    from foresci.app.kb_search import print_search
    from foresci.app.settings_check import check_settings_environment

    check_settings_environment()
    print_search(line.kb_dir, line.query, lambda: date.fromisoformat(line.cutoff), line.domain, line.k)
    return True
