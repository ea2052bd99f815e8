"""The ``foresci`` command line: a typer root; each component adds its own sub-app or commands."""

from __future__ import annotations

from pathlib import Path

import typer

from foresci.threads import apply_environment_threads

apply_environment_threads()  # before torch, FAISS, ONNX Runtime or BLAS load (settings.runtime.threads)

from foresci import __version__
from foresci.agents.cli import run_command
from foresci.demo import demo_command
from foresci.evaluation.cli import eval_command, report_command
from foresci.kb.cli import app as kb_app
from foresci.sim.cli import app as sim_app
from foresci.tasks.cli import app as tasks_app
from foresci.tasks.cli import forecast_app
from foresci.taxonomy.cli import app as taxonomy_app

app = typer.Typer(
    name="foresci",
    help=(
        "Research foresight benchmarks.\n\n"
        "Pipeline: kb build -> taxonomy build -> tasks build -> run -> eval -> report.\n"
        "Start with `foresci demo`, which runs every stage on a generated synthetic world.\n\n"
        "Settings: environment variables FORESCI_<SECTION>__<FIELD> (e.g. FORESCI_LLM__BASE_URL) or a YAML "
        "file given with --config / FORESCI_CONFIG."
    ),
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.add_typer(kb_app, name="kb")
app.add_typer(sim_app, name="sim")
app.add_typer(taxonomy_app, name="taxonomy")
app.add_typer(tasks_app, name="tasks")
app.add_typer(forecast_app, name="forecast")
app.command("run")(run_command)
app.command("eval")(eval_command)
app.command("report")(report_command)
app.command("demo")(demo_command)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"foresci {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    config: Path | None = typer.Option(
        None, "--config", help="YAML settings file (same keys as the env vars)."
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """foresci: can an AI system make research decisions that the following months prove right?"""
    if config is not None:
        import os

        os.environ["FORESCI_CONFIG"] = str(config)


def main() -> None:
    """Console-script entry point."""
    app()
