"""CLI: ``foresci run`` — answer a release's tasks with one or more methods."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from foresci.engines import ENGINE_HELP, with_engine

if TYPE_CHECKING:
    from foresci.methods.runner import RunSummary

# what `foresci eval` writes into a run folder: it holds hidden targets (judge prompts, scores)
JUDGED_OUTPUTS = ("scores.jsonl", "judge_transcripts.jsonl", "summary.json")


def run_command(
    release: Path = typer.Argument(
        ..., help="release folder with tasks.jsonl and/or forecast.jsonl, or a forecast package (only "
        "the public side is read)", show_default=False
    ),
    out: Path = typer.Option(..., "--out", help="run folder; answers.jsonl is appended and resumed here"),
    kb: Path | None = typer.Option(None, "--kb", help="knowledge base folder (needed by all but native)"),
    method: list[str] = typer.Option(
        [], "--method", "-m",
        help="method to run (repeatable): a shipped method (listed below), an installed plug-in "
        "(entry point group foresci.methods), a module:object reference, or an http(s):// agent URL",
    ),
    methods: str | None = typer.Option(
        None, "--methods", help="'all' (every shipped method) or a comma list of methods"
    ),
    model: list[str] = typer.Option(
        [], "--model", help="backbone name (repeatable); default settings.llm.model"
    ),
    mode: str = typer.Option(
        "full", "--mode", help="'full' or 'name_only' (question + candidate names only)"
    ),
    limit: int | None = typer.Option(
        None, "--limit", min=0, help="answer only the first N tasks and first N forecast questions (0: none)"
    ),
    retry_errors: bool = typer.Option(False, "--retry-errors", help="drop error rows and try them again"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar"),
    engine: str | None = typer.Option(None, "--engine", help=ENGINE_HELP),
    label: str | None = typer.Option(
        None, "--label", help="name this run's rows (leaderboards, reports and summaries key rows by label, "
        "method, version, model and mode)",
    ),
    new_version: bool = typer.Option(
        False, "--new-version",
        help="a method answered into --out before under another version (an edited plug-in, an upgraded "
        "agent): add this version's rows beside the old ones instead of refusing",
    ),
    trust_plugin: bool = typer.Option(
        False, "--trust-plugin",
        help="run plug-in methods inside foresci's process (faster start, behind a wall that stops "
        "mistakes, not deliberate escapes) instead of each task in its own bubblewrap sandbox; only for code "
        "you trust",
    ),
) -> None:
    """Answer a release's tasks with answering methods; resumable (rerun the same command after a crash).

    Every task is checked first (cutoff before the window, known family, a domain of the KB, unique ids);
    a bad release is refused before any answer. A task that fails becomes an error row and the run goes
    on; a rerun keeps error rows (--retry-errors asks again) and says how many stand, and the command
    exits non-zero while every row it covers stands as an error. One run per --out folder at
    a time, and a folder answered under other settings or prompts is refused. Each row records its
    method's version (a plug-in's source hash or declared version, an HTTP agent's /info version or URL);
    a method edited since it answered into --out is refused unless --new-version.

    Examples:

      foresci run releases/demo --kb kb/demo --method trend --method persistence --out runs/demo

      FORESCI_LLM__BASE_URL=http://127.0.0.1:8000/v1 foresci run releases/demo --kb kb/demo \\
          --methods all --model qwen2.5-7b-instruct --out runs/demo

      foresci run releases/demo --method native --mode name_only --model gpt-4o-mini --out runs/names

      foresci run releases/demo --kb kb/demo --method plugins/my_agent.py:first_option --out runs/mine

      foresci run releases/demo --method http://127.0.0.1:8765/ --out runs/http

      foresci run packages/2026-q1 --kb kb/today --methods all --out runs/pkg   # a forecast package

    Forecast questions (a release's forecast.jsonl, or a package from `foresci forecast package`) are
    answered by every chosen method into forecasts.jsonl: p10/p50/p90 for numeric questions, a probability
    for binary ones.

      RAY_ADDRESS=auto foresci run releases/demo --kb kb/demo --methods all --model a --model b \\
          --out runs/demo --engine ray     # jobs spread over a Ray cluster; this process writes the rows

    A plug-in (path/to/agent.py:function, a package folder path/to/agent:function, an installed entry
    point or package.module:object) runs each task in its own process, confined by bubblewrap (Linux:
    apt-get install bubblewrap) and limited in time, CPU, memory, processes, /tmp and output (settings
    sandbox.*): it sees the public task and reaches the KB and the model only through foresci's tool
    channel. foresci never imports it; a PYTHONPATH holding a module named like one foresci uses (or a
    sitecustomize.py) is refused. --trust-plugin runs it inside foresci instead.

    LLM methods: native, hybrid_rag, coi, research_agent, aris (endpoint from FORESCI_LLM__BASE_URL).
    Non-LLM methods: trend, persistence. Your own method: path/to/agent.py:function, an installed plug-in
    (entry point group foresci.methods), package.module:object, or an HTTP agent URL (README: Benchmark
    your own agent; foresci schema export DIR writes the answer schemas). Each row of answers.jsonl carries
    contamination_risk: true when the backbone's knowledge cutoff (agents/models.yaml) is after the task's
    cutoff, or the model is unknown.
    """
    from rich.console import Console

    from foresci.agents.checks import check_questions, check_tasks
    from foresci.core.errors import UserError
    from foresci.core.locks import artifact_lock
    from foresci.core.pythonpath import shadowing_files, shadowing_message
    from foresci.core.settings import Settings
    from foresci.methods import shipped_methods
    from foresci.methods.loading import MethodLoadError, resolve_method
    from foresci.methods.runner import RunRequest, answer_release
    from foresci.methods.wall import protect
    from foresci.tasks.release import load_release

    shadowing = shadowing_files()
    if shadowing:  # that code already ran in this process: refuse to go on with the release and the key
        raise UserError(shadowing_message(shadowing))
    console = Console(stderr=True)
    chosen = list(method)
    if methods:
        names = [item.strip() for item in methods.split(",") if item.strip()]
        chosen += shipped_methods() if names == ["all"] else names
    if not chosen:
        raise typer.BadParameter("give --method M (repeatable) or --methods all", param_hint="--method")
    if mode not in ("full", "name_only"):
        raise typer.BadParameter("expected 'full' or 'name_only'", param_hint="--mode")
    settings = with_engine(Settings(), engine)
    for folder in (release, kb, out, settings.cache_dir):
        if folder is not None:
            protect(folder)  # plug-ins never see the release, the KB, the run folder or the caches
    try:
        specs = [resolve_method(name, trust_plugin=trust_plugin, kb_tools=kb is not None,
                                settings=settings)
                 for name in dict.fromkeys(chosen)]
    except MethodLoadError as error:
        raise typer.BadParameter(error.message, param_hint="--method") from error
    in_process = [spec.name for spec in specs if not spec.shipped and not spec.isolated]
    judged = [name for name in JUDGED_OUTPUTS if (out / name).exists()]
    if in_process and judged:
        raise typer.BadParameter(
            f"{out} holds evaluation outputs ({', '.join(judged)}) that the in-process plug-in "
            f"{', '.join(in_process)} could read: run it into a new folder, or without --trust-plugin",
            param_hint="--out",
        )
    # a release holding only the bulk link-prediction set is scored from its public pair features
    from foresci.emergence.bulk import PUBLIC_FILE as BULK_PAIRS_FILE

    bulk_only = (release / BULK_PAIRS_FILE).exists() and all(
        not (release / name).exists() or (release / name).stat().st_size == 0
        for name in ("tasks.jsonl", "forecast.jsonl"))
    needs_kb = [spec.name for spec in specs if spec.needs_kb and (mode == "full" or not spec.uses_llm)
                and not bulk_only]
    if needs_kb and kb is None:
        raise typer.BadParameter(
            f"{', '.join(needs_kb)} read the knowledge base: give --kb KB", param_hint="--kb"
        )
    wanting_llm = [spec.name for spec in specs if spec.uses_llm]
    if wanting_llm and not settings.llm.configured:
        raise typer.BadParameter(
            f"{', '.join(wanting_llm)} {'needs' if len(wanting_llm) == 1 else 'need'} an LLM endpoint: "
            "set FORESCI_LLM__BASE_URL "
            "(or llm.base_url in --config)",
            param_hint="--method",
        )
    loaded = load_release(release)
    knowledge_base = None
    if kb is not None:
        from foresci.kb.store import KnowledgeBase

        knowledge_base = KnowledgeBase.open(kb, settings)
    known_domains = knowledge_base.domains if knowledge_base is not None else None
    check_tasks(loaded.tasks, release / "tasks.jsonl", domains=known_domains)
    check_questions(loaded.questions, release / "forecast.jsonl", domains=known_domains)
    tasks = loaded.tasks[:limit] if limit is not None else loaded.tasks
    view_factory = None
    if knowledge_base is not None:
        from foresci.kb.retrieve import KBView

        opened = knowledge_base

        def view_factory(cutoff):  # type: ignore[no-untyped-def]
            return KBView(opened, cutoff)

    job_engine = None
    if settings.runtime.engine == "ray":
        from foresci.engines.answers import RayJobEngine

        job_engine = RayJobEngine(kb)
    with artifact_lock(out):
        summary = answer_release(RunRequest(
            tasks=tasks, out=out, settings=settings, methods=[spec.name for spec in specs], models=model,
            mode=mode,  # type: ignore[arg-type]
            view_factory=view_factory, progress=progress, retry_errors=retry_errors,
            questions=loaded.questions[:limit] if limit is not None else loaded.questions,
            engine=job_engine, label=label, new_version=new_version))
        from foresci.emergence.run_scores import write_emergence_scores

        bulk = write_emergence_scores(release, out, [spec.name for spec in specs if mode == "full"],
                                      view_factory, label)  # a release's bulk link-prediction set
        write_run_manifest(out, release, kb, settings, [spec.name for spec in specs], model, mode)
    console.print(
        f"[bold]run[/bold] {out}: {summary.answered} answered, {summary.errors} errors, "
        f"{summary.done_before} already done, {summary.forecasts} forecasts "
        f"({summary.forecast_errors} errors)"
    )
    if summary.evidence_none:
        console.print(evidence_none_line(summary.evidence_none, summary.evidence_none_by), markup=False)
    if job_engine is not None and job_engine.lost:
        console.print(
            f"[yellow]{len(job_engine.lost)} jobs lost with their Ray workers (nothing written; rerun to "
            f"answer them)[/yellow]: {job_engine.lost[0]}"
        )
    if bulk is not None:
        scored = ", ".join(f"{name} {count}" for name, count in bulk.scored.items()) or "none new"
        console.print(f"  bulk link-prediction pairs scored: {scored}"
                      + (f" (kept: {', '.join(bulk.kept)})" if bulk.kept else ""))
        for problem in bulk.problems:
            console.print(f"  bulk set: {problem}", markup=False)
    if summary.skipped:
        console.print(f"  skipped {', '.join(summary.skipped)}: non-LLM methods have no name-only mode")
    for name, usage in summary.usage.items():
        console.print(
            f"  {name}: {usage['calls']} calls, {usage['prompt_tokens']} prompt tokens, "
            f"{usage['cache_hits']} cache hits"
        )
    for count, total, file in ((summary.standing_errors, summary.rows, "answers.jsonl"),
                               (summary.forecast_standing_errors, summary.forecast_rows, "forecasts.jsonl")):
        if count:
            console.print(retry_hint(count, total, out / file, retry_errors), markup=False, soft_wrap=True)
    if failed(summary):
        raise typer.Exit(code=1)


def retry_hint(count: int, total: int, path: Path, retried: bool) -> str:
    """The line that says how many error rows stand in ``path`` and how to ask again (a rerun keeps
    them: resuming never re-asks a task that failed, see :func:`failed`)."""
    head = "error: none" if count == total else "warning:"
    what = f"of the {total} rows succeeded" if count == total else f"{count} of {total} rows are errors"
    how = ("they failed again" if retried else
           "a rerun keeps them; add --retry-errors to the same command to ask again")
    return f"{head} {what} ({path}); {how}"


def failed(summary: RunSummary) -> bool:
    """Whether ``foresci run`` exits 1: every row of the command stands as an error (task rows, or, with
    none, forecast rows), whether this run or an earlier one wrote them, so rerunning a failed run without
    --retry-errors fails again instead of reporting "0 answered, 0 errors" and exiting 0."""
    if summary.rows:
        return summary.standing_errors == summary.rows
    return bool(summary.forecast_rows) and summary.forecast_standing_errors == summary.forecast_rows


def write_run_manifest(
    out: Path,
    release: Path,
    kb: Path | None,
    settings: object,
    methods: list[str],
    models: list[str],
    mode: str,
) -> None:
    """Write the run folder's manifest.json: release and KB inputs, methods, settings, row counts."""
    from foresci.agents.answers import read_answers, read_forecasts
    from foresci.core.artifacts import run_input_paths, sha256_file, write_manifest
    from foresci.llm.capabilities import llm_capabilities
    from foresci.methods.runner import ANSWERS_FILE, FORECASTS_FILE

    rows = read_answers(out / ANSWERS_FILE)
    forecasts = read_forecasts(out / FORECASTS_FILE)
    inputs = run_input_paths(out, "release", release)
    for name, key in (("tasks.jsonl", "tasks_sha256"), ("forecast.jsonl", "forecast_sha256")):
        if (release / name).is_file():
            inputs[key] = sha256_file(release / name)
    if kb is not None:
        inputs.update(run_input_paths(out, "kb", kb))
    config = {"methods": methods, "models": models, "mode": mode, "settings": settings.public_dump()}  # type: ignore[attr-defined]
    config["llm_capabilities"] = llm_capabilities(settings, rows)  # type: ignore[arg-type]
    counts = {
        "rows": len(rows),
        "ok": sum(row.status == "ok" for row in rows),
        "errors": sum(row.status == "error" for row in rows),
        "contamination_risk": sum(row.contamination_risk for row in rows),
        "evidence_none": sum(row.evidence == "none" for row in rows),
        "forecasts": len(forecasts),
        "forecast_errors": sum(row.status == "error" for row in forecasts),
    }
    from foresci.emergence.run_scores import SCORES_FILE

    files = [name for name in (ANSWERS_FILE, FORECASTS_FILE, SCORES_FILE) if (out / name).is_file()]
    write_manifest(out, "run", inputs=inputs, config=config, files=files, counts=counts)


def evidence_none_line(total: int, by: dict[str, int]) -> str:
    """The run's line about answers that read no paper: how many, by method/family (most first), and the
    two causes (a method answering from what the task itself states, e.g. the link measures of
    concept-emergence pairs, reads none by design; else the cutoff is before the KB or the domain empty)."""
    ordered = sorted(by.items(), key=lambda item: (-item[1], item[0]))
    parts = ", ".join(f"{key} {count}" for key, count in ordered)
    return (f"  {total} answers read no paper (evidence: none){': ' + parts if parts else ''}. A method "
            "that answers from what the task states (e.g. the link measures of concept-emergence pairs) "
            "reads none by design; otherwise the cutoff is before the KB or the domain is empty")
