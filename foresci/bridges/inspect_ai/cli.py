"""``foresci inspect``: run a foresci release under inspect_ai, and import an inspect log's answers.

Needs the optional extra: ``pip install 'foresci[inspect]'`` (inspect_ai).
"""

from __future__ import annotations

from pathlib import Path

import typer

from foresci.core.errors import UserError

app = typer.Typer(
    name="inspect",
    no_args_is_help=True,
    help=(
        "Run a release under inspect_ai and import inspect logs as foresci runs.\n\n"
        "Needs pip install 'foresci\\[inspect]'. The release becomes an inspect Task (public tasks as "
        "samples, the KB tools as inspect tools at each task's cutoff, foresci's offline metrics as the "
        "scorer); an inspect log's answers become rows of a run folder for `foresci eval`/`report`.\n\n"
        "Typical loop:\n\n"
        "  foresci inspect task work/release --kb work/kb --out foresci_task.py\n\n"
        "  inspect eval foresci_task.py --model openai/gpt-4o-mini --log-dir logs\n\n"
        "  foresci inspect import logs/*.eval --release work/release --out work/runs/inspect --label gpt\n\n"
        "  foresci eval work/runs/inspect --offline && foresci report work/runs/inspect --out work/report"
    ),
)

TASK_FILE = '''"""The foresci release {release} as an inspect task (written by `foresci inspect task`).

    inspect eval {name} --model openai/gpt-4o-mini --log-dir logs     # any inspect model
    inspect eval {name} --model foresci/scripted --limit 2            # offline smoke test
    inspect view --log-dir logs                                        # browse samples, tools, scores
    foresci inspect import logs/LOG.eval --release {release} --out runs/inspect
"""

from inspect_ai import Task, task

from foresci.bridges.inspect_ai.task import release_task


@task
def foresci_release() -> Task:
    """Public tasks as samples, KB tools at each cutoff, foresci's offline metrics as the scorer."""
    return release_task({release!r}, kb={kb!r}, families={families!r})
'''


def _require_inspect() -> None:
    try:
        import inspect_ai  # noqa: F401
    except ImportError as error:
        raise UserError("the inspect bridge needs inspect_ai: pip install 'foresci[inspect]'") from error


def _release_dir(release: Path) -> Path:
    if not (release / "tasks.jsonl").is_file():
        raise UserError("no tasks.jsonl: give a release folder (`foresci tasks build --out`)",
                        path=release / "tasks.jsonl")
    return release


@app.command("task")
def task_command(
    release: Path = typer.Argument(..., help="release folder (tasks.jsonl, hidden.jsonl for the scorer)"),
    kb: Path | None = typer.Option(None, "--kb", help="KB folder the tools search; none: no tools"),
    out: Path = typer.Option(Path("foresci_task.py"), "--out", help="the task file to write"),
    family: list[str] = typer.Option([], "--family", help="only these task families (repeatable; "
                                     "`forecast`: the forecast questions)"),
) -> None:
    """Write an inspect task file for RELEASE, to run with `inspect eval FILE --model M`.

    The task's samples are the public tasks (brief, answer contract and JSON schema; never a target),
    its setup solver gives each sample the KB tools search_papers, get_paper, related_papers and
    timeline bound to the task's cutoff and tool budget, its solver is generate() (replace it with
    --solver or any agent: the setup still runs) and its scorer computes foresci's offline metrics
    (top_choice, fta, fact_offline, trace_offline, ...) against the hidden targets. A release built with
    --forecast N adds its forecast questions as samples, scored with CRPS, Brier and coverage.

    Examples:

        foresci inspect task work/release --kb work/kb --out foresci_task.py

        inspect eval foresci_task.py --model openai/gpt-4o-mini --log-dir logs --limit 10
    """
    _require_inspect()
    release = _release_dir(release)
    text = TASK_FILE.format(release=str(release.resolve()), name=out.name,
                            kb=str(kb.resolve()) if kb is not None else None, families=list(family) or None)
    out.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {out}; run: inspect eval {out} --model MODEL --log-dir logs")


@app.command("eval")
def eval_command(
    release: Path = typer.Argument(..., help="release folder (tasks.jsonl, hidden.jsonl for the scorer)"),
    model: str = typer.Option(
        ..., "--model", help="inspect model, e.g. openai/gpt-4o-mini, foresci/scripted (offline)"
    ),
    kb: Path | None = typer.Option(None, "--kb", help="KB folder the tools search; none: no tools"),
    log_dir: Path = typer.Option(Path("logs"), "--log-dir", help="where inspect writes its log"),
    limit: int | None = typer.Option(None, "--limit", help="only the first N tasks"),
    family: list[str] = typer.Option([], "--family", help="only these task families (repeatable; "
                                     "`forecast`: the forecast questions)"),
    import_to: Path | None = typer.Option(None, "--import-to", help="also import the answers into this "
                                          "run folder (as `foresci inspect import` does)"),
    label: str | None = typer.Option(None, "--label", help="run label of the imported rows"),
) -> None:
    """Run RELEASE under inspect_ai with MODEL in this process (inspect's eval()) and print its scores.

    The same task as `foresci inspect task` writes; the log lands in --log-dir and opens in
    `inspect view`. With --import-to the answers become rows of method `inspect` in that run folder.

    Examples:

        foresci inspect eval work/release --kb work/kb --model foresci/scripted --limit 2

        foresci inspect eval work/release --kb work/kb --model openai/gpt-4o-mini --import-to runs/gpt
    """
    _require_inspect()
    from inspect_ai import eval as inspect_eval

    from foresci.bridges.inspect_ai.task import release_task

    release = _release_dir(release)
    if model.startswith("foresci/"):  # registered by entry point; imported here too (an older install)
        import foresci.bridges.inspect_ai.scripted  # noqa: F401
    try:
        task = release_task(release, kb=kb, families=list(family) or None, limit=limit)
    except (ValueError, UserError) as error:
        raise UserError(str(error)) from error
    log = inspect_eval(task, model=model, log_dir=str(log_dir), display="none")[0]
    typer.echo(f"inspect log ({log.status}): {log.location}")
    for score in (log.results.scores if log.results else []):
        values = ", ".join(f"{name} {metric.value:.3f}" for name, metric in score.metrics.items())
        typer.echo(f"  {score.name}: {values} over {score.scored_samples} sample(s)")
    if log.status != "success":
        raise UserError(f"the inspect eval ended {log.status}: {log.error.message if log.error else ''}")
    if import_to is not None:
        _import(Path(log.location), release, import_to, "inspect", label, None, kb, 1)


def _import(log: Path, release: Path, out: Path, method: str, label: str | None, version: str | None,
            kb: Path | None, epoch: int) -> None:
    from foresci.bridges.inspect_ai.log_import import import_log

    summary = import_log(log, release, out, method=method, label=label, version=version, kb=kb, epoch=epoch)
    skipped = f"; {len(summary.skipped)} sample(s) not in the release skipped" if summary.skipped else ""
    files = [f"{out / 'answers.jsonl'}"] if summary.rows > summary.forecasts else []
    files += [f"{out / 'forecasts.jsonl'} ({summary.forecasts} forecast(s))"] if summary.forecasts else []
    typer.echo(f"imported {summary.rows} answer(s) ({summary.errors} errors) of {summary.method} "
               f"@{summary.version} · {summary.model} into {' and '.join(files)}{skipped}; next: "
               f"foresci eval {out} --offline")


@app.command("import")
def import_command(
    log: Path = typer.Argument(..., help="inspect eval log (.eval or .json) of a foresci release task"),
    release: Path = typer.Option(..., "--release", help="the release the log's samples come from"),
    out: Path = typer.Option(..., "--out", help="run folder to write answers.jsonl and manifest.json to"),
    method: str = typer.Option("inspect", "--method", help="method name of the imported rows"),
    label: str | None = typer.Option(None, "--label", help="run label (reports key rows by it)"),
    version: str | None = typer.Option(
        None, "--version", help="the rows' version; default: inspect: + a hash of the log's task, solver "
        "plan and generation config (two agents or settings never merge in a report)"),
    kb: Path | None = typer.Option(None, "--kb", help="KB that `foresci eval` checks citations against; "
                                   "default: the one the log's task used"),
    epoch: int = typer.Option(1, "--epoch", help="which epoch's samples to import"),
) -> None:
    """Import the answers of an inspect LOG into a foresci run folder, for `foresci eval` and `report`.

    Each sample's final reply is read as the task family's JSON answer (bare or {"answer": ...}), checked
    against the task contract and stored with the papers its KB tools returned as support; a sample
    inspect recorded as failed becomes an error row. Rows carry the method, the log's model, --label and
    the version; re-importing replaces rows of the same version only.

    Examples:

        foresci inspect import logs/2025-01-01T00-00-00_foresci-release_x.eval --release work/release \\
            --out work/runs/inspect --label gpt4o

        foresci eval work/runs/inspect --offline
    """
    _require_inspect()
    release = _release_dir(release)
    _import(log, release, out, method, label, version, kb, epoch)
