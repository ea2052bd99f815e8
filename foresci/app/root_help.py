"""``foresci --help`` without loading typer or any command: the root help drawn with rich alone.

It draws what typer's ``rich_utils.rich_format_help`` draws for the root group (same console, styles,
highlighters, tables and panels; typer 0.29), from the registry in :mod:`foresci.app.commands` instead of
the imported commands: about a third of the time of building the whole typer app. ``tests/cli`` compares
it byte for byte with typer's own rendering of the real app, at several widths, plain and in colour.
"""

from __future__ import annotations

import sys
from os import getenv
from typing import Any

from rich.align import Align
from rich.columns import Columns
from rich.console import Console, RenderableType, group
from rich.highlighter import RegexHighlighter
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from foresci.app.commands import ROOT_HELP, ROOT_OPTIONS, listed_entries

USAGE = "Usage: foresci [OPTIONS] COMMAND [ARGS]..."

# typer.rich_utils' styles and highlighters (the ones the root help uses)
THEME = {
    "option": "bold cyan",
    "switch": "bold green",
    "negative_option": "bold magenta",
    "negative_switch": "bold red",
    "types": "bold yellow",
    "types_sep": "dim",
    "usage": "yellow",
}
STYLE_USAGE_COMMAND = "bold"
STYLE_HELPTEXT = "dim"
STYLE_TYPES = "bold yellow"
STYLE_PANEL_BORDER = "dim"
STYLE_COMMANDS_FIRST_COLUMN = "bold cyan"


class OptionHighlighter(RegexHighlighter):
    """typer's highlighter of options, switches, ``<types>`` and ``Usage:``."""

    highlights = [
        r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])",
        r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
        r"(?P<types>\<[^\>]+\>)",
        r"(?P<usage>Usage: )",
    ]


class NegativeOptionHighlighter(RegexHighlighter):
    """typer's highlighter of secondary (``--no-x``) options."""

    highlights = [
        r"(^|\W)(?P<negative_switch>\-\w+)(?![a-zA-Z0-9])",
        r"(^|\W)(?P<negative_option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
    ]


class TypesHighlighter(RegexHighlighter):
    """typer's highlighter that dims the brackets around a type."""

    highlights = [
        r"^(?P<types_sep>(\[|<))",
        r"(?P<types_sep>\|)",
        r"(?P<types_sep>(\]|>))(\.\.\.)?$",
    ]


highlighter = OptionHighlighter()
negative_highlighter = NegativeOptionHighlighter()
types_highlighter = TypesHighlighter()


def _console() -> Console:
    """The console typer prints help on (its environment switches included)."""
    width = getenv("TERMINAL_WIDTH")
    forced = getenv("GITHUB_ACTIONS") or getenv("FORCE_COLOR") or getenv("PY_COLORS")
    force_terminal = True if forced else None
    if getenv("_TYPER_FORCE_DISABLE_TERMINAL"):
        force_terminal = False
    return Console(
        theme=Theme(THEME),
        highlighter=highlighter,
        color_system="auto",
        force_terminal=force_terminal,
        width=int(width) if width else None,
        stderr=False,
    )


def _rich_text(text: str, style: str = "") -> Text:
    """typer's ``_make_rich_text`` in its default (rich markup) mode, for text that ``inspect.cleandoc``
    leaves as it is (the registry's: checked by its tests; so inspect, a large import, stays unloaded)."""
    if "\033[" in text:
        return highlighter(Text.from_ansi(text, style=style))
    return highlighter(Text.from_markup(text, style=style))


@group()
def _help_text() -> Any:
    """The root's description: the first paragraph plain, the rest dim."""
    first, *rest = ROOT_HELP.partition("\f")[0].split("\n\n")
    yield _rich_text(first.replace("\n", " ").strip())
    if rest:
        yield Text("")
        yield _rich_text("\n\n".join(rest), style=STYLE_HELPTEXT)


def _table(highlight: bool) -> Table:
    return Table(highlight=highlight, show_header=False, expand=True, box=None, show_lines=False, leading=0,
                 border_style=None, row_styles=None, pad_edge=False, padding=(0, 1))


def _options_panel() -> Panel:
    table = _table(highlight=True)
    for option in ROOT_OPTIONS:
        types = Text(style=STYLE_TYPES, overflow="fold")
        types.append(option.metavar)
        help_text = "\n".join(part.replace("\n", " ").strip() for part in option.help.split("\n\n")).strip()
        table.add_row(highlighter(option.name), highlighter(""), negative_highlighter(""),
                      negative_highlighter(""), types_highlighter(types), Columns([_rich_text(help_text)]))
    return Panel(table, border_style=STYLE_PANEL_BORDER, title="Options", title_align="left")


def _commands_panel() -> Panel:
    entries = listed_entries()
    table = _table(highlight=False)
    table.add_column(style=STYLE_COMMANDS_FIRST_COLUMN, no_wrap=True, width=max(len(e.name) for e in entries))
    table.add_column("Description", justify="left", no_wrap=False, ratio=10)
    for entry in entries:
        row: list[RenderableType] = [Text(entry.name), _rich_text(entry.summary)]
        table.add_row(*row)
    return Panel(table, border_style=STYLE_PANEL_BORDER, title="Commands", title_align="left")


def print_root_help(console: Console | None = None) -> None:
    """Print the root help as typer would (usage, description, options and commands panels)."""
    console = console or _console()
    console.print(Padding(highlighter(USAGE), 1), style=STYLE_USAGE_COMMAND)
    console.print(Padding(Align(_help_text(), pad=False), (0, 1, 1, 1)))
    console.print(_options_panel())
    console.print(_commands_panel())


def show_root_help(argv: list[str]) -> int:
    """Answer ``foresci --help`` (``argv == ["--help"]``) and a bare ``foresci`` (``[]``); the exit status.

    ``--help`` prints the help and exits 0; no argument at all prints it and exits 2 with typer's
    one-line usage error (a missing command), as the full CLI does.
    """
    if argv not in ([], ["--help"]):
        raise ValueError(f"not a root help command line: {argv!r}")
    print_root_help()
    if argv:
        sys.stdout.write("\n")
        return 0
    print("error: foresci:", file=sys.stderr)
    return 2
