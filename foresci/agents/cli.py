"""CLI: ``foresci run`` — answer a release's tasks with one or more methods."""

from __future__ import annotations

from pathlib import Path

import typer


def run_command(
    release: Path = typer.Argument(
        ..., help="release folder with tasks.jsonl (only its public side is read)", show_default=False
    ),
    out: Path = typer.Option(..., "--out", help="run folder; answers.jsonl is appended and resumed here"),
    kb: Path | None = typer.Option(None, "--kb", help="knowledge base folder (needed by all but native)"),
    method: list[str] = typer.Option(
        [], "--method", "-m",
        help="method to run (repeatable): a shipped method (listed below), an installed plug-in "
        "(entry point group foresci.methods), package.module:object, or an http(s):// agent URL",
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
        None, "--limit", min=0, help="answer only the first N tasks (0 answers none)"
    ),
    retry_errors: bool = typer.Option(False, "--retry-errors", help="drop error rows and try them again"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar"),
) -> None:
    """Answer a release's tasks with answering methods; resumable (rerun the same command after a crash).

    Every task is checked first (cutoff before the window, known family, a domain of the KB, unique ids);
    a bad release is refused before any answer. A task that fails becomes an error row and the run goes
    on; the command exits non-zero when it attempted rows and none succeeded. One run per --out folder at
    a time, and a folder answered under other settings or prompts is refused.

    Examples:

      foresci run releases/demo --kb kb/demo --method trend --method persistence --out runs/demo

      FORESCI_LLM__BASE_URL=http://127.0.0.1:8000/v1 foresci run releases/demo --kb kb/demo \\
          --methods all --model qwen2.5-7b-instruct --out runs/demo

      foresci run releases/demo --method native --mode name_only --model gpt-4o-mini --out runs/names

    LLM methods: native, hybrid_rag, coi, research_agent, aris (endpoint from FORESCI_LLM__BASE_URL).
    Non-LLM methods: trend, persistence. Each row of answers.jsonl carries contamination_risk: true when the
    backbone's knowledge cutoff (agents/models.yaml) is after the task's cutoff, or the model is unknown.
    """
    from rich.console import Console

    from foresci.agents.checks import check_tasks
    from foresci.agents.runner import answer_release
    from foresci.locks import artifact_lock
    from foresci.methods import shipped_methods
    from foresci.methods.loading import MethodLoadError, resolve_method
    from foresci.methods.wall import protect
    from foresci.settings import Settings
    from foresci.tasks.release import load_release

    console = Console(stderr=True)
    chosen = list(method)
    if methods:
        names = [item.strip() for item in methods.split(",") if item.strip()]
        chosen += shipped_methods() if names == ["all"] else names
    if not chosen:
        raise typer.BadParameter("give --method M (repeatable) or --methods all", param_hint="--method")
    if mode not in ("full", "name_only"):
        raise typer.BadParameter("expected 'full' or 'name_only'", param_hint="--mode")
    try:
        specs = [resolve_method(name) for name in dict.fromkeys(chosen)]
    except MethodLoadError as error:
        raise typer.BadParameter(error.message, param_hint="--method") from error
    needs_kb = [spec.name for spec in specs if spec.needs_kb and (mode == "full" or not spec.uses_llm)]
    if needs_kb and kb is None:
        raise typer.BadParameter(
            f"{', '.join(needs_kb)} read the knowledge base: give --kb KB", param_hint="--kb"
        )
    settings = Settings()
    wanting_llm = [spec.name for spec in specs if spec.uses_llm]
    if wanting_llm and not settings.llm.configured:
        raise typer.BadParameter(
            f"{', '.join(wanting_llm)} need an LLM endpoint: set FORESCI_LLM__BASE_URL "
            "(or llm.base_url in --config)",
            param_hint="--method",
        )
    if not all(spec.shipped for spec in specs):
        protect(release)  # plug-ins may not open the release (hidden targets) or the KB files
        if kb is not None:
            protect(kb)
    loaded = load_release(release)
    knowledge_base = None
    if kb is not None:
        from foresci.kb.store import KnowledgeBase

        knowledge_base = KnowledgeBase.open(kb, settings)
    check_tasks(
        loaded.tasks,
        release / "tasks.jsonl",
        domains=knowledge_base.domains if knowledge_base is not None else None,
    )
    tasks = loaded.tasks[:limit] if limit is not None else loaded.tasks
    view_factory = None
    if knowledge_base is not None:
        from foresci.kb.retrieve import KBView

        opened = knowledge_base

        def view_factory(cutoff):  # type: ignore[no-untyped-def]
            return KBView(opened, cutoff)

    with artifact_lock(out):
        summary = answer_release(
            tasks,
            out,
            settings,
            [spec.name for spec in specs],
            list(model) or None,
            mode,  # type: ignore[arg-type]
            view_factory,
            progress,
            retry_errors,
            loaded.questions[:limit] if limit is not None else loaded.questions,
        )
        write_run_manifest(out, release, kb, settings, [spec.name for spec in specs], model, mode)
    console.print(
        f"[bold]run[/bold] {out}: {summary.answered} answered, {summary.errors} errors, "
        f"{summary.done_before} already done, {summary.forecasts} forecasts"
    )
    if summary.evidence_none:
        console.print(
            f"  {summary.evidence_none} answers read no paper (evidence: none): cutoff before the KB "
            "or an empty domain"
        )
    if summary.skipped:
        console.print(f"  skipped {', '.join(summary.skipped)}: non-LLM methods have no name-only mode")
    for name, usage in summary.usage.items():
        console.print(
            f"  {name}: {usage['calls']} calls, {usage['prompt_tokens']} prompt tokens, "
            f"{usage['cache_hits']} cache hits"
        )
    if summary.attempted and not summary.answered:
        console.print(
            f"[red]error:[/red] none of the {summary.attempted} rows succeeded; see {out / 'answers.jsonl'}"
        )
        raise typer.Exit(code=1)


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
    from foresci.agents.answers import read_answers
    from foresci.agents.runner import ANSWERS_FILE
    from foresci.artifacts import sha256_file, write_manifest
    from foresci.llm.capabilities import llm_capabilities

    rows = read_answers(out / ANSWERS_FILE)
    inputs = {"release": str(release), "tasks_sha256": sha256_file(release / "tasks.jsonl")}
    if kb is not None:
        inputs["kb"] = str(kb)
    config = {"methods": methods, "models": models, "mode": mode, "settings": settings.public_dump()}  # type: ignore[attr-defined]
    config["llm_capabilities"] = llm_capabilities(settings, rows)  # type: ignore[arg-type]
    counts = {
        "rows": len(rows),
        "ok": sum(row.status == "ok" for row in rows),
        "errors": sum(row.status == "error" for row in rows),
        "contamination_risk": sum(row.contamination_risk for row in rows),
        "evidence_none": sum(row.evidence == "none" for row in rows),
    }
    write_manifest(out, "run", inputs=inputs, config=config, files=[ANSWERS_FILE], counts=counts)
