"""The registry of ``foresci`` commands: where each lives and the line ``foresci --help`` lists it with.

Plain data, no typer or rich import, so the root help (:mod:`foresci.app.root_help`) and the entry point
(:mod:`foresci.cli`) read it without loading any command. The summaries are the first paragraph of each
command's own help (its docstring, or its sub-app's ``help=``); ``tests/cli/test_lazy_cli.py`` checks that
they match, so a changed docstring fails there until its summary here is updated too.
"""

from __future__ import annotations

from typing import NamedTuple


class CommandEntry(NamedTuple):
    """One top-level command: its name, the module and attribute that define it, whether it is a sub-app
    (a typer group, else one command function), and its summary line(s) in the root help."""

    name: str
    module: str
    attribute: str
    group: bool
    summary: str


class RootOption(NamedTuple):
    """An option of the root command as ``foresci --help`` lists it."""

    name: str
    metavar: str
    help: str


# In registration order: groups as typer adds them; the root help lists commands first, then groups.
COMMAND_ENTRIES: tuple[CommandEntry, ...] = (
    CommandEntry("kb", "foresci.kb.cli", "app", True,
                 "Build, update, search and inspect the cutoff-aligned knowledge base."),
    CommandEntry("llm", "foresci.llm.cli", "app", True, "Local LLMs: serve a packaged model on 127.0.0.1."),
    CommandEntry("sim", "foresci.sim.cli", "app", True,
                 "Generate synthetic research worlds with planted dynamics."),
    CommandEntry("taxonomy", "foresci.taxonomy.cli", "app", True,
                 "Induce, show and export temporal taxonomies."),
    CommandEntry("tasks", "foresci.tasks.cli", "app", True,
                 "Build, show, validate and audit foresight task releases."),
    CommandEntry("forecast", "foresci.tasks.cli", "forecast_app", True,
                 "Prospective forecast packages: make now, resolve later."),
    CommandEntry("emergence", "foresci.emergence.cli", "app", True,
                 "Concept emergence: link prediction in the concept co-occurrence network at a cutoff."),
    CommandEntry("rounds", "foresci.rounds.cli", "app", True,
                 "A living benchmark: rounds frozen as the literature arrives, resolved by themselves."),
    CommandEntry("schema", "foresci.app.schemas", "app", True,
                 "JSON Schemas of the method contracts (for agents outside Python)."),
    CommandEntry("inspect", "foresci.bridges.inspect_ai.cli", "app", True,
                 "Run a release under inspect_ai and import inspect logs as foresci runs."),
    CommandEntry("run", "foresci.agents.cli", "run_command", False,
                 "Answer a release's tasks with answering methods; resumable (rerun the same command after a "
                 "crash)."),
    CommandEntry("eval", "foresci.evaluation.cli", "eval_command", False,
                 "Score a run's answers against the hidden targets; write RUNDIR/scores.jsonl and "
                 "summary.json."),
    CommandEntry("report", "foresci.evaluation.cli", "report_command", False,
                 "Write a static HTML report (and report.md) from evaluated runs."),
    CommandEntry("transcript", "foresci.app.transcript_cli", "transcript_command", False,
                 "Print what answering (or judging) each row cost: messages sent, raw replies, tool calls, "
                 "tokens,\ntimings, retries, re-asks, structured-output fallbacks, cache hits and evidence "
                 "dropped to fit the\nmodel's context window. One transcript per row key (the latest), "
                 "followed by the question, the answer\n(quantiles or probability of a forecast) or the "
                 "error message, and, once `foresci eval` ran, the\nscores with the gold or outcome they "
                 "were scored against."),
    CommandEntry("demo", "foresci.app.demo", "demo_command", False,
                 "Run foresci's main job end to end on a generated synthetic world (no data, no LLM "
                 "needed)."),
)

ROOT_HELP = (
    "Research foresight benchmarks.\n\n"
    "Pipeline: kb build -> taxonomy build -> tasks build -> run -> eval -> report.\n"
    "Start with `foresci demo`, which runs every stage on a generated synthetic world.\n\n"
    "Settings: environment variables FORESCI_<SECTION>__<FIELD> (e.g. FORESCI_LLM__BASE_URL) or a YAML "
    "file given with --config / FORESCI_CONFIG."
)

CONFIG_HELP = "YAML settings file (same keys as the env vars)."
VERSION_HELP = "Print the version and exit."
DEBUG_HELP = "Show the full traceback of an error (accepted anywhere on the line)."

# The root options in the order typer lists them: the callback's, then typer's completion and help options.
ROOT_OPTIONS: tuple[RootOption, ...] = (
    RootOption("--config", "<path>", CONFIG_HELP),
    RootOption("--version", "<bool>", VERSION_HELP),
    RootOption("--debug", "<bool>", DEBUG_HELP),
    RootOption("--install-completion", "<bool>", "Install completion for the current shell."),
    RootOption("--show-completion", "<bool>",
               "Show completion for the current shell, to copy it or customize the installation."),
    RootOption("--help", "<bool>", "Show this message and exit."),
)
ROOT_OPTIONS_WITH_VALUE = ("--config",)


def listed_entries() -> list[CommandEntry]:
    """The commands in the order ``foresci --help`` lists them: single commands, then sub-apps."""
    return [entry for entry in COMMAND_ENTRIES if not entry.group] + [
        entry for entry in COMMAND_ENTRIES if entry.group
    ]
