"""CLI: ``foresci eval RUNDIR`` scores a run; ``foresci report RUNDIR... --out DIR`` writes the report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from foresci.core.errors import UserError, user_error_from
from foresci.engines import ENGINE_HELP, with_engine


def eval_command(
    run_dir: Path = typer.Argument(..., help="run folder with answers.jsonl (from `foresci run`)"),
    release: Path | None = typer.Option(
        None, "--release", help="release folder; default: the run manifest's"
    ),
    kb: Path | None = typer.Option(
        None, "--kb", help="KB folder to check citations against (default: the run's KB, if it still exists)"
    ),
    offline: bool = typer.Option(
        False, "--offline", help="no LLM judge: deterministic metrics and the *_offline approximations only"
    ),
    family: str = typer.Option("all", "--family", help="leaderboard family printed at the end"),
    retry_errors: bool = typer.Option(
        False,
        "--retry-errors",
        help="ask the judges again where an earlier evaluation recorded an unusable judge output "
        "(by default kept: at temperature 0 the same request fails the same way)",
    ),
    engine: str | None = typer.Option(None, "--engine", help=ENGINE_HELP),
) -> None:
    """Score a run's answers against the hidden targets; write RUNDIR/scores.jsonl and summary.json.

    Metrics: Fact (judged claim F1), FTA (reference-guided or ranking-aware), Trace, Pers, plus the
    offline approximations under their own names (fact_offline, fta_offline_claims, trace_offline), and
    CRPS / coverage / Brier for forecast answers. Finished rows are reused only while the answer, the task's
    public and hidden rows, the judge prompts and the settings are unchanged, so a re-run makes no model
    calls. Every id an answer cites is checked against the KB at the task cutoff. Exits non-zero when the
    release has no hidden targets (scores untouched), or when no row (or no judge call) succeeded.

    Examples:

        foresci eval workspace/runs/demo --offline

        FORESCI_LLM__BASE_URL=http://127.0.0.1:8000/v1 foresci eval workspace/runs/aris --release rel/

        foresci eval workspace/runs/aris --retry-errors

        RAY_ADDRESS=auto foresci eval workspace/runs/aris --engine ray   # judge calls on a Ray cluster
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from foresci.core.io import read_json, write_json
    from foresci.core.settings import Settings
    from foresci.evaluation.runner import evaluate_run
    from foresci.evaluation.summary import leaderboard_legend, leaderboard_tables

    settings = with_engine(Settings(), engine)
    console = Console()
    with Progress(
        TextColumn("[bold]evaluating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        bar = progress.add_task("score", total=None)

        def report(_: str, done: int, total: int) -> None:
            progress.update(bar, completed=done, total=total)

        try:
            summary_path = evaluate_run(
                run_dir, release, settings, offline, progress=report, kb=kb, retry_errors=retry_errors
            )
        except (FileNotFoundError, ValueError, RuntimeError) as error:
            raise user_error_from(error) from error
    summary = read_json(summary_path)
    if kb is not None:
        summary["kb"] = str(kb)
        write_json(summary_path, summary)
    for table in leaderboard_tables(summary, family, width=console.width):
        console.print(table)
    if legend := leaderboard_legend(summary, family):
        console.print(legend, style="dim", markup=False, highlight=False)
    from foresci.evaluation.forecast_table import forecast_table

    forecasts = forecast_table(summary)
    if forecasts is not None:
        console.print(forecasts)
    bulk = summary.get("emergence") or {}
    if bulk.get("rows") or bulk.get("note"):
        console.print(bulk.get("note") or f"bulk link prediction: AUC and precision@k of "
                      f"{len({row['method'] for row in bulk['rows']})} method(s) in {len(bulk['rows'])} rows "
                      "(summary.json: emergence)", markup=False)
    counts = summary["counts"]
    console.print(
        f"{counts['scored']} rows scored, {counts['answer_errors']} answer errors, "
        f"{counts['missing_target']} without target, judge errors {counts['judge_errors'] or 'none'}; "
        f"reused {summary['reused_rows']} finished rows in {summary['elapsed_s']} s -> {summary_path}"
    )
    if summary.get("kept_judge_failures"):
        console.print(
            f"{summary['kept_judge_failures']} row(s) keep judge failures of the earlier evaluation "
            "(unusable output at temperature 0); --retry-errors asks again"
        )
    if counts.get("evidence_none") or counts.get("unknown_citations") or counts.get("after_cutoff_citations"):
        console.print(
            f"{counts.get('evidence_none', 0)} answers read no paper (evidence: none); citations: "
            f"{counts.get('unknown_citations', 0)} unknown, "
            f"{counts.get('after_cutoff_citations', 0)} after the cutoff"
        )
    if counts.get("citations_not_checked"):
        reason = summary.get("citations_not_checked") or "citations not checked (no KB)"
        console.print(f"{counts['citations_not_checked']} answer(s) with support: {reason}", markup=False)
    failure = evaluation_failure(counts, offline)
    if failure:
        console.print(f"[red]error:[/red] {failure}")
        raise typer.Exit(code=1)


def evaluation_failure(counts: dict[str, Any], offline: bool) -> str | None:
    """Why an evaluation counts as failed (no row scored, or every judge call failed), else None."""
    if counts["rows"] and not counts["scored"]:
        return f"none of the {counts['rows']} rows could be scored"
    judge_failures = sum(counts.get("judge_errors", {}).values())
    if not offline and counts["scored"] and judge_failures and not counts.get("judged_ok"):
        return (
            f"every judge call failed ({judge_failures} judge errors); the scores hold offline metrics only"
        )
    return None


def report_command(
    run_dirs: list[Path] = typer.Argument(..., help="one or more evaluated run folders"),
    out: Path = typer.Option(Path("report"), "--out", help="output folder for index.html, report.md, PNGs"),
    taxonomy: list[Path] = typer.Option([], "--taxonomy", help="taxonomy folder(s) for growth plots"),
) -> None:
    """Write a static HTML report (and report.md) from evaluated runs.

    The report has the leaderboard per family and backbone, the low-score heatmap, forecast reliability
    and coverage plots, taxonomy growth plots (with --taxonomy) and a drill-down per task.

    Examples:

        foresci report workspace/runs/demo --out workspace/report

        foresci report runs/native runs/aris --out report --taxonomy workspace/taxonomy/llm_agents
    """
    from rich.console import Console

    from foresci.core.io import read_json
    from foresci.core.settings import Settings
    from foresci.evaluation.report import write_report
    from foresci.evaluation.summary import leaderboard_legend, leaderboard_tables

    console = Console()
    with console.status("writing the report"):
        try:
            index = write_report(run_dirs, out, Settings(), taxonomy_dirs=tuple(taxonomy))
        except (FileNotFoundError, ValueError, UserError) as error:
            raise user_error_from(error) from error
    pooled = read_json(index.parent / "summary.json")
    for table in leaderboard_tables(pooled, "all", width=console.width):
        console.print(table)
    if legend := leaderboard_legend(pooled, "all"):
        console.print(legend, style="dim", markup=False, highlight=False)
    from foresci.evaluation.forecast_table import forecast_table

    forecasts = forecast_table(pooled)
    if forecasts is not None:
        console.print(forecasts)
    for note in pooled.get("notes", []):
        console.print(f"note: {note}")
    from foresci.evaluation.paired import paired_lines

    for line in paired_lines(pooled.get("paired", [])):
        console.print(f"paired: {line}", markup=False)
    console.print(f"report written: {index}")
