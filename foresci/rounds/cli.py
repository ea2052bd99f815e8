"""CLI: ``foresci rounds ...``: a living benchmark ledger (init, open, submit, inspect-task, tick, site,
show)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import typer

from foresci.app.cli_options import known_windows, parse_date_option
from foresci.engines import ENGINE_HELP

app = typer.Typer(
    help="A living benchmark: rounds frozen as the literature arrives, resolved by themselves.",
    no_args_is_help=True,
)


def _kb_and_view(path: Path) -> tuple[Any, Any]:
    from foresci.core.settings import Settings
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase

    opened = KnowledgeBase.open(path, Settings())

    def view_for(cutoff: date) -> Any:
        return KBView(opened, cutoff)

    return opened, view_for


def url_method_name(method: str) -> str | None:
    """A board name for an HTTP agent given by URL (None for any other method): its host, port and path,
    ``http://127.0.0.1:8765/`` -> ``agent-127.0.0.1-8765``."""
    from urllib.parse import urlsplit

    parts = urlsplit(method)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    where = "-".join(filter(None, [parts.hostname, str(parts.port or ""), *parts.path.strip("/").split("/")]))
    return f"agent-{where}"


def submission_line(version: Path) -> str:
    """What a submission stored: its folder, the rows and how many of them are errors."""
    from foresci.core.io import read_json
    from foresci.rounds.submit import SUBMISSION_FILE

    record = read_json(version / SUBMISSION_FILE)
    errors = int(record.get("errors", 0)) + int(record.get("task_errors", 0))
    rows = f"{record.get('rows', 0)} forecast rows, {record.get('task_rows', 0)} task rows"
    line = f"submitted {version} as {record['method']} v{record['version']}: {rows}, {errors} errors"
    return line + (" (error rows score as unanswered; submit again for a new version)" if errors else "")


@app.command("init")
def init_command(
    ledger: Path = typer.Argument(..., help="ledger folder"),
    schedule: str = typer.Option("month-end", "--schedule", help="month-end, every-n-days or manual"),
    every_days: int = typer.Option(14, "--every-days", min=1, help="spacing for every-n-days"),
    start: str | None = typer.Option(None, "--start", help="first schedule day considered (YYYY-MM-DD)"),
    end: str | None = typer.Option(None, "--end", help="last schedule day considered (YYYY-MM-DD)"),
    window: list[str] = typer.Option(["3m"], "--window", help="forecast window per round: 1m, 2m, 3m or 6m "
                                     "(repeatable)", callback=known_windows),
    questions: int | None = typer.Option(
        None, "--questions", min=1, help="node/venue questions per window (default: setting rounds.questions)"
    ),
    min_items: int = typer.Option(50, "--min-items", min=1, help="answered resolved items to be ranked"),
    family_tasks: int = typer.Option(
        4, "--family-tasks", min=0, help="family tasks per family and window (0: none)"
    ),
    families: str | None = typer.Option(
        None, "--families",
        help="task families frozen prospectively (comma list; default: those with a round_default place)",
    ),
    emergence_questions: int | None = typer.Option(
        None, "--emergence-questions", min=0,
        help="binary concept-pair (ceq-) questions per window (default: rounds.emergence_questions)",
    ),
) -> None:
    """Write the ledger's settings (ledger.json).

    Example:

        foresci rounds init ledger --schedule month-end --start 2025-06-30 --window 3m --questions 12
    """
    from foresci.rounds.ledger import LedgerConfig, init_ledger
    from foresci.tasks.families import get_family

    chosen = ([get_family(name.strip()).name for name in families.split(",") if name.strip()]
              if families else None)
    config = LedgerConfig(
        **({"families": chosen} if chosen is not None else {}),
        schedule=schedule,
        every_days=every_days,  # type: ignore[arg-type]
        start=parse_date_option(start, "--start") if start else None,
        end=parse_date_option(end, "--end") if end else None,
        windows=window,
        questions=questions,
        min_items=min_items,
        family_tasks=family_tasks,
        emergence_questions=emergence_questions,
    )
    init_ledger(ledger, config)
    typer.echo(f"ledger {ledger}: {config.model_dump_json()}")


@app.command("open")
def open_command(
    ledger: Path = typer.Argument(..., help="ledger folder"),
    kb: Path = typer.Option(..., "--kb", help="KB: the round is frozen at its last announcement day"),
) -> None:
    """Freeze a round now (at the KB's last announcement day); the naive baselines answer it at once."""
    from foresci.core.locks import artifact_lock
    from foresci.kb.store import last_announcement
    from foresci.rounds.ledger import ROUND_FILE, round_dir, round_id_for
    from foresci.rounds.open import open_round

    opened, view_for = _kb_and_view(kb)
    day = last_announcement(opened)
    with artifact_lock(ledger, timeout=None):
        if (round_dir(ledger, round_id_for(day)) / ROUND_FILE).is_file():
            typer.echo(f"nothing to open: round {round_id_for(day)} is already frozen at the KB's last day "
                       f"{day}; run `kb update` first for a later round")
            return
        typer.echo(f"opened {open_round(ledger, opened, view_for=view_for)} (frozen at {day})")


@app.command("submit")
def submit_command(
    ledger: Path = typer.Argument(..., help="ledger folder"),
    round_id: str = typer.Argument(..., help="round id (r-YYYY-MM-DD)"),
    kb: Path = typer.Option(
        ..., "--kb", help="KB (its clock decides the deadline; methods read it at the cutoff)"
    ),
    method: str | None = typer.Option(
        None, "--method", "-m", help="shipped method, plug-in, module:object or http(s):// agent URL"
    ),
    answers: Path | None = typer.Option(None, "--answers", help="forecasts.jsonl made elsewhere"),
    task_answers: Path | None = typer.Option(
        None, "--task-answers", help="family-task answers (answers.jsonl rows) made elsewhere"
    ),
    name: str | None = typer.Option(None, "--name", help="name on the board (default: the method's)"),
    inspect_log: Path | None = typer.Option(
        None, "--inspect-log", help="inspect eval log made on the round's tasks (`rounds inspect-task`)"
    ),
    trust_plugin: bool = typer.Option(False, "--trust-plugin", help="run a plug-in in-process"),
    engine: str | None = typer.Option(None, "--engine", help=ENGINE_HELP),
) -> None:
    """Answer a round; refused after its deadline; a resubmission is a new version.

    Examples:

        foresci rounds submit ledger r-2025-06-30 --kb kb --method trend

        foresci rounds submit ledger r-2025-06-30 --kb kb --method native --engine ray   # jobs on Ray

        foresci rounds submit ledger r-2025-06-30 --kb kb --inspect-log logs/x.eval --name my-agent
    """
    from foresci.core.errors import UserError
    from foresci.core.pythonpath import shadowing_files, shadowing_message
    from foresci.core.settings import Settings
    from foresci.engines import with_engine
    from foresci.methods.wall import protect
    from foresci.rounds.submit import submit

    shadowing = shadowing_files()
    if shadowing:  # that code already ran in this process: go no further with the ledger and the KB
        raise UserError(shadowing_message(shadowing))
    settings = with_engine(Settings(), engine)
    job_engine = None
    if settings.runtime.engine == "ray" and method is not None:
        from foresci.engines.answers import RayJobEngine

        job_engine = RayJobEngine(kb)
    opened, view_for = _kb_and_view(kb)
    for folder in (ledger, kb):
        protect(folder)
    if name is None and method is not None:
        name = url_method_name(method)
        if name is not None:
            typer.echo(f"the agent at {method} goes on the board as {name} (--name NAME to choose)")
    version = submit(
        ledger,
        round_id,
        opened,
        method=method,
        answers=answers,
        task_answers=task_answers,
        name=name,
        view_for=view_for,
        trust_plugin=trust_plugin,
        inspect_log=inspect_log,
        settings=settings,
        engine=job_engine,
    )
    typer.echo(submission_line(version))


@app.command("inspect-task")
def inspect_task_command(
    ledger: Path = typer.Argument(..., help="ledger folder"),
    round_id: str = typer.Argument(..., help="round id (r-YYYY-MM-DD)"),
    out: Path = typer.Option(Path("foresci_round.py"), "--out", help="the task file to write"),
    kb: Path | None = typer.Option(None, "--kb", help="KB folder the tools search; none: no tools"),
) -> None:
    """Write an inspect task file of a round's family tasks (then `rounds submit --inspect-log LOG`).

    Example:

        foresci rounds inspect-task ledger r-2025-06-30 --kb kb --out round.py

        inspect eval round.py --model openai/gpt-4o-mini --log-dir logs
    """
    from foresci.rounds.inspect_round import write_task_file
    from foresci.rounds.ledger import round_dir
    from foresci.rounds.submit import round_tasks

    written = write_task_file(ledger, round_id, out, kb)
    count = len(round_tasks(round_dir(ledger, round_id)))
    typer.echo(f"wrote {written}: an inspect task of round {round_id}'s {count} family tasks"
               + ("" if kb else " (no --kb: the model gets no KB tools)"))
    typer.echo(f"run: inspect eval {written} --model MODEL --log-dir logs, then: foresci rounds submit "
               f"{ledger} {round_id} --kb KB --inspect-log LOG --name NAME")


@app.command("tick")
def tick_command(
    ledger: Path = typer.Argument(..., help="ledger folder"),
    kb: Path = typer.Option(..., "--kb", help="the KB after its latest `kb update`"),
) -> None:
    """Do whatever is due: open the scheduled round, close, resolve, score, update the board."""
    from foresci.rounds.tick import tick

    opened, view_for = _kb_and_view(kb)
    actions = tick(ledger, opened, view_for=view_for)
    typer.echo("\n".join(actions) if actions else "nothing due")


@app.command("site")
def site_command(
    ledger: Path = typer.Argument(..., help="ledger folder"),
    out: Path = typer.Option(..., "--out", help="site folder to write"),
) -> None:
    """Write the static leaderboard site (HTML + SVG + CSV/JSON)."""
    from foresci.rounds.site import build_site

    typer.echo(f"wrote {build_site(ledger, out)}")


@app.command("show")
def show_command(ledger: Path = typer.Argument(..., help="ledger folder")) -> None:
    """Print the board summary as JSON."""
    from foresci.rounds.tick import summary

    typer.echo(json.dumps(summary(ledger), indent=2, sort_keys=True))
